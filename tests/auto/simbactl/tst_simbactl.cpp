// SPDX-License-Identifier: Apache-2.0
// simbactl as a process: help and exit codes, usage errors, lock (environment, status,
// timeout, release on SIGINT, SIGTERM then SIGKILL when the term is lost), elect (one run
// per term, handover order, restart after a loss), watch, assign, and status on every
// backend of the build against real servers.
#include "testserver.h"
#ifdef QSIMBA_HAVE_SQL
#include "mariadbserver.h"
#include "postgresserver.h"
#endif
#ifdef QSIMBA_HAVE_REDIS
#include "redisserver.h"
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
#include "zookeeperserver.h"
#endif

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QTemporaryDir>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>

#include <csignal>
#include <memory>
#include "qsimbatestmain.h"

namespace {

// A running simbactl, its output collected.
class Ctl
{
public:
    Ctl(const QStringList &args, const QString &backend)
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SIMBA_BACKEND"), backend);
        process.setProcessEnvironment(env);
        process.start(QStringLiteral(SIMBACTL_PATH), args);
    }
    ~Ctl()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    QString out()
    {
        stdoutText += QString::fromUtf8(process.readAllStandardOutput());
        return stdoutText;
    }
    QString err()
    {
        stderrText += QString::fromUtf8(process.readAllStandardError());
        return stderrText;
    }
    //! Waits for \a text on stdout.
    bool waitFor(const QString &text, int ms = 20000)
    {
        QDeadlineTimer deadline(ms);
        while (!out().contains(text)) {
            if (deadline.hasExpired() || process.state() == QProcess::NotRunning)
                return out().contains(text);
            process.waitForReadyRead(int(std::min<qint64>(100, deadline.remainingTime())));
        }
        return true;
    }
    int finish(int ms = 20000)
    {
        if (!process.waitForFinished(ms))
            return -1;
        out();
        err();
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    }
    void signal(int sig) { ::kill(pid_t(process.processId()), sig); }

    QProcess process;
    QString stdoutText;
    QString stderrText;
};

// A shell command that prints "held <token>" and runs until SIGTERM ("got-term", exit 3).
QStringList holder(const QString &onTerm = QStringLiteral("echo got-term; exit 3"))
{
    return {QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("trap '%1' TERM; echo held $SIMBA_TOKEN; while :; do sleep 0.05; done").arg(onTerm)};
}

qint64 tokenAfter(const QString &text, const QString &word)
{
    const auto m = QRegularExpression(word + QStringLiteral(" ?(\\d+)")).match(text);
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

} // namespace

// Compares a simbactl's exit code and, when it differs, shows what the process wrote to
// stderr (a sanitizer report or an error message explains an unexpected code).
#define QCOMPARE_EXIT(ctl, expected)                                                                  \
    do {                                                                                              \
        const int code_ = (ctl).finish();                                                             \
        QVERIFY2(code_ == (expected), qPrintable(QStringLiteral("exit code %1, expected %2; stderr:\n%3") \
                                                     .arg(code_).arg(expected).arg((ctl).err())));   \
    } while (false)

class tst_Simbactl : public QObject
{
    Q_OBJECT

    QTemporaryDir tmp;
    QString sqlite;

    int runCtl(const QStringList &args, QString *out = nullptr, QString *err = nullptr)
    {
        Ctl ctl(args, sqlite);
        const int code = ctl.finish();
        if (out)
            *out = ctl.stdoutText;
        if (err)
            *err = ctl.stderrText;
        return code;
    }

    // Ends every session in the SQLite file, as an expiry would look to the backend.
    void deleteSqliteSessions()
    {
        const QString connection = QStringLiteral("tst_simbactl");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), connection);
            db.setDatabaseName(QUrl(sqlite).path());
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("DELETE FROM simba_sessions")));
            QVERIFY(q.numRowsAffected() > 0);
        }
        QSqlDatabase::removeDatabase(connection);
    }

private Q_SLOTS:
    void init()
    {
        static int n = 0;
        sqlite = QStringLiteral("sqlite://") + tmp.filePath(QStringLiteral("simba%1.db").arg(++n));
    }

    void helpShowsExitCodes_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("top") << QStringList{QStringLiteral("--help")};
        for (const char *c : {"lock", "elect", "status", "watch", "assign"})
            QTest::newRow(c) << QStringList{QString::fromLatin1(c), QStringLiteral("--help")};
    }
    void helpShowsExitCodes()
    {
        QFETCH(QStringList, args);
        QString out;
        QCOMPARE(runCtl(args, &out), 0);
        QVERIFY2(out.contains(QLatin1String("Exit codes")) && out.contains(QLatin1String("75"))
                     && out.contains(QLatin1String("79")),
                 qPrintable(out));
        if (args.size() == 2)
            QVERIFY2(out.contains(QLatin1String("--backend")), qPrintable(out));
    }

    void usageErrors_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const auto l = [](std::initializer_list<const char *> words) {
            QStringList out;
            for (const char *w : words)
                out << QString::fromUtf8(w);
            return out;
        };
        QTest::newRow("no command") << QStringList{} << 64 << "no command";
        QTest::newRow("unknown command") << l({"frobnicate"}) << 64 << "unknown command \"frobnicate\"";
        QTest::newRow("unknown option") << l({"status", "--frob"}) << 64 << "frob";
        QTest::newRow("lock without command") << l({"lock", "x"}) << 64 << "no command to run";
        QTest::newRow("lock two names") << l({"lock", "x", "y", "--", "true"}) << 64 << "one NAME";
        QTest::newRow("bad name") << l({"lock", "no spaces", "--", "true"}) << 64 << "no spaces";
        QTest::newRow("bad timeout") << l({"lock", "--timeout", "5parsecs", "x", "--", "true"}) << 64 << "--timeout \"5parsecs\"";
        QTest::newRow("bad lease") << l({"watch", "--lease", "soon"}) << 64 << "--lease \"soon\"";
        QTest::newRow("lease rule") << l({"watch", "--lease", "0ms"}) << 64 << "--lease 0ms";
        QTest::newRow("unknown scheme") << l({"status", "--backend", "consul://h:8500"}) << 64 << "unknown scheme 'consul'";
        QTest::newRow("unknown option in URL")
            << l({"status", "--backend", "postgresql://u:secret@127.0.0.1:1/db?bogus=1"}) << 64 << "bogus";
        QTest::newRow("assign zero") << l({"assign", "--partitions", "0", "a"}) << 64 << "--partitions \"0\"";
        QTest::newRow("assign no member") << l({"assign", "--partitions", "4"}) << 64 << "MEMBER";
        QTest::newRow("status takes no command") << l({"status", "--", "true"}) << 64 << "no command";
        QTest::newRow("command not found") << l({"lock", "x", "--", "/nonexistent/tool"}) << 127 << "command not found";
        QTest::newRow("unreachable") << l({"status", "--backend", "postgresql://u:secret@127.0.0.1:1/db?connectTimeout=1s"})
                                     << 69 << "127.0.0.1";
    }
    void usageErrors()
    {
        QFETCH(QStringList, args);
        QFETCH(int, code);
        QFETCH(QString, message);
        QString err;
        QCOMPARE(runCtl(args, nullptr, &err), code);
        QVERIFY2(err.contains(message), qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("simbactl: ")), qPrintable(err));
        QVERIFY2(!err.contains(QLatin1String("secret")), qPrintable(err));
    }

    void lockPassesEnvironmentAndStatus()
    {
        const QStringList args{QStringLiteral("lock"), QStringLiteral("job-1"), QStringLiteral("--"), QStringLiteral("sh"),
                               QStringLiteral("-c"), QStringLiteral("echo lease=$SIMBA_LEASE token=$SIMBA_TOKEN; exit 7")};
        QString out;
        QCOMPARE(runCtl(args, &out), 7);
        QVERIFY2(out.contains(QLatin1String("lease=job-1 ")), qPrintable(out));
        const qint64 first = tokenAfter(out, QStringLiteral("token="));
        QVERIFY(first > 0);
        QCOMPARE(runCtl(args, &out), 7);
        QVERIFY2(tokenAfter(out, QStringLiteral("token=")) > first, qPrintable(out));
        // A command killed by a signal: 128 + N, as in sh.
        QCOMPARE(runCtl({QStringLiteral("lock"), QStringLiteral("job-1"), QStringLiteral("--"), QStringLiteral("sh"),
                         QStringLiteral("-c"), QStringLiteral("kill -KILL $$")}),
                 128 + SIGKILL);
    }

    void lockTimesOutAndSigintReleases()
    {
        Ctl first(QStringList{QStringLiteral("lock"), QStringLiteral("--lease"), QStringLiteral("10s"), QStringLiteral("shared")}
                      + holder(),
                  sqlite);
        QVERIFY2(first.waitFor(QStringLiteral("held")), qPrintable(first.err()));
        const qint64 token = tokenAfter(first.out(), QStringLiteral("held"));

        QString err;
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(runCtl({QStringLiteral("lock"), QStringLiteral("--timeout"), QStringLiteral("300ms"),
                         QStringLiteral("shared"), QStringLiteral("--"), QStringLiteral("true")},
                        nullptr, &err),
                 75);
        QVERIFY2(err.contains(QLatin1String("timed out after 300ms waiting for the lock shared")), qPrintable(err));
        QVERIFY(timer.elapsed() < 10000);

        // SIGINT: the command gets SIGTERM, the lock is released, exit 130.
        first.signal(SIGINT);
        QCOMPARE_EXIT(first, 130);
        QVERIFY2(first.out().contains(QLatin1String("got-term")), qPrintable(first.out()));
        // Released at once: the next holder does not wait for the 10 s lease to run out.
        QString out;
        timer.restart();
        QCOMPARE(runCtl({QStringLiteral("lock"), QStringLiteral("--timeout"), QStringLiteral("5s"),
                         QStringLiteral("shared"), QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                         QStringLiteral("echo token $SIMBA_TOKEN")},
                        &out),
                 0);
        QVERIFY2(tokenAfter(out, QStringLiteral("token")) > token, qPrintable(out));
        QVERIFY(timer.elapsed() < 5000);
    }

    // A simbactl killed outright (SIGKILL: no handler runs) renews nothing any more: its
    // command must not run on as if it held the lock.
    void killedSimbactlTakesItsCommandWithIt()
    {
        Ctl ctl({QStringLiteral("lock"), QStringLiteral("orphan"), QStringLiteral("--"), QStringLiteral("sh"),
                 QStringLiteral("-c"), QStringLiteral("echo pid $$; while :; do sleep 0.05; done")},
                sqlite);
        QVERIFY2(ctl.waitFor(QStringLiteral("pid ")), qPrintable(ctl.err()));
        const auto pid = pid_t(tokenAfter(ctl.out(), QStringLiteral("pid")));
        QVERIFY(pid > 0);
        const auto gone = [pid] {
            if (::kill(pid, 0) != 0)
                return true;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(pid)); // a zombie not yet reaped is gone too
            return stat.open(QIODevice::ReadOnly) && stat.readAll().contains(") Z ");
        };
        QVERIFY(!gone());
        ctl.signal(SIGKILL);
        QTRY_VERIFY_WITH_TIMEOUT(gone(), 10000);
    }

    void lockLossTerminatesCommand_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::addColumn<bool>("ignoresTerm");
        QTest::newRow("sqlite") << "sqlite" << false;
        QTest::newRow("sqlite-kill") << "sqlite" << true;
#ifdef QSIMBA_HAVE_REDIS
        QTest::newRow("redis") << "redis" << false;
#endif
    }
    void lockLossTerminatesCommand()
    {
        QFETCH(QString, backend);
        QFETCH(bool, ignoresTerm);
        QString url = sqlite;
#ifdef QSIMBA_HAVE_REDIS
        RedisServer redis;
        if (backend == QLatin1String("redis")) {
            if (!redis.start())
                QFAIL(qPrintable(redis.errorString()));
            url = redis.url().toString() + QStringLiteral("?maxLease=2s"); // a fresh server: no recovery wait
        }
#endif
        Ctl ctl(QStringList{QStringLiteral("lock"), QStringLiteral("--lease"), QStringLiteral("1s"), QStringLiteral("--kill-after"),
                 QStringLiteral("300ms"), QStringLiteral("fragile")}
                    + holder(ignoresTerm ? QString() : QStringLiteral("echo got-term; exit 3")),
                url);
        QVERIFY2(ctl.waitFor(QStringLiteral("held")), qPrintable(ctl.err()));
        if (backend == QLatin1String("sqlite")) {
            deleteSqliteSessions();
        } else {
#ifdef QSIMBA_HAVE_REDIS
            QCOMPARE(redis.cli({QStringLiteral("DEL"), QStringLiteral("{simba}:sessions")}), 0);
#endif
        }
        QCOMPARE_EXIT(ctl, 79);
        QVERIFY2(ctl.err().contains(QLatin1String("lost the lock fragile")), qPrintable(ctl.err()));
        if (ignoresTerm)
            QVERIFY2(ctl.err().contains(QLatin1String("SIGKILL")), qPrintable(ctl.err()));
        else
            QVERIFY2(ctl.out().contains(QLatin1String("got-term")), qPrintable(ctl.out()));
    }

    void electRunsPerTermInHandoverOrder()
    {
        const QString log = tmp.filePath(QStringLiteral("elect.log"));
        const QStringList args{
            QStringLiteral("elect"), QStringLiteral("--lease"), QStringLiteral("1s"), QStringLiteral("leader"),
            QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("echo run $SIMBA_TOKEN >> %1; trap 'echo stop $SIMBA_TOKEN >> %1; exit 0' TERM; "
                           "while :; do sleep 0.05; done").arg(log)};
        const auto lines = [&] {
            QFile f(log);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)
                                               : QStringList();
        };
        Ctl a(args, sqlite);
        QTRY_COMPARE_WITH_TIMEOUT(lines().size(), 1, 20000);
        Ctl b(args, sqlite);
        QTRY_VERIFY_WITH_TIMEOUT(b.err().contains(QLatin1String("simbactl")) || b.process.state() == QProcess::Running, 5000);
        const qint64 t1 = tokenAfter(lines().first(), QStringLiteral("run"));
        QVERIFY(t1 > 0);

        // SIGTERM to the leader: its command stops before the lease is released; b takes over.
        a.signal(SIGTERM);
        QCOMPARE_EXIT(a, 0);
        QTRY_COMPARE_WITH_TIMEOUT(lines().size(), 3, 10000);
        QCOMPARE(lines()[1], QStringLiteral("stop %1").arg(t1));
        const qint64 t2 = tokenAfter(lines()[2], QStringLiteral("run"));
        QVERIFY2(t2 > t1, qPrintable(lines().join(QLatin1Char('|'))));

        // A lost term stops the command; the next term runs it again.
        deleteSqliteSessions();
        QTRY_COMPARE_WITH_TIMEOUT(lines().size(), 5, 15000);
        QCOMPARE(lines()[3], QStringLiteral("stop %1").arg(t2));
        QVERIFY(tokenAfter(lines()[4], QStringLiteral("run")) > t2);

        b.signal(SIGINT);
        QCOMPARE_EXIT(b, 0);
        QCOMPARE(lines().size(), 6);
        QVERIFY(lines()[5].startsWith(QLatin1String("stop ")));
    }

    void watchPrintsEvents()
    {
        Ctl ctl({QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--lease"), QStringLiteral("1s"),
                 QStringLiteral("w1")},
                sqlite);
        QVERIFY2(ctl.waitFor(QStringLiteral("\"Elected\"")), qPrintable(ctl.err()));
        ctl.signal(SIGINT);
        QCOMPARE_EXIT(ctl, 0);
        QStringList types;
        qint64 token = 0;
        for (const QString &line : ctl.out().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QJsonObject o = QJsonDocument::fromJson(line.toUtf8()).object();
            QVERIFY2(!o.isEmpty(), qPrintable(line));
            types << o.value(QStringLiteral("type")).toString();
            if (types.last() == QLatin1String("Elected")) {
                QCOMPARE(o.value(QStringLiteral("name")).toString(), QStringLiteral("w1"));
                token = o.value(QStringLiteral("token")).toInteger();
            }
        }
        QVERIFY(token > 0);
        QCOMPARE(types.first(), QStringLiteral("SessionOpened"));
        QVERIFY2(types.contains(QStringLiteral("Revoked")), qPrintable(types.join(QLatin1Char(','))));
        QCOMPARE(types.last(), QStringLiteral("SessionClosed"));
        QVERIFY2(ctl.out().contains(QLatin1String("\"STOPPED\"")), qPrintable(ctl.out()));
    }

    void assignMatchesTheVectors()
    {
        QString out;
        QCOMPARE(runCtl({QStringLiteral("assign"), QStringLiteral("--json"), QStringLiteral("--partitions"),
                         QStringLiteral("8"), QStringLiteral("node-a"), QStringLiteral("node-b"), QStringLiteral("node-c")},
                        &out),
                 0);
        const QJsonObject o = QJsonDocument::fromJson(out.toUtf8()).object();
        QStringList owners;
        for (const auto &v : o.value(QStringLiteral("owners")).toArray())
            owners << v.toString().right(1);
        QCOMPARE(owners.join(QLatin1Char(' ')), QStringLiteral("c c b b c c c b")); // README's vectors
        QCOMPARE(runCtl({QStringLiteral("assign"), QStringLiteral("--partitions"), QStringLiteral("8"),
                         QStringLiteral("node-a"), QStringLiteral("node-b")},
                        &out),
                 0);
        QVERIFY2(out.contains(QLatin1String("node-a  0 4")), qPrintable(out));
    }

    void statusOnEveryBackend_data()
    {
        QTest::addColumn<QString>("backend");
        QTest::newRow("sqlite") << "sqlite";
#ifdef QSIMBA_HAVE_SQL
        QTest::newRow("postgresql") << "postgresql";
        QTest::newRow("mariadb") << "mariadb";
#endif
#ifdef QSIMBA_HAVE_REDIS
        QTest::newRow("redis") << "redis";
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
        QTest::newRow("zookeeper") << "zookeeper";
#endif
    }
    void statusOnEveryBackend()
    {
        QFETCH(QString, backend);
        std::unique_ptr<TestServer> server;
        QString url = sqlite;
        // Starts the server of this row; its URL is \a urlOf of it.
        const auto serve = [&](auto *s, auto urlOf) {
            server.reset(s);
            if (!s->start())
                return false;
            url = urlOf(*s);
            return true;
        };
        bool started = true;
#ifdef QSIMBA_HAVE_SQL
        if (backend == QLatin1String("postgresql"))
            started = serve(new PostgresServer, [](PostgresServer &s) -> QString { return s.url().toString(); });
        else if (backend == QLatin1String("mariadb"))
            started = serve(new MariaDbServer, [](MariaDbServer &s) -> QString { return s.url().toString(); });
#endif
#ifdef QSIMBA_HAVE_REDIS
        if (backend == QLatin1String("redis")) // a fresh server: a short recovery wait
            started = serve(new RedisServer, [](RedisServer &s) -> QString { return s.url().toString() + QLatin1String("?maxLease=2s"); });
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
        if (backend == QLatin1String("zookeeper"))
            started = serve(new ZookeeperServer,
                            [](ZookeeperServer &s) -> QString { return QStringLiteral("zookeeper://%1/simba").arg(s.hostPort()); });
#endif
        if (!started)
            QFAIL(qPrintable(server->errorString()));
        Ctl lock(QStringList{QStringLiteral("lock"), QStringLiteral("--backend"), url, QStringLiteral("report")} + holder(),
                 sqlite);
        QVERIFY2(lock.waitFor(QStringLiteral("held"), 30000), qPrintable(lock.err()));
        const qint64 token = tokenAfter(lock.out(), QStringLiteral("held"));

        QString out, err;
        QCOMPARE(runCtl({QStringLiteral("status"), QStringLiteral("--json"), QStringLiteral("--backend"), url}, &out, &err), 0);
        const QJsonObject status = QJsonDocument::fromJson(out.toUtf8()).object();
        QVERIFY2(!status.isEmpty(), qPrintable(out + err));
        QString holderId;
        for (const auto &v : status.value(QStringLiteral("leases")).toArray()) {
            const QJsonObject l = v.toObject();
            if (l.value(QStringLiteral("name")).toString() == QLatin1String("report")) {
                holderId = l.value(QStringLiteral("holder")).toString();
                QCOMPARE(l.value(QStringLiteral("token")).toInteger(), token);
                QVERIFY(l.value(QStringLiteral("remainingMs")).toInteger() > 0);
            }
        }
        QVERIFY2(!holderId.isEmpty(), qPrintable(out));
        bool found = false;
        for (const auto &v : status.value(QStringLiteral("sessions")).toArray()) {
            const QJsonObject s = v.toObject();
            if (s.value(QStringLiteral("id")).toString() == holderId) {
                found = true;
                QCOMPARE(s.value(QStringLiteral("metadata")).toObject().value(QStringLiteral("command")).toString(),
                         QStringLiteral("simbactl lock"));
            }
        }
        QVERIFY2(found, qPrintable(out));

        QCOMPARE(runCtl({QStringLiteral("status"), QStringLiteral("--backend"), url}, &out), 0);
        QVERIFY2(out.contains(QRegularExpression(QStringLiteral("report +%1 +%2 ").arg(holderId).arg(token))), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("SESSION")) && out.contains(QLatin1String("GROUP")), qPrintable(out));

        lock.signal(SIGTERM);
        QCOMPARE_EXIT(lock, 128 + SIGTERM);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_Simbactl)
#include "tst_simbactl.moc"
