// SPDX-License-Identifier: Apache-2.0
// Configuration from settings (QSimbaSettings) and declarative leader work (QSimbaScheduler),
// two clients on one in-memory store.
#include "qsimba.h"
#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"
#include "qsimbascheduler.h"
#include "qsimbasettings.h"

#include <QtCore/QDir>
#include <QtCore/QProcess>
#include <QtCore/QSettings>
#include <QtCore/QTemporaryDir>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {

template<typename F>
QString errorOf(F &&f)
{
    try {
        f();
    } catch (const QSimbaError &e) {
        return e.message();
    }
    return QStringLiteral("<no error>");
}

// Sets an environment variable for one scope.
class EnvGuard
{
public:
    EnvGuard(const char *name, const QByteArray &value) : m_name(name) { qputenv(name, value); }
    ~EnvGuard() { qunsetenv(m_name); }

private:
    const char *m_name;
};

std::unique_ptr<QSimba> client(const QString &store)
{
    return QSimba::builder()
        .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store))
        .config(QSimbaConfig::builder().leaseDuration(2s).build())
        .build();
}

} // namespace

// Leader work declared on slots, as @SimbaScheduled / @SimbaPartitioned are on methods.
class ReportJobs : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("SimbaScheduled:generate", "name=${QSIMBA_TEST_JOB:settings.report}; fixedDelay=20ms; initialDelay=PT0S")
    Q_CLASSINFO("SimbaPartitioned:bill", "group=settings.billing; partitions=6; fixedRate=20ms")
public:
    QList<qint64> tokens;       // generate(): the term of each run
    QList<bool> valid;          // generate(): whether the term was valid during the run
    QMap<int, qint64> billed;   // bill(): partition -> token of the latest run
    int runsOutsideTerm = 0;

public Q_SLOTS:
    void generate(const QSimbaTerm &term)
    {
        Q_ASSERT(thread() == QThread::currentThread());
        tokens << term.token();
        valid << term.isValid();
    }
    void bill(const QSimbaTerm &term, int partition)
    {
        if (!term.isValid())
            ++runsOutsideTerm;
        billed[partition] = term.token();
    }
};

class BadJobs : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("SimbaScheduled:missing", "name=x; fixedDelay=1s")
public Q_SLOTS:
    void other() {}
};

class BothDelays : public QObject
{
    Q_OBJECT
    Q_CLASSINFO("SimbaScheduled:run", "name=x; fixedDelay=1s; fixedRate=2s")
public Q_SLOTS:
    void run() {}
};

class tst_Settings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void isoDurations_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("ms"); // -1: malformed
        QTest::newRow("PT1M") << "PT1M" << qint64(60000);
        QTest::newRow("PT0.5S") << "PT0.5S" << qint64(500);
        QTest::newRow("lower case") << "pt10s" << qint64(10000);
        QTest::newRow("P1DT2H") << "P1DT2H" << qint64((24 + 2) * 3600000LL);
        QTest::newRow("PT1H30M") << "PT1H30M" << qint64(90 * 60000);
        QTest::newRow("P alone") << "P" << qint64(-1);
        QTest::newRow("PT alone") << "PT" << qint64(-1);
        QTest::newRow("P1DT") << "P1DT" << qint64(-1);
        QTest::newRow("unit") << "PT1X" << qint64(-1);
        QTest::newRow("spring form") << "500ms" << qint64(500);
    }
    void isoDurations()
    {
        QFETCH(QString, text);
        QFETCH(qint64, ms);
        const auto parsed = QSimbaDuration::parse(text);
        if (ms < 0) {
            QVERIFY2(!parsed, qPrintable(text));
        } else {
            QVERIFY2(parsed, qPrintable(text));
            QCOMPARE(std::chrono::duration_cast<std::chrono::milliseconds>(*parsed).count(), ms);
        }
    }

    void environmentVariableNames()
    {
        QCOMPARE(QSimbaSettings::environmentVariable(QStringLiteral("backend")), QStringLiteral("SIMBA_BACKEND"));
        QCOMPARE(QSimbaSettings::environmentVariable(QStringLiteral("leaseDuration")),
                 QStringLiteral("SIMBA_LEASE_DURATION"));
        QCOMPARE(QSimbaSettings::environmentVariable(QStringLiteral("scheduling/enabled")),
                 QStringLiteral("SIMBA_SCHEDULING_ENABLED"));
    }

    void environmentOverrides()
    {
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/backend"), QStringLiteral("memory://from-file"));
        settings.setValue(QStringLiteral("simba/leaseDuration"), QStringLiteral("3s"));
        QCOMPARE(QSimbaSettings::backendUrl(settings), QStringLiteral("memory://from-file"));
        QCOMPARE(QSimbaSettings::config(settings).leaseDuration(), 3s);
        {
            EnvGuard backend("SIMBA_BACKEND", "memory://from-env");
            EnvGuard lease("SIMBA_LEASE_DURATION", "PT6S");
            QCOMPARE(QSimbaSettings::backendUrl(settings), QStringLiteral("memory://from-env"));
            QCOMPARE(QSimbaSettings::config(settings).leaseDuration(), 6s);
            QCOMPARE(QSimbaSettings::config(settings).renewInterval(), 2s); // derived from the override
            EnvGuard bad("SIMBA_MARGIN", "a little");
            const QString error = errorOf([&] { QSimbaSettings::config(settings); });
            QVERIFY2(error.contains(QLatin1String("SIMBA_MARGIN=\"a little\" is not a duration")), qPrintable(error));
        }
        // Another group has its own prefix; no group has no variables.
        QCOMPARE(QSimbaSettings::backendUrl(settings, QStringLiteral("other")), QString());
    }

    void placeholders_data()
    {
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected"); // or the error's text
        QTest::addColumn<bool>("fails");
        QTest::newRow("set") << "memory://${QSIMBA_TEST_STORE_NAME}" << "memory://store-7" << false;
        QTest::newRow("twice") << "${QSIMBA_TEST_STORE_NAME}-${QSIMBA_TEST_STORE_NAME}" << "store-7-store-7" << false;
        QTest::newRow("default unused") << "${QSIMBA_TEST_STORE_NAME:x}" << "store-7" << false;
        QTest::newRow("default") << "memory://${QSIMBA_TEST_UNSET:fallback}" << "memory://fallback" << false;
        QTest::newRow("empty default") << "a${QSIMBA_TEST_UNSET:}b" << "ab" << false;
        QTest::newRow("unset") << "memory://${QSIMBA_TEST_UNSET}"
                               << "setting simba/backend: the placeholder ${QSIMBA_TEST_UNSET} names an environment "
                                  "variable that is not set"
                               << true;
        QTest::newRow("unclosed") << "memory://${QSIMBA_TEST_STORE_NAME" << "setting simba/backend: malformed placeholder"
                                  << true;
    }
    void placeholders()
    {
        QFETCH(QString, value);
        QFETCH(QString, expected);
        QFETCH(bool, fails);
        EnvGuard store("QSIMBA_TEST_STORE_NAME", "store-7");
        qunsetenv("QSIMBA_TEST_UNSET");
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/backend"), value);
        if (fails) {
            const QString error = errorOf([&] { QSimbaSettings::backendUrl(settings); });
            QVERIFY2(error.contains(expected), qPrintable(error));
        } else {
            QCOMPARE(QSimbaSettings::backendUrl(settings), expected);
        }
    }

    void schedulingSwitch()
    {
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        QVERIFY(QSimbaSettings::schedulingEnabled(settings));
        settings.setValue(QStringLiteral("simba/scheduling/enabled"), QStringLiteral("false"));
        QVERIFY(!QSimbaSettings::schedulingEnabled(settings));
        {
            EnvGuard on("SIMBA_SCHEDULING_ENABLED", "true");
            QVERIFY(QSimbaSettings::schedulingEnabled(settings));
        }
        settings.setValue(QStringLiteral("simba/scheduling/enabled"), QStringLiteral("maybe"));
        const QString error = errorOf([&] { QSimbaSettings::schedulingEnabled(settings); });
        QVERIFY2(error.contains(QLatin1String("simba/scheduling/enabled=\"maybe\" is not a boolean")), qPrintable(error));
        // A misspelt key under scheduling/ is caught like any other.
        settings.remove(QStringLiteral("simba/scheduling/enabled"));
        settings.setValue(QStringLiteral("simba/scheduling/enable"), QStringLiteral("false"));
        const QString unknown = errorOf([&] { QSimbaSettings::config(settings); });
        QVERIFY2(unknown.contains(QLatin1String("unknown setting simba/scheduling/enable")), qPrintable(unknown));
    }

    void builderFromSettings()
    {
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/backend"), QStringLiteral("memory://settings-builder"));
        settings.setValue(QStringLiteral("simba/leaseDuration"), QStringLiteral("PT4S"));
        auto simba = QSimbaSettings::builder(settings).build();
        QCOMPARE(simba->config().leaseDuration(), 4s);
        QSignalSpy elected(simba->election(QStringLiteral("settings.builder")), &QSimbaElection::elected);
        simba->election(QStringLiteral("settings.builder"))->start();
        QVERIFY(elected.wait(10000));
    }

    void scheduleOfNamesTheRule_data()
    {
        QTest::addColumn<QString>("fixedDelay");
        QTest::addColumn<QString>("fixedRate");
        QTest::addColumn<QString>("initialDelay");
        QTest::addColumn<QString>("expected");
        QTest::newRow("both") << "1s" << "1s" << "" << "fixedDelay and fixedRate are both set";
        QTest::newRow("neither") << "" << "" << "1s" << "neither fixedDelay nor fixedRate";
        QTest::newRow("malformed") << "soon" << "" << "" << "fixedDelay \"soon\" is not a duration";
        QTest::newRow("zero") << "" << "0s" << "" << "fixedRate \"0s\" is not positive";
        QTest::newRow("initial") << "" << "1s" << "later" << "initialDelay \"later\" is not a duration";
    }
    void scheduleOfNamesTheRule()
    {
        QFETCH(QString, fixedDelay);
        QFETCH(QString, fixedRate);
        QFETCH(QString, initialDelay);
        QFETCH(QString, expected);
        const QString error = errorOf([&] { (void)QSimbaScheduler::scheduleOf(fixedDelay, fixedRate, initialDelay); });
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    void addObjectNamesTheSlot()
    {
        auto simba = client(QStringLiteral("settings.bad"));
        QSimbaScheduler scheduler(simba.get());
        BadJobs bad;
        QString error = errorOf([&] { scheduler.addObject(&bad); });
        QVERIFY2(error.contains(QLatin1String("BadJobs::missing (SimbaScheduled): no slot missing()")), qPrintable(error));
        BothDelays both;
        error = errorOf([&] { scheduler.addObject(&both); });
        QVERIFY2(error.contains(QLatin1String("BothDelays::run (SimbaScheduled): fixedDelay and fixedRate are both set")),
                 qPrintable(error));
    }

    // Two clients: only the leader runs generate(), always inside a valid term; stopping the
    // leader's scheduler hands the work over; nothing runs after stop() returned.
    void scheduledRunsOnlyOnTheLeader()
    {
        qunsetenv("QSIMBA_TEST_JOB");
        auto a = client(QStringLiteral("settings.scheduled"));
        auto b = client(QStringLiteral("settings.scheduled"));
        ReportJobs jobsA, jobsB;
        QSimbaScheduler schedulerA(a.get()), schedulerB(b.get());
        schedulerA.addObject(&jobsA);
        schedulerB.addObject(&jobsB);
        QVERIFY(!schedulerA.isRunning());
        QVERIFY(jobsA.tokens.isEmpty());
        schedulerA.start();
        schedulerB.start();
        QVERIFY(schedulerA.isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(jobsA.tokens.size() + jobsB.tokens.size() >= 3, 10000);
        ReportJobs &leader = jobsA.tokens.isEmpty() ? jobsB : jobsA;
        ReportJobs &other = &leader == &jobsA ? jobsB : jobsA;
        QSimbaScheduler &leaderScheduler = &leader == &jobsA ? schedulerA : schedulerB;
        QSimba *leaderClient = &leader == &jobsA ? a.get() : b.get();
        QVERIFY(other.tokens.isEmpty());
        const qint64 token = leader.tokens.first();
        QVERIFY(std::all_of(leader.tokens.cbegin(), leader.tokens.cend(), [&](qint64 t) { return t == token; }));

        QSignalSpy revoked(leaderClient->election(QStringLiteral("settings.report")), &QSimbaElection::revoked);
        leaderScheduler.stop();
        QVERIFY(!leaderScheduler.isRunning());
        QVERIFY(!leaderClient->election(QStringLiteral("settings.report"))->isStarted());
        const qsizetype runs = leader.tokens.size();
        QTRY_COMPARE_WITH_TIMEOUT(revoked.size(), 1, 10000);
        QCOMPARE(revoked.first().at(1).value<QSimbaTerm::RevokeReason>(), QSimbaTerm::RevokeReason::Stopped);
        QTRY_VERIFY_WITH_TIMEOUT(other.tokens.size() >= 2, 10000);
        QCOMPARE(leader.tokens.size(), runs);
        QVERIFY(other.tokens.first() > token);
        QVERIFY(!leader.valid.contains(false));
        QVERIFY(!other.valid.contains(false));
        // The partition groups ran too: together the two cover every partition once.
        QTRY_VERIFY_WITH_TIMEOUT(jobsB.billed.size() + jobsA.billed.size() >= 6, 10000);
        QCOMPARE(jobsA.runsOutsideTerm + jobsB.runsOutsideTerm, 0);
    }

    void placeholderInDeclaration()
    {
        EnvGuard job("QSIMBA_TEST_JOB", "settings.renamed");
        auto simba = client(QStringLiteral("settings.placeholder"));
        ReportJobs jobs;
        QSimbaScheduler scheduler(simba.get());
        scheduler.addObject(&jobs);
        scheduler.start();
        QTRY_VERIFY_WITH_TIMEOUT(!jobs.tokens.isEmpty(), 10000);
        QCOMPARE(simba->election(QStringLiteral("settings.renamed"))->status(), QSimbaElection::Status::Leader);
        QVERIFY(!simba->election(QStringLiteral("settings.report"))->isStarted());
    }

    void disabledBySettings()
    {
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/scheduling/enabled"), false);
        auto simba = client(QStringLiteral("settings.disabled"));
        QSimbaScheduler scheduler(simba.get());
        int runs = 0;
        QObject context;
        scheduler.addScheduled(QStringLiteral("settings.disabled"), QSimbaSchedule::fixedRate(10ms), &context,
                               [&](const QSimbaTerm &) { ++runs; });
        scheduler.setEnabledFromSettings(settings);
        QVERIFY(!scheduler.isEnabled());
        scheduler.start();
        QVERIFY(!scheduler.isRunning());
        QVERIFY(!simba->election(QStringLiteral("settings.disabled"))->isStarted());
        // Turned on, the same registration runs.
        scheduler.setEnabled(true);
        scheduler.startWhenReady();
        QTRY_VERIFY_WITH_TIMEOUT(runs > 0, 10000);
    }

    // The seeds' shutdown order: destroying the scheduler stops its work and releases the
    // lease before the client closes: another client takes over while this one is still open.
    void stopsBeforeTheClientCloses()
    {
        auto simba = client(QStringLiteral("settings.shutdown"));
        auto other = client(QStringLiteral("settings.shutdown"));
        int runs = 0;
        QObject context;
        auto scheduler = std::make_unique<QSimbaScheduler>(simba.get());
        scheduler->addScheduled(QStringLiteral("settings.shutdown"), QSimbaSchedule::fixedRate(10ms), &context,
                                [&](const QSimbaTerm &) { ++runs; });
        scheduler->start();
        QTRY_VERIFY_WITH_TIMEOUT(runs > 0, 10000);
        QSimbaElection *next = other->election(QStringLiteral("settings.shutdown"));
        next->start();
        QTRY_COMPARE_WITH_TIMEOUT(next->status(), QSimbaElection::Status::Candidate, 10000);
        scheduler.reset(); // what an application does first on shutdown
        const int stoppedAt = runs;
        QVERIFY(!simba->election(QStringLiteral("settings.shutdown"))->isStarted());
        QTRY_COMPARE_WITH_TIMEOUT(next->status(), QSimbaElection::Status::Leader, 10000);
        QVERIFY(!simba->isClosed());
        QCOMPARE(runs, stoppedAt);
    }

    // simbactl follows the same rules: its settings file (group "simba") and SIMBA_* with
    // placeholders, the command line winning over both.
    void simbactlReadsTheSettings()
    {
        QTemporaryDir home;
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral("config/QSimba"))));
        QSettings file(home.filePath(QStringLiteral("config/QSimba/simbactl.conf")), QSettings::IniFormat);
        file.setValue(QStringLiteral("simba/backend"), QStringLiteral("ftp://from-settings-file"));
        file.sync();
        const auto run = [&](const QStringList &args, const QProcessEnvironment &env) {
            QProcess simbactl;
            simbactl.setProcessEnvironment(env);
            simbactl.setProcessChannelMode(QProcess::MergedChannels);
            simbactl.start(QStringLiteral(SIMBACTL_PATH), args);
            if (!simbactl.waitForFinished(60000))
                return std::make_pair(-1, QStringLiteral("did not finish"));
            return std::make_pair(simbactl.exitCode(), QString::fromUtf8(simbactl.readAll()));
        };
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("SIMBA_BACKEND"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
        env.insert(QStringLiteral("HOME"), home.path());
        simbactlReadsTheSettingsRun(run, env);
    }

private:
    template<typename Run>
    void simbactlReadsTheSettingsRun(Run &&run, QProcessEnvironment env)
    {
        // The file's backend: refused, named.
        auto [code, out] = run({QStringLiteral("status")}, env);
        QVERIFY2(out.contains(QLatin1String("ftp://from-settings-file")), qPrintable(out));
        QVERIFY(code != 0);
        // SIMBA_BACKEND with a placeholder overrides the file.
        env.insert(QStringLiteral("QSIMBA_TEST_STORE_NAME"), QStringLiteral("from-env"));
        env.insert(QStringLiteral("SIMBA_BACKEND"), QStringLiteral("memory://${QSIMBA_TEST_STORE_NAME}"));
        std::tie(code, out) = run({QStringLiteral("status")}, env);
        QVERIFY2(out.contains(QLatin1String("memory://from-env")), qPrintable(out));
        QCOMPARE(code, 0);
        // The timing too (lock builds a client): a malformed value names its variable.
        std::tie(code, out) = run({QStringLiteral("lock"), QStringLiteral("settings.simbactl"), QStringLiteral("--"),
                                   QStringLiteral("true")}, env);
        QVERIFY2(code == 0, qPrintable(out));
        env.insert(QStringLiteral("SIMBA_LEASE_DURATION"), QStringLiteral("soon"));
        std::tie(code, out) = run({QStringLiteral("lock"), QStringLiteral("settings.simbactl"), QStringLiteral("--"),
                                   QStringLiteral("true")}, env);
        QVERIFY2(out.contains(QLatin1String("SIMBA_LEASE_DURATION=\"soon\" is not a duration")), qPrintable(out));
        QVERIFY(code != 0);
        // --backend wins over both.
        env.remove(QStringLiteral("SIMBA_LEASE_DURATION"));
        std::tie(code, out) = run({QStringLiteral("status"), QStringLiteral("--backend"), QStringLiteral("memory://cli")}, env);
        QVERIFY2(out.contains(QLatin1String("memory://cli")), qPrintable(out));
        QCOMPARE(code, 0);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_Settings)
#include "tst_settings.moc"
