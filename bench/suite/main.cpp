// SPDX-License-Identifier: Apache-2.0
// The benchmark suite: lock cycles, handoffs, handovers and crash failover per backend,
// each figure as a ratio to the raw client's round trip measured in the same run.
//
//   qsimba_bench_suite --backend B [--quick] [--out FILE] [--warmup S]
//       starts B's server the way the tests do (loopback, free port, temporary directory),
//       measures every figure, prints them and appends one row per figure to FILE (TSV);
//       ZooKeeper's server is warmed up first (at most S seconds, default 60; warmup.h)
//   qsimba_bench_suite --table FILE…
//       prints the Markdown table of those rows (figures × backends)
//   qsimba_bench_suite --worker KIND --url URL …
//       a worker process of the multi-process figures (workers.cpp)
// B is one of memory, sqlite, postgres, mariadb, redis, zookeeper, etcd. bench/run.sh runs
// them all.
#include "suite.h"
#include "warmup.h"

#include "qsimba.h"
#include "qsimbabackendfactory.h"

#ifdef QSIMBA_BENCH_SQL
#include "mariadbserver.h"
#include "postgresserver.h"
#endif
#ifdef QSIMBA_BENCH_REDIS
#include "redisserver.h"
#endif
#ifdef QSIMBA_BENCH_ZOOKEEPER
#include "zookeeperserver.h"
#endif
#ifdef QSIMBA_BENCH_ETCD
#include "etcdserver.h"
#endif

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QFile>
#include <QtCore/QMap>
#include <QtCore/QProcess>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSemaphore>
#include <QtCore/QTemporaryDir>
#include <QtCore/QTextStream>

#include <array>
#include <atomic>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <thread>

#include <signal.h>

using namespace std::chrono_literals;
using namespace Bench;

namespace {

constexpr auto LockLease = 10s;    // as the issue's side-by-side harness
constexpr auto ElectionLease = 3s; // renew interval 1 s

struct Profile
{
    int cycles;        // uncontended lock cycles (and raw round trips)
    int contendCycles; // per process, 4 processes
    int handoffs;      // handoffs to a blocked waiter
    int handovers;     // graceful handovers
    int failovers;     // crash failovers (each takes a lease, 3 s)
    double budgetS;    // the most any one figure may take, except the two below
    double contendBudgetS; // after which the 4 processes stop short of N cycles
};
constexpr Profile Quick{200, 25, 8, 8, 2, 8, 15};
constexpr Profile Full{1000, 100, 30, 30, 8, 30, 60};

[[noreturn]] void fail(const QString &what)
{
    throw std::runtime_error(what.toStdString());
}

double msSince(qint64 ns)
{
    return double(monoNs() - ns) / 1e6;
}

QString fmtMs(double ms)
{
    if (ms < 1)
        return QString::number(ms, 'f', 3);
    if (ms < 10)
        return QString::number(ms, 'f', 2);
    if (ms < 1000)
        return QString::number(ms, 'f', 1);
    return QString::number(ms, 'f', 0);
}

QString fmtRatio(double r)
{
    return r < 10 ? QString::number(r, 'f', 2) : QString::number(r, 'f', 0);
}

// ---- the machine's noise: a fixed busy loop and a 1 ms sleep, sampled before every figure

volatile quint64 sink;
qint64 spinIterations = 1000;

void spin(qint64 n)
{
    quint64 x = 1;
    for (qint64 i = 0; i < n; ++i)
        x = x * 6364136223846793005ULL + quint64(i);
    sink = x;
}

void calibrateSpin()
{
    // About 0.5 ms on an idle core: the fastest of a few tries.
    double best = 1e9;
    for (int i = 0; i < 20; ++i) {
        const qint64 t = monoNs();
        spin(100000);
        best = std::min(best, msSince(t));
    }
    spinIterations = qint64(100000 * 0.5 / std::max(best, 1e-3));
}

struct Noise
{
    Samples busy, sleep;
    void sample(int n = 10)
    {
        for (int i = 0; i < n; ++i) {
            qint64 t = monoNs();
            spin(spinIterations);
            busy.add(msSince(t));
            t = monoNs();
            std::this_thread::sleep_for(1ms);
            sleep.add(msSince(t));
        }
    }
};

// ---- one backend's server

struct Server
{
    QString url, where, user, password, database;
    std::function<void()> stop;
    std::shared_ptr<void> keep; // the fixture
    std::function<QByteArray()> mntr = {}; // ZooKeeper's `mntr` answer, for its own latencies
    double warmupS = 0; // the warm-up's limit by default (Bench::warmUp()); 0: none
};

Server startServer(const QString &backend, const QString &tempDir)
{
    Server s;
    if (backend == QLatin1String("memory")) {
        s.url = QStringLiteral("memory://bench");
        return s;
    }
    if (backend == QLatin1String("sqlite")) {
        s.where = tempDir + QStringLiteral("/bench.db");
        s.url = QStringLiteral("sqlite://") + s.where;
        return s;
    }
    const auto started = [&](auto server, const QString &what) {
        if (!server->start())
            fail(QStringLiteral("%1 did not start: %2").arg(what, server->errorString()));
        s.keep = server;
        s.stop = [server] { server->stop(); };
        s.where = QStringLiteral("127.0.0.1:%1").arg(server->port());
    };
#ifdef QSIMBA_BENCH_SQL
    if (backend == QLatin1String("postgres") || backend == QLatin1String("mariadb")) {
        const auto sqlServer = [&](auto server, const QString &what) {
            started(server, what);
            s.url = server->url().toString();
            s.user = server->user();
            s.password = server->password();
            s.database = server->database();
        };
        if (backend == QLatin1String("postgres"))
            sqlServer(std::make_shared<PostgresServer>(), QStringLiteral("PostgreSQL"));
        else
            sqlServer(std::make_shared<MariaDbServer>(), QStringLiteral("MariaDB"));
        return s;
    }
#endif
#ifdef QSIMBA_BENCH_REDIS
    if (backend == QLatin1String("redis")) {
        auto server = std::make_shared<RedisServer>();
        started(server, QStringLiteral("redis-server"));
        // The longest lease the suite uses: a new prefix on a server started just now grants
        // nothing for maxLease (the recovery guard), which ready() waits out.
        s.url = server->url().toString() + QStringLiteral("?maxLease=10s");
        return s;
    }
#endif
#ifdef QSIMBA_BENCH_ZOOKEEPER
    if (backend == QLatin1String("zookeeper")) {
        auto server = std::make_shared<ZookeeperServer>();
        server->setDurable(true); // a write's cost is its sync to disk
        started(server, QStringLiteral("ZooKeeper"));
        s.where = server->hostPort();
        s.url = QStringLiteral("zookeeper://") + s.where + QStringLiteral("/bench");
        s.mntr = [port = server->port()] { return fourLetterWord(quint16(port), "mntr"); };
        // A fresh JVM compiles its request paths while it runs: up to 60 s until the rates settle.
        s.warmupS = 60;
        return s;
    }
#endif
#ifdef QSIMBA_BENCH_ETCD
    if (backend == QLatin1String("etcd")) {
        auto server = std::make_shared<EtcdServer>();
        started(server, QStringLiteral("etcd"));
        s.where = server->endpoint();
        s.url = server->url(QStringLiteral("/bench"));
        return s;
    }
#endif
    fail(QStringLiteral("unknown backend '%1', or not in this build (memory, sqlite, postgres, mariadb, redis, "
                        "zookeeper, etcd)").arg(backend));
}

// ---- worker processes

class Worker
{
public:
    Worker(const QString &kind, const QString &url, const QStringList &args)
    {
        m_process.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_process.start(QCoreApplication::applicationFilePath(),
                        QStringList{QStringLiteral("--worker"), kind, QStringLiteral("--url"), url} + args);
        if (!m_process.waitForStarted(10000))
            fail(QStringLiteral("worker %1 did not start: %2").arg(kind, m_process.errorString()));
    }
    ~Worker() { kill(); }

    void send(const char *command)
    {
        m_process.write(QByteArray(command) + '\n');
        m_process.waitForBytesWritten(1000);
    }
    //! The fields of the next line starting with \a word, within \a timeoutMs; every line
    //! read stays in lines(). Throws on an ERROR line, an exit or the timeout.
    QStringList expect(const QString &word, int timeoutMs)
    {
        const qint64 deadline = monoNs() + qint64(timeoutMs) * 1000000;
        for (;;) {
            while (m_process.canReadLine()) {
                const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
                m_lines.append(line);
                const QStringList fields = line.split(QLatin1Char(' '));
                if (fields.first() == QLatin1String("ERROR"))
                    fail(QStringLiteral("worker: %1").arg(line.mid(6)));
                if (fields.first() == word)
                    return fields;
            }
            const qint64 left = (deadline - monoNs()) / 1000000;
            if (left <= 0)
                fail(QStringLiteral("no %1 from the worker within %2 ms").arg(word).arg(timeoutMs));
            if (!m_process.waitForReadyRead(int(std::min<qint64>(left, 1000)))
                && m_process.state() == QProcess::NotRunning && !m_process.canReadLine())
                fail(QStringLiteral("the worker exited (code %1) before %2").arg(m_process.exitCode()).arg(word));
        }
    }
    //! Reads what is left after the process ended (killed).
    void drain()
    {
        m_process.waitForFinished(5000);
        m_lines += QString::fromUtf8(m_process.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    const QStringList &lines() const { return m_lines; }
    void sigkill() { ::kill(pid_t(m_process.processId()), SIGKILL); }
    void kill()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        send("QUIT");
        if (!m_process.waitForFinished(5000)) {
            m_process.kill();
            m_process.waitForFinished(2000);
        }
    }

private:
    QProcess m_process;
    QStringList m_lines;
};

std::unique_ptr<QSimba> makeClient(const QString &url, std::chrono::milliseconds lease)
{
    return QSimba::builder()
        .backend(QSimbaBackendFactory::create(url))
        .config(QSimbaConfig::builder().leaseDuration(lease).build())
        .callbackExecutor(QSimba::CallbackExecutor::DedicatedThread)
        .build();
}

// An election of this process: the times it was elected, for waiting.
class Elector
{
public:
    // The elected signal, connected before start() and called on the emitting thread: a
    // listener given to start() can miss a term won before start() stored it.
    explicit Elector(QSimbaElection *election) : m_election(election)
    {
        m_connection = QObject::connect(election, &QSimbaElection::elected, [this](const QSimbaTerm &) {
            m_elected.store(monoNs());
            m_signal.release();
        });
    }
    ~Elector() { QObject::disconnect(m_connection); }
    void start() { m_election->start(); }
    //! The time of the next election, or throws after \a timeoutMs.
    qint64 awaitElected(int timeoutMs)
    {
        if (!m_signal.tryAcquire(1, timeoutMs))
            fail(QStringLiteral("%1 not elected within %2 ms (status %3)")
                     .arg(m_election->name().toString())
                     .arg(timeoutMs)
                     .arg(QSimbaElection::statusName(m_election->status())));
        return m_elected.load();
    }
    void stop() { m_election->stop().waitForFinished(); }
    QFuture<void> stopAsync() { return m_election->stop(); }

private:
    QSimbaElection *m_election;
    QMetaObject::Connection m_connection;
    std::atomic<qint64> m_elected{0};
    QSemaphore m_signal;
};

// ---- the figures of one backend

struct Row
{
    QString key;
    qsizetype n = 0;
    double median = 0, p99 = 0;
    double ratio = -1;  // the median ÷ the raw client's cheapest request (R), when measured
    double ratioW = -1; // the median ÷ one raw durable write (W), when measured
    QString cell; // what the table shows
    QString note; // the detailed listing only
};

class Run
{
public:
    Run(QString backend, Server server, Profile profile, QString tempDir, QStringList only, double warmupS)
        : m_backend(std::move(backend)), m_server(std::move(server)), m_profile(profile), m_tempDir(std::move(tempDir)),
          m_only(std::move(only)), m_warmupS(warmupS < 0 ? m_server.warmupS : warmupS)
    {
    }

    QList<Row> rows;

    void all()
    {
        figure(QStringLiteral("first grant"), [this] { ready(); });
        m_noise.sample();
        figure(QStringLiteral("lock cycle"), [this] { cycles(); });
        const bool shared = m_backend != QLatin1String("memory"); // memory:// lives in one process
        if (shared) {
            figure(QStringLiteral("4 processes"), [this] { contended(); });
            figure(QStringLiteral("handoff to a blocked waiter"), [this] { waiterHandoff(); });
            figure(QStringLiteral("graceful handover"), [this] { handover(); });
            figure(QStringLiteral("crash failover"), [this] { crashFailover(); });
        } else {
            // memory:// lives in one process: two clients of it there, for the engine's share.
            figure(QStringLiteral("handoff to a blocked waiter (one process)"), [this] { waiterHandoff(); });
            figure(QStringLiteral("graceful handover (one process)"), [this] { handover(); });
            for (const char *key : {"contend_tput", "contend_handoff", "contend_overlaps", "failover"})
                add({QLatin1String(key), 0, 0, 0, -1, -1, QStringLiteral("n/a (one process)"), {}});
        }
        m_noise.sample();
        addTime(QStringLiteral("noise_busy"), m_noise.busy, false);
        Row &busy = rows.last();
        busy.ratio = busy.median > 0 ? busy.p99 / busy.median : -1;
        busy.cell = QStringLiteral("%1 / %2 ms · p99 %3× median").arg(fmtMs(busy.median), fmtMs(busy.p99), fmtRatio(busy.ratio));
        addTime(QStringLiteral("noise_sleep"), m_noise.sleep, false);
    }

private:
    void figure(const QString &what, const std::function<void()> &body)
    {
        if (!m_only.isEmpty() && !m_only.contains(what.section(QLatin1Char(' '), 0, 0))
            && what != QLatin1String("lock cycle") && what != QLatin1String("first grant"))
            return;
        std::fprintf(stderr, "[%s] %s …\n", qPrintable(m_backend), qPrintable(what));
        m_noise.sample();
        const qint64 t = monoNs();
        try {
            body();
        } catch (const std::exception &e) {
            std::fprintf(stderr, "[%s] %s FAILED: %s\n", qPrintable(m_backend), qPrintable(what), e.what());
            m_failures.append(QStringLiteral("%1: %2").arg(what, QString::fromUtf8(e.what())));
            add({QStringLiteral("failed"), 0, 0, 0, -1, -1, QStringLiteral("%1 failed: %2").arg(what, QString::fromUtf8(e.what())), {}});
        }
        std::fprintf(stderr, "[%s] %s took %.1f s\n", qPrintable(m_backend), qPrintable(what), msSince(t) / 1000);
    }
    bool overBudget(qint64 started) const { return msSince(started) > m_profile.budgetS * 1000; }
    void add(Row row) { rows.append(std::move(row)); }

    //! " · 12 R · 9.5 W": \a ms in raw requests and raw writes, as measured.
    QString ratios(double ms, Row *r) const
    {
        QString text;
        if (m_rtt > 0) {
            r->ratio = ms / m_rtt;
            text += QStringLiteral(" · %1 R").arg(fmtRatio(r->ratio));
        }
        if (m_write > 0) {
            r->ratioW = ms / m_write;
            text += QStringLiteral(" · %1 W").arg(fmtRatio(r->ratioW));
        }
        return text;
    }

    //! A row of times, with the ratios to the raw client's request and write unless \a ratio is false.
    void addTime(const QString &key, const Samples &s, bool ratio = true, const QString &note = {})
    {
        Row r{key, s.size(), s.median(), s.p99(), -1, -1, {}, note};
        r.cell = QStringLiteral("%1 / %2 ms").arg(fmtMs(r.median), fmtMs(r.p99));
        if (ratio)
            r.cell += ratios(r.median, &r);
        add(r);
    }

    // Waits until the backend grants a lock (Redis's recovery guard holds grants back on a
    // server started less than maxLease ago).
    void ready()
    {
        auto simba = makeClient(m_server.url, LockLease);
        QSimbaLock *lock = simba->lock(QStringLiteral("bench.ready"));
        const qint64 started = monoNs();
        for (;;) {
            if (auto term = lock->tryAcquire()) {
                term->close();
                break;
            }
            if (msSince(started) > 60000)
                fail(QStringLiteral("no lock granted within 60 s"));
            std::this_thread::sleep_for(200ms);
        }
        simba->close();
    }

    // Uncontended: acquire + release of one lock by one client, alternating with the raw
    // client's read and write, so that a busy machine weighs on all alike.
    void cycles()
    {
        std::unique_ptr<RawClient> raw;
        if (m_backend != QLatin1String("memory"))
            raw = makeRawClient(m_backend, m_server.where, m_server.user, m_server.password, m_server.database);
        auto simba = makeClient(m_server.url, LockLease);
        QSimbaLock *lock = simba->lock(QStringLiteral("bench.cycle"));
        Samples read, write, cycle, acquire, release;
        if (m_warmupS > 0)
            warmUpServer(raw.get(), lock);
        const QByteArray mntrStart = m_server.mntr ? m_server.mntr() : QByteArray();
        const qint64 started = monoNs();
        const int warmup = std::max(10, m_profile.cycles / 10);
        for (int i = -warmup; i < m_profile.cycles; ++i) {
            double r = 0, w = 0;
            if (raw) {
                qint64 t = monoNs();
                raw->read();
                r = msSince(t);
                t = monoNs();
                raw->write();
                w = msSince(t);
            }
            const qint64 t0 = monoNs();
            QSimbaLockTerm term = lock->acquire(LockLease);
            const qint64 t1 = monoNs();
            term.close();
            const qint64 t2 = monoNs();
            if (i < 0)
                continue;
            if (raw) {
                read.add(r);
                write.add(w);
            }
            acquire.add(double(t1 - t0) / 1e6);
            release.add(double(t2 - t1) / 1e6);
            cycle.add(double(t2 - t0) / 1e6);
            if (i >= 20 && overBudget(started))
                break;
            if (i % 50 == 0)
                m_noise.sample(1);
        }
        simba->close();
        if (raw) {
            m_rtt = read.median();
            m_write = write.median();
            addTime(QStringLiteral("read"), read, false, raw->readName());
            rows.last().cell += QStringLiteral(" (%1)").arg(raw->readName());
            addTime(QStringLiteral("write"), write, false, raw->writeName());
            Row &w = rows.last();
            w.ratio = w.median / m_rtt;
            w.cell += QStringLiteral(" · %1 R (%2)").arg(fmtRatio(w.ratio), raw->writeName());
        } else {
            add({QStringLiteral("read"), 0, 0, 0, -1, -1, QStringLiteral("— (no server)"), {}});
            add({QStringLiteral("write"), 0, 0, 0, -1, -1, QStringLiteral("— (no server)"), {}});
        }
        addTime(QStringLiteral("cycle"), cycle);
        if (m_write > 0) {
            const double r = cycle.median() / (2 * m_write);
            add({QStringLiteral("cycle_writes"), cycle.size(), r, 0, -1, -1, QStringLiteral("%1×").arg(fmtRatio(r)), {}});
        } else {
            add({QStringLiteral("cycle_writes"), 0, 0, 0, -1, -1, QStringLiteral("—"), {}});
        }
        addTime(QStringLiteral("acquire"), acquire);
        addTime(QStringLiteral("release"), release);
        if (m_server.mntr) {
            const QString server = mntrDelta(mntrStart, m_server.mntr());
            add({QStringLiteral("server"), 0, 0, 0, -1, -1, server, QStringLiteral("during the lock cycles, ") + server});
        }
    }

    //! The server warmed up (Bench::warmUp()) on the lock cycle's work: the raw read and
    //! write and the cycle, alternated as measured, so that the baseline is warmed as the
    //! cycle is; every tenth round a second client finds the lock held (its HeldBy answer,
    //! its waiter node and its withdrawal). Its summary is a row of the listing.
    void warmUpServer(RawClient *raw, QSimbaLock *lock)
    {
        auto second = makeClient(m_server.url, LockLease);
        QSimbaLock *secondLock = second->lock(lock->name().toString());
        constexpr size_t N = 3;
        qint64 rounds = 0;
        QByteArray mntrBefore;
        const std::function<QString()> serverStats = [&] {
            const QByteArray now = m_server.mntr();
            const QString delta = mntrBefore.isEmpty() ? QString() : mntrDelta(mntrBefore, now);
            mntrBefore = now;
            return delta;
        };
        const auto result = warmUp<N>(
            {"raw read", "raw write", "cycle"},
            [&] {
                std::array<double, N> times{};
                if (raw) {
                    qint64 t = monoNs();
                    raw->read();
                    times[0] = msSince(t);
                    t = monoNs();
                    raw->write();
                    times[1] = msSince(t);
                }
                const qint64 t = monoNs();
                QSimbaLockTerm term = lock->acquire(LockLease);
                if (++rounds % 10 == 0 && secondLock->tryAcquire())
                    fail(QStringLiteral("a second client was granted a held lock"));
                term.close();
                times[2] = msSince(t);
                return times;
            },
            std::min(10.0, m_warmupS), m_warmupS, stderr, m_server.mntr ? serverStats : std::function<QString()>());
        second->close();
        add({QStringLiteral("warmup"), result.rounds, result.seconds * 1000, 0, -1, -1, result.summary, result.summary});
    }

    // 4 processes × N cycles on one lock; each holder checks the shared record under the lock.
    struct Cycle { int worker; qint64 t0, t1, t2, t3; int bad; };

    //! 4 workers × \a n cycles of one lock (\a noLock: the same steps without the lock),
    //! sorted by the time each was acquired.
    QList<Cycle> runContenders(int n, bool noLock)
    {
        const QString record = m_tempDir + QStringLiteral("/record");
        {
            QFile f(record);
            if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(QByteArray(16, '\0')) != 16)
                fail(QStringLiteral("cannot write the record file"));
        }
        std::vector<std::unique_ptr<Worker>> workers;
        for (int i = 0; i < 4; ++i) {
            QStringList args = leaseArgs("bench.contend", LockLease);
            args << QStringLiteral("--cycles") << QString::number(n) << QStringLiteral("--record") << record
                 << QStringLiteral("--deadline-ns") << QString::number(monoNs() + qint64(m_profile.contendBudgetS * 1e9));
            if (noLock)
                args.append(QStringLiteral("--no-lock"));
            workers.push_back(std::make_unique<Worker>(QStringLiteral("contend"), m_server.url, args));
        }
        for (auto &w : workers)
            w->expect(QStringLiteral("READY"), 30000);
        for (auto &w : workers)
            w->send("GO");
        QList<Cycle> all;
        qsizetype reported = 0;
        for (int i = 0; i < 4; ++i) {
            reported += workers[i]->expect(QStringLiteral("DONE"), int(m_profile.contendBudgetS * 1000) + 60000).value(1).toInt();
            for (const QString &line : workers[i]->lines()) {
                const QStringList f = line.split(QLatin1Char(' '));
                if (f.size() == 7 && f[0] == QLatin1String("CYCLE"))
                    all.append({i, f[1].toLongLong(), f[2].toLongLong(), f[3].toLongLong(), f[4].toLongLong(), f[6].toInt()});
            }
        }
        workers.clear();
        if (all.size() != reported || all.size() < 8)
            fail(QStringLiteral("%1 cycles reported, %2 counted").arg(all.size()).arg(reported));
        std::sort(all.begin(), all.end(), [](const Cycle &a, const Cycle &b) { return a.t1 < b.t1; });
        return all;
    }

    //! The failed checks of the record, and the cycles acquired before an earlier holder
    //! began to release.
    static int overlapsOf(const QList<Cycle> &all)
    {
        int overlaps = 0;
        qint64 heldUntil = 0;
        for (const Cycle &c : all) {
            overlaps += c.bad;
            if (c.t1 < heldUntil)
                ++overlaps;
            heldUntil = std::max(heldUntil, c.t2);
        }
        return overlaps;
    }

    // 4 processes × N cycles on one lock; each holder checks the shared record under the lock.
    // First the same without the lock, where the check must find overlaps (or it proves nothing).
    void contended()
    {
        const int unlocked = overlapsOf(runContenders(50, true)); // each holds 1 ms
        if (unlocked == 0)
            fail(QStringLiteral("the overlap check found no overlap among 4 processes without the lock: it proves nothing"));
        const QList<Cycle> all = runContenders(m_profile.contendCycles, false);
        const int overlaps = overlapsOf(all);
        int changes = 0;
        Samples handoff;
        qint64 first = all.first().t0, last = 0;
        for (qsizetype i = 0; i < all.size(); ++i) {
            first = std::min(first, all[i].t0);
            last = std::max(last, all[i].t3);
            if (i == 0)
                continue;
            const Cycle &prev = all[i - 1], &next = all[i];
            if (next.worker != prev.worker) {
                ++changes;
                handoff.add(double(next.t1 - prev.t2) / 1e6);
            }
        }
        const double seconds = double(last - first) / 1e9;
        const double throughput = double(all.size()) / seconds;
        Row t{QStringLiteral("contend_tput"), all.size(), throughput, 0, -1, -1, {}, {}};
        // The ratios of the time per cycle.
        t.cell = QStringLiteral("%1/s: %2 cycles, %3 changes of holder (%4 ms/cycle%5)")
                     .arg(QString::number(throughput, 'f', 0))
                     .arg(all.size())
                     .arg(changes)
                     .arg(fmtMs(1000.0 / throughput), ratios(1000.0 / throughput, &t));
        t.note = QStringLiteral("%1 cycles in %2 s; the holder changed %3 times").arg(all.size()).arg(seconds, 0, 'f', 2).arg(changes);
        add(t);
        addTime(QStringLiteral("contend_handoff"), handoff, true,
                QStringLiteral("%1 changes of holder").arg(changes));
        add({QStringLiteral("contend_overlaps"), all.size(), double(overlaps), 0, -1, -1,
             QStringLiteral("%1 in %2 cycles").arg(overlaps).arg(all.size()),
             QStringLiteral("%1 in %2 cycles; the same checks without the lock, 1 ms held: %3 in 200 cycles")
                 .arg(overlaps)
                 .arg(all.size())
                 .arg(unlocked)});
    }

    // The other party of a handoff or handover: a worker process, or (memory, which lives in
    // one process) a second client of this process on a thread.
    struct Other
    {
        std::function<void()> begin;     //!< starts a blocking acquire / an election
        std::function<qint64()> arrived; //!< when it got the lock / was elected (throws after a timeout)
        std::function<void()> end;       //!< releases / stops
    };

    //! The arguments of a worker for the lease \a name with \a lease.
    static QStringList leaseArgs(const char *name, std::chrono::milliseconds lease)
    {
        return {QStringLiteral("--name"), QLatin1String(name), QStringLiteral("--lease-ms"), QString::number(lease.count())};
    }

    //! A worker process of \a kind as the other party, in \a *worker: \a words are the
    //! command that begins, its answer, the word of the arrival, the command that ends, its answer.
    Other workerParty(std::unique_ptr<Worker> *worker, const char *kind, const char *name, std::chrono::milliseconds lease,
                      std::array<const char *, 5> words) const
    {
        *worker = std::make_unique<Worker>(QLatin1String(kind), m_server.url, leaseArgs(name, lease));
        Worker *w = worker->get();
        w->expect(QStringLiteral("READY"), 30000);
        return {[w, words] {
                    w->send(words[0]);
                    w->expect(QLatin1String(words[1]), 10000);
                },
                [w, words] { return w->expect(QLatin1String(words[2]), 30000).value(1).toLongLong(); },
                [w, words] {
                    w->send(words[3]);
                    w->expect(QLatin1String(words[4]), 10000);
                }};
    }

    // The holder (this process) releases; a waiter blocked in acquire() takes it.
    void waiterHandoff()
    {
        auto simba = makeClient(m_server.url, LockLease);
        QSimbaLock *lock = simba->lock(QStringLiteral("bench.handoff"));
        std::unique_ptr<Worker> worker;
        std::unique_ptr<QSimba> client;
        QSimbaLockTerm won;
        std::thread thread;
        std::atomic<qint64> acquired{0};
        Other waiter;
        if (m_backend != QLatin1String("memory")) {
            waiter = workerParty(&worker, "waiter", "bench.handoff", LockLease,
                                 {"ACQUIRE", "WAITING", "ACQUIRED", "RELEASE", "RELEASED"});
        } else {
            client = makeClient(m_server.url, LockLease);
            QSimbaLock *other = client->lock(QStringLiteral("bench.handoff"));
            waiter.begin = [&, other] {
                thread = std::thread([&, other] {
                    won = other->acquire(LockLease);
                    acquired.store(monoNs());
                });
            };
            waiter.arrived = [&] {
                thread.join();
                return acquired.load();
            };
            waiter.end = [&] { won.close(); };
        }
        QSimbaLockTerm term;
        // Blocked after 100 ms: its first attempt was answered "held" (a few round trips).
        passes(QStringLiteral("handoff"), m_profile.handoffs, 100ms, [&] { term = lock->acquire(LockLease); },
               [&] {
                   term.close();
                   return [] {};
               },
               waiter, client != nullptr);
        if (client)
            client->close();
        simba->close();
    }

    //! The figure \a key: \a rounds times (after one to warm up, fewer when over the
    //! budget) this process takes the lease (\a take), \a other begins to wait for it, and
    //! \a settle later this process gives it up (\a give, which answers what to wait for
    //! after): from \a give to \a other's arrival.
    void passes(const QString &key, int rounds, std::chrono::milliseconds settle, const std::function<void()> &take,
                const std::function<std::function<void()>()> &give, const Other &other, bool oneProcess)
    {
        Samples samples;
        const qint64 started = monoNs();
        for (int i = -1; i < rounds; ++i) {
            take();
            other.begin();
            std::this_thread::sleep_for(settle);
            const qint64 t0 = monoNs();
            const auto after = give();
            const qint64 t1 = other.arrived();
            after();
            if (i >= 0)
                samples.add(double(t1 - t0) / 1e6);
            other.end();
            if (i >= 2 && overBudget(started))
                break;
        }
        addTime(key, samples);
        if (oneProcess)
            rows.last().cell += QStringLiteral(" (one process)");
    }

    // The leader (this process) stops; a candidate is elected.
    void handover()
    {
        auto simba = makeClient(m_server.url, ElectionLease);
        Elector leader(simba->election(QStringLiteral("bench.leader")));
        std::unique_ptr<Worker> worker;
        std::unique_ptr<QSimba> client;
        std::unique_ptr<Elector> elector;
        Other candidate;
        if (m_backend != QLatin1String("memory")) {
            candidate = workerParty(&worker, "candidate", "bench.leader", ElectionLease,
                                    {"START", "STARTED", "ELECTED", "STOP", "STOPPED"});
        } else {
            client = makeClient(m_server.url, ElectionLease);
            elector = std::make_unique<Elector>(client->election(QStringLiteral("bench.leader")));
            candidate.begin = [&] { elector->start(); };
            candidate.arrived = [&] { return elector->awaitElected(30000); };
            candidate.end = [&] { elector->stop(); };
        }
        // A candidate after 200 ms: its first attempt answered "held".
        passes(QStringLiteral("handover"), m_profile.handovers, 200ms,
               [&] {
                   leader.start();
                   try {
                       leader.awaitElected(10000);
                   } catch (const std::exception &e) {
                       fail(QStringLiteral("%1; %2").arg(QString::fromUtf8(e.what()), whoHolds(QStringLiteral("bench.leader"))));
                   }
               },
               [&] {
                   auto stopped = leader.stopAsync();
                   return [stopped]() mutable { stopped.waitForFinished(); };
               },
               candidate, client != nullptr);
        if (client)
            client->close();
        simba->close();
    }

    //! Who holds \a name, as the backend's inspection shows it: for failure messages.
    QString whoHolds(const QString &name) const
    {
        try {
            const auto inspection = QSimbaBackendFactory::create(m_server.url)->inspect();
            QStringList held;
            for (const auto &l : inspection.leases) {
                if (l.name.toString() == name)
                    held.append(QStringLiteral("held by session %1 (token %2) for %3 ms more")
                                    .arg(l.holder.toString()).arg(l.token).arg(l.remaining.count()));
            }
            QStringList sessions;
            for (const auto &x : inspection.sessions)
                sessions.append(QStringLiteral("%1 (%2 ms)").arg(x.id.toString()).arg(x.remaining.count()));
            return QStringLiteral("%1 %2; live sessions: %3")
                .arg(name, held.isEmpty() ? QStringLiteral("not held") : held.join(QLatin1String(", ")),
                     sessions.join(QLatin1String(", ")));
        } catch (const std::exception &e) {
            return QStringLiteral("inspection failed: %1").arg(QString::fromUtf8(e.what()));
        }
    }

    // The leader, another process, is SIGKILLed at a random point of its renew interval; this
    // process's standby is elected. Overshoot: its election past the dead leader's lease end.
    void crashFailover()
    {
        auto simba = makeClient(m_server.url, ElectionLease);
        Elector standby(simba->election(QStringLiteral("bench.failover")));
        Samples overshoot, afterKill;
        for (int i = 0; i < m_profile.failovers; ++i) {
            Worker holder(QStringLiteral("holder"), m_server.url, leaseArgs("bench.failover", ElectionLease));
            try {
                holder.expect(QStringLiteral("ELECTED"), 30000);
            } catch (const std::exception &e) {
                fail(QStringLiteral("round %1: %2; %3").arg(i + 1).arg(QString::fromUtf8(e.what()), whoHolds(QStringLiteral("bench.failover"))));
            }
            standby.start();
            // A random point of the holder's renew interval (1 s), after its first renewal.
            holder.expect(QStringLiteral("LEASE"), 5000);
            std::this_thread::sleep_for(std::chrono::milliseconds(QRandomGenerator::global()->bounded(1000)));
            const qint64 killed = monoNs();
            holder.sigkill();
            const qint64 elected = standby.awaitElected(
                int(std::chrono::milliseconds(ElectionLease).count()) * 3 + 5000);
            holder.drain();
            qint64 leaseEnd = 0, lastSent = 0, granted = 0;
            for (const QString &line : holder.lines()) {
                const QStringList f = line.split(QLatin1Char(' '));
                if (f.size() == 3 && f[0] == QLatin1String("LEASE")
                    && f[1].toLongLong() + f[2].toLongLong() * 1000000 > leaseEnd) {
                    lastSent = f[1].toLongLong();
                    granted = f[2].toLongLong();
                    leaseEnd = lastSent + granted * 1000000;
                }
            }
            if (leaseEnd == 0)
                fail(QStringLiteral("the holder reported no lease"));
            std::fprintf(stderr, "[%s] failover %d: last answered keepAlive sent %.1f ms before the kill, %lld ms "
                                 "granted; elected %.1f ms after the kill, %.2f ms after the lease end\n",
                         qPrintable(m_backend), i + 1, double(killed - lastSent) / 1e6, qint64(granted),
                         double(elected - killed) / 1e6, double(elected - leaseEnd) / 1e6);
            overshoot.add(double(elected - leaseEnd) / 1e6);
            afterKill.add(double(elected - killed) / 1e6);
            standby.stop();
        }
        addTime(QStringLiteral("failover"), overshoot, true,
                QStringLiteral("elected %1 ms (median) after the SIGKILL").arg(fmtMs(afterKill.median())));
        simba->close();
    }

    QString m_backend;
    Server m_server;
    Profile m_profile;
    QString m_tempDir;
    Noise m_noise;
    double m_rtt = 0, m_write = 0;
    QStringList m_failures;
    QStringList m_only; // first words of the figures to run (the first grant and the lock cycle always run)
    double m_warmupS;   // the warm-up's limit in seconds (0: none)
};

// ---- the table

struct Figure
{
    const char *key, *label, *limit;
};
const Figure figures[] = {
    {"read", "R: raw client's cheapest request (round trip)", "1 R"},
    {"write", "W: raw client's durable write", "1 W"},
    {"cycle", "uncontended lock cycle (acquire + release)", "2 W"},
    {"cycle_writes", "lock cycle ÷ 2 W", "1"},
    {"acquire", "— acquire", "1 W"},
    {"release", "— release (returns once released)", "1 W"},
    {"contend_tput", "4 processes, one lock: cycles/s", "1 / (2 W + hint)"},
    {"contend_handoff", "— handoff (release begun → other process holds)", "2 W + hint (≈ ½ R)"},
    {"contend_overlaps", "— overlaps: failed checks under the lock (must be 0)", "0"},
    {"handoff", "handoff to a waiter blocked in another process", "2 W + hint (≈ ½ R)"},
    {"failover", "crash failover: elected after the dead leader's lease end", "1 R (one acquire after the end)"},
    {"handover", "graceful handover (stop → other process elected)", "2 W + hint (≈ ½ R)"},
    {"noise_busy", "noise: a fixed 0.5 ms busy loop", "—"},
    {"noise_sleep", "noise: a 1 ms sleep", "1 ms"},
};

int table(const QStringList &files)
{
    QStringList backends;
    QMap<QString, QMap<QString, QString>> cells; // backend → key → cell
    QMap<QString, QStringList> failures;
    for (const QString &file : files) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "cannot read %s\n", qPrintable(file));
            return 66;
        }
        while (!f.atEnd()) {
            const QStringList c = QString::fromUtf8(f.readLine()).chopped(1).split(QLatin1Char('\t'));
            if (c.size() < 8)
                continue;
            if (!backends.contains(c[0]))
                backends.append(c[0]);
            if (c[1] == QLatin1String("failed"))
                failures[c[0]].append(c[7]);
            else
                cells[c[0]][c[1]] = c[7];
        }
    }
    QTextStream out(stdout);
    out << "| figure | physical limit |";
    for (const QString &b : backends)
        out << ' ' << b << " |";
    out << "\n|---|---|";
    for (qsizetype i = 0; i < backends.size(); ++i)
        out << "---|";
    out << '\n';
    for (const Figure &fig : figures) {
        out << "| " << QString::fromUtf8(fig.label) << " | " << QString::fromUtf8(fig.limit) << " |";
        for (const QString &b : backends)
            out << ' ' << cells[b].value(QLatin1String(fig.key), QStringLiteral("—")) << " |";
        out << '\n';
    }
    for (const QString &b : backends) {
        for (const QString &f : failures.value(b))
            out << "\n" << b << ": " << f << '\n';
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() > 2 && args[1] == QLatin1String("--worker")) {
        const auto url = args.indexOf(QStringLiteral("--url"));
        if (url < 0 || url + 1 >= args.size())
            return 64;
        QStringList rest = args.mid(2);
        rest.remove(url - 2, 2);
        return runWorker(args[2], args[url + 1], rest.mid(1));
    }
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("QSimba's benchmark suite (see bench/run.sh)."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("backend"), QStringLiteral("memory, sqlite, postgres, mariadb, redis, zookeeper or etcd."),
                      QStringLiteral("backend")});
    parser.addOption({QStringLiteral("quick"), QStringLiteral("Fewer runs (development).")});
    parser.addOption({QStringLiteral("out"), QStringLiteral("Append the rows (TSV) to this file."), QStringLiteral("file")});
    parser.addOption({QStringLiteral("only"), QStringLiteral("Only these figures besides the lock cycle (development): "
                                                            "first, 4, handoff, graceful, crash."),
                      QStringLiteral("list")});
    parser.addOption({QStringLiteral("warmup"),
                      QStringLiteral("Warm the server up for at most S seconds before the lock cycle, until the rates "
                                     "settle (default: 60 for ZooKeeper, whose JVM compiles its request paths while "
                                     "it runs; 0 for the others). 0: none."),
                      QStringLiteral("S"), QStringLiteral("-1")});
    parser.addOption({QStringLiteral("table"), QStringLiteral("Print the Markdown table of the TSV files given as arguments.")});
    parser.process(app);
    if (parser.isSet(QStringLiteral("table")))
        return table(parser.positionalArguments());
    const QString backend = parser.value(QStringLiteral("backend"));
    if (backend.isEmpty()) {
        std::fprintf(stderr, "give --backend B or --table FILE…\n");
        return 64;
    }
    const Profile profile = parser.isSet(QStringLiteral("quick")) ? Quick : Full;
    calibrateSpin();
    QTemporaryDir temp;
    QList<Row> rows;
    const qint64 started = monoNs();
    QString describe;
    try {
        Server server = startServer(backend, temp.path());
        describe = QSimbaBackendFactory::redacted(server.url);
        Run run(backend, server, profile, temp.path(),
                parser.value(QStringLiteral("only")).split(QLatin1Char(','), Qt::SkipEmptyParts),
                parser.value(QStringLiteral("warmup")).toDouble());
        run.all();
        rows = run.rows;
        if (server.stop)
            server.stop();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "[%s] FAILED: %s\n", qPrintable(backend), e.what());
        rows.append({QStringLiteral("failed"), 0, 0, 0, -1, -1, QString::fromUtf8(e.what()), {}});
    }
    QTextStream out(stdout);
    out << "\n## " << backend << " (" << (describe.isEmpty() ? QStringLiteral("not started") : describe) << "), "
        << (parser.isSet(QStringLiteral("quick")) ? "quick" : "full") << " profile, "
        << QString::number(msSince(started) / 1000, 'f', 0) << " s\n";
    out << "| figure | n | median ms | p99 ms | ÷ R | ÷ W | note |\n|---|---|---|---|---|---|---|\n";
    for (const Row &r : rows) {
        if (r.key == QLatin1String("failed")) {
            out << "| FAILED | | | | | | " << r.cell << " |\n";
            continue;
        }
        out << "| " << r.key << " | " << r.n << " | " << fmtMs(r.median) << " | " << fmtMs(r.p99) << " | "
            << (r.ratio >= 0 ? fmtRatio(r.ratio) : QStringLiteral("—")) << " | "
            << (r.ratioW >= 0 ? fmtRatio(r.ratioW) : QStringLiteral("—")) << " | " << (r.note.isEmpty() ? r.cell : r.note) << " |\n";
    }
    out.flush();
    if (const QString file = parser.value(QStringLiteral("out")); !file.isEmpty()) {
        QFile f(file);
        if (!f.open(QIODevice::Append)) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(file));
            return 73;
        }
        for (const Row &r : rows)
            f.write(QStringList{backend, r.key, QString::number(r.n), QString::number(r.median), QString::number(r.p99),
                                QString::number(r.ratio), QString::number(r.ratioW), QString(r.cell).replace(QLatin1Char('\t'), QLatin1Char(' '))}
                        .join(QLatin1Char('\t'))
                        .toUtf8()
                    + '\n');
    }
    const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row &r) { return r.key == QLatin1String("failed"); });
    return failed ? 1 : 0;
}
