// SPDX-License-Identifier: Apache-2.0
// What the in-memory backend adds to the SPI: shared named stores and fault injection.
#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QMutex>
#include <QtConcurrent/QtConcurrent>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

class tst_MemoryBackend : public QObject
{
    Q_OBJECT

    std::shared_ptr<QSimbaManualTicker> ticker = std::make_shared<QSimbaManualTicker>();
    QSimbaLeaseName a = QSimbaLeaseName::of(QStringLiteral("a"));

private Q_SLOTS:
    void namedStoresAreShared()
    {
        const QString name = QSimbaSessionId::generate().toString();
        QSimbaMemoryLeaseBackend one(name, ticker), two(name, ticker), other({}, ticker);
        const auto s = one.openSession(1s).id;
        QVERIFY(two.keepAlive(s, 1s, {}).isLive);
        QVERIFY(!other.keepAlive(s, 1s, {}).isLive);
        QCOMPARE(one.describe(), QStringLiteral("memory://") + name);
    }

    void failNextFailsExactlyThatManyCalls()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        const auto s = b.openSession(1s).id;
        b.failNext(2);
        QVERIFY_THROWS_EXCEPTION(QSimbaBackendError, b.acquire(s, {a}));
        QVERIFY_THROWS_EXCEPTION(QSimbaBackendError, b.keepAlive(s, 1s, {}));
        QVERIFY(b.acquire(s, {a}).value(a).isGranted);
        // A failed call did nothing: the first token is 1.
        QCOMPARE(b.acquire(s, {a}).value(a).token, 1);
    }

    void expireSessionEndsItNow()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        const auto s1 = b.openSession(10s).id, s2 = b.openSession(10s).id;
        QVERIFY(b.acquire(s1, {a}).value(a).isGranted);
        b.expireSession(s1);
        QVERIFY(!b.keepAlive(s1, 10s, {}).isLive);
        QVERIFY(b.acquire(s2, {a}).value(a).isGranted);
    }

    void hintsAndDroppingThem()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        QMutex mutex;
        QStringList seen;
        auto sub = b.subscribe([&](const QSimbaLeaseBackend::Hint &h) {
            QMutexLocker lock(&mutex);
            seen.append((h.kind == QSimbaLeaseBackend::Hint::Kind::Released ? QStringLiteral("released:")
                                                                             : QStringLiteral("members:"))
                        + h.name);
        });
        const auto s = b.openSession(1s).id;
        b.release(s, {{a, b.acquire(s, {a}).value(a).token}});
        b.join(s, QStringLiteral("g"));
        QCOMPARE(seen, (QStringList{QStringLiteral("released:a"), QStringLiteral("members:g")}));
        b.setDropHints(true);
        b.release(s, {{a, b.acquire(s, {a}).value(a).token}});
        QCOMPARE(seen.size(), 2);
        b.setDropHints(false);
        sub.reset(); // unsubscribed: nothing more arrives
        b.leave(s, QStringLiteral("g"));
        QCOMPARE(seen.size(), 2);
    }

    void pauseBlocksUntilResume()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        const auto s = b.openSession(1s).id;
        b.pause();
        QFutureWatcher<bool> watcher;
        QSignalSpy finished(&watcher, &QFutureWatcher<bool>::finished);
        watcher.setFuture(QtConcurrent::run([&] { return b.keepAlive(s, 1s, {}).isLive; }));
        // The call is stuck inside the backend: it has been counted but cannot answer.
        QTRY_COMPARE(b.callCount(), 2);
        QVERIFY(!watcher.isFinished());
        b.resume();
        QVERIFY(finished.wait(5000));
        QVERIFY(watcher.result());
    }

    void countsCalls()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        QCOMPARE(b.callCount(), 0);
        const auto s = b.openSession(1s).id;
        b.keepAlive(s, 1s, {});
        b.members(QStringLiteral("g"));
        QCOMPARE(b.callCount(), 3);
    }

    void noHintAfterItsSubscriptionEnded()
    {
        // One client publishes hints while another ends its subscription: once the
        // subscription is gone, its listener never runs (it would post to a freed object).
        QSimbaMemoryLeaseBackend b({}, QSimbaTicker::system());
        const auto s = b.openSession(10s).id;
        for (int round = 0; round < 200; ++round) {
            auto alive = std::make_shared<std::atomic<bool>>(true);
            std::atomic<int> late{0};
            auto sub = b.subscribe([alive, &late](const QSimbaLeaseBackend::Hint &) {
                if (!alive->load())
                    ++late;
                QThread::yieldCurrentThread();
            });
            auto publisher = QtConcurrent::run([&] {
                for (int i = 0; i < 20; ++i) {
                    const auto t = b.acquire(s, {a}).value(a).token;
                    b.release(s, {{a, t}});
                }
            });
            QThread::yieldCurrentThread();
            sub.reset();
            alive->store(false);
            publisher.waitForFinished();
            QCOMPARE(late.load(), 0);
        }
    }

    void endedSessionsAreForgotten()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        for (int i = 0; i < 100; ++i)
            b.closeSession(b.openSession(1s).id);
        const auto expiring = b.openSession(1s).id;
        ticker->advance(2s);
        QVERIFY(b.members(QStringLiteral("g")).isEmpty()); // sweeps
        QCOMPARE(b.sessionCount(), 0);
        QVERIFY(!b.keepAlive(expiring, 1s, {}).isLive); // and never revived
    }

    void maxLeaseShortensGrants()
    {
        QSimbaMemoryLeaseBackend b({}, ticker);
        b.setMaxLease(500ms);
        const auto grant = b.openSession(3s);
        QCOMPARE(grant.remaining, QSimbaLeaseBackend::Millis(500));
        QCOMPARE(b.keepAlive(grant.id, 3s, {}).remaining, QSimbaLeaseBackend::Millis(500));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_MemoryBackend)
#include "tst_memorybackend.moc"
