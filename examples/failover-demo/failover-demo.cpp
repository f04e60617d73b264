// SPDX-License-Identifier: Apache-2.0
// The QSimba failover demo. Starts worker processes (`simbactl watch`) that contend for one
// election and one partition group on a shared backend (an SQLite file by default), kills
// the leader with SIGKILL, then stops the next leader gracefully, and measures how long
// each failover took. Exits 0 only if every check held: one leader at a time, a new leader
// after each failover, tokens that only increased, every partition owned.
#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QDateTime>
#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMap>
#include <QtCore/QProcess>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTextStream>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>
#include <memory>

#ifndef SIMBACTL_DEFAULT
#define SIMBACTL_DEFAULT "simbactl"
#endif

namespace {

QTextStream out(stdout);

void say(const QString &line)
{
    out << line << Qt::endl;
}

// One worker process and what it reported.
struct Worker
{
    QString id;
    std::unique_ptr<QProcess> process;
    QByteArray buffer;
    bool alive = true;
    QSet<QString> held; // lease names it holds now (election and partitions)
};

class Demo
{
public:
    Demo(const QString &simbactl, const QString &backend, int workers, const QString &lease, int partitions)
        : m_simbactl(simbactl), m_backend(backend), m_lease(lease), m_partitions(partitions)
    {
        for (int i = 1; i <= workers; ++i)
            m_workers.push_back(std::make_unique<Worker>(Worker{QStringLiteral("w%1").arg(i), nullptr, {}, true, {}}));
    }

    int run()
    {
        say(QStringLiteral("backend: %1, lease %2, %3 workers, election \"demo\", group \"jobs\" with %4 partitions")
                .arg(m_backend, m_lease)
                .arg(m_workers.size())
                .arg(m_partitions));
        for (auto &w : m_workers)
            start(*w);

        // 1. One leader.
        if (!waitUntil([&] { return leader() != nullptr; }, 20000))
            return fail(QStringLiteral("no leader was elected within 20 s"));
        Worker *first = leader();
        if (!waitUntil([&] { return ownedPartitions() == m_partitions && owners() > 1; }, 20000))
            return fail(QStringLiteral("the partitions were not all owned and spread within 20 s (%1 of %2)")
                            .arg(ownedPartitions())
                            .arg(m_partitions));
        say(QStringLiteral("== leader %1 (token %2); partitions: %3").arg(first->id).arg(m_lastToken).arg(partitionOwners()));

        // 2. SIGKILL the leader: another worker must take over once its lease ran out.
        say(QStringLiteral("== SIGKILL %1").arg(first->id));
        QElapsedTimer timer;
        timer.start();
        ::kill(pid_t(first->process->processId()), SIGKILL);
        first->alive = false;
        first->held.clear();
        forget(*first);
        if (!waitUntil([&] { return leader() != nullptr; }, 20000))
            return fail(QStringLiteral("no new leader within 20 s of the SIGKILL"));
        const qint64 killFailover = timer.elapsed();
        Worker *second = leader();
        say(QStringLiteral("== %1 took over after %2 ms (SIGKILL failover)").arg(second->id).arg(killFailover));
        if (!waitUntil([&] { return ownedPartitions() == m_partitions; }, 20000))
            return fail(QStringLiteral("the killed worker's partitions were not taken over within 20 s"));
        const qint64 killPartitions = timer.elapsed();
        say(QStringLiteral("== every partition owned again after %1 ms: %2").arg(killPartitions).arg(partitionOwners()));

        // 3. SIGTERM the new leader: it hands over (work first, then release) and exits 0.
        say(QStringLiteral("== SIGTERM %1 (graceful stop)").arg(second->id));
        timer.restart();
        second->process->terminate();
        if (!waitUntil([&] { return leader() != nullptr && leader() != second; }, 20000))
            return fail(QStringLiteral("no new leader within 20 s of the graceful stop"));
        const qint64 stopFailover = timer.elapsed();
        say(QStringLiteral("== %1 took over after %2 ms (graceful failover)").arg(leader()->id).arg(stopFailover));
        if (!exitedCleanly(*second))
            return fail(QStringLiteral("%1 did not exit 0 after SIGTERM").arg(second->id));
        second->alive = false;
        if (!waitUntil([&] { return ownedPartitions() == m_partitions; }, 20000))
            return fail(QStringLiteral("the stopped worker's partitions were not taken over within 20 s"));
        say(QStringLiteral("== every partition owned again after %1 ms: %2").arg(timer.elapsed()).arg(partitionOwners()));

        // 4. Stop the rest.
        for (auto &w : m_workers) {
            if (w->alive)
                w->process->terminate();
        }
        for (auto &w : m_workers) {
            if (w->alive && !exitedCleanly(*w))
                return fail(QStringLiteral("%1 did not exit 0 after SIGTERM").arg(w->id));
            drain(*w);
        }

        for (const Overlap &o : m_overlaps)
            m_errors << QStringLiteral("%1 was elected at %2 while %3 led, and %3 never reported its term's end")
                            .arg(o.elected->id, o.electedAt.toString(Qt::ISODateWithMs), o.holder->id);
        QStringList tokens;
        for (qint64 t : m_tokens)
            tokens << QString::number(t);
        say(QString());
        say(QStringLiteral("SIGKILL failover:   %1 ms (lease %2; partitions %3 ms)").arg(killFailover).arg(m_lease).arg(killPartitions));
        say(QStringLiteral("graceful failover:  %1 ms").arg(stopFailover));
        say(QStringLiteral("leader tokens:      %1 (%2)").arg(tokens.join(QStringLiteral(" < ")),
                                                             m_tokensIncreased ? QStringLiteral("only increased")
                                                                                : QStringLiteral("NOT monotonic")));
        if (!m_errors.isEmpty())
            return fail(m_errors.join(QStringLiteral("; ")));
        say(QStringLiteral("demo: every check held"));
        return 0;
    }

private:
    void start(Worker &w)
    {
        w.process = std::make_unique<QProcess>();
        w.process->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        QObject::connect(w.process.get(), &QProcess::readyReadStandardOutput, [this, &w] { drain(w); });
        w.process->start(m_simbactl, {QStringLiteral("watch"), QStringLiteral("--json"), QStringLiteral("--backend"),
                                      m_backend, QStringLiteral("--lease"), m_lease, QStringLiteral("--group"),
                                      QStringLiteral("jobs"), QStringLiteral("--partitions"),
                                      QString::number(m_partitions), QStringLiteral("demo")});
        if (!w.process->waitForStarted())
            m_errors << QStringLiteral("%1 did not start: %2").arg(w.id, w.process->errorString());
    }

    void drain(Worker &w)
    {
        w.buffer += w.process->readAllStandardOutput();
        qsizetype nl;
        while ((nl = w.buffer.indexOf('\n')) >= 0) {
            const QByteArray line = w.buffer.left(nl);
            w.buffer.remove(0, nl + 1);
            handle(w, QJsonDocument::fromJson(line).object());
        }
    }

    void handle(Worker &w, const QJsonObject &e)
    {
        const QString type = e.value(QStringLiteral("type")).toString();
        const QString name = e.value(QStringLiteral("name")).toString();
        const qint64 token = e.value(QStringLiteral("token")).toInteger();
        const QDateTime at = QDateTime::fromString(e.value(QStringLiteral("time")).toString(), Qt::ISODateWithMs);
        if (type == QLatin1String("Elected")) {
            w.held.insert(name);
            if (name == QLatin1String("demo")) {
                // Another worker still leading, as far as its output has told: its revoked
                // event may not be printed yet (the revoked callback is queued before the
                // release and runs after it, and the two workers' pipes are read in any
                // order), so its time decides, once it comes (resolve()).
                for (auto &other : m_workers) {
                    if (other.get() != &w && other->alive && other->held.contains(name))
                        m_overlaps.push_back({&w, other.get(), at});
                }
                if (token <= m_lastToken) {
                    m_errors << QStringLiteral("token %1 after %2").arg(token).arg(m_lastToken);
                    m_tokensIncreased = false;
                }
                m_lastToken = token;
                m_tokens << token;
            }
            say(QStringLiteral("[%1] elected %2 token %3").arg(w.id, name).arg(token));
        } else if (type == QLatin1String("Revoked")) {
            w.held.remove(name);
            if (name == QLatin1String("demo"))
                resolve(w, at);
            say(QStringLiteral("[%1] revoked %2 token %3 (%4)")
                    .arg(w.id, name)
                    .arg(token)
                    .arg(e.value(QStringLiteral("reason")).toString()));
        }
    }

    // \a holder's term ended at \a revokedAt (its engine's time, taken before it released
    // the lease): an election of another worker before that was two leaders at once.
    void resolve(const Worker &holder, const QDateTime &revokedAt)
    {
        for (auto it = m_overlaps.begin(); it != m_overlaps.end();) {
            if (it->holder != &holder) {
                ++it;
                continue;
            }
            if (revokedAt > it->electedAt)
                m_errors << QStringLiteral("%1 and %2 lead at once: %2's term ended at %3, %1 was elected at %4")
                                .arg(it->elected->id, holder.id, revokedAt.toString(Qt::ISODateWithMs),
                                     it->electedAt.toString(Qt::ISODateWithMs));
            it = m_overlaps.erase(it);
        }
    }

    // A worker killed while leading: its lease ended without a revoked event.
    void forget(const Worker &killed)
    {
        m_overlaps.erase(std::remove_if(m_overlaps.begin(), m_overlaps.end(),
                                        [&](const Overlap &o) { return o.holder == &killed; }),
                         m_overlaps.end());
    }

    static bool exitedCleanly(Worker &w)
    {
        if (w.process->state() != QProcess::NotRunning && !w.process->waitForFinished(15000))
            return false;
        return w.process->exitStatus() == QProcess::NormalExit && w.process->exitCode() == 0;
    }

    // Partitions spread over more than one worker: the members saw each other.
    int owners()
    {
        QSet<QString> ids;
        for (auto &w : m_workers) {
            for (const QString &name : std::as_const(w->held)) {
                if (w->alive && name.startsWith(QLatin1String("jobs.")))
                    ids.insert(w->id);
            }
        }
        return int(ids.size());
    }

    Worker *leader()
    {
        for (auto &w : m_workers) {
            if (w->alive && w->held.contains(QStringLiteral("demo")))
                return w.get();
        }
        return nullptr;
    }

    int ownedPartitions()
    {
        int n = 0;
        for (int p = 0; p < m_partitions; ++p) {
            for (auto &w : m_workers) {
                if (w->alive && w->held.contains(QStringLiteral("jobs.%1").arg(p))) {
                    ++n;
                    break;
                }
            }
        }
        return n;
    }

    QString partitionOwners()
    {
        QStringList owners;
        for (int p = 0; p < m_partitions; ++p) {
            QString owner = QStringLiteral("-");
            for (auto &w : m_workers) {
                if (w->alive && w->held.contains(QStringLiteral("jobs.%1").arg(p)))
                    owner = w->id;
            }
            owners << QStringLiteral("%1=%2").arg(p).arg(owner);
        }
        return owners.join(QLatin1Char(' '));
    }

    bool waitUntil(const std::function<bool()> &done, int ms)
    {
        QElapsedTimer timer;
        timer.start();
        while (!done()) {
            if (timer.elapsed() > ms)
                return false;
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
        }
        return true;
    }

    int fail(const QString &why)
    {
        say(QStringLiteral("demo FAILED: %1").arg(why));
        for (auto &w : m_workers) {
            if (w->process && w->process->state() != QProcess::NotRunning) {
                w->process->kill();
                w->process->waitForFinished();
            }
        }
        return 1;
    }

    QString m_simbactl;
    QString m_backend;
    QString m_lease;
    int m_partitions;
    std::vector<std::unique_ptr<Worker>> m_workers;
    qint64 m_lastToken = 0;
    bool m_tokensIncreased = true;
    QList<qint64> m_tokens;
    QStringList m_errors;
    // An election while another worker's term had not been reported ended yet.
    struct Overlap
    {
        const Worker *elected;
        const Worker *holder;
        QDateTime electedAt;
    };
    std::vector<Overlap> m_overlaps;
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("QSimba failover demo: worker processes, a SIGKILL and a graceful stop."));
    parser.addHelpOption();
    const QCommandLineOption simbactl(QStringLiteral("simbactl"), QStringLiteral("The simbactl to run."),
                                      QStringLiteral("PATH"), QStringLiteral(SIMBACTL_DEFAULT));
    const QCommandLineOption backend(QStringLiteral("backend"),
                                     QStringLiteral("The backend URL (default: an SQLite file in a temporary directory)."),
                                     QStringLiteral("URL"));
    const QCommandLineOption workers(QStringLiteral("workers"), QStringLiteral("Worker processes (default 3)."),
                                     QStringLiteral("N"), QStringLiteral("3"));
    const QCommandLineOption lease(QStringLiteral("lease"), QStringLiteral("Lease duration (default 2s)."),
                                   QStringLiteral("DURATION"), QStringLiteral("2s"));
    parser.addOptions({simbactl, backend, workers, lease});
    parser.process(app);

    QTemporaryDir tmp;
    const QString url = parser.isSet(backend) ? parser.value(backend)
                                              : QStringLiteral("sqlite://") + tmp.filePath(QStringLiteral("demo.db"));
    const int n = parser.value(workers).toInt();
    if (n < 3) {
        say(QStringLiteral("demo: --workers must be at least 3"));
        return 2;
    }
    Demo demo(parser.value(simbactl), url, n, parser.value(lease), 8);
    return demo.run();
}
