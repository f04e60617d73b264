// SPDX-License-Identifier: Apache-2.0
// Leader work and schedules (seeds 001): one thread per term, interruption, exceptions as
// WorkCompleted, handover order, fixed-delay and fixed-rate timing.
#include "qsimba.h"
#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QMutex>
#include <QtCore/QSemaphore>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using WorkOutcome = QSimbaEvent::WorkOutcome;

namespace {
// Runs posted tasks one at a time, in order, on a thread of its own; finish() runs what is
// queued and joins.
class SerialExecutor
{
public:
    SerialExecutor()
        : m_thread([this] {
              std::unique_lock lock(m_mutex);
              for (;;) {
                  m_wake.wait(lock, [this] { return m_done || !m_tasks.empty(); });
                  if (m_tasks.empty())
                      return;
                  auto task = std::move(m_tasks.front());
                  m_tasks.pop_front();
                  lock.unlock();
                  task();
                  lock.lock();
              }
          })
    {
    }
    ~SerialExecutor() { finish(); }
    void post(std::function<void()> task)
    {
        {
            std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_wake.notify_one();
    }
    void finish()
    {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_wake.notify_one();
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::deque<std::function<void()>> m_tasks;
    bool m_done = false;
    std::thread m_thread; // last: starts after the members it uses
};
} // namespace

class tst_LeaderTask : public QObject
{
    Q_OBJECT

    QString store;
    QSimbaConfig config = QSimbaConfig::builder().leaseDuration(300ms).build();
    QMutex mutex;
    QList<QSimbaEvent> events;

    std::unique_ptr<QSimba> client(QSimbaMemoryLeaseBackend **raw = nullptr)
    {
        auto backend = std::make_unique<QSimbaMemoryLeaseBackend>(store);
        if (raw)
            *raw = backend.get();
        return QSimba::builder()
            .backend(std::move(backend))
            .config(config)
            .listener([this](const QSimbaEvent &e) {
                QMutexLocker lock(&mutex);
                events.append(e);
            })
            .build();
    }
    QList<QSimbaEvent> workEvents()
    {
        QMutexLocker lock(&mutex);
        QList<QSimbaEvent> out;
        for (const auto &e : events)
            if (e.type() == QSimbaEvent::Type::WorkCompleted)
                out.append(e);
        return out;
    }

private Q_SLOTS:
    void init()
    {
        store = QSimbaSessionId::generate().toString();
        config = QSimbaConfig::builder().leaseDuration(300ms).build();
        QMutexLocker lock(&mutex);
        events.clear();
    }

    void runsOncePerTermOnItsOwnThreadAndStopsOnInterruption()
    {
        auto simba = client();
        std::atomic<int> runs{0};
        std::atomic<bool> sawInterruption{false};
        QStringList threads;
        QMutex threadsMutex;
        auto task = simba->election(QStringLiteral("ingest"))->runWhileLeader([&](const QSimbaTerm &term) {
            ++runs;
            {
                QMutexLocker lock(&threadsMutex);
                threads.append(QThread::currentThread() == qApp->thread() ? QStringLiteral("main")
                                                                          : QThread::currentThread()->objectName());
            }
            QVERIFY(term.isValid());
            while (!QThread::currentThread()->isInterruptionRequested())
                term.revoked().waitForFinished(); // the revocation and the interruption come together
            sawInterruption = !term.isValid() && term.revoked().isFinished();
        });
        QTRY_COMPARE(runs.load(), 1);
        QCOMPARE(task->election()->status(), QSimbaElection::Status::Leader);
        // A step-down ends the term; the next term runs the work again on a new thread.
        auto stepped = task->election()->stepDown(0ms);
        QTRY_COMPARE(runs.load(), 2);
        QVERIFY(sawInterruption);
        QTRY_VERIFY(stepped.isFinished());
        task->close();
        QTRY_COMPARE(task->election()->status(), QSimbaElection::Status::Idle);
        QCOMPARE(threads, (QStringList{QStringLiteral("simba-work:ingest"), QStringLiteral("simba-work:ingest")}));
        QTRY_COMPARE(workEvents().size(), 2);
        for (const auto &e : workEvents())
            QCOMPARE(e.outcome(), WorkOutcome::Completed);
    }

    void handoverWaitsForTheWorkBeforeTheNextLeader()
    {
        auto one = client(), two = client();
        std::atomic<bool> firstRunning{false};
        std::atomic<bool> overlap{false};
        auto task1 = one->election(QStringLiteral("h"))->runWhileLeader([&](const QSimbaTerm &term) {
            firstRunning = true;
            term.revoked().waitForFinished();
            QTest::qWait(30); // cleanup after the interruption, still inside the handover
            firstRunning = false;
        });
        QTRY_VERIFY(firstRunning.load());
        std::atomic<int> secondRuns{0};
        auto task2 = two->election(QStringLiteral("h"))->runWhileLeader([&](const QSimbaTerm &term) {
            if (firstRunning)
                overlap = true;
            ++secondRuns;
            term.revoked().waitForFinished();
        });
        auto stopped = task1->stop();
        QTRY_COMPARE(secondRuns.load(), 1);
        QVERIFY(!overlap);
        QTRY_VERIFY(stopped.isFinished());
    }

    void exceptionsBecomeWorkCompletedEvents()
    {
        auto simba = client();
        std::atomic<int> runs{0};
        auto task = simba->election(QStringLiteral("x"))->runWhileLeader([&](const QSimbaTerm &) {
            ++runs;
            throw std::runtime_error("boom");
        });
        QTRY_COMPARE(workEvents().size(), 1);
        const auto e = workEvents().first();
        QCOMPARE(e.outcome(), WorkOutcome::Failed);
        QCOMPARE(e.error(), QStringLiteral("boom"));
        QCOMPARE(e.kind(), QSimbaElection::Kind::Election);
        // The election is unaffected: still leader, and the work does not run again in the term.
        QTest::qWait(100); // a negative check: no signal says "it did not run again"
        QCOMPARE(task->election()->status(), QSimbaElection::Status::Leader);
        QCOMPARE(runs.load(), 1);
    }

    void exceptionAfterTheTermEndedIsCancelled()
    {
        auto simba = client();
        std::atomic<bool> running{false};
        auto task = simba->election(QStringLiteral("c"))->runWhileLeader([&](const QSimbaTerm &term) {
            running = true;
            term.revoked().waitForFinished();
            term.ensureValid(); // throws: the term is over
        });
        // Wait for the work itself, not for the status: a close() while the term's delivery
        // is still queued ends the term without ever running the work (no WorkCompleted).
        QTRY_VERIFY(running.load());
        task->close();
        QTRY_COMPARE(workEvents().size(), 1);
        QCOMPARE(workEvents().first().outcome(), WorkOutcome::Cancelled);
    }

    void outOfMemoryStepsDownForOneLease()
    {
        auto simba = client();
        std::atomic<int> runs{0};
        auto task = simba->election(QStringLiteral("oom"))->runWhileLeader([&](const QSimbaTerm &) {
            ++runs;
            throw std::bad_alloc();
        });
        QTRY_COMPARE(task->election()->status(), QSimbaElection::Status::Cooldown);
        QCOMPARE(workEvents().first().outcome(), WorkOutcome::Failed);
        // After one lease duration it contends again.
        QTRY_COMPARE(runs.load(), 2);
    }

    void startingTwiceThrows()
    {
        auto simba = client();
        auto task = simba->election(QStringLiteral("s"))->runWhileLeader([](const QSimbaTerm &) {});
        QVERIFY_THROWS_EXCEPTION(QSimbaIllegalStateError, (void)simba->election(QStringLiteral("s"))->runWhileLeader([](const QSimbaTerm &) {}));
        QVERIFY_THROWS_EXCEPTION(QSimbaIllegalStateError, simba->election(QStringLiteral("s"))->start());
        task->close();
        auto again = simba->election(QStringLiteral("s"))->runWhileLeader([](const QSimbaTerm &) {});
        QVERIFY(again);
    }

    void stuckWorkDelaysTheHandoverOnlyUntilTheDeadline()
    {
        auto one = client(), two = client();
        // Shared with the work, which outlives this function: stop() finishes at the term's
        // deadline, while the work still runs (it ignores interruption) until it reads release.
        const auto release = std::make_shared<std::atomic<bool>>(false);
        auto task1 = one->election(QStringLiteral("stuck"))->runWhileLeader([release](const QSimbaTerm &) {
            QElapsedTimer t;
            t.start();
            while (!*release && t.elapsed() < 10000)
                QThread::yieldCurrentThread(); // ignores interruption
        });
        QTRY_COMPARE(task1->election()->status(), QSimbaElection::Status::Leader);
        QSignalSpy elected2(two->election(QStringLiteral("stuck")), &QSimbaElection::elected);
        two->election(QStringLiteral("stuck"))->start();
        QElapsedTimer timer;
        timer.start();
        auto stopped = task1->stop();
        QTRY_COMPARE(elected2.size(), 1);
        // The handover waited (the work never exited) but no longer than the term's deadline.
        QVERIFY(timer.elapsed() < 2000);
        *release = true;
        QTRY_VERIFY(stopped.isFinished());
    }

    void fixedRateSkipsMissedStarts()
    {
        const auto rate = QSimbaSchedule::fixedRate(100ms, 50ms);
        QCOMPARE(rate.initialDelay(), std::chrono::nanoseconds(50ms));
        QCOMPARE(rate.nextStart(1000ms, 1030ms), std::chrono::nanoseconds(1100ms)); // on time
        QCOMPARE(rate.nextStart(1000ms, 1100ms), std::chrono::nanoseconds(1200ms)); // ended on the next start
        QCOMPARE(rate.nextStart(1000ms, 1350ms), std::chrono::nanoseconds(1400ms)); // overran: 1100..1300 skipped
        const auto delay = QSimbaSchedule::fixedDelay(100ms);
        QCOMPARE(delay.nextStart(1000ms, 1350ms), std::chrono::nanoseconds(1450ms));
        QCOMPARE(delay.withInitialDelay(1s).initialDelay(), std::chrono::nanoseconds(1s));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaSchedule::fixedRate(0ms));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaSchedule::fixedDelay(-1ms));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaSchedule::fixedDelay(1ms, -1ms));
    }

    void scheduleRunsOnTheFakeTickerWithinTheTerm()
    {
        // The schedule's clock is the client's ticker: a fake one drives every run. Every run
        // fails on purpose: a failed run is published and the loop goes on, and its event,
        // published after the loop read the run's end, tells the test when it may move the
        // clock (a move before that read would look like a run that overran).
        auto ticker = std::make_shared<QSimbaManualTicker>();
        auto simba = QSimba::builder()
                         .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store, ticker))
                         .config(QSimbaConfig::builder().leaseDuration(3600s).build())
                         .ticker(ticker)
                         .listener([this](const QSimbaEvent &e) {
                             QMutexLocker lock(&mutex);
                             events.append(e);
                         })
                         .build();
        QMutex runsMutex;
        QList<std::chrono::nanoseconds> runs;
        auto task = simba->election(QStringLiteral("sched"))
                        ->schedule(QSimbaSchedule::fixedRate(10s, 5s), [&](const QSimbaTerm &term) {
                            term.ensureValid();
                            QMutexLocker lock(&runsMutex);
                            runs.append(ticker->now());
                            throw std::runtime_error("a failed run"); // the loop goes on
                        });
        QTRY_COMPARE(task->election()->status(), QSimbaElection::Status::Leader);
        // The term began at this time (the clock has not moved): the initial delay counts
        // from it, however late the work thread starts.
        const auto start = ticker->now();
        const auto count = [&] { QMutexLocker lock(&runsMutex); return runs.size(); };
        const auto failures = [&] {
            const auto list = workEvents();
            return std::count_if(list.cbegin(), list.cend(), [](const QSimbaEvent &e) { return e.outcome() == WorkOutcome::Failed; });
        };
        QTest::qWait(30); // a negative check: the fake clock has not moved, nothing may run
        QCOMPARE(count(), 0); // initial delay of 5 s not over
        ticker->advance(5s);
        QTRY_COMPARE(failures(), 1);
        ticker->advance(10s);
        QTRY_COMPARE(failures(), 2);
        ticker->advance(35s); // 3 periods late: one run, the missed starts skipped
        QTRY_COMPARE(failures(), 3);
        QTest::qWait(30); // a negative check: no fourth run may follow
        QCOMPARE(count(), 3);
        QMutexLocker lock(&runsMutex);
        QCOMPARE(runs[0] - start, std::chrono::nanoseconds(5s));
        QCOMPARE(runs[1] - start, std::chrono::nanoseconds(15s));
        QCOMPARE(runs[2] - start, std::chrono::nanoseconds(50s));
        lock.unlock();
        task->close();
    }

    void scheduleInitialDelayCountsFromTheTermsStart()
    {
        // A work thread that starts late (a loaded machine, a busy callback executor) does
        // not push the first run back: the initial delay counts from the start of the term.
        auto ticker = std::make_shared<QSimbaManualTicker>();
        // Elected is delivered, and the work started, only when let through. The executor is
        // a std::thread with a std::mutex queue, whose synchronisation ThreadSanitizer sees
        // (QThreadPool's is inside uninstrumented Qt).
        SerialExecutor executor;
        QSemaphore letThrough;
        auto simba = QSimba::builder()
                         .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store, ticker))
                         .config(QSimbaConfig::builder().leaseDuration(3600s).build())
                         .ticker(ticker)
                         .callbackExecutor([&](std::function<void()> task) {
                             executor.post([&letThrough, task = std::move(task)] {
                                 letThrough.acquire();
                                 letThrough.release();
                                 task();
                             });
                             return true;
                         })
                         .build();
        std::atomic<qint64> ranAt{0};
        auto task = simba->election(QStringLiteral("late"))
                        ->schedule(QSimbaSchedule::fixedDelay(3600s, 5s),
                                   [&](const QSimbaTerm &) { ranAt = ticker->now().count(); });
        QTRY_VERIFY([&] {
            const auto snap = simba->snapshot(); // the engine's view: the term is won
            return snap.elections.size() == 1 && snap.elections[0].status == QSimbaElection::Status::Leader;
        }());
        const auto start = ticker->now();
        ticker->advance(3s); // the term is 3 s old when its work starts
        letThrough.release();
        QTRY_COMPARE(task->election()->status(), QSimbaElection::Status::Leader);
        QTest::qWait(30); // a negative check: the fake clock has not moved, nothing may run
        QCOMPARE(ranAt.load(), qint64(0));
        ticker->advance(2s); // 5 s after the term began
        QTRY_COMPARE(ranAt.load(), (start + 5s).count());
        task->close();
        // The executor runs the client's tasks: none may run after the client is gone. The
        // close future completes after the last one ran.
        auto closed = simba->closeAsync();
        QTRY_VERIFY(closed.isFinished());
        executor.finish();
    }

    void userContinuationOnRevokedKeepsTheInterruption()
    {
        // A QFuture holds one continuation: the user's then() must not replace the one
        // that interrupts the work at the end of its term. A long lease tells "interrupted
        // at once" from "left to run until the term's deadline" on a loaded machine too.
        config = QSimbaConfig::builder().leaseDuration(6s).build();
        auto simba = client();
        std::atomic<bool> running{false}, userSaw{false};
        auto task = simba->election(QStringLiteral("w"))->runWhileLeader([&](const QSimbaTerm &term) {
            term.revoked().then([&](QSimbaTerm::RevokeReason) { userSaw = true; });
            running = true;
            while (!QThread::currentThread()->isInterruptionRequested())
                QThread::msleep(1);
            running = false;
        });
        QTRY_VERIFY(running.load());
        QElapsedTimer timer;
        timer.start();
        auto stopped = task->stop();
        QTRY_VERIFY(stopped.isFinished());
        QVERIFY(!running.load());
        QVERIFY(userSaw.load());
        // Interrupted at once, not at the term's deadline (about the lease, 6 s).
        QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
    }

    void blockingCloseWithElectedStillQueuedNeitherWaitsNorRunsTheWork()
    {
        config = QSimbaConfig::builder().leaseDuration(6s).build();
        auto simba = client();
        std::atomic<int> runs{0};
        auto task = simba->election(QStringLiteral("q"))->runWhileLeader([&](const QSimbaTerm &) { ++runs; });
        // Wait for the win without running the owner thread's event loop (snapshot does not):
        // elected stays queued to this thread.
        QDeadlineTimer limit(10s);
        while (!limit.hasExpired()) {
            const auto snap = simba->snapshot();
            if (!snap.elections.isEmpty() && snap.elections[0].status == QSimbaElection::Status::Leader)
                break;
            QThread::msleep(1);
        }
        QElapsedTimer timer;
        timer.start();
        simba->close();
        QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed()))); // not a lease (6s)
        task.reset();
        QCoreApplication::processEvents(); // the queued elected runs now
        QCOMPARE(runs.load(), 0);          // its work does not start after close
    }
};

QSIMBA_TEST_MAIN(tst_LeaderTask)
#include "tst_leadertask.moc"
