// SPDX-License-Identifier: Apache-2.0
// The uncontended lock cycle (QSimbaLock::acquire() + QSimbaLockTerm::close(), the blocking
// calls from the owner thread) on the in-memory backend, Redis and ZooKeeper, next to the
// raw client's round trips measured in the same run: hiredis PING and SET, zookeeper
// `exists` and `set`. Rounds alternate (one cycle, one of each raw call), so a busy machine
// weighs on all of them alike. Prints median and p99 of the cycle, of acquire and of
// release, the backend calls per cycle, and the ratios to the raw round trips; on Redis also
// the server's own time for the acquire and release scripts (its SLOWLOG, over up to 500
// more cycles after the timed ones).
//
// The memory backend's cycle is the engine and its thread hops alone (no I/O).
// With --handoff N: a second client of the same backend blocks in acquire() on a thread
// while the first holds the lock; the time from the holder's close() to the waiter's
// acquire() returning (release + hint + acquire), N times. With --contend N: N clients,
// each on its own thread, 100 cycles each on one lock: cycles per second and overlaps
// (two holders at once; must be 0).
//
//   qsimba_bench_cycle [--cycles N] [--handoff N] [--contend N] [--warmup S] [memory] [redis] [zookeeper]
//
// ZooKeeper's server is warmed up first (--warmup, at most 60 s by default; bench/suite/warmup.h):
// its JVM compiles the request paths while it runs, and a long-running ensemble is warm. The
// warm-up prints one line per block, and the server's own latencies (`mntr`) are printed for
// the warm-up's blocks and for the measured cycles.
//
// Servers are started with the tests' fixtures (loopback, free port, temporary directory).
#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbalock.h"
#include "qsimbalockterm.h"
#include "qsimbamemoryleasebackend.h"
#include "qsimbaredisleasebackend.h"
#include "qsimbazookeeperleasebackend.h"

#include "redisserver.h"
#include "warmup.h"
#include "zookeeperserver.h"

#include <hiredis/hiredis.h>
#include <zookeeper/zookeeper.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QSemaphore>
#include <QtCore/QThread>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

using namespace std::chrono_literals;

namespace {

struct Stats
{
    QList<double> us;
    double at(double p) const
    {
        if (us.isEmpty())
            return 0;
        QList<double> sorted = us;
        std::sort(sorted.begin(), sorted.end());
        return sorted.at(std::min<qsizetype>(sorted.size() - 1, qsizetype(p * double(sorted.size()))));
    }
};

double elapsedUs(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1000.0;
}

//! A raw round trip of the backend's own client: name and how to run it once.
struct Raw
{
    QString name;
    std::function<bool()> run;
};

struct Target
{
    QString name;
    std::function<std::unique_ptr<QSimbaLeaseBackend>()> make;
    QList<Raw> raws;
    //! Optional: called before and after up to 500 more cycles, after the timed ones (to
    //! print what the server spent on them).
    std::function<void(bool before)> serverTime = {};
    //! Optional: the server's `mntr` answer (ZooKeeper), for its own latencies.
    std::function<QByteArray()> mntr = {};
    //! The warm-up's limits in seconds (see Bench::warmUp()); max ≤ 0: none.
    double warmupMinS = 0, warmupMaxS = 0;
};

std::unique_ptr<QSimba> client(std::unique_ptr<QSimbaLeaseBackend> backend)
{
    // Locks of the comparison: a 10 s lease.
    const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(10s).build();
    return QSimba::builder().backend(std::move(backend)).config(config).build();
}

//! The client's backend calls of one kind so far (its own metrics).
qint64 calls(const QSimba &simba, QSimbaBackendMetrics::Call call)
{
    return qint64(simba.backendMetrics()->stats(call).count);
}

/*!
    The server's own time for the lock cycle's scripts, from its SLOWLOG (every command logged
    with its execution time, without the network and the client; the commands a script runs
    are logged too, about 20 entries per cycle): reset \a before more cycles, printed after
    them. The lock's scripts are told apart by their arguments
    (EVALSHA sha 1 epoch prefix maxLease session, then the name for acquire, the name and the
    token for release).
*/
void redisScriptTimes(redisContext *raw, const std::function<bool(const char *)> &command, int cycles, bool before)
{
    if (before) {
        command("CONFIG SET slowlog-log-slower-than 0");
        const QByteArray length = "CONFIG SET slowlog-max-len " + QByteArray::number(30 * cycles + 1000);
        command(length.constData());
        command("SLOWLOG RESET");
        return;
    }
    auto *reply = static_cast<redisReply *>(redisCommand(raw, "SLOWLOG GET -1"));
    Stats acquire, release;
    for (size_t i = 0; reply && reply->type == REDIS_REPLY_ARRAY && i < reply->elements; ++i) {
        const redisReply *entry = reply->element[i];
        if (entry->type != REDIS_REPLY_ARRAY || entry->elements < 4 || entry->element[3]->type != REDIS_REPLY_ARRAY)
            continue;
        const redisReply *args = entry->element[3];
        const auto arg = [args](size_t k) { return QByteArray(args->element[k]->str, qsizetype(args->element[k]->len)); };
        if (args->elements < 8 || arg(0).toUpper() != "EVALSHA" || arg(7) != "bench.cycle")
            continue;
        (args->elements == 8 ? acquire : release).us.append(double(entry->element[2]->integer));
    }
    freeReplyObject(reply);
    command("CONFIG SET slowlog-log-slower-than 10000");
    std::printf("  server time (SLOWLOG), median / p99 us: acquire script %.0f / %.0f (n=%lld), release script "
                "%.0f / %.0f (n=%lld)\n",
                acquire.at(0.5), acquire.at(0.99), qint64(acquire.us.size()), release.at(0.5), release.at(0.99),
                qint64(release.us.size()));
}

int runTarget(const Target &target, int cycles, int handoffs, int contenders)
{
    auto simba = client(target.make());
    using Call = QSimbaBackendMetrics::Call;
    QSimbaLock *lock = simba->lock(QStringLiteral("bench.cycle"));
    Stats cycle, acquire, release;
    QList<Stats> raws(target.raws.size());
    QElapsedTimer t;
    const int warmup = std::max(10, cycles / 10);
    // A new Redis server grants nothing before it ran maxLease (the recovery guard): the
    // first acquire waits for that.
    lock->acquire(60s).close();
    if (target.warmupMaxS > 0) {
        // The server warmed up on the measured work (Bench::warmUp()): the raw calls and the
        // cycle alternated as below, and every tenth round a second client that finds the
        // lock held (its HeldBy answer, its waiter node and its withdrawal).
        auto second = client(target.make());
        QSimbaLock *secondLock = second->lock(QStringLiteral("bench.cycle"));
        constexpr size_t N = 3;
        std::array<const char *, N> names{"raw read", "raw write", "cycle"};
        qint64 rounds = 0;
        QByteArray mntrBefore;
        const auto result = Bench::warmUp<N>(
            names,
            [&] {
                std::array<double, N> times{};
                for (qsizetype r = 0; r < target.raws.size() && r < 2; ++r) {
                    t.start();
                    target.raws[r].run();
                    times[size_t(r)] = elapsedUs(t) / 1000;
                }
                t.start();
                QSimbaLockTerm term = lock->acquire(5s);
                if (++rounds % 10 == 0 && secondLock->tryAcquire())
                    std::fprintf(stderr, "%s: the second client got a held lock\n", qPrintable(target.name));
                term.close();
                times[2] = elapsedUs(t) / 1000;
                QCoreApplication::processEvents();
                return times;
            },
            target.warmupMinS, target.warmupMaxS, stdout,
            target.mntr ? std::function<QString()>([&] {
                const QByteArray now = target.mntr();
                const QString delta = mntrBefore.isEmpty() ? QString() : Bench::mntrDelta(mntrBefore, now);
                mntrBefore = now;
                return delta;
            })
                        : std::function<QString()>());
        Q_UNUSED(result);
        second->close();
    }
    const QByteArray mntrStart = target.mntr ? target.mntr() : QByteArray();
    qint64 acquiresBefore = 0, releasesBefore = 0, keepAlivesBefore = 0;
    for (int i = -warmup; i < cycles; ++i) {
        if (i == 0) {
            acquiresBefore = calls(*simba, Call::Acquire);
            releasesBefore = calls(*simba, Call::Release);
            keepAlivesBefore = calls(*simba, Call::KeepAlive);
        }
        for (qsizetype r = 0; r < target.raws.size(); ++r) {
            t.start();
            if (!target.raws[r].run()) {
                std::fprintf(stderr, "%s: the raw %s failed\n", qPrintable(target.name), qPrintable(target.raws[r].name));
                return 69;
            }
            if (i >= 0)
                raws[r].us.append(elapsedUs(t));
        }
        t.start();
        QSimbaLockTerm term = lock->acquire(5s);
        const double a = elapsedUs(t);
        term.close();
        const double c = elapsedUs(t);
        if (i >= 0) {
            acquire.us.append(a);
            release.us.append(c - a);
            cycle.us.append(c);
        }
        // The owner thread's callbacks (events, the async release future) run between
        // rounds, as an application's event loop would run them.
        QCoreApplication::processEvents();
    }
    const double n = cycles;
    std::printf("%s (%s), %d cycles; backend calls per cycle: %.2f acquire, %.2f release, %.3f keepAlive\n",
                qPrintable(target.name), qPrintable(simba->backendMetrics()->backend()), cycles,
                double(calls(*simba, Call::Acquire) - acquiresBefore) / n,
                double(calls(*simba, Call::Release) - releasesBefore) / n,
                double(calls(*simba, Call::KeepAlive) - keepAlivesBefore) / n);
    std::printf("  %-14s %10s %10s", "", "median us", "p99 us");
    for (const auto &r : target.raws)
        std::printf(" %12s", qPrintable(QStringLiteral("x %1").arg(r.name)));
    std::printf("\n");
    const auto row = [&](const char *what, const Stats &s) {
        std::printf("  %-14s %10.1f %10.1f", what, s.at(0.5), s.at(0.99));
        for (const auto &r : raws)
            std::printf(" %12.2f", s.at(0.5) / std::max(0.001, r.at(0.5)));
        std::printf("\n");
    };
    row("cycle", cycle);
    row("acquire", acquire);
    row("release", release);
    for (qsizetype r = 0; r < raws.size(); ++r)
        row(qPrintable(QStringLiteral("raw %1").arg(target.raws[r].name)), raws[r]);
    if (target.mntr) {
        const QString server = Bench::mntrDelta(mntrStart, target.mntr());
        if (!server.isEmpty())
            std::printf("  the measured rounds' %s\n", qPrintable(server));
    }
    if (target.serverTime) {
        // Apart from the timed cycles: logging every command costs the server time too.
        target.serverTime(true);
        for (int i = 0; i < std::min(cycles, 500); ++i)
            lock->acquire(5s).close();
        target.serverTime(false);
    }

    if (handoffs > 0) {
        // The waiter: a second client, blocked in acquire() on its own thread.
        auto other = client(target.make());
        QSimbaLock *waiterLock = other->lock(QStringLiteral("bench.cycle"));
        QSemaphore go, blocking, granted, released, closed;
        std::atomic<qint64> grantedAt{0};
        QElapsedTimer clock;
        clock.start();
        std::atomic<bool> failed{false};
        std::unique_ptr<QThread> waiter(QThread::create([&] {
            for (int i = 0; i < handoffs; ++i) {
                go.acquire();
                blocking.release();
                try {
                    QSimbaLockTerm term = waiterLock->acquire(10s);
                    grantedAt = clock.nsecsElapsed();
                    granted.release();
                    released.acquire();
                } catch (const std::exception &e) {
                    std::fprintf(stderr, "the waiter failed: %s\n", e.what());
                    failed = true;
                    granted.release();
                    closed.release();
                    return;
                }
                closed.release(); // its term closed as it went out of scope
            }
        }));
        Stats handoff;
        waiter->start();
        for (int i = 0; i < handoffs && !failed; ++i) {
            QSimbaLockTerm term = lock->acquire(10s);
            go.release();
            blocking.acquire();
            QThread::msleep(20); // the waiter is blocked in acquire() by now (a bench, not a test)
            const qint64 start = clock.nsecsElapsed();
            term.close();
            granted.acquire();
            handoff.us.append(double(grantedAt - start) / 1000.0);
            released.release();
            closed.acquire();
            QCoreApplication::processEvents();
        }
        waiter->wait();
        if (failed)
            return 69;
        std::printf("  %-14s %10.1f %10.1f", "handoff", handoff.at(0.5), handoff.at(0.99));
        for (const auto &r : raws)
            std::printf(" %12.2f", handoff.at(0.5) / std::max(0.001, r.at(0.5)));
        std::printf("   (%d handoffs to a blocked waiter of another client)\n", handoffs);
    }
    if (contenders > 0) {
        // Contenders clients (one per thread, as processes would be) × 100 cycles on one lock.
        constexpr int perClient = 100;
        std::vector<std::unique_ptr<QSimba>> clients;
        for (int i = 0; i < contenders; ++i)
            clients.push_back(client(target.make()));
        std::atomic<int> holders{0}, overlaps{0}, failures{0};
        std::vector<std::unique_ptr<QThread>> threads;
        QSemaphore start;
        for (auto &c : clients) {
            QSimbaLock *l = c->lock(QStringLiteral("bench.cycle"));
            threads.emplace_back(QThread::create([&, l] {
                start.acquire();
                for (int i = 0; i < perClient; ++i) {
                    try {
                        QSimbaLockTerm term = l->acquire(30s);
                        if (holders.fetch_add(1) != 0)
                            ++overlaps;
                        holders.fetch_sub(1);
                    } catch (const std::exception &e) {
                        std::fprintf(stderr, "a contender failed: %s\n", e.what());
                        ++failures;
                        return;
                    }
                }
            }));
            threads.back()->start();
        }
        QElapsedTimer elapsed;
        elapsed.start();
        start.release(contenders);
        for (auto &t : threads)
            t->wait();
        const double seconds = double(elapsed.nsecsElapsed()) / 1e9;
        std::printf("  %d clients x %d cycles on one lock: %.0f cycles/s, %d overlaps, %d failures\n", contenders,
                    perClient, double(contenders * perClient) / seconds, overlaps.load(), failures.load());
        if (failures || overlaps)
            return 69;
    }
    std::fflush(stdout);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("The uncontended lock cycle against the raw client's round trips."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("cycles"), QStringLiteral("Measured cycles per backend (default 1000)."),
                      QStringLiteral("n"), QStringLiteral("1000")});
    parser.addOption({QStringLiteral("handoff"), QStringLiteral("Also measure N handoffs to a blocked waiter."),
                      QStringLiteral("n"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("contend"), QStringLiteral("Also run N clients x 100 cycles on one lock."),
                      QStringLiteral("n"), QStringLiteral("0")});
    parser.addOption({QStringLiteral("warmup"),
                      QStringLiteral("Warm the server up for at most S seconds before measuring, until its rates "
                                     "settle (default: 60 for ZooKeeper, whose JVM compiles its request paths "
                                     "while it runs; 0 for the others). 0: none."),
                      QStringLiteral("S"), QStringLiteral("-1")});
    parser.addPositionalArgument(QStringLiteral("backends"), QStringLiteral("memory, redis, zookeeper (default: all)"));
    parser.process(app);
    const int cycles = std::max(10, parser.value(QStringLiteral("cycles")).toInt());
    const int handoffs = std::max(0, parser.value(QStringLiteral("handoff")).toInt());
    const int contenders = std::max(0, parser.value(QStringLiteral("contend")).toInt());
    const double warmupArg = parser.value(QStringLiteral("warmup")).toDouble();
    // The warm-up's limits: at least 10 s (a JIT compiles in bursts) unless less is asked.
    const auto warmupOf = [warmupArg](double byDefault) {
        const double max = warmupArg < 0 ? byDefault : warmupArg;
        return std::pair{std::min(10.0, max), max};
    };
    QStringList wanted = parser.positionalArguments();
    if (wanted.isEmpty())
        wanted = {QStringLiteral("memory"), QStringLiteral("redis"), QStringLiteral("zookeeper")};
    int rc = 0;
    for (const QString &which : std::as_const(wanted)) {
        try {
            if (which == u"memory") {
                const QString store = QStringLiteral("bench-cycle");
                Target target{which, [store] { return std::make_unique<QSimbaMemoryLeaseBackend>(store); }, {}};
                std::tie(target.warmupMinS, target.warmupMaxS) = warmupOf(0);
                rc |= runTarget(target, cycles, handoffs, contenders);
            } else if (which == u"redis") {
                RedisServer server;
                if (!server.start()) {
                    std::fprintf(stderr, "redis-server did not start: %s\n", qPrintable(server.errorString()));
                    return 69;
                }
                redisContext *raw = redisConnect("127.0.0.1", server.port());
                if (!raw || raw->err) {
                    std::fprintf(stderr, "hiredis could not connect\n");
                    return 69;
                }
                const auto command = [raw](const char *format) {
                    auto *reply = static_cast<redisReply *>(redisCommand(raw, format));
                    const bool ok = reply && reply->type != REDIS_REPLY_ERROR;
                    freeReplyObject(reply);
                    return ok;
                };
                QUrl url = server.url();
                url.setQuery(QStringLiteral("maxLease=10s")); // the guard's wait: 10 s, once
                Target target{which, [url] { return QSimbaRedisLeaseBackend::fromUrl(url); },
                              {{QStringLiteral("PING"), [command] { return command("PING"); }},
                               {QStringLiteral("SET"), [command] { return command("SET bench:raw x"); }}},
                              [raw, command, cycles](bool before) { redisScriptTimes(raw, command, cycles, before); }};
                std::tie(target.warmupMinS, target.warmupMaxS) = warmupOf(0);
                rc |= runTarget(target, cycles, handoffs, contenders);
                redisFree(raw);
            } else if (which == u"zookeeper") {
                ZookeeperServer server;
                server.setDurable(true); // a write's cost is its sync to disk
                if (!server.start()) {
                    std::fprintf(stderr, "ZooKeeper did not start: %s\n", qPrintable(server.errorString()));
                    return 69;
                }
                zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
                zhandle_t *zh = zookeeper_init(server.hostPort().toUtf8().constData(), nullptr, 10000, nullptr,
                                               nullptr, 0);
                // As the backend: no resolving of the (numeric) host list on every poll.
                if (zh)
                    zoo_set_servers_resolution_delay(zh, -1);
                for (int i = 0; zh && zoo_state(zh) != ZOO_CONNECTED_STATE && i < 500; ++i)
                    QThread::msleep(10);
                if (!zh || zoo_state(zh) != ZOO_CONNECTED_STATE) {
                    std::fprintf(stderr, "the zookeeper client could not connect\n");
                    return 69;
                }
                zoo_create(zh, "/bench-raw", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
                const QString url = QStringLiteral("zookeeper://%1/bench").arg(server.hostPort());
                Target target{which, [url] { return QSimbaZookeeperLeaseBackend::fromUrl(url); },
                              {{QStringLiteral("exists"),
                                [zh] {
                                    Stat stat;
                                    return zoo_exists(zh, "/bench-raw", 0, &stat) == ZOK;
                                }},
                               {QStringLiteral("set"), [zh] { return zoo_set(zh, "/bench-raw", "y", 1, -1) == ZOK; }}}};
                target.mntr = [port = server.port()] { return Bench::fourLetterWord(quint16(port), "mntr"); };
                std::tie(target.warmupMinS, target.warmupMaxS) = warmupOf(60);
                rc |= runTarget(target, cycles, handoffs, contenders);
                zookeeper_close(zh);
            } else {
                std::fprintf(stderr, "unknown backend \"%s\" (memory, redis, zookeeper)\n", qPrintable(which));
                return 64;
            }
        } catch (const std::exception &e) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(which), e.what());
            return 69;
        }
    }
    return rc;
}
