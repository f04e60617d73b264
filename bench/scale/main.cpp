// SPDX-License-Identifier: Apache-2.0
// Scale of one client: N elections held by client A, the same N contended by client B.
// Prints, per N: B's keepAlive and acquire calls per renew interval (against the budget of
// one keepAlive and ⌈N/64⌉ acquires), names per acquire call, the process's CPU while A
// alone holds all N (idle) and while B contends, the process's RSS (both clients), how long
// A took to lead all N, and how long closing A (releasing all N) took.
//
//   qsimba_bench_scale [--window S] [--counts 100,1000,10000] [memory | URL | --redis]
//
// memory (the default) uses the in-memory backend; a URL (redis://127.0.0.1:6379/0) any
// backend the factory knows; --redis starts a redis-server with the tests' fixture.
// QSIMBA_BENCH_TRACE=1 prints every acquire result.
#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbamemoryleasebackend.h"

#ifdef QSIMBA_BENCH_HAVE_REDIS_FIXTURE
#include "redisserver.h"
#endif

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QFile>
#include <QtCore/QTimer>

#include <sys/resource.h>

#include <atomic>
#include <cmath>
#include <cstdio>

using namespace std::chrono_literals;

namespace {

//! Counts the calls a client makes, then hands them to the real backend.
class CountingBackend final : public QSimbaLeaseBackend
{
public:
    explicit CountingBackend(std::unique_ptr<QSimbaLeaseBackend> inner) : m_inner(std::move(inner)) {}

    std::atomic<qint64> keepAlives{0}, acquires{0}, acquiredNames{0}, releases{0}, granted{0};

    Capabilities capabilities() const override { return m_inner->capabilities(); }
    QString describe() const override { return m_inner->describe(); }
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata) override
    {
        return m_inner->openSession(lease, metadata);
    }
    KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease, const QSet<QSimbaLeaseName> &held) override
    {
        ++keepAlives;
        return m_inner->keepAlive(session, lease, held);
    }
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session,
                                                 const QSet<QSimbaLeaseName> &names) override
    {
        ++acquires;
        acquiredNames += names.size();
        auto results = m_inner->acquire(session, names);
        for (const auto &r : std::as_const(results))
            granted += r.isGranted;
        if (qEnvironmentVariableIsSet("QSIMBA_BENCH_TRACE"))
            for (auto it = results.cbegin(); it != results.cend(); ++it)
                std::fprintf(stderr, "acquire %s: %s token %lld holder %s\n", qPrintable(it.key().toString()),
                             it->isGranted ? "granted" : "held", it->token, qPrintable(it->holder.toString()));
        return results;
    }
    void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) override
    {
        ++releases;
        m_inner->release(session, leases);
    }
    void closeSession(const QSimbaSessionId &session) override { m_inner->closeSession(session); }
    void join(const QSimbaSessionId &session, const QString &group) override { m_inner->join(session, group); }
    void leave(const QSimbaSessionId &session, const QString &group) override { m_inner->leave(session, group); }
    QList<QSimbaSessionId> members(const QString &group) override { return m_inner->members(group); }
    std::unique_ptr<Subscription> subscribe(HintListener listener) override
    {
        return m_inner->subscribe(std::move(listener));
    }

private:
    std::unique_ptr<QSimbaLeaseBackend> m_inner;
};

double cpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double rssMegabytes()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return 0;
    for (const auto &line : status.readAll().split('\n'))
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toDouble() / 1024.0;
    return 0;
}

//! Runs the owner thread's event loop (callbacks are delivered there) for \a d.
void spin(std::chrono::milliseconds d)
{
    QEventLoop loop;
    QTimer::singleShot(d, &loop, &QEventLoop::quit);
    loop.exec();
}

int leaders(QSimba &client)
{
    int n = 0;
    for (const auto &e : client.snapshot().elections)
        n += e.status == QSimbaElection::Status::Leader;
    return n;
}

struct Run
{
    QString backend;
    int names = 0;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QStringList args = app.arguments().mid(1);
    int window = 10;
    QList<int> counts{100, 1000, 10000};
    QString target = QStringLiteral("memory");
    for (int i = 0; i < args.size(); ++i) {
        if (args[i] == QLatin1String("--window") && i + 1 < args.size()) {
            window = args[++i].toInt();
        } else if (args[i] == QLatin1String("--counts") && i + 1 < args.size()) {
            counts.clear();
            for (const auto &c : args[++i].split(QLatin1Char(',')))
                counts.append(c.toInt());
        } else {
            target = args[i];
        }
    }
#ifdef QSIMBA_BENCH_HAVE_REDIS_FIXTURE
    std::unique_ptr<RedisServer> redis;
    if (target == QLatin1String("--redis")) {
        redis = std::make_unique<RedisServer>();
        if (!redis->start()) {
            std::fprintf(stderr, "redis-server did not start\n");
            return 1;
        }
        target = redis->url().toString();
    }
#endif
    const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(3s).build(); // renew 1 s
    const double renew = std::chrono::duration<double>(config.renewInterval()).count();
    std::printf("backend: %s; lease 3 s, renew %.1f s; B's figures over %d s after a 3 s settle\n",
                qPrintable(target == QLatin1String("memory") ? target : QSimbaBackendFactory::redacted(target)), renew,
                window);
    std::printf("%7s | %13s | %18s | %9s | %9s | %9s | %7s | %9s | %8s\n", "names", "keepAlive/rn", "acquire/rn (budget)",
                "names/acq", "idle CPU%", "busy CPU%", "RSS MB", "lead all", "close A");
    int run = 0;
    for (const int n : counts) {
        ++run;
        const QString store = QStringLiteral("bench-%1").arg(QSimbaSessionId::generate().toString());
        const auto make = [&]() -> std::unique_ptr<QSimbaLeaseBackend> {
            if (target == QLatin1String("memory"))
                return std::make_unique<QSimbaMemoryLeaseBackend>(store);
            return QSimbaBackendFactory::create(target);
        };
        QStringList names;
        for (int i = 0; i < n; ++i)
            names.append(QStringLiteral("b%1-%2.n%3").arg(QCoreApplication::applicationPid()).arg(run).arg(i));

        auto a = QSimba::builder().backend(std::make_unique<CountingBackend>(make())).config(config).build();
        QElapsedTimer clock;
        clock.start();
        for (const auto &name : std::as_const(names))
            a->election(name)->start();
        double leadAll = -1;
        while (clock.elapsed() < 120000) {
            spin(50ms);
            if (leaders(*a) == n) {
                leadAll = double(clock.elapsed()) / 1000.0;
                break;
            }
        }
        // Idle: A holds every name; nothing else happens (once the callbacks of the wins,
        // three per name, have run on this thread).
        spin(5s);
        double cpu0 = cpuSeconds();
        QElapsedTimer idle;
        idle.start();
        spin(std::chrono::milliseconds(window * 500));
        const double idleCpu = (cpuSeconds() - cpu0) / (double(idle.elapsed()) / 1000.0) * 100.0;

        // Contended: B is a candidate for every name A holds.
        auto counting = std::make_unique<CountingBackend>(make());
        auto *counter = counting.get();
        auto b = QSimba::builder().backend(std::move(counting)).config(config).build();
        for (const auto &name : std::as_const(names))
            b->election(name)->start();
        spin(3s);
        const qint64 k0 = counter->keepAlives, q0 = counter->acquires, m0 = counter->acquiredNames;
        cpu0 = cpuSeconds();
        QElapsedTimer busy;
        busy.start();
        spin(std::chrono::seconds(window));
        const double seconds = double(busy.elapsed()) / 1000.0;
        const double busyCpu = (cpuSeconds() - cpu0) / seconds * 100.0;
        const double intervals = seconds / renew;
        const qint64 calls = counter->acquires - q0;
        const double keepAlivePerRenew = double(counter->keepAlives - k0) / intervals;
        const double acquirePerRenew = double(calls) / intervals;
        const double namesPerCall = calls ? double(counter->acquiredNames - m0) / double(calls) : 0;
        const double rss = rssMegabytes();
        const int budget = int(std::ceil(n / 64.0));
        b.reset();
        QElapsedTimer closing;
        closing.start();
        a.reset();
        const double closeA = double(closing.elapsed()) / 1000.0;
        std::printf("%7d | %13.2f | %11.2f (%4d) | %9.1f | %9.1f | %9.1f | %7.1f | %7.2f s | %6.2f s\n", n,
                    keepAlivePerRenew, acquirePerRenew, budget, namesPerCall, idleCpu, busyCpu, rss, leadAll, closeA);
        std::fflush(stdout);
    }
    return 0;
}
