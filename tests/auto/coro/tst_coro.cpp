// SPDX-License-Identifier: Apache-2.0
// QSimba::Coro on real threads with the in-memory backend: awaitAcquire, awaitTryAcquire,
// cancellation by stop token and by dropping the task, withLock releasing on return,
// exception and cancellation, awaitRevoked, and the drop-oldest event stream.
#include "qsimba.h"
#include "qsimbacoro.h"
#include "qsimbaerror.h"
#include "qsimbaeventstream.h"
#include "qsimbamemoryleasebackend.h"

#include <QCoro/QCoroFuture>

#include <QtCore/QPromise>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

#include <stdexcept>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {

// What a coroutine ended with: "ok", "timeout", "interrupted", "illegal-state" or what().
struct Outcome
{
    bool done = false;
    QString result;
    QSimbaLockTerm term;
    qint64 value = 0;
    QSimbaTerm::RevokeReason reason{};
    QSimbaEvent event;
};

void fail(Outcome *out)
{
    try {
        throw;
    } catch (const QSimbaLockTimeoutError &) {
        out->result = QStringLiteral("timeout");
    } catch (const QSimbaInterruptedError &) {
        out->result = QStringLiteral("interrupted");
    } catch (const QSimbaIllegalStateError &) {
        out->result = QStringLiteral("illegal-state");
    } catch (const std::exception &e) {
        out->result = QString::fromUtf8(e.what());
    }
}

// Awaits \a task and records how it ended in \a out; \a keep stores its value. The
// helpers below start one each: free functions, since a coroutine lambda's captures die
// with the lambda object, before the coroutine resumes.
template<typename T, typename Keep>
QCoro::Task<> record(QCoro::Task<T> task, Outcome *out, Keep keep)
{
    try {
        keep(out, co_await task);
        if (out->result.isEmpty())
            out->result = QStringLiteral("ok");
    } catch (...) {
        fail(out);
    }
    out->done = true;
}

QCoro::Task<> record(QCoro::Task<> task, Outcome *out)
{
    try {
        co_await task;
        out->result = QStringLiteral("ok");
    } catch (...) {
        fail(out);
    }
    out->done = true;
}

void keepTerm(Outcome *out, QSimbaLockTerm term) { out->term = std::move(term); }
void keepValue(Outcome *out, qint64 value) { out->value = value; }

void acquireInto(QSimbaLock *lock, std::chrono::nanoseconds timeout, std::stop_token stop, Outcome *out)
{
    record(QSimbaCoro::awaitAcquire(lock, timeout, stop), out, keepTerm);
}

void tryAcquireInto(QSimbaLock *lock, Outcome *out)
{
    record(QSimbaCoro::awaitTryAcquire(lock), out, [](Outcome *o, std::optional<QSimbaLockTerm> term) {
        if (term)
            o->term = std::move(*term);
        else
            o->result = QStringLiteral("empty");
    });
}

void revokedInto(QSimbaTerm term, std::stop_token stop, Outcome *out)
{
    record(QSimbaCoro::awaitRevoked(term, stop), out,
           [](Outcome *o, QSimbaTerm::RevokeReason reason) { o->reason = reason; });
}

void nextInto(QSimbaEventStream *stream, std::stop_token stop, Outcome *out)
{
    record(stream->next(stop), out, [](Outcome *o, QSimbaEvent event) { o->event = std::move(event); });
}

QCoro::Task<> collectInto(QSimbaEventStream *stream, int count, QList<QSimbaEvent> *events, Outcome *out)
{
    try {
        for (int i = 0; i < count; ++i)
            events->append(co_await stream->next());
        out->result = QStringLiteral("ok");
    } catch (...) {
        fail(out);
    }
    out->done = true;
}

// withLock whose block returns a plain value: its token.
void withLockValue(QSimbaLock *lock, Outcome *out)
{
    record(QSimbaCoro::withLock(lock, 2s,
                                [](QSimbaLockTerm &term) {
                                    term.ensureValid();
                                    return term.token();
                                }),
           out, keepValue);
}

// withLock whose block throws.
void withLockThrowing(QSimbaLock *lock, Outcome *out)
{
    record(QSimbaCoro::withLock(lock, 2s,
                                [out](QSimbaLockTerm &term) {
                                    out->value = term.token();
                                    throw std::runtime_error("block failed");
                                }),
           out);
}

// withLock whose block is a coroutine that waits for \a gate, or until \a stop.
void withLockGated(QSimbaLock *lock, QFuture<void> gate, std::stop_token stop, Outcome *out,
                   std::chrono::nanoseconds timeout = 2s)
{
    auto block = [gate, stop, out](QSimbaLockTerm &term) -> QCoro::Task<qint64> {
        out->value = term.token();
        if (stop.stop_possible())
            (void)co_await QSimbaCoro::awaitRevoked(term.term(), stop); // until cancelled
        else
            co_await gate;
        co_return term.token();
    };
    record(QSimbaCoro::withLock(lock, timeout, std::move(block), stop), out, keepValue);
}

} // namespace

class tst_Coro : public QObject
{
    Q_OBJECT

    QString store;
    // 2 s leases: a session renewed every 667 ms outlives a loaded machine's pauses (with
    // 300 ms, a session lost to its deadline let the other client take a lock the test
    // held: 3 failures in 30 runs under load). Waits end on hints, not on lease ends.
    QSimbaConfig config = QSimbaConfig::builder().leaseDuration(2s).build();
    const QString name = QStringLiteral("coro-lock");

    std::unique_ptr<QSimba> client(QSimbaMemoryLeaseBackend **raw = nullptr, QSimbaEventStream *stream = nullptr)
    {
        auto backend = std::make_unique<QSimbaMemoryLeaseBackend>(store);
        if (raw)
            *raw = backend.get();
        auto builder = QSimba::builder();
        builder.backend(std::move(backend)).config(config);
        if (stream)
            builder.listener(stream->listener());
        return builder.build();
    }

    //! A blocking acquire that blocks this thread, so a term this client won could not be
    //! released meanwhile; empty when it failed (no exception escapes the test function).
    static std::optional<QSimbaLockTerm> acquireBlocking(QSimbaLock *lock)
    {
        try {
            return lock->acquire(10s);
        } catch (const QSimbaError &e) {
            qWarning() << "acquire failed:" << e.message();
            return std::nullopt;
        }
    }

    static bool isCandidate(QSimba *simba, const QString &lockName)
    {
        const auto snapshot = simba->snapshot();
        for (const auto &e : snapshot.elections) {
            if (e.name.toString() == lockName)
                return e.status == QSimbaElection::Status::Candidate;
        }
        return false;
    }

    static int count(const QSignalSpy &spy, QSimbaEvent::Type type, const QString &lockName)
    {
        int n = 0;
        for (const auto &args : spy) {
            const auto event = args.at(0).value<QSimbaEvent>();
            n += event.type() == type && event.name().toString() == lockName;
        }
        return n;
    }
    static int electedCount(const QSignalSpy &spy, const QString &lockName)
    {
        return count(spy, QSimbaEvent::Type::Elected, lockName);
    }
    static int revokedCount(const QSignalSpy &spy, const QString &lockName)
    {
        return count(spy, QSimbaEvent::Type::Revoked, lockName);
    }

private Q_SLOTS:
    void init() { store = QSimbaSessionId::generate().toString(); }

    void awaitAcquireWins()
    {
        auto simba = client();
        Outcome out;
        acquireInto(simba->lock(name), 2s, {}, &out);
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("ok"));
        QVERIFY(out.term.isValid());
        QVERIFY(out.term.token() > 0);
        QCOMPARE(out.term.name().toString(), name);
        // Held: another client cannot take it until the term is released.
        auto other = client();
        QVERIFY(!other->lock(name)->tryAcquire().has_value());
        out.term.close();
        QVERIFY(other->lock(name)->tryAcquire().has_value());
    }

    void awaitAcquireTimesOut()
    {
        auto simba = client(), other = client();
        auto held = other->lock(name)->acquire(2s);
        Outcome out;
        acquireInto(simba->lock(name), 300ms, {}, &out);
        QVERIFY(!out.done);
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("timeout"));
        QVERIFY(out.term.isNull());
        QVERIFY(held.isValid());
    }

    void awaitTryAcquire()
    {
        auto simba = client(), other = client();
        Outcome first;
        tryAcquireInto(simba->lock(name), &first);
        QTRY_VERIFY(first.done);
        QCOMPARE(first.result, QStringLiteral("ok"));
        QVERIFY(first.term.token() > 0);
        Outcome second;
        tryAcquireInto(other->lock(name), &second);
        QTRY_VERIFY(second.done);
        QCOMPARE(second.result, QStringLiteral("empty"));
    }

    void cancelledAcquireNeverHoldsTheLock()
    {
        auto simba = client(), other = client();
        QSignalSpy events(simba.get(), &QSimba::event);
        auto held = other->lock(name)->acquire(2s);
        std::stop_source stop;
        Outcome out;
        acquireInto(simba->lock(name), 1h, stop.get_token(), &out); // only the stop ends it
        QTRY_VERIFY(isCandidate(simba.get(), name)); // the attempt is in flight
        stop.request_stop();
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("interrupted"));
        QVERIFY(out.term.isNull());
        QTRY_VERIFY(!isCandidate(simba.get(), name)); // the engine dropped the attempt
        // The attempt was abandoned: after the holder releases, the other client takes the
        // lock again (blocking this thread: a term this client won now could not be
        // released before the acquire timed out), and this client was never elected.
        held.close();
        auto again = acquireBlocking(other->lock(name));
        QVERIFY(again && again->isValid());
        QVERIFY(again->token() > held.token());
        QCOMPARE(electedCount(events, name), 0);
        QVERIFY(!isCandidate(simba.get(), name));
    }

    void droppedTaskReleasesWhatItWins()
    {
        // QCoro 0.8: a destroyed Task does not stop its coroutine. One that wins later
        // finishes with nobody to take the term: the term is released with its frame.
        auto simba = client(), other = client();
        QSignalSpy events(simba.get(), &QSimba::event);
        auto held = other->lock(name)->acquire(2s);
        (void)QSimbaCoro::awaitAcquire(simba->lock(name), 5s); // dropped while it waits
        QTRY_VERIFY(isCandidate(simba.get(), name));
        held.close();
        QTRY_COMPARE(electedCount(events, name), 1);
        // Nobody took the result: the term goes with the coroutine frame, and the lock is
        // free for the other client.
        QTRY_COMPARE(revokedCount(events, name), 1);
        auto again = other->lock(name)->tryAcquire();
        QVERIFY(again.has_value());
    }

    void withLockReleasesOnReturn()
    {
        auto simba = client(), other = client();
        Outcome out;
        withLockValue(simba->lock(name), &out);
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("ok"));
        QVERIFY(out.value > 0); // the block's result: its token
        auto next = other->lock(name)->tryAcquire();
        QVERIFY(next.has_value());
        QVERIFY(next->token() > out.value);
    }

    void withLockHoldsWhileTheBlockRuns()
    {
        auto simba = client(), other = client();
        QPromise<void> gate;
        gate.start();
        Outcome out;
        withLockGated(simba->lock(name), gate.future(), {}, &out);
        QTRY_VERIFY(out.value > 0); // inside the block
        QVERIFY(!other->lock(name)->tryAcquire().has_value());
        gate.finish();
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("ok"));
        QVERIFY(other->lock(name)->tryAcquire().has_value());
    }

    void withLockReleasesOnException()
    {
        auto simba = client(), other = client();
        Outcome out;
        withLockThrowing(simba->lock(name), &out);
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("block failed"));
        QVERIFY(out.value > 0);
        QVERIFY(other->lock(name)->tryAcquire().has_value());
    }

    void withLockReleasesOnCancellation()
    {
        auto simba = client(), other = client();
        std::stop_source stop;
        Outcome out;
        withLockGated(simba->lock(name), QFuture<void>(), stop.get_token(), &out);
        QTRY_VERIFY(out.value > 0); // inside the block, waiting
        QVERIFY(!other->lock(name)->tryAcquire().has_value());
        stop.request_stop();
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("interrupted"));
        QVERIFY(other->lock(name)->tryAcquire().has_value());
    }

    void withLockCancelledWhileAcquiring()
    {
        // Cancelled while it waits for the lock: withLock throws QSimbaInterruptedError, the
        // block never runs, and the attempt is abandoned. The acquire's timeout is far beyond
        // the test's, so only the cancellation can end it: a loaded machine cannot turn the
        // outcome into a QSimbaLockTimeoutError.
        auto simba = client(), other = client();
        auto held = other->lock(name)->acquire(2s);
        std::stop_source stop;
        Outcome out;
        withLockGated(simba->lock(name), QFuture<void>(), stop.get_token(), &out, 1h);
        QTRY_VERIFY(isCandidate(simba.get(), name));
        stop.request_stop();
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("interrupted"));
        QCOMPARE(out.value, 0); // the block never ran
        // The abandoned attempt reaches the engine from this thread's event loop (the
        // future's cancellation is signalled there): wait for it in the loop. A blocking
        // call made before would keep the loop from delivering it, and the attempt could
        // win the lock meanwhile, to be released only after that call returned.
        QTRY_VERIFY(!isCandidate(simba.get(), name));
        held.close();
        QVERIFY(acquireBlocking(other->lock(name)).has_value());
    }

    void awaitRevokedStopped()
    {
        auto simba = client();
        auto term = simba->lock(name)->acquire(2s);
        Outcome out;
        revokedInto(term.term(), {}, &out);
        QVERIFY(!out.done);
        term.close();
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("ok"));
        QCOMPARE(out.reason, QSimbaTerm::RevokeReason::Stopped);
        // Already revoked: completes at once.
        Outcome again;
        revokedInto(term.term(), {}, &again);
        QVERIFY(again.done);
        QCOMPARE(again.reason, QSimbaTerm::RevokeReason::Stopped);
    }

    void awaitRevokedDeadlinePassed()
    {
        QSimbaMemoryLeaseBackend *backend = nullptr;
        auto simba = client(&backend);
        auto term = simba->lock(name)->acquire(2s);
        Outcome out;
        revokedInto(term.term(), {}, &out);
        backend->pause(); // a hung server: no renewal answers, the local deadline passes
        QTRY_VERIFY(out.done);
        backend->resume();
        QCOMPARE(out.result, QStringLiteral("ok"));
        QCOMPARE(out.reason, QSimbaTerm::RevokeReason::DeadlinePassed);
        QVERIFY(!term.isValid());
    }

    void cancellingAwaitRevokedLeavesTheTermAlone()
    {
        auto simba = client();
        auto term = simba->lock(name)->acquire(2s);
        std::stop_source stop;
        Outcome cancelled, other;
        revokedInto(term.term(), stop.get_token(), &cancelled);
        revokedInto(term.term(), {}, &other);
        stop.request_stop();
        QTRY_VERIFY(cancelled.done);
        QCOMPARE(cancelled.result, QStringLiteral("interrupted"));
        QVERIFY(term.isValid());
        QVERIFY(!term.revoked().isCanceled());
        QVERIFY(!other.done);
        term.close();
        QTRY_VERIFY(other.done);
        QCOMPARE(other.reason, QSimbaTerm::RevokeReason::Stopped);
    }

    void eventStreamDeliversInOrder()
    {
        QSimbaEventStream stream;
        QCOMPARE(stream.bufferCapacity(), 1024);
        auto simba = client(nullptr, &stream);
        QSignalSpy spy(simba.get(), &QSimba::event);
        QList<QSimbaEvent> events;
        Outcome out;
        collectInto(&stream, 4, &events, &out);
        auto term = simba->lock(name)->acquire(2s); // SessionOpened, Elected, …
        term.close();                               // Revoked
        QTRY_VERIFY(out.done);
        QCOMPARE(out.result, QStringLiteral("ok"));
        QTRY_VERIFY(spy.size() >= 4);
        for (int i = 0; i < 4; ++i)
            QCOMPARE(events[i], spy[i][0].value<QSimbaEvent>());
        QCOMPARE(events[0].type(), QSimbaEvent::Type::SessionOpened);
        QCOMPARE(stream.dropped(), 0);
    }

    void eventStreamDropsTheOldest()
    {
        QSimbaEventStream stream(3);
        const auto session = QSimbaSessionId::generate();
        for (int i = 1; i <= 5; ++i)
            stream.push(QSimbaEvent::sessionRenewed(session, std::chrono::milliseconds(i)));
        QCOMPARE(stream.size(), 3);
        QCOMPARE(stream.dropped(), 2);
        QList<QSimbaEvent> events;
        Outcome out;
        collectInto(&stream, 3, &events, &out);
        QVERIFY(out.done); // buffered: no suspension
        QCOMPARE(out.result, QStringLiteral("ok"));
        QCOMPARE(events.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(events[i].granted(), std::chrono::milliseconds(i + 3));
        QCOMPARE(stream.size(), 0);
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaEventStream(0));
    }

    void eventStreamWaitsAndCancels()
    {
        QSimbaEventStream stream;
        const auto session = QSimbaSessionId::generate();
        Outcome waiting;
        nextInto(&stream, {}, &waiting);
        QVERIFY(!waiting.done);
        // A second next() while one waits is misuse.
        Outcome second;
        nextInto(&stream, {}, &second);
        QVERIFY(second.done);
        QCOMPARE(second.result, QStringLiteral("illegal-state"));
        // A push from another thread resumes the waiter on this one.
        auto pushed = pushFromThread(&stream, session);
        QTRY_VERIFY(waiting.done);
        QCOMPARE(waiting.result, QStringLiteral("ok"));
        QCOMPARE(waiting.event.type(), QSimbaEvent::Type::SessionClosed);
        pushed->wait();

        std::stop_source stop;
        Outcome cancelled;
        nextInto(&stream, stop.get_token(), &cancelled);
        QVERIFY(!cancelled.done);
        stop.request_stop();
        QTRY_VERIFY(cancelled.done);
        QCOMPARE(cancelled.result, QStringLiteral("interrupted"));

        Outcome orphan;
        {
            QSimbaEventStream shortLived;
            nextInto(&shortLived, {}, &orphan);
            QVERIFY(!orphan.done);
        }
        QVERIFY(orphan.done);
        QCOMPARE(orphan.result, QStringLiteral("illegal-state"));
    }

private:
    static std::unique_ptr<QThread> pushFromThread(QSimbaEventStream *stream, const QSimbaSessionId &session)
    {
        std::unique_ptr<QThread> thread(QThread::create([stream, session] {
            stream->push(QSimbaEvent::sessionClosed(session));
        }));
        thread->start();
        return thread;
    }
};

QSIMBA_TEST_MAIN(tst_Coro)
#include "tst_coro.moc"
