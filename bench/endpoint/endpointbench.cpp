// SPDX-License-Identifier: Apache-2.0
// Does serving the operator endpoint disturb the engine? Measures the renew-interval jitter
// of one client (the time between two keep-alive calls minus the renew interval) while its
// elections churn, first with no reader of /simba/events, then with N readers on their own
// thread, and prints both and their ratio.
//   endpointbench [--seconds S] [--readers N] [--lease-ms L]
#include "qsimba.h"
#include "qsimbahttpendpoint.h"
#include "qsimbamemoryleasebackend.h"

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QMutex>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtNetwork/QTcpSocket>

#include <algorithm>
#include <atomic>
#include <cstdio>

using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

//! Forwards to the in-memory backend and notes when each keep-alive was sent.
class TimingBackend final : public QSimbaLeaseBackend
{
public:
    explicit TimingBackend(const QString &store) : m_inner(store) {}

    std::vector<steady_clock::time_point> takeKeepAlives()
    {
        QMutexLocker lock(&m_mutex);
        return std::exchange(m_keepAlives, {});
    }

    Capabilities capabilities() const override { return m_inner.capabilities(); }
    QString describe() const override { return m_inner.describe(); }
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata) override
    {
        return m_inner.openSession(lease, metadata);
    }
    KeepAliveResult keepAlive(const QSimbaSessionId &s, Millis lease, const QSet<QSimbaLeaseName> &held) override
    {
        {
            QMutexLocker lock(&m_mutex);
            m_keepAlives.push_back(steady_clock::now());
        }
        return m_inner.keepAlive(s, lease, held);
    }
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &s, const QSet<QSimbaLeaseName> &n) override
    {
        return m_inner.acquire(s, n);
    }
    void release(const QSimbaSessionId &s, const QHash<QSimbaLeaseName, qint64> &l) override { m_inner.release(s, l); }
    void closeSession(const QSimbaSessionId &s) override { m_inner.closeSession(s); }
    void join(const QSimbaSessionId &s, const QString &g) override { m_inner.join(s, g); }
    void leave(const QSimbaSessionId &s, const QString &g) override { m_inner.leave(s, g); }
    QList<QSimbaSessionId> members(const QString &g) override { return m_inner.members(g); }
    std::unique_ptr<Subscription> subscribe(HintListener l) override { return m_inner.subscribe(std::move(l)); }

private:
    QSimbaMemoryLeaseBackend m_inner;
    QMutex m_mutex;
    std::vector<steady_clock::time_point> m_keepAlives;
};

//! N readers of /simba/events on the thread they are created on; they count the events.
class Readers : public QObject
{
public:
    std::atomic<qint64> events{0};
    std::atomic<int> open{0};

    void start(quint16 port, int n)
    {
        for (int i = 0; i < n; ++i) {
            auto *socket = new QTcpSocket(this);
            connect(socket, &QTcpSocket::connected, this, [this] { ++open; });
            connect(socket, &QTcpSocket::readyRead, this, [this, socket] {
                events += socket->readAll().count("id: "); // only the id lines have "id: " (JSON is compact)
            });
            socket->connectToHost(QStringLiteral("127.0.0.1"), port);
            socket->write("GET /simba/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        }
    }
};

struct Jitter
{
    int intervals = 0;
    double meanMs = 0, p50Ms = 0, p99Ms = 0, maxMs = 0;
};

Jitter jitter(const std::vector<steady_clock::time_point> &sends, nanoseconds renew)
{
    std::vector<double> dev;
    for (size_t i = 1; i < sends.size(); ++i)
        dev.push_back(std::abs(duration<double, std::milli>(sends[i] - sends[i - 1] - renew).count()));
    Jitter j;
    if (dev.empty())
        return j;
    std::sort(dev.begin(), dev.end());
    j.intervals = int(dev.size());
    for (double d : dev)
        j.meanMs += d / double(dev.size());
    j.p50Ms = dev[dev.size() / 2];
    j.p99Ms = dev[std::min(dev.size() - 1, size_t(double(dev.size()) * 0.99))];
    j.maxMs = dev.back();
    return j;
}

//! Runs the event loop for \a d while \a election is stepped down every 20 ms.
void churnFor(QSimbaElection *election, milliseconds d)
{
    QTimer churn;
    QObject::connect(&churn, &QTimer::timeout, election, [election] {
        if (election->status() == QSimbaElection::Status::Leader)
            (void)election->stepDown(0ms);
    });
    churn.start(20);
    QTimer::singleShot(d, QCoreApplication::instance(), &QCoreApplication::quit);
    QCoreApplication::exec();
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("Seconds per phase (default 10)."), QStringLiteral("S"), QStringLiteral("10")});
    parser.addOption({QStringLiteral("readers"), QStringLiteral("Event-stream readers (default 100)."), QStringLiteral("N"), QStringLiteral("100")});
    parser.addOption({QStringLiteral("lease-ms"), QStringLiteral("Lease duration in ms (default 300)."), QStringLiteral("L"), QStringLiteral("300")});
    parser.process(app);
    const milliseconds phase(parser.value(QStringLiteral("seconds")).toInt() * 1000);
    const int readerCount = parser.value(QStringLiteral("readers")).toInt();
    const milliseconds lease(parser.value(QStringLiteral("lease-ms")).toInt());

    auto owned = std::make_unique<TimingBackend>(QStringLiteral("endpointbench"));
    TimingBackend *backend = owned.get();
    const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(lease).build();
    auto simba = QSimba::builder().backend(std::move(owned)).config(config).build();
    QSimbaHttpEndpoint endpoint(simba.get());
    auto *election = simba->election(QStringLiteral("churn"));
    election->start();
    churnFor(election, 1s); // warm up: session open, first terms
    const nanoseconds renew = config.renewInterval();

    (void)backend->takeKeepAlives();
    const qint64 eventsBefore = endpoint.lastEventId();
    churnFor(election, phase);
    const Jitter without = jitter(backend->takeKeepAlives(), renew);
    const qint64 eventsWithout = endpoint.lastEventId() - eventsBefore;

    QThread readerThread;
    readerThread.setObjectName(QStringLiteral("readers"));
    Readers readers;
    readers.moveToThread(&readerThread);
    readerThread.start();
    QMetaObject::invokeMethod(&readers, [&] { readers.start(endpoint.port(), readerCount); });
    while (endpoint.readerCount() < readerCount)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    (void)backend->takeKeepAlives();
    const qint64 delivered0 = readers.events;
    const qint64 eventsBefore2 = endpoint.lastEventId();
    churnFor(election, phase);
    const Jitter with = jitter(backend->takeKeepAlives(), renew);
    const qint64 eventsWith = endpoint.lastEventId() - eventsBefore2;
    const qint64 delivered = readers.events - delivered0;
    const int dropped = readerCount - endpoint.readerCount();

    std::printf("renew interval %lld ms, %lld s per phase, %d readers\n",
                qint64(duration_cast<milliseconds>(renew).count()), qint64(phase.count() / 1000), readerCount);
    std::printf("%-16s %9s %8s %9s %9s %9s %9s\n", "phase", "intervals", "events", "mean ms", "p50 ms", "p99 ms",
                "max ms");
    std::printf("%-16s %9d %8lld %9.2f %9.2f %9.2f %9.2f\n", "no readers", without.intervals, eventsWithout,
                without.meanMs, without.p50Ms, without.p99Ms, without.maxMs);
    std::printf("%-16s %9d %8lld %9.2f %9.2f %9.2f %9.2f\n", qPrintable(QStringLiteral("%1 readers").arg(readerCount)),
                with.intervals, eventsWith, with.meanMs, with.p50Ms, with.p99Ms, with.maxMs);
    std::printf("ratio (readers / none): mean %.2f, p99 %.2f, max %.2f\n", with.meanMs / std::max(without.meanMs, 1e-9),
                with.p99Ms / std::max(without.p99Ms, 1e-9), with.maxMs / std::max(without.maxMs, 1e-9));
    std::printf("events delivered to readers: %lld of %lld expected; readers dropped: %d\n", delivered,
                eventsWith * readerCount, dropped);

    QMetaObject::invokeMethod(&readers, [&] { qDeleteAll(readers.findChildren<QTcpSocket *>()); },
                              Qt::BlockingQueuedConnection);
    readerThread.quit();
    readerThread.wait();
    return 0;
}
