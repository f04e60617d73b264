// SPDX-License-Identifier: Apache-2.0
// The fault-injection runner: starts a real server per backend (behind a TCP proxy), a few
// worker processes (qsimba_faultworker) that use an election, a lock and a partition group
// on it, injects faults at moments drawn from a seed, and checks what the workers recorded:
// no two valid terms of one name overlap, tokens only increase, no stale write accepted by
// the fenced table, a holder again within a stated bound after each fault, every partition
// owned again, bounded close, and nothing left in the backend once every worker closed.
// Prints a table backend × fault × runs × violations × recovery; exits 1 on a violation
// that is not a listed known failure. --help lists the options; --seed N replays a run.
#include "mariadbserver.h"
#include "monotonic.h"
#include "postgresserver.h"
#include "qsimbabackendfactory.h"
#include "redisserver.h"
#include "tcpproxy.h"
#include "zookeeperserver.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QEventLoop>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTextStream>
#include <QtCore/QTimer>
#include <QtNetwork/QHostAddress>
#include <QtNetwork/QTcpSocket>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <algorithm>
#include <csignal>
#include <deque>
#include <map>
#include <random>

using namespace std::chrono;

namespace {

QTextStream out(stdout);

void say(const QString &line)
{
    out << line << Qt::endl;
}

// QSIMBA_FAULT_TRACE_DIR=D keeps every line each worker printed (its terms, and with
// QT_LOGGING_RULES="qsimba.*.debug=true" the backend's request trace) in D/<worker>.log, and
// the runner's own steps in D/runner.log, each line prefixed with CLOCK_MONOTONIC ns of its
// arrival: the timeline that explains a violation.
void trace(const QString &file, const QString &line)
{
    static const QString dir = qEnvironmentVariable("QSIMBA_FAULT_TRACE_DIR");
    if (dir.isEmpty())
        return;
    QFile f(dir + QLatin1Char('/') + file + QStringLiteral(".log"));
    if (f.open(QIODevice::WriteOnly | QIODevice::Append))
        f.write(QByteArray::number(monotonicNs()) + ' ' + line.toUtf8() + '\n');
}

// Lets the event loop run for \a ms: the schedule's waits (fault durations), not a
// synchronization; conditions are awaited with waitFor().
void pause(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, Qt::PreciseTimer, &loop, &QEventLoop::quit);
    loop.exec();
}

bool waitFor(const std::function<bool()> &condition, qint64 timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeoutMs)
            return false;
        pause(5);
    }
    return true;
}

// Sends \a sig to \a pid and every process descending from it (a server's children).
void signalTree(qint64 pid, int sig)
{
    QList<qint64> pids{pid};
    for (qsizetype i = 0; i < pids.size(); ++i) {
        const auto entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &e : entries) {
            bool ok = false;
            const qint64 child = e.toLongLong(&ok);
            if (!ok)
                continue;
            QFile stat(QStringLiteral("/proc/%1/stat").arg(child));
            if (!stat.open(QIODevice::ReadOnly))
                continue;
            const QByteArray text = stat.readAll();
            const auto fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
            if (fields.size() > 1 && fields.at(1).toLongLong() == pids.at(i) && !pids.contains(child))
                pids << child;
        }
    }
    for (qint64 p : pids)
        ::kill(pid_t(p), sig);
}

// Exposes a fixture's server process, to freeze the server with its children, and restarts
// a server whose fixture has no restart(): the same program with the same arguments (same
// port, same data) after a clean shutdown by \a sig, ready when its port accepts.
template<class Server>
class Exposed : public Server
{
public:
    qint64 pid() const { return this->m_process ? this->m_process->processId() : 0; }

    bool restartProcess(int sig)
    {
        if (!this->isRunning())
            return false;
        const QString program = this->m_process->program();
        const QStringList args = this->m_process->arguments();
        ::kill(pid_t(pid()), sig);
        if (!this->m_process->waitForFinished(20000)) {
            this->m_process->kill();
            this->m_process->waitForFinished(5000);
        }
        const quint16 port = this->port();
        return this->launch(program, args, [port] {
            QTcpSocket socket;
            socket.connectToHost(QHostAddress::LocalHost, port);
            return socket.waitForConnected(200);
        });
    }
};

struct Interval
{
    QString name;
    qint64 token = 0, begin = 0, end = 0;
    QString worker, reason;
    // How much later the end would have been had the worker estimated its deadline as
    // "the time after the probe + remaining()": the hold-up of the last probe (a diagnosis).
    qint64 lateBy = 0;
};

struct Worker
{
    QString id;
    std::unique_ptr<QProcess> process;
    QByteArray buffer;
    std::map<QPair<QString, qint64>, Interval> open; // (name, token) → a term it holds now
    QStringList log;                  // last lines
    QStringList errors;               // the first lines of a sanitizer's report on its standard error
    std::deque<std::pair<qint64, QString>> timeline; // every line it printed, with its arrival (ns); bounded
    bool stopped = false, closing = false, closed = false, gone = false, killed = false;
    qint64 closeStart = 0;
    qint64 resumedAt = 0; // when the runner last let it go on after freezing it
    bool ready = false;   // printed READY: its SIGTERM handler is in place
    bool terminateWhenReady = false;
};

// SIGTERM (the worker closes) once the worker handles it: a worker still starting (a slow
// start under a sanitizer on a loaded machine) would be killed by it instead.
void terminate(Worker &w)
{
    trace(QStringLiteral("runner"), QStringLiteral("terminate %1").arg(w.id));
    if (w.ready)
        w.process->terminate();
    else
        w.terminateWhenReady = true;
}

enum class Fault { KillLeader, StopLeader, StopServer, RestartServer, ProxyCut, ProxyDelay, ProxyReset, RedisFlushAll, ZkExpire };

const QStringList faultNames{QStringLiteral("kill-leader"), QStringLiteral("stop-leader"), QStringLiteral("stop-server"),
                             QStringLiteral("restart-server"), QStringLiteral("proxy-cut"), QStringLiteral("proxy-delay"),
                             QStringLiteral("proxy-reset"), QStringLiteral("redis-flushall"), QStringLiteral("zk-expire")};

QString faultName(Fault f) { return faultNames.at(int(f)); }

QList<Fault> faultsOf(const QString &backend)
{
    if (backend == QLatin1String("sqlite"))
        return {Fault::KillLeader, Fault::StopLeader};
    QList<Fault> f{Fault::KillLeader, Fault::StopLeader, Fault::StopServer, Fault::RestartServer,
                   Fault::ProxyCut, Fault::ProxyDelay, Fault::ProxyReset};
    if (backend == QLatin1String("redis"))
        f << Fault::RedisFlushAll;
    if (backend == QLatin1String("zookeeper"))
        f << Fault::ZkExpire;
    return f;
}

struct CaseResult
{
    QString backend;
    Fault fault;
    qint64 start = 0, end = 0; // monotonic ns: the case's window
    qint64 recoveryMs = -1, leaderMs = -1, boundMs = 0; // every partition owned again; a leader again
    QStringList violations;
};

struct Options
{
    quint64 seed = 0;
    int leaseMs = 1500;
    int workers = 3;
    int partitions = 4;
    int rounds = 1;
    qint64 durationS = 0; // > 0: repeat rounds until this much time passed per backend
    QStringList faults;   // empty: all that apply
    QStringList knownFailures;
    bool selfTest = false; // the workers are deliberately wrong: the run must find violations
};

class Run
{
public:
    Run(const QString &backend, const Options &o, std::mt19937_64 &random)
        : m_backend(backend), m_o(o), m_random(random)
    {
    }

    QList<CaseResult> execute(QStringList &fatal)
    {
        if (!m_dir.isValid() || !startServer()) {
            fatal << QStringLiteral("%1: the server did not start: %2").arg(m_backend, m_serverError);
            return {};
        }
        if (!createFence()) {
            fatal << QStringLiteral("%1: cannot create the fenced table").arg(m_backend);
            return {};
        }
        QList<Fault> faults;
        for (Fault f : faultsOf(m_backend)) {
            if (m_o.faults.isEmpty() || m_o.faults.contains(faultName(f)))
                faults << f;
        }
        QElapsedTimer elapsed;
        elapsed.start();
        for (int round = 0; faults.size() > 0; ++round) {
            if (m_o.durationS > 0 ? elapsed.elapsed() > m_o.durationS * 1000 : round >= m_o.rounds)
                break;
            QList<Fault> order = faults;
            std::shuffle(order.begin(), order.end(), m_random);
            for (Fault f : order)
                m_cases << runCase(f);
        }
        finish();
        check();
        return m_cases;
    }

    ~Run()
    {
        for (auto &w : m_workers) {
            if (w->process && w->process->state() != QProcess::NotRunning) {
                ::kill(pid_t(w->process->processId()), SIGCONT);
                w->process->kill();
                w->process->waitForFinished(5000);
            }
        }
        if (m_proxy)
            m_proxy->setMode(TcpProxy::Mode::Forward);
        if (m_serverPid)
            signalTree(m_serverPid(), SIGCONT);
    }

private:
    // ---- servers ----------------------------------------------------------------------
    bool startServer()
    {
        QString direct;
        quint16 port = 0;
        if (m_backend == QLatin1String("sqlite")) {
            m_url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("leases.db"));
            m_directUrl = m_url;
            return true;
        }
        if (m_backend == QLatin1String("postgres")) {
            auto *s = launch<PostgresServer>(port);
            if (!s)
                return false;
            direct = s->url().toString();
            m_restart = [s] { return s->restartProcess(SIGINT); }; // PostgreSQL's fast shutdown
        } else if (m_backend == QLatin1String("mariadb")) {
            auto *s = launch<MariaDbServer>(port);
            if (!s)
                return false;
            direct = s->url().toString();
            m_restart = [s] { return s->restartProcess(SIGTERM); };
        } else if (m_backend == QLatin1String("redis")) {
            auto *s = launch<RedisServer>(port);
            if (!s)
                return false;
            // maxLease = the lease: after a loss of data (FLUSHALL, a restart) the backend
            // grants nothing for maxLease (docs/backend-redis.md), which the bound includes.
            direct = s->url().toString() + QStringLiteral("?maxLease=%1ms").arg(m_o.leaseMs);
            m_restart = [s] { return s->restart(); };
            m_flushAll = [s] { return s->cli({QStringLiteral("FLUSHALL")}) == 0; };
        } else if (m_backend == QLatin1String("zookeeper")) {
            auto *s = launch<ZookeeperServer>(port);
            if (!s)
                return false;
            direct = QStringLiteral("zookeeper://%1/simba-fault?sessionTimeout=%2ms").arg(s->hostPort()).arg(zkSessionMs());
            m_restart = [s] { return s->restart(); };
        } else {
            return failed(QStringLiteral("unknown backend"));
        }
        m_proxy = std::make_unique<TcpProxy>(QStringLiteral("127.0.0.1"), port);
        if (!m_proxy->isListening())
            return failed(m_proxy->errorString());
        m_directUrl = direct;
        m_url = QString(direct).replace(QStringLiteral(":%1").arg(port), QStringLiteral(":%1").arg(m_proxy->port()));
        return true;
    }

    // Starts the fixture of Server; null (with m_serverError) when it did not start.
    template<class Server>
    Exposed<Server> *launch(quint16 &port)
    {
        auto s = std::make_unique<Exposed<Server>>();
        Exposed<Server> *server = s.get();
        if (!s->start()) {
            failed(s->errorString());
            return nullptr;
        }
        port = s->port();
        m_serverPid = [server] { return server->pid(); };
        m_server = std::move(s);
        return server;
    }

    int zkSessionMs() const { return 2 * m_o.leaseMs; }

    bool failed(const QString &why)
    {
        m_serverError = why;
        return false;
    }

    bool createFence()
    {
        m_fencePath = m_dir.filePath(QStringLiteral("fence.db"));
        auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("fence-") + m_backend);
        db.setDatabaseName(m_fencePath);
        if (!db.open())
            return false;
        QSqlQuery q(db);
        return q.exec(QStringLiteral("PRAGMA journal_mode=WAL")) && q.exec(QStringLiteral("PRAGMA synchronous=OFF"))
            && q.exec(QStringLiteral("CREATE TABLE writes(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, "
                                     "token INTEGER NOT NULL, worker TEXT NOT NULL, at INTEGER NOT NULL, "
                                     "accepted INTEGER NOT NULL)"));
    }

    // ---- workers ----------------------------------------------------------------------
    void spawn(Worker &w)
    {
        w.process = std::make_unique<QProcess>();
        w.buffer.clear();
        w.open.clear();
        w.errors.clear();
        w.stopped = w.closing = w.closed = w.gone = w.ready = w.terminateWhenReady = false;
        QObject::connect(w.process.get(), &QProcess::readyReadStandardOutput, [this, &w] { drain(w); });
        QObject::connect(w.process.get(), &QProcess::readyReadStandardError, [&w] { drainErrors(w); });
        QObject::connect(w.process.get(), &QProcess::finished, [this, &w](int code, QProcess::ExitStatus status) {
            drain(w);
            drainErrors(w);
            closeOpen(w, monotonicNs(), QStringLiteral("EXITED"));
            w.gone = true;
            if (!w.killed && (status != QProcess::NormalExit || code != 0 || !w.closed))
                m_unexpectedExits << QStringLiteral("%1 exited (status %2, code %3)%4\n      %5")
                                         .arg(w.id).arg(int(status)).arg(code)
                                         .arg(w.closed ? QStringLiteral(" after closing") : QStringLiteral(" without closing"))
                                         .arg(w.errors.join(QStringLiteral("\n      ")));
        });
        w.killed = false;
        if (m_o.selfTest) {
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("QSIMBA_FAULT_BROKEN_WORKER"), QStringLiteral("1"));
            w.process->setProcessEnvironment(env);
        }
        w.process->start(QStringLiteral(QSIMBA_FAULT_WORKER),
                         {m_url, m_fencePath, w.id, QString::number(m_o.leaseMs), QString::number(m_o.partitions),
                          QString::number(m_random())});
    }

    static void drainErrors(Worker &w)
    {
        for (const QByteArray &l : w.process->readAllStandardError().split('\n')) {
            if (l.isEmpty())
                continue;
            remember(w, QStringLiteral("stderr: ") + QString::fromLocal8Bit(l));
            trace(w.id, QStringLiteral("stderr: ") + QString::fromLocal8Bit(l));
            keep(w, QStringLiteral("stderr: ") + QString::fromLocal8Bit(l));
            // From a sanitizer's report on (the client's own warnings are in the log).
            if ((!w.errors.isEmpty() || l.contains("Sanitizer") || l.contains("runtime error")) && w.errors.size() < 60)
                w.errors << QString::fromLocal8Bit(l);
        }
    }

    // The worker's timeline, kept for a violation's report (the last 2,000 lines of each).
    static void keep(Worker &w, const QString &line)
    {
        w.timeline.emplace_back(monotonicNs(), line);
        if (w.timeline.size() > 2000)
            w.timeline.pop_front();
    }

    static void remember(Worker &w, const QString &line)
    {
        w.log << line;
        if (w.log.size() > 12)
            w.log.removeFirst();
    }

    void drain(Worker &w)
    {
        w.buffer += w.process->readAllStandardOutput();
        qsizetype nl;
        while ((nl = w.buffer.indexOf('\n')) >= 0) {
            const QString line = QString::fromUtf8(w.buffer.left(nl));
            w.buffer.remove(0, nl + 1);
            trace(w.id, line);
            keep(w, line);
            const auto f = line.split(QLatin1Char(' '));
            if (f.first() == QLatin1String("BEGIN") && f.size() == 5) {
                w.open[{f.at(2), f.at(3).toLongLong()}] = Interval{f.at(2), f.at(3).toLongLong(), f.at(4).toLongLong(), 0, w.id, {}};
                if (f.at(2) == QLatin1String("lock"))
                    m_lockTaken = std::max(m_lockTaken, f.at(4).toLongLong());
                remember(w, line);
            } else if (f.first() == QLatin1String("END") && f.size() == 9) {
                Interval i{f.at(1), f.at(2).toLongLong(), f.at(3).toLongLong(), f.at(4).toLongLong(), w.id, f.at(5)};
                const qint64 revokedAt = f.at(6).toLongLong(), deadline = f.at(7).toLongLong(), stall = f.at(8).toLongLong();
                if (deadline > 0)
                    i.lateBy = std::max<qint64>(0, std::min(revokedAt, deadline + stall) - std::min(revokedAt, deadline));
                m_maxStall = std::max(m_maxStall, stall);
                m_intervals << i;
                w.open.erase({f.at(1), f.at(2).toLongLong()});
                remember(w, line);
            } else if (f.first() == QLatin1String("GAP") && f.size() == 3) {
                // A worker frozen by the runner (stop-leader) waited for that, not for a CPU.
                if (f.at(2).toLongLong() - f.at(1).toLongLong() >= w.resumedAt) {
                    ++m_gaps;
                    m_maxGap = std::max(m_maxGap, f.at(1).toLongLong());
                }
            } else if (f.first() == QLatin1String("PROBE") && f.size() == 2) {
                ++m_heldUpProbes;
                m_maxStall = std::max(m_maxStall, f.at(1).toLongLong());
            } else if (f.first() == QLatin1String("READY")) {
                w.ready = true;
                if (std::exchange(w.terminateWhenReady, false))
                    w.process->terminate();
                remember(w, line);
            } else if (f.first() == QLatin1String("CLOSED")) {
                w.closed = true;
                remember(w, line);
            } else {
                remember(w, line);
            }
        }
    }

    // A process that ended without reporting its terms' ends: they end at its death at the latest.
    void closeOpen(Worker &w, qint64 at, const QString &reason)
    {
        for (auto &[name, i] : w.open) {
            Interval c = i;
            c.end = at;
            c.reason = reason;
            m_intervals << c;
        }
        w.open.clear();
    }

    Worker *holderOf(const QString &name)
    {
        for (auto &w : m_workers) {
            if (w->gone || w->stopped || w->closing || w->killed)
                continue;
            for (const auto &[key, i] : w->open) {
                if (key.first == name)
                    return w.get();
            }
        }
        return nullptr;
    }

    bool steady()
    {
        if (!holderOf(QStringLiteral("leader")))
            return false;
        for (int p = 0; p < m_o.partitions; ++p) {
            if (!holderOf(QStringLiteral("parts.%1").arg(p)))
                return false;
        }
        return true;
    }

    QString missing()
    {
        QStringList m;
        if (!holderOf(QStringLiteral("leader")))
            m << QStringLiteral("leader");
        for (int p = 0; p < m_o.partitions; ++p) {
            if (!holderOf(QStringLiteral("parts.%1").arg(p)))
                m << QStringLiteral("parts.%1").arg(p);
        }
        QString text = m.isEmpty() ? QStringLiteral("the lock was not acquired again")
                                   : QStringLiteral("nobody holds %1").arg(m.join(QStringLiteral(", ")));
        for (const auto &w : m_workers)
            text += QLatin1Char('\n') + lastLines(w->id);
        return text;
    }

    void ensureWorkers()
    {
        while (int(m_workers.size()) < m_o.workers)
            m_workers.push_back(std::make_unique<Worker>());
        for (qsizetype i = 0; i < qsizetype(m_workers.size()); ++i) {
            Worker &w = *m_workers[i];
            if (!w.process || w.gone) {
                if (!w.id.isEmpty())
                    m_retired[w.id] = std::exchange(w.timeline, {});
                w.id = QStringLiteral("w%1").arg(++m_spawned);
                spawn(w);
            }
        }
    }

    // ---- one fault ----------------------------------------------------------------------
    // When the leader and the partitions' owners were lost after a fault, and when they were
    // all back (0: not yet, or never lost).
    struct Watch
    {
        qint64 leaderLost = 0, leaderBack = 0, allLost = 0, allBack = 0;
    };
    Watch m_watch;

    void observe()
    {
        const qint64 now = monotonicNs();
        const bool leader = holderOf(QStringLiteral("leader")) != nullptr;
        const bool all = steady();
        if (!leader && !m_watch.leaderLost)
            m_watch.leaderLost = now;
        if (leader && m_watch.leaderLost && !m_watch.leaderBack)
            m_watch.leaderBack = now;
        if (!leader && m_watch.leaderBack) // lost again (the closing client, say): the last gap counts
            m_watch.leaderBack = 0;
        if (!all && !m_watch.allLost)
            m_watch.allLost = now;
        if (all && m_watch.allLost && !m_watch.allBack)
            m_watch.allBack = now;
        if (!all && m_watch.allBack)
            m_watch.allBack = 0;
    }

    // Lets the fault last \a ms while watching the holders.
    void watch(int ms)
    {
        const qint64 until = monotonicNs() + qint64(ms) * 1'000'000;
        while (monotonicNs() < until) {
            pause(5);
            observe();
        }
    }

    CaseResult runCase(Fault fault)
    {
        CaseResult r;
        r.backend = m_backend;
        r.fault = fault;
        r.start = monotonicNs();
        const int lease = m_o.leaseMs, renew = lease / 3;
        ensureWorkers();
        if (!waitFor([this] { return steady(); }, 4 * lease + 15000)) {
            r.violations << QStringLiteral("no leader and owner of every partition %1 ms after the workers started: %2").arg(4 * lease + 15000).arg(missing());
            r.end = monotonicNs();
            return r;
        }
        pause(int(std::uniform_int_distribution<int>(0, lease)(m_random)));
        Worker *leader = holderOf(QStringLiteral("leader"));
        // The client that closes in the middle of the fault: any worker, the leader included.
        Worker *closer = m_workers[std::uniform_int_distribution<size_t>(0, m_workers.size() - 1)(m_random)].get();
        const int closeAfter = std::uniform_int_distribution<int>(0, lease)(m_random);
        int duration = 0;
        const qint64 injected = monotonicNs();
        say(QStringLiteral("  %1 %2: leader %3, %4 closes %5 ms in").arg(m_backend, faultName(fault), leader->id, closer->id).arg(closeAfter));
        trace(QStringLiteral("runner"), QStringLiteral("inject %1 %2").arg(m_backend, faultName(fault)));
        const auto closeNow = [&] {
            if (closer->gone || closer->closing || closer->killed)
                return;
            closer->closing = true;
            closer->closeStart = monotonicNs();
            if (closer->stopped)
                return; // it closes when it wakes up
            terminate(*closer);
        };
        bool closeDone = false;
        m_watch = {};
        const auto during = [&](int ms) { // the fault lasts ms; the closer closes at its moment
            const qint64 until = monotonicNs() + qint64(ms) * 1'000'000;
            if (!closeDone && closeAfter < ms) {
                watch(closeAfter);
                closeNow();
                closeDone = true;
            }
            const qint64 left = (until - monotonicNs()) / 1'000'000;
            if (left > 0)
                watch(int(left));
        };
        switch (fault) {
        case Fault::KillLeader:
            leader->killed = true;
            ::kill(pid_t(leader->process->processId()), SIGKILL);
            closeOpen(*leader, monotonicNs(), QStringLiteral("KILLED"));
            break;
        case Fault::StopLeader:
            duration = lease + renew;
            leader->stopped = true;
            ::kill(pid_t(leader->process->processId()), SIGSTOP);
            during(duration);
            ::kill(pid_t(leader->process->processId()), SIGCONT);
            leader->resumedAt = monotonicNs();
            leader->stopped = false;
            if (leader->closing)
                terminate(*leader);
            break;
        case Fault::StopServer:
            duration = lease + renew;
            signalTree(m_serverPid(), SIGSTOP);
            during(duration);
            signalTree(m_serverPid(), SIGCONT);
            break;
        case Fault::RestartServer: {
            QElapsedTimer t;
            t.start();
            if (!m_restart())
                r.violations << QStringLiteral("the server did not restart");
            duration = int(t.elapsed());
            trace(QStringLiteral("runner"), QStringLiteral("restarted after %1 ms").arg(duration));
            break;
        }
        case Fault::ProxyCut:
            duration = lease + renew;
            m_proxy->setMode(TcpProxy::Mode::BlackHole);
            during(duration);
            m_proxy->setMode(TcpProxy::Mode::Forward);
            break;
        case Fault::ProxyDelay:
            duration = 2 * lease;
            m_proxy->setMode(TcpProxy::Mode::Delay, milliseconds(renew / 2));
            during(duration);
            m_proxy->setMode(TcpProxy::Mode::Forward);
            break;
        case Fault::ProxyReset:
            duration = renew;
            m_proxy->setMode(TcpProxy::Mode::Reset);
            during(duration);
            m_proxy->setMode(TcpProxy::Mode::Forward);
            break;
        case Fault::RedisFlushAll:
            if (!m_flushAll())
                r.violations << QStringLiteral("FLUSHALL failed");
            break;
        case Fault::ZkExpire:
            // The C client's ZooKeeper session expires at the server while no byte passes.
            duration = zkSessionMs() + lease;
            m_proxy->setMode(TcpProxy::Mode::BlackHole);
            during(duration);
            m_proxy->setMode(TcpProxy::Mode::Forward);
            break;
        }
        if (!closeDone) {
            watch(std::max(0, closeAfter - duration));
            closeNow();
        }
        // A holder again: the fault's duration, then a lease (the lost holder's lease runs
        // out), then a renewal period and a few round trips (the candidates' next tries),
        // plus 1.5 s for a loaded machine; ZooKeeper adds its session timeout (a lost C
        // session is noticed by the server only then); Redis after a loss of data adds its
        // quiet period (maxLease).
        r.boundMs = duration + lease + 2 * renew + 1500 + (m_backend == QLatin1String("zookeeper") ? zkSessionMs() : 0)
            + (m_backend == QLatin1String("redis") && (fault == Fault::RestartServer || fault == Fault::RedisFlushAll) ? lease : 0);
        // Recovered: a leader, an owner of every partition, and the lock taken after the fault.
        const qint64 healed = monotonicNs();
        const bool recovered = waitFor([&] {
            observe();
            return steady() && m_lockTaken > healed;
        }, r.boundMs * 3);
        const auto since = [&](qint64 lost, qint64 back) { return !lost ? 0 : back ? (back - injected) / 1'000'000 : -1; };
        r.recoveryMs = recovered ? since(m_watch.allLost, m_watch.allBack) : -1;
        r.leaderMs = since(m_watch.leaderLost, m_watch.leaderBack);
        if (!recovered)
            r.violations << QStringLiteral("no leader and owner of every partition %1 ms after the fault (bound %2 ms): %3")
                                .arg(r.boundMs * 3).arg(r.boundMs).arg(missing());
        else if (r.recoveryMs > r.boundMs)
            r.violations << QStringLiteral("recovery took %1 ms, over the bound of %2 ms").arg(r.recoveryMs).arg(r.boundMs)
                                + warningsSince(injected);
        // The closing client must have finished closing within its bound.
        const int closeBound = 2 * lease + 4000;
        if (!closer->killed && !waitFor([closer] { return closer->gone; }, closeBound)) {
            r.violations << QStringLiteral("%1 did not close within %2 ms; last lines:\n      %3")
                                .arg(closer->id).arg(closeBound).arg(closer->log.join(QStringLiteral("\n      ")));
            closer->killed = true;
            closer->process->kill();
            waitFor([closer] { return closer->gone; }, 5000);
        }
        r.end = monotonicNs();
        for (const QString &e : std::as_const(m_unexpectedExits))
            r.violations << e;
        m_unexpectedExits.clear();
        return r;
    }

    // Closes every worker, then waits for the backend to hold nothing.
    void finish()
    {
        for (auto &w : m_workers) {
            if (!w->gone) {
                w->closing = true;
                terminate(*w);
            }
        }
        const int closeBound = 2 * m_o.leaseMs + 4000;
        for (auto &w : m_workers) {
            if (!waitFor([&] { return w->gone; }, closeBound)) {
                m_finalViolations << QStringLiteral("%1 did not close within %2 ms").arg(w->id).arg(closeBound);
                w->killed = true;
                w->process->kill();
                waitFor([&] { return w->gone; }, 5000);
            }
        }
        for (const QString &e : std::as_const(m_unexpectedExits))
            m_finalViolations << e;
        // Killed workers' sessions expire a lease after their death at most.
        QString left;
        const bool clean = waitFor([&] { return (left = leftovers()).isEmpty(); }, 2 * m_o.leaseMs + 3000);
        if (!clean)
            m_finalViolations << QStringLiteral("after every worker closed, the backend still holds: ") + left;
    }

    QString leftovers()
    {
        try {
            const auto backend = QSimbaBackendFactory::create(m_directUrl);
            if (!backend->capabilities().inspection)
                return {};
            const auto in = backend->inspect();
            QStringList left;
            for (const auto &s : in.sessions)
                left << QStringLiteral("session %1 (%2 ms left)").arg(s.id.toString()).arg(s.remaining.count());
            for (const auto &l : in.leases) {
                if (!l.holder.isNull())
                    left << QStringLiteral("lease %1 token %2").arg(l.name.toString()).arg(l.token);
            }
            for (const auto &g : in.groups) {
                if (!g.members.isEmpty())
                    left << QStringLiteral("group %1 with %2 members").arg(g.name).arg(g.members.size());
            }
            return left.join(QStringLiteral(", "));
        } catch (const std::exception &e) {
            return QStringLiteral("(inspection failed: %1)").arg(QString::fromUtf8(e.what()));
        }
    }

    // ---- checks -------------------------------------------------------------------------
    CaseResult *caseAt(qint64 t)
    {
        for (auto &c : m_cases) {
            if (t >= c.start && t <= c.end)
                return &c;
        }
        return m_cases.isEmpty() ? nullptr : (t < m_cases.first().start ? &m_cases.first() : &m_cases.last());
    }

    QString describe(const Interval &i) const
    {
        return QStringLiteral("%1 token %2 held by %3 from %4 to %5 (%6)")
            .arg(i.name).arg(i.token).arg(i.worker).arg(i.begin).arg(i.end).arg(i.reason);
    }

    using Timeline = std::deque<std::pair<qint64, QString>>;
    // The timeline of \a worker, live or replaced since; nullptr if none.
    const Timeline *timelineOf(const QString &worker) const
    {
        for (const auto &w : m_workers) {
            if (w->id == worker)
                return &w->timeline;
        }
        const auto retired = m_retired.find(worker);
        return retired != m_retired.end() ? &retired->second : nullptr;
    }

    // What the workers wrote on standard error (their warnings: failed calls, reconnects,
    // lost sessions) from \a since on, each line with its arrival in ms after it and a run
    // of the same line counted: what held a recovery up.
    QString warningsSince(qint64 since) const
    {
        QStringList ids;
        for (const auto &[id, timeline] : m_retired)
            ids << id;
        for (const auto &w : m_workers)
            ids << w->id;
        QString text;
        for (const QString &id : std::as_const(ids)) {
            QString last;
            int times = 0;
            const auto flush = [&] {
                if (times > 1)
                    text += QStringLiteral(" (%1 times)").arg(times);
            };
            for (const auto &[at, line] : *timelineOf(id)) {
                if (at < since || !line.startsWith(QLatin1String("stderr: ")))
                    continue;
                if (line == last) {
                    ++times;
                    continue;
                }
                flush();
                text += QStringLiteral("\n    %1 +%2 ms: %3").arg(id).arg((at - since) / 1'000'000).arg(line.mid(8));
                last = line;
                times = 1;
            }
            flush();
        }
        return text;
    }

    // The lines \a worker printed from \a from to \a to (ns; the last 60 of them), each with
    // its arrival in ms after \a origin: both sides of an overlap, even of replaced workers.
    QString linesAround(const QString &worker, qint64 from, qint64 to, qint64 origin) const
    {
        const Timeline *timeline = timelineOf(worker);
        if (!timeline)
            return QStringLiteral("    %1: no lines").arg(worker);
        QStringList lines;
        for (const auto &[at, line] : *timeline) {
            if (at >= from && at <= to)
                lines << QStringLiteral("%1 ms: %2").arg(double(at - origin) / 1e6, 0, 'f', 1).arg(line);
        }
        if (lines.size() > 60)
            lines = lines.mid(lines.size() - 60);
        return QStringLiteral("    %1, its lines from %2 to %3 ms:\n      %4")
            .arg(worker)
            .arg(double(from - origin) / 1e6, 0, 'f', 0)
            .arg(double(to - origin) / 1e6, 0, 'f', 0)
            .arg(lines.join(QStringLiteral("\n      ")));
    }

    QString lastLines(const QString &worker) const
    {
        for (const auto &w : m_workers) {
            if (w->id == worker)
                return QStringLiteral("    %1's last lines:\n      %2").arg(worker, w->log.join(QStringLiteral("\n      ")));
        }
        return QStringLiteral("    %1: replaced since; its lines are gone").arg(worker);
    }

    void violate(qint64 at, const QString &what)
    {
        if (CaseResult *c = caseAt(at))
            c->violations << what;
        else
            m_finalViolations << what;
    }

    // Overlaps had every interval ended lateBy later: what the former deadline estimate
    // ("now after the probe + remaining()") would have reported on this run.
    static void countEstimateOverlaps(const QList<Interval> &list, qint64 &count, qint64 &worst)
    {
        qint64 latestEnd = 0;
        for (const Interval &i : list) {
            if (latestEnd && i.begin < latestEnd) {
                ++count;
                worst = std::max(worst, latestEnd - i.begin);
            }
            latestEnd = std::max(latestEnd, i.end + i.lateBy);
        }
    }

    void check()
    {
        QMap<QString, QList<Interval>> byName;
        for (const Interval &i : std::as_const(m_intervals))
            byName[i.name] << i;
        for (auto it = byName.begin(); it != byName.end(); ++it) {
            auto &list = it.value();
            std::sort(list.begin(), list.end(), [](const Interval &a, const Interval &b) { return a.begin < b.begin; });
            countEstimateOverlaps(list, m_estimateOverlaps, m_estimateWorst);
            const Interval *latest = nullptr;
            for (qsizetype k = 0; k < list.size(); ++k) {
                const Interval &i = list.at(k);
                if (latest && i.begin < latest->end)
                    violate(i.begin, QStringLiteral("two valid terms overlap by %1 ms:\n    %2\n    %3\n%4\n%5")
                                         .arg(double(latest->end - i.begin) / 1e6, 0, 'f', 1)
                                         .arg(describe(*latest), describe(i),
                                              linesAround(latest->worker, latest->begin - 2'000'000'000, i.begin + 300'000'000, i.begin),
                                              linesAround(i.worker, latest->begin - 2'000'000'000, i.begin + 300'000'000, i.begin)));
                if (k > 0 && i.token <= list.at(k - 1).token)
                    violate(i.begin, QStringLiteral("token did not increase: %1 after %2").arg(describe(i), describe(list.at(k - 1))));
                if (!latest || i.end > latest->end)
                    latest = &list.at(k);
            }
        }
        // The fenced table: every accepted write came from a term of its writer, and none was
        // accepted after a term with a higher token had begun.
        auto db = QSqlDatabase::database(QStringLiteral("fence-") + m_backend);
        QSqlQuery q(db);
        q.exec(QStringLiteral("SELECT name, token, worker, at, accepted FROM writes ORDER BY id"));
        QMap<QString, qint64> highest;
        while (q.next()) {
            const QString name = q.value(0).toString(), worker = q.value(2).toString();
            const qint64 token = q.value(1).toLongLong(), at = q.value(3).toLongLong();
            const bool accepted = q.value(4).toBool();
            ++m_writes;
            if (!accepted) {
                ++m_rejected;
                continue;
            }
            if (token < highest.value(name))
                violate(at, QStringLiteral("the fence accepted token %1 of %2 after token %3").arg(token).arg(name).arg(highest.value(name)));
            highest[name] = std::max(highest.value(name), token);
            const auto &terms = byName.value(name);
            const bool own = std::any_of(terms.begin(), terms.end(), [&](const Interval &i) {
                return i.token == token && i.worker == worker && i.begin <= at && at <= i.end;
            });
            if (!own)
                violate(at, QStringLiteral("%1 wrote %2 with token %3 at %4 outside any valid term of its own\n%5")
                                .arg(worker, name).arg(token).arg(at).arg(lastLines(worker)));
            for (const Interval &i : terms) {
                if (i.token > token && i.begin < at) {
                    violate(at, QStringLiteral("stale write accepted: %1 wrote %2 with token %3 at %4, after %5 began")
                                    .arg(worker, name).arg(token).arg(at).arg(describe(i)));
                    break;
                }
            }
        }
        if (!m_cases.isEmpty())
            m_cases.last().violations << m_finalViolations;
        else if (!m_finalViolations.isEmpty())
            say(m_finalViolations.join(QLatin1Char('\n')));
    }

public:
    qint64 writes() const { return m_writes; }
    qint64 rejected() const { return m_rejected; }
    qsizetype terms() const { return m_intervals.size(); }
    QString probes() const
    {
        return QStringLiteral("samplers kept waiting 20 ms or more %1 times (worst %2 ms); %3 deadline probes held up "
                              "2 ms or more (worst %4 ms); deadlines estimated after the probe would have shown %5 "
                              "overlaps (worst %6 ms)")
            .arg(m_gaps).arg(double(m_maxGap) / 1e6, 0, 'f', 1)
            .arg(m_heldUpProbes).arg(double(m_maxStall) / 1e6, 0, 'f', 1).arg(m_estimateOverlaps)
            .arg(double(m_estimateWorst) / 1e6, 0, 'f', 1);
    }

private:
    QString m_backend;
    const Options &m_o;
    std::mt19937_64 &m_random;
    QTemporaryDir m_dir;
    QString m_serverError, m_url, m_directUrl, m_fencePath;
    std::unique_ptr<TestServer> m_server;
    std::unique_ptr<TcpProxy> m_proxy;
    std::function<qint64()> m_serverPid;
    std::function<bool()> m_restart, m_flushAll;
    std::vector<std::unique_ptr<Worker>> m_workers;
    std::map<QString, Timeline> m_retired; // the timelines of replaced workers
    int m_spawned = 0;
    qint64 m_lockTaken = 0; // when the lock was last acquired
    QList<Interval> m_intervals;
    QList<CaseResult> m_cases;
    QStringList m_unexpectedExits, m_finalViolations;
    qint64 m_writes = 0, m_rejected = 0;
    qint64 m_maxStall = 0, m_heldUpProbes = 0, m_estimateOverlaps = 0, m_estimateWorst = 0, m_gaps = 0, m_maxGap = 0;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Injects faults into QSimba clients on real servers and checks the guarantees."));
    p.addHelpOption();
    const QCommandLineOption seedO(QStringLiteral("seed"), QStringLiteral("The schedule's seed (default: random, printed)."), QStringLiteral("N"));
    const QCommandLineOption backendsO(QStringLiteral("backends"), QStringLiteral("Comma-separated: sqlite,postgres,mariadb,redis,zookeeper (default: all)."), QStringLiteral("LIST"));
    const QCommandLineOption faultsO(QStringLiteral("faults"), QStringLiteral("Comma-separated fault names (default: every one that applies): ") + faultNames.join(QLatin1Char(',')), QStringLiteral("LIST"));
    const QCommandLineOption roundsO(QStringLiteral("rounds"), QStringLiteral("Runs of each fault per backend (default 1)."), QStringLiteral("N"));
    const QCommandLineOption durationO(QStringLiteral("duration"), QStringLiteral("Repeat rounds for this many seconds per backend (overrides --rounds)."), QStringLiteral("S"));
    const QCommandLineOption leaseO(QStringLiteral("lease"), QStringLiteral("The workers' lease in ms (default 1500)."), QStringLiteral("MS"));
    const QCommandLineOption workersO(QStringLiteral("workers"), QStringLiteral("Worker processes (default 3)."), QStringLiteral("N"));
    const QCommandLineOption knownO(QStringLiteral("known-failure"), QStringLiteral("backend:fault whose violations are reported but do not fail the run (a known bug)."), QStringLiteral("CASE"));
    const QCommandLineOption selfTestO(QStringLiteral("self-test"), QStringLiteral("Run deliberately wrong workers (they use each term a lease longer than it was valid): succeed only if the checks catch them."));
    p.addOptions({seedO, backendsO, faultsO, roundsO, durationO, leaseO, workersO, knownO, selfTestO});
    p.process(app);

    Options o;
    o.seed = p.isSet(seedO) ? p.value(seedO).toULongLong() : QRandomGenerator::global()->bounded(1'000'000'000u);
    o.rounds = p.isSet(roundsO) ? p.value(roundsO).toInt() : 1;
    o.durationS = p.isSet(durationO) ? p.value(durationO).toLongLong() : 0;
    o.leaseMs = p.isSet(leaseO) ? p.value(leaseO).toInt() : 1500;
    o.workers = p.isSet(workersO) ? p.value(workersO).toInt() : 3;
    o.faults = p.isSet(faultsO) ? p.value(faultsO).split(QLatin1Char(','), Qt::SkipEmptyParts) : QStringList{};
    o.knownFailures = p.values(knownO);
    o.selfTest = p.isSet(selfTestO);
    const QStringList all{QStringLiteral("sqlite"), QStringLiteral("postgres"), QStringLiteral("mariadb"), QStringLiteral("redis"), QStringLiteral("zookeeper")};
    const QStringList backends = p.isSet(backendsO) ? p.value(backendsO).split(QLatin1Char(','), Qt::SkipEmptyParts) : all;
    for (const QString &b : backends) {
        if (!all.contains(b)) {
            say(QStringLiteral("unknown backend \"%1\": expected one of %2").arg(b, all.join(QLatin1Char(','))));
            return 2;
        }
    }
    for (const QString &f : std::as_const(o.faults)) {
        if (!faultNames.contains(f)) {
            say(QStringLiteral("unknown fault \"%1\": expected one of %2").arg(f, faultNames.join(QLatin1Char(','))));
            return 2;
        }
    }
    if (o.leaseMs < 300 || o.workers < 2 || o.rounds < 1) {
        say(QStringLiteral("--lease must be at least 300 ms, --workers at least 2, --rounds at least 1"));
        return 2;
    }
    std::signal(SIGPIPE, SIG_IGN);
    say(QStringLiteral("fault suite: seed %1, lease %2 ms, %3 workers, backends %4").arg(o.seed).arg(o.leaseMs).arg(o.workers).arg(backends.join(QLatin1Char(','))));
    const QString replay = QStringLiteral("replay: qsimba_faultrunner --seed %1 --backends %2 --lease %3 --workers %4%5%6")
                               .arg(o.seed).arg(backends.join(QLatin1Char(','))).arg(o.leaseMs).arg(o.workers)
                               .arg(o.faults.isEmpty() ? QString() : QStringLiteral(" --faults ") + o.faults.join(QLatin1Char(',')))
                               .arg(o.durationS > 0 ? QStringLiteral(" --duration %1").arg(o.durationS) : QStringLiteral(" --rounds %1").arg(o.rounds));
    std::mt19937_64 random(o.seed);
    QList<CaseResult> results;
    QStringList fatal;
    QElapsedTimer total;
    total.start();
    for (const QString &b : backends) {
        Run run(b, o, random);
        const auto cases = run.execute(fatal);
        results << cases;
        say(QStringLiteral("  %1: %2 terms recorded, %3 fenced writes (%4 rejected); %5").arg(b).arg(run.terms()).arg(run.writes()).arg(run.rejected()).arg(run.probes()));
    }

    // The table: backend × fault × runs × violations × recovery.
    int failures = 0, known = 0;
    say(QString());
    say(QStringLiteral("| backend | fault | runs | violations | leader again: median / worst ms | every partition owned: median / worst ms | bound ms |"));
    say(QStringLiteral("|---|---|---|---|---|---|---|"));
    QMap<QPair<QString, QString>, QList<CaseResult>> table;
    for (const CaseResult &c : std::as_const(results))
        table[{c.backend, faultName(c.fault)}] << c;
    const auto spread = [](QList<qint64> v) {
        if (v.isEmpty())
            return QStringLiteral("-");
        std::sort(v.begin(), v.end());
        return QStringLiteral("%1 / %2").arg(v.at((v.size() - 1) / 2)).arg(v.last());
    };
    for (const QString &b : backends) {
        for (auto it = table.begin(); it != table.end(); ++it) {
            if (it.key().first != b)
                continue;
            QList<qint64> leader, all;
            int violations = 0;
            qint64 bound = 0;
            for (const CaseResult &c : it.value()) {
                if (c.leaderMs >= 0)
                    leader << c.leaderMs;
                if (c.recoveryMs >= 0)
                    all << c.recoveryMs;
                violations += int(c.violations.size());
                bound = std::max(bound, c.boundMs);
            }
            const bool isKnown = o.knownFailures.contains(b + QLatin1Char(':') + it.key().second);
            say(QStringLiteral("| %1 | %2 | %3 | %4%5 | %6 | %7 | %8 |")
                    .arg(b, it.key().second).arg(it.value().size()).arg(violations)
                    .arg(isKnown && violations ? QStringLiteral(" (known)") : QString())
                    .arg(spread(leader), spread(all)).arg(bound));
            (isKnown ? known : failures) += violations;
        }
    }
    say(QString());
    for (const CaseResult &c : std::as_const(results)) {
        for (const QString &v : c.violations)
            say(QStringLiteral("VIOLATION %1 × %2 (seed %3): %4").arg(c.backend, faultName(c.fault)).arg(o.seed).arg(v));
    }
    for (const QString &f : std::as_const(fatal))
        say(QStringLiteral("FAILED: ") + f);
    say(QStringLiteral("%1 violations, %2 of them known; %3 s").arg(failures + known).arg(known).arg(total.elapsed() / 1000));
    if (o.selfTest) {
        const bool caught = std::any_of(results.cbegin(), results.cend(), [](const CaseResult &c) {
            return std::any_of(c.violations.cbegin(), c.violations.cend(), [](const QString &v) { return v.startsWith(QLatin1String("two valid terms overlap")); });
        });
        say(caught ? QStringLiteral("self-test: the checks caught the broken workers")
                   : QStringLiteral("self-test FAILED: the broken workers went unnoticed"));
        return caught && fatal.isEmpty() ? 0 : 1;
    }
    if (failures + known > 0 || !fatal.isEmpty())
        say(replay);
    return failures > 0 || !fatal.isEmpty() ? 1 : 0;
}
