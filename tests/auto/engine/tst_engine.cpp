// SPDX-License-Identifier: Apache-2.0
// The engine core under a fake clock: timing (DESIGN.md §2), the election contract, every
// revoke reason, candidates, callbacks, close.
#include "enginedriver.h"

#include "qsimbapartitionassignment.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using namespace QSimbaEngine;
using Type = Task::Type;

class tst_Engine : public QObject
{
    Q_OBJECT

    std::shared_ptr<QSimbaManualTicker> ticker;
    QString store;
    QSimbaConfig config = QSimbaConfig::builder().leaseDuration(3s).build(); // renew 1s, jitter 500ms
    const QSimbaLeaseName a = QSimbaLeaseName::of(QStringLiteral("a"));

    std::unique_ptr<EngineDriver> client(quint64 seed = 1)
    {
        auto d = std::make_unique<EngineDriver>(ticker, store, config, seed);
        d->core.start(d->now());
        d->settle();
        return d;
    }
    static std::unique_ptr<EngineDriver> elect(std::unique_ptr<EngineDriver> d, const QSimbaLeaseName &name)
    {
        d->core.startElection(d->now(), name, Kind::Election);
        d->settle();
        return d;
    }

private Q_SLOTS:
    void init()
    {
        ticker = std::make_shared<QSimbaManualTicker>();
        store = QSimbaSessionId::generate().toString();
    }

    void opensSessionThenElects()
    {
        auto c = elect(client(), a);
        QCOMPARE(c->calls, (QStringList{QStringLiteral("openSession"), QStringLiteral("acquire(1 names)")}));
        QCOMPARE(c->eventTypes(), (QList<QSimbaEvent::Type>{QSimbaEvent::Type::SessionOpened, QSimbaEvent::Type::Elected}));
        const auto elected = c->of(Type::Elected);
        QCOMPARE(elected.size(), 1);
        QVERIFY(elected[0].token > 0);
        QVERIFY(c->terms[0].isValid());
        QCOMPARE(c->core.snapshot(c->now()).elections[0].status, Status::Leader);
        // Status callbacks come before elected on the election's stream.
        QCOMPARE(c->of(Type::Status).last().status, Status::Leader);
    }

    void localDeadlineIsSendTimePlusRemainingWithDriftAndMargin()
    {
        auto c = elect(client(), a);
        // Sent at t0 and answered at once: remaining 3s × 0.99 − 50ms = 2.92s.
        QCOMPARE(c->terms[0].remaining(), std::chrono::nanoseconds(2920ms));
        c->advance(2919ms); // renewals keep it valid
        QVERIFY(c->terms[0].isValid());
    }

    void deadlineCountsFromTheSendNotTheAnswer()
    {
        auto c = client();
        c->advance(1s - 1ns); // the first renewal is due at t0 + 1s
        c->hold = true;
        c->advance(1ns); // keepAlive sent at t0 + 1s, unanswered for 400ms
        QCOMPARE(c->held.size(), 1);
        const Nanos sentAt = c->callTimes.last();
        c->ticker->advance(400ms);
        c->hold = false;
        auto [id, call] = c->held.takeFirst();
        c->core.backendReplied(c->now(), id, execute(c->backend, call));
        c->settle();
        QCOMPARE(c->core.snapshot(c->now()).session.validFor, sentAt + 2920ms - c->now());
    }

    void renewsEveryRenewInterval()
    {
        auto c = elect(client(), a);
        const int before = c->calls.count(QStringLiteral("keepAlive"));
        c->advance(10s);
        QCOMPARE(c->calls.count(QStringLiteral("keepAlive")) - before, 10);
        QVERIFY(c->terms[0].isValid());
        QCOMPARE(c->of(Type::Elected).size(), 1);
        QVERIFY(c->eventTypes().contains(QSimbaEvent::Type::SessionRenewed));
    }

    void failedRenewalsBackOffThenDeadlinePasses()
    {
        auto c = elect(client(), a);
        c->backend.failNext(1000);
        const int first = c->calls.size();
        c->advance(1s);                 // renewal due: fails
        c->advance(2s);                 // retries with backoff until the deadline
        QList<Nanos> gaps;
        for (int i = first + 1; i < c->callTimes.size() && c->calls[i] == QLatin1String("keepAlive"); ++i)
            gaps.append(c->callTimes[i] - c->callTimes[i - 1]);
        QVERIFY(gaps.size() >= 3);
        QCOMPARE(gaps[0], Nanos(100ms));  // minBackoff
        QCOMPARE(gaps[1], Nanos(200ms));  // doubling
        QCOMPARE(gaps[2], Nanos(400ms));
        for (const auto g : gaps)
            QVERIFY(g <= Nanos(1s)); // capped at renewInterval
        const auto events = c->eventTypes();
        QCOMPARE(events.count(QSimbaEvent::Type::SessionSuspended), 1);
        // The term ended at its deadline, with DEADLINE_PASSED, though no answer came.
        QVERIFY(!c->terms[0].isValid());
        const auto revoked = c->of(Type::Revoked);
        QCOMPARE(revoked.size(), 1);
        QCOMPARE(revoked[0].reason, Reason::DeadlinePassed);
        QCOMPARE(c->terms[0].revoked().result(), Reason::DeadlinePassed);
        QVERIFY(events.contains(QSimbaEvent::Type::SessionExpired));
        // The backend comes back: a new session, a new term with a higher token.
        const auto firstSession = c->core.snapshot(c->now()).session.id;
        c->backend.failNext(0);
        c->advance(2s);
        const auto elected = c->of(Type::Elected);
        QCOMPARE(elected.size(), 2);
        QVERIFY(elected[1].token > elected[0].token);
        QVERIFY(c->core.snapshot(c->now()).session.id != firstSession);
    }

    void hungBackendCannotDelayTheDeadline()
    {
        auto c = elect(client(), a);
        c->hold = true; // every call from now on hangs
        c->advance(2920ms - 1ns);
        QVERIFY(c->terms[0].isValid());
        QVERIFY(c->of(Type::Revoked).isEmpty());
        c->advance(1ns);
        QVERIFY(!c->terms[0].isValid());
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::DeadlinePassed);
    }

    void expiredAnswerRevokesWithSessionExpired()
    {
        auto c = elect(client(), a);
        c->backend.expireSession(c->core.sessionId());
        c->advance(1s);
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::SessionExpired);
        bool sawExpired = false;
        for (const auto &cb : c->of(Type::Event))
            if (cb.event.type() == QSimbaEvent::Type::SessionExpired) {
                QCOMPARE(cb.event.reason(), Reason::SessionExpired);
                sawExpired = true;
            }
        QVERIFY(sawExpired);
        // Re-elected at once on a new session.
        QCOMPARE(c->of(Type::Elected).size(), 2);
    }

    void candidateNoticesItsSessionExpiredWhileWaiting()
    {
        auto holder = elect(client(1), a);
        auto candidate = elect(client(2), a);
        QCOMPARE(candidate->of(Type::Elected).size(), 0);
        const auto first = candidate->core.sessionId();
        candidate->backend.expireSession(first);
        candidate->advance(2s); // its next acquire is refused: a new session opens
        QVERIFY(candidate->core.sessionId() != first);
        QVERIFY(!candidate->core.sessionId().isNull());
    }

    void missingOwnedLeaseRevokesWithTakenOver()
    {
        auto c = elect(client(), a);
        // Somebody frees the lease behind the session's back (as a takeover would).
        QSimbaMemoryLeaseBackend other(store, ticker);
        other.release(c->core.sessionId(), {{a, c->of(Type::Elected)[0].token}});
        c->advance(1s);
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::TakenOver);
        // The election contends again and wins a new term.
        QCOMPARE(c->of(Type::Elected).size(), 2);
        QVERIFY(c->of(Type::Elected)[1].token > c->of(Type::Elected)[0].token);
    }

    void stopHandsOverInOrder()
    {
        auto c = elect(client(), a);
        c->core.stopElection(c->now(), a, 7);
        c->settle();
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::Stopped);
        QCOMPARE(c->calls.last(), QStringLiteral("release(1 leases)"));
        QCOMPARE(c->completed, QList<quint64>{7});
        // The revoked callback ran before the stop future completed.
        int revokedAt = -1, statusIdleAt = -1;
        for (int i = 0; i < c->callbacks.size(); ++i) {
            if (c->callbacks[i].type == Type::Revoked)
                revokedAt = i;
            if (c->callbacks[i].type == Type::Status && c->callbacks[i].status == Status::Idle)
                statusIdleAt = i;
        }
        QVERIFY(revokedAt >= 0 && statusIdleAt > revokedAt);
        // Released: another client wins at once, with a higher token.
        auto other = elect(client(2), a);
        QCOMPARE(other->of(Type::Elected).size(), 1);
        QVERIFY(other->of(Type::Elected)[0].token > c->of(Type::Elected)[0].token);
        // No callback after the stop completed.
        const int count = c->callbacks.size();
        c->advance(10s);
        for (int i = count; i < c->callbacks.size(); ++i)
            QCOMPARE(c->callbacks[i].type, Type::Event);
    }

    void handoverWaitsForWorkUpToTheDeadline()
    {
        auto c = client();
        c->core.startElection(c->now(), a, Kind::Election, false, /*withWork=*/true);
        c->settle();
        const qint64 token = c->of(Type::Elected)[0].token;
        c->core.stopElection(c->now(), a, 1);
        c->settle();
        // (1) revoked at once; (3) revoked callback and (4) release wait for the work.
        QVERIFY(!c->terms[0].isValid());
        QVERIFY(c->terms[0].revoked().isFinished());
        QCOMPARE(c->of(Type::Revoked).size(), 0);
        c->advance(500ms);
        QCOMPARE(c->of(Type::Revoked).size(), 0);
        c->core.workExited(c->now(), a, token);
        c->settle();
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        QCOMPARE(c->completed, QList<quint64>{1});
        // Work that never exits delays the handover only until the term's deadline.
        c->core.startElection(c->now(), a, Kind::Election, false, true);
        c->settle();
        const auto term = c->terms.last();
        const Nanos deadline = c->now() + term.remaining();
        c->core.stopElection(c->now(), a, 2);
        c->advance(deadline - c->now() - 1ns);
        QCOMPARE(c->of(Type::Revoked).size(), 1);
        c->advance(1ns);
        QCOMPARE(c->of(Type::Revoked).size(), 2);
        QCOMPARE(c->completed, (QList<quint64>{1, 2}));
    }

    void stepDownCoolsDown()
    {
        auto c = elect(client(), a);
        c->core.stepDown(c->now(), a, 10s, 3);
        c->settle();
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::SteppedDown);
        QCOMPARE(c->completed, QList<quint64>{3});
        QCOMPARE(c->core.snapshot(c->now()).elections[0].status, Status::Cooldown);
        c->advance(10s - 1ns);
        QCOMPARE(c->of(Type::Elected).size(), 1);
        c->advance(1ns);
        QCOMPARE(c->of(Type::Elected).size(), 2);
    }

    void candidatesPollWithJitter()
    {
        auto holder = elect(client(1), a);
        auto candidate = elect(client(2), a);
        EngineDriver::advance({holder.get(), candidate.get()}, 20s);
        QList<Nanos> tries;
        for (int i = 0; i < candidate->calls.size(); ++i)
            if (candidate->calls[i].startsWith(QLatin1String("acquire")))
                tries.append(candidate->callTimes[i]);
        QVERIFY(tries.size() >= 10);
        for (int i = 1; i < tries.size(); ++i) {
            const Nanos gap = tries[i] - tries[i - 1];
            QVERIFY2(gap >= Nanos(1s) && gap < Nanos(1500ms), qPrintable(QString::number(gap.count())));
        }
        QCOMPARE(candidate->of(Type::Elected).size(), 0);
    }

    void candidateTakesOverWhenTheHoldersLeaseEnds()
    {
        auto holder = elect(client(1), a);
        auto candidate = elect(client(2), a);
        // The holder renews at 1s; its lease then ends at 1s + 3s = 4s.
        EngineDriver::advance({holder.get(), candidate.get()}, 1500ms);
        // The holder crashes now: nobody drives it any more.
        const Nanos holderEnd = Nanos(1000s) + 1s + 3s;
        candidate->advance(holderEnd - candidate->now() + 100ms);
        QCOMPARE(candidate->of(Type::Elected).size(), 1);
        const Nanos takenAt = candidate->callTimes[candidate->calls.lastIndexOf(QStringLiteral("acquire(1 names)"))];
        QVERIFY2(takenAt >= holderEnd && takenAt <= holderEnd + 6ms,
                 qPrintable(QStringLiteral("took over %1 ns after the lease ended").arg((takenAt - holderEnd).count())));
    }

    void releasedHintTriesAtOnce()
    {
        auto holder = elect(client(1), a);
        auto candidate = elect(client(2), a);
        holder->core.stopElection(holder->now(), a, 1);
        holder->settle();
        QCOMPARE(candidate->of(Type::Elected).size(), 0);
        candidate->core.hint(candidate->now(), {QSimbaLeaseBackend::Hint::Kind::Released, a.toString()});
        candidate->settle();
        QCOMPARE(candidate->of(Type::Elected).size(), 1);
    }

    void acquiresAreBatched()
    {
        // Elections started before the session opens all try in the first round.
        auto c = std::make_unique<EngineDriver>(ticker, store, config);
        for (int i = 0; i < 100; ++i)
            c->core.startElection(c->now(), QSimbaLeaseName::of(QStringLiteral("n%1").arg(i)), Kind::Election);
        c->core.start(c->now());
        c->settle();
        QCOMPARE(c->acquireSizes, (QList<int>{64, 36}));
        QCOMPARE(c->of(Type::Elected).size(), 100);
        const int before = c->calls.size();
        c->advance(1s);
        QCOMPARE(c->calls.mid(before), QStringList{QStringLiteral("keepAlive")}); // one renewal for all
    }

    void rejectedElectedStepsDownForOneLease()
    {
        auto c = client();
        c->reject = [](const Task &t) { return t.type == Type::Elected; };
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle();
        c->reject = nullptr;
        QCOMPARE(c->of(Type::Elected).size(), 0);
        QCOMPARE(c->of(Type::Revoked).size(), 0); // no revoked for a term never delivered
        QCOMPARE(c->core.snapshot(c->now()).elections[0].status, Status::Cooldown);
        QVERIFY(c->calls.last().startsWith(QLatin1String("release")));
        c->advance(3s);
        QCOMPARE(c->of(Type::Elected).size(), 1);
    }

    void closeStopsReleasesAndClosesTheSession()
    {
        auto c = elect(client(), a);
        c->core.close(c->now(), 10, 11);
        c->settle();
        QVERIFY(c->core.isClosed());
        QCOMPARE(c->of(Type::Revoked)[0].reason, Reason::Stopped);
        QCOMPARE(c->calls.mid(c->calls.size() - 2),
                 (QStringList{QStringLiteral("release(1 leases)"), QStringLiteral("closeSession")}));
        QCOMPARE(c->resolved, QList<quint64>{10});
        QCOMPARE(c->completed.last(), 11);
        QCOMPARE(c->eventTypes().last(), QSimbaEvent::Type::SessionClosed);
        QCOMPARE(c->core.snapshot(c->now()).session.status, SessionStatus::Closed);
        const int count = c->calls.size();
        c->advance(10s);
        QCOMPARE(c->calls.size(), count); // closed: nothing more
        QCOMPARE(c->core.nextWakeup(), Core::Never);
    }

    void snapshotReportsSessionAndElections()
    {
        auto c = elect(client(), a);
        c->advance(500ms);
        const auto snap = c->core.snapshot(c->now());
        QCOMPARE(snap.session.status, SessionStatus::Live);
        QVERIFY(snap.healthy);
        QCOMPARE(snap.session.validFor, Nanos(2420ms));
        QCOMPARE(snap.elections.size(), 1);
        QCOMPARE(snap.elections[0].token, c->terms[0].token());
        QCOMPARE(snap.elections[0].remaining, Nanos(2420ms));
        QCOMPARE(snap.leaseDuration, Nanos(3s));
        const auto json = snap.toJson();
        QCOMPARE(json[QStringLiteral("session")][QStringLiteral("status")].toString(), QStringLiteral("LIVE"));
        QCOMPARE(json[QStringLiteral("elections")][0][QStringLiteral("status")].toString(), QStringLiteral("LEADER"));
    }

    // --- Liveness and contract: each test names the behaviour that once failed ---------

    void lockResultDeclinedAfterALossStaysALock()
    {
        auto c = client();
        c->holdTasks = true; // the owner thread is busy: the lock result waits
        c->core.acquireLock(c->now(), a, 7, 30s, false);
        c->settle();
        c->backend.expireSession(c->core.sessionId());
        c->advance(1s); // the renewal finds the session expired: the term ends undelivered
        c->runHeldTasks(); // the result is declined: the term ended first
        c->advance(10ms);
        QCOMPARE(c->lockResults.size(), 2);
        QVERIFY(c->lockResults[1]);
        QVERIFY(c->lockResults[1]->isValid());
        const auto snap = c->core.snapshot(c->now());
        QCOMPARE(snap.elections.size(), 1);
        QCOMPARE(snap.elections[0].kind, Kind::Lock);
        // Released, it is free for another client.
        c->core.releaseLock(c->now(), a, c->lockResults[1]->token, 0);
        c->settle();
        QVERIFY(c->core.snapshot(c->now()).elections.isEmpty());
    }

    void interruptedBlockingAcquireReleasesItsTerm()
    {
        auto c = client();
        const quint64 waiter = DirectPromise | 1;
        c->core.acquireLock(c->now(), a, waiter, 30s, false);
        c->settle();
        QCOMPARE(c->resolved, QList<quint64>{waiter});
        QVERIFY(c->resolvedTerms[0]);
        // The caller was interrupted as the term reached it: nobody holds it.
        c->core.cancelLock(c->now(), a, waiter);
        c->settle();
        QVERIFY(c->calls.last().startsWith(QLatin1String("release")));
        QVERIFY(c->core.snapshot(c->now()).elections.isEmpty());
    }

    // A backend that queues waiters (Capabilities::waiterQueues) is told when a lock waiter
    // stops waiting without a term (a release of token 0, no lease), so that it hands no
    // lease to a session that no longer wants it. Without queues nothing is sent.
    void aLockWaiterThatTimesOutWithdrawsWhereTheBackendQueues()
    {
        for (const bool queues : {false, true}) {
            auto holder = client();
            holder->core.acquireLock(holder->now(), a, DirectPromise | 1, 1s, false);
            holder->settle();
            QVERIFY(holder->resolvedTerms.value(0));
            auto waiter = std::make_unique<EngineDriver>(ticker, store, config, 2, queues);
            waiter->core.start(waiter->now());
            waiter->settle();
            waiter->core.acquireLock(waiter->now(), a, DirectPromise | 2, 500ms, false);
            waiter->settle();
            QVERIFY(waiter->resolved.isEmpty()); // waiting
            EngineDriver::advance({holder.get(), waiter.get()}, 1s);
            QCOMPARE(waiter->resolved, QList<quint64>{DirectPromise | 2});
            QVERIFY(!waiter->resolvedTerms.value(0)); // timed out
            const bool withdrew = std::any_of(waiter->releases.cbegin(), waiter->releases.cend(),
                                              [&](const auto &leases) { return leases.value(a, -1) == 0; });
            QCOMPARE(withdrew, queues);
            // The lock's holder keeps its term; the waiter's session holds nothing.
            QVERIFY(holder->resolvedTerms.value(0)->isValid());
            init(); // a new store for the next round
        }
    }

    void shortenedLeaseRenewsBeforeTheLocalDeadline()
    {
        auto c = std::make_unique<EngineDriver>(ticker, store, config);
        c->backend.setMaxLease(750ms); // asks 3s, gets 750ms
        c->core.start(c->now());
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle();
        c->advance(20s);
        QVERIFY(!c->eventTypes().contains(QSimbaEvent::Type::SessionExpired));
        QCOMPARE(c->of(Type::Elected).size(), 1);
        QVERIFY(c->terms[0].isValid());
        QVERIFY(c->eventTypes().contains(QSimbaEvent::Type::SessionLeaseShortened));
    }

    void sessionsLostRightAfterOpeningReopenWithBackoff()
    {
        auto c = std::make_unique<EngineDriver>(ticker, store, config);
        c->backend.setMaxLease(40ms); // below the margin: every session is lost at once
        c->core.start(c->now());
        c->advance(3s);
        const int opens = int(c->calls.count(QStringLiteral("openSession")));
        QVERIFY2(opens >= 3 && opens <= 8, qPrintable(QString::number(opens))); // 0, .1, .3, .7, 1.5, 2.5
    }

    void leaseShortenedOnlyBeyondTheMargin()
    {
        auto c = std::make_unique<EngineDriver>(ticker, store, config);
        c->backend.setMaxLease(2990ms); // 10ms short: measurement noise
        c->core.start(c->now());
        c->advance(2s);
        QVERIFY(!c->eventTypes().contains(QSimbaEvent::Type::SessionLeaseShortened));
        c->backend.setMaxLease(2s);
        c->advance(1s);
        QVERIFY(c->eventTypes().contains(QSimbaEvent::Type::SessionLeaseShortened));
    }

    void handoverSkipsWorkWhoseElectedIsStillQueued()
    {
        auto c = client();
        c->holdTasks = true; // the owner thread is blocked (say, in close())
        c->core.startElection(c->now(), a, Kind::Election, false, /*withWork=*/true);
        c->settle();
        c->core.stopElection(c->now(), a, DirectPromise | 2);
        c->settle();
        // Released at once: no wait for work that has not started.
        QVERIFY(c->calls.last().startsWith(QLatin1String("release")));
        QVERIFY(c->resolved.contains(DirectPromise | 2));
        c->runHeldTasks();
        QCOMPARE(c->workStarted, QList<bool>{false}); // and it never starts, after the stop
    }

    void restartDuringHandoverTakesTheNewStartsWork()
    {
        auto c = elect(client(), a); // without work
        c->hold = true;
        c->core.stopElection(c->now(), a, 0);
        c->settle(); // the release is in flight
        QVERIFY(c->core.startElection(c->now(), a, Kind::Election, false, /*withWork=*/true));
        c->settle();
        c->answerHeld();
        QCOMPARE(c->of(Type::Elected).size(), 2);
        QCOMPARE(c->workStarted, QList<bool>{true});
    }

    void electionStartOnALockedNameIsRefusedAndAfterItsReleaseContends()
    {
        auto c = client();
        c->core.acquireLock(c->now(), a, 5, 30s, false);
        c->settle();
        QCOMPARE(c->lockResults.size(), 1);
        QVERIFY(!c->core.startElection(c->now(), a, Kind::Election));
        // Started while the lock's release is in flight: it contends as an election after.
        c->hold = true;
        c->core.releaseLock(c->now(), a, c->lockResults[0]->token, 0);
        c->settle();
        QVERIFY(c->core.startElection(c->now(), a, Kind::Election));
        c->answerHeld();
        c->advance(10ms);
        const auto snap = c->core.snapshot(c->now());
        QCOMPARE(snap.elections.size(), 1);
        QCOMPARE(snap.elections[0].kind, Kind::Election);
        QCOMPARE(snap.elections[0].status, Status::Leader);
    }

    void acquiresStayBatchedAfterTheFirstRound()
    {
        auto holder = client(1);
        auto candidate = client(2);
        QList<QSimbaLeaseName> names;
        for (int i = 0; i < 1000; ++i)
            names.append(QSimbaLeaseName::of(QStringLiteral("n%1").arg(i)));
        for (const auto &n : names)
            holder->core.startElection(holder->now(), n, Kind::Election);
        holder->settle();
        for (const auto &n : names)
            candidate->core.startElection(candidate->now(), n, Kind::Election);
        candidate->settle();
        EngineDriver::advance({holder.get(), candidate.get()}, 5s);
        const int before = int(candidate->acquireSizes.size());
        EngineDriver::advance({holder.get(), candidate.get()}, 20s);
        const auto sizes = candidate->acquireSizes.mid(before);
        int total = 0;
        for (int n : sizes)
            total += n;
        // Every candidate polls once per 1–1.5s: ⌈1000/64⌉ = 16 calls a round, 20 rounds at most.
        QVERIFY2(sizes.size() <= 16 * 21, qPrintable(QString::number(sizes.size())));
        QVERIFY2(total / std::max<qsizetype>(1, sizes.size()) >= 50, qPrintable(QString::number(total)));
    }

    void answerAfterTheDeadlineDoesNotReviveTerms()
    {
        auto c = elect(client(), a);
        const Nanos deadline = c->now() + c->terms[0].remaining();
        c->advance(1s - 1ns);
        c->hold = true;
        c->advance(1ns); // the renewal is sent and hangs
        c->ticker->set(deadline + 1ms); // past the deadline; the engine has not ticked yet
        QVERIFY(!c->terms[0].isValid());
        c->answerHeld(); // the backend still had the session: it answers live
        QVERIFY(!c->terms[0].isValid());
        QCOMPARE(c->terms[0].revoked().result(), Reason::DeadlinePassed);
        QVERIFY(c->eventTypes().contains(QSimbaEvent::Type::SessionExpired));
    }

    void tryAcquireBehindAWaiterAnswersNullOnGrant()
    {
        auto c = client();
        c->hold = true;
        c->core.acquireLock(c->now(), a, DirectPromise | 1, 10s, false);
        c->settle(); // its acquire is in flight
        c->core.acquireLock(c->now(), a, DirectPromise | 2, 3s, /*tryOnce=*/true);
        c->settle();
        c->answerHeld();
        QCOMPARE(c->resolved, (QList<quint64>{DirectPromise | 1, DirectPromise | 2}));
        QVERIFY(c->resolvedTerms[0]);
        QVERIFY(!c->resolvedTerms[1]); // this client holds it now: null at once
    }

    void rejectedLockResultKeepsTheOneLeaseCooldown()
    {
        auto c = client();
        int rejections = 0;
        c->reject = [&](const Task &t) { return t.lockResult && rejections++ == 0; };
        c->core.acquireLock(c->now(), a, 5, 30s, false);
        c->settle();
        QCOMPARE(c->core.snapshot(c->now()).elections[0].status, Status::Cooldown);
        c->advance(3s - 1ns);
        QCOMPARE(c->lockResults.size(), 0);
        c->advance(1ns);
        QCOMPARE(c->lockResults.size(), 1);
        QVERIFY(c->lockResults[0]);
    }

    void rejectedLockResultAfterALossContendsAgain()
    {
        auto c = client();
        c->holdTasks = true;
        c->core.acquireLock(c->now(), a, 5, 30s, false);
        c->settle();
        c->backend.expireSession(c->core.sessionId());
        c->advance(1s); // the term ends before its result was delivered
        int rejections = 0;
        c->reject = [&](const Task &t) { return t.lockResult && rejections++ == 0; };
        c->runHeldTasks();
        c->advance(3s); // one lease of cooldown, then a new term for the waiter
        QCOMPARE(c->lockResults.size(), 1);
        QVERIFY(c->lockResults[0] && c->lockResults[0]->isValid());
    }

    void releasedHintDuringAcquireRetriesAtOnce()
    {
        auto holder = elect(client(1), a);
        auto candidate = client(2);
        candidate->hold = true;
        candidate->core.startElection(candidate->now(), a, Kind::Election);
        candidate->settle();
        auto [id, call] = candidate->held.takeFirst();
        const Reply stale = execute(candidate->backend, call); // HeldBy, on its way back...
        holder->core.stopElection(holder->now(), a, 0);
        holder->settle(); // ...while the holder releases
        candidate->hold = false;
        candidate->core.hint(candidate->now(), {QSimbaLeaseBackend::Hint::Kind::Released, a.toString()});
        candidate->core.backendReplied(candidate->now(), id, stale);
        candidate->settle();
        QCOMPARE(candidate->of(Type::Elected).size(), 1); // tried again at once, not a poll later
    }

    void groupStoppedWhileItsJoinIsInFlightLeaves()
    {
        auto c = client();
        c->hold = true;
        c->core.startGroup(c->now(), QStringLiteral("g"), 4);
        c->settle(); // join in flight
        c->core.stopGroup(c->now(), QStringLiteral("g"), DirectPromise | 9);
        c->settle();
        c->answerHeld();
        QVERIFY(c->calls.contains(QStringLiteral("leave(g)")));
        QVERIFY(c->backend.members(QStringLiteral("g")).isEmpty());
        QVERIFY(c->resolved.contains(DirectPromise | 9));
    }

    void failedLeaveIsRetried()
    {
        auto c = client();
        c->core.startGroup(c->now(), QStringLiteral("g"), 4);
        c->advance(100ms);
        QCOMPARE(c->backend.members(QStringLiteral("g")).size(), 1);
        c->hold = true;
        c->core.stopGroup(c->now(), QStringLiteral("g"), DirectPromise | 9);
        for (const auto &t : std::as_const(c->terms))
            c->core.workExited(c->now(), t.name(), t.token()); // the partitions' work exits
        c->settle(); // their release is in flight
        for (int i = 0; i < 10 && c->calls.last() != QLatin1String("leave(g)") && !c->held.isEmpty(); ++i) {
            auto [id, call] = c->held.takeFirst();
            c->core.backendReplied(c->now(), id, execute(c->backend, call));
            c->settle(); // released: then the leave goes out
        }
        QCOMPARE(c->calls.last(), QStringLiteral("leave(g)"));
        c->backend.failNext(1);
        c->answerHeld(); // and fails
        c->advance(1s);
        QCOMPARE(c->calls.count(QStringLiteral("leave(g)")), 2);
        QVERIFY(c->backend.members(QStringLiteral("g")).isEmpty());
        QVERIFY(c->resolved.contains(DirectPromise | 9));
    }

    // The lease behind a valid term of this client, as the backend has it (holder, token).
    static bool backendHoldsTermOf(EngineDriver &c, const QSimbaLeaseName &name, qint64 token)
    {
        for (const auto &l : c.backend.inspect().leases)
            if (l.name == name)
                return l.holder == c.core.sessionId() && l.token == token;
        return false;
    }

    //! Advances \a d in steps of 5 ms, verifying after each that every valid term of \a c
    //! still has its lease on the backend.
    static bool advanceKeepingLeases(EngineDriver &c, Nanos d)
    {
        for (Nanos done{0}; done < d; done += 5ms) {
            c.advance(5ms);
            for (const auto &t : std::as_const(c.terms))
                if (t.isValid() && !backendHoldsTermOf(c, t.name(), t.token())) {
                    qWarning("term %lld of %s is valid, its lease is not held by its session", t.token(), qPrintable(t.name().toString()));
                    return false;
                }
        }
        return true;
    }

    //! Answers the oldest held backend call as the backend does, or as \a failed.
    static void answerOne(EngineDriver &c, bool failed = false)
    {
        auto [id, call] = c.held.takeFirst();
        const Reply reply = failed ? Reply{Reply::Error::Failed, QStringLiteral("injected"), {}} : execute(c.backend, call);
        c.core.backendReplied(c.now(), id, reply);
        c.settle();
    }

    void grantWhileItsReleaseIsPendingIsNoTerm()
    {
        // A grant nobody wants any more is released; that release fails and waits for its
        // retry. A new start gets the same lease (same token) back from the backend: a term
        // on it would lose its lease to the retried release. It must be released first and
        // won anew, with a new token.
        auto c = client();
        c->hold = true;
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle(); // acquire(a) held
        c->core.stopElection(c->now(), a, 0);
        c->settle();
        answerOne(*c); // granted, but a no longer runs: release(a) held
        QVERIFY(c->calls.last().startsWith(QStringLiteral("release")));
        answerOne(*c, /*failed=*/true); // the release fails: retried after a backoff
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle();
        answerOne(*c); // the same lease again, while its release waits for the retry
        c->answerHeld();
        QVERIFY(advanceKeepingLeases(*c, 3s)); // the retried release, acquires, renewals
        QVERIFY(!c->terms.isEmpty());
        QVERIFY(c->terms.last().isValid());
    }

    void orphanAcquireOfANameWonSinceKeepsItsLease()
    {
        // An acquire whose answer was lost leaves a lease the session owns without a term;
        // the next renewal lists it and the engine acquires it again (an orphan) to learn
        // its token and release it. Acquires carry at most MaxBatch names, candidates first:
        // if the name is started and won in a full batch before the orphan's turn, the
        // orphan's acquire answers with the lease of the new term — which must stay held.
        const auto names = [](int from, int count) {
            QList<QSimbaLeaseName> list;
            for (int i = from; i < from + count; ++i)
                list << QSimbaLeaseName::of(QStringLiteral("n%1").arg(i));
            return list;
        };
        auto c = client();
        c->hold = true;
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle();
        auto [id, call] = c->held.takeFirst();
        (void)execute(c->backend, call); // granted on the backend...
        c->core.stopElection(c->now(), a, 0);
        c->core.backendReplied(c->now(), id, Reply{Reply::Error::Failed, QStringLiteral("answer lost"), {}});
        c->settle(); // ...the client never learned it, and stopped the name
        c->hold = false;
        c->advance(900ms);
        c->hold = true;
        c->advance(200ms); // the renewal, held
        QCOMPARE(c->held.size(), 1);
        for (const auto &n : names(0, Backend::MaxBatch))
            c->core.startElection(c->now(), n, Kind::Election); // due now, a full batch
        c->settle();
        answerOne(*c); // the renewal lists a as owned: an orphan, behind the full batch
        QCOMPARE(c->acquireSizes.last(), Backend::MaxBatch);
        c->core.startElection(c->now(), a, Kind::Election);
        for (const auto &n : names(Backend::MaxBatch, Backend::MaxBatch - 1))
            c->core.startElection(c->now(), n, Kind::Election); // a in the next full batch
        c->settle();
        answerOne(*c); // the first batch wins; the next one, with a, goes out
        answerOne(*c); // a is won: its term's lease is the orphan's
        c->answerHeld();
        QVERIFY(std::any_of(c->terms.cbegin(), c->terms.cend(), [&](const QSimbaTerm &t) { return t.name() == a; }));
        QVERIFY(advanceKeepingLeases(*c, 1s));
    }

    void leaveRetryWaitingForPartitionsIsNoWakeUp()
    {
        // A group stopped again after a failed leave: its leave retry waits for the
        // partitions' handovers (their work still runs). Until they end, the retry's time is
        // no wake-up: one in the past would be due again after every tick (a spin).
        const QString g = QStringLiteral("g");
        auto c = client();
        c->core.startGroup(c->now(), g, 4);
        c->advance(100ms);
        c->hold = true;
        c->core.stopGroup(c->now(), g, 0);
        for (const auto &t : std::as_const(c->terms))
            c->core.workExited(c->now(), t.name(), t.token());
        c->settle();
        for (int i = 0; i < 10 && !c->held.isEmpty() && c->calls.last() != QLatin1String("leave(g)"); ++i)
            answerOne(*c);
        QCOMPARE(c->calls.last(), QStringLiteral("leave(g)"));
        answerOne(*c, /*failed=*/true); // retried after a backoff
        c->hold = false;
        const qsizetype before = c->terms.size();
        c->core.startGroup(c->now(), g, 4);
        c->advance(100ms);
        QVERIFY(c->terms.size() > before); // partitions again, their work running
        c->core.stopGroup(c->now(), g, 0);
        c->settle();
        for (int i = 0; i < 200; ++i) { // 2 s: past the leave's retry, before the terms' end
            c->ticker->set(c->now() + 10ms);
            c->core.tick(c->now());
            c->settle();
            QVERIFY2(c->core.nextWakeup() > c->now(), qPrintable(QStringLiteral("a wake-up due at once after a tick, %1 ms in").arg(10 * (i + 1))));
        }
    }

    void aLocksPhasesAreNoCallbacks()
    {
        // Only an election's status() follows its phase: a lock's is in snapshots only.
        auto c = client();
        c->core.acquireLock(c->now(), a, DirectPromise | 1, 10s, false);
        c->settle();
        QCOMPARE(c->resolved, QList<quint64>{DirectPromise | 1});
        c->core.releaseLock(c->now(), a, c->resolvedTerms[0]->token, DirectPromise | 2);
        c->settle();
        QVERIFY(c->resolved.contains(DirectPromise | 2));
        QVERIFY(c->of(Type::Status).isEmpty());
        c->core.startElection(c->now(), QSimbaLeaseName::of(QStringLiteral("e")), Kind::Election);
        c->settle();
        QCOMPARE(c->of(Type::Status).last().status, Status::Leader);
    }

    void aLocksTermsAreNoElectedOrRevokedCallbacks()
    {
        // A lock's term reaches the acquire as its result; nothing runs on a lock's elected
        // or revoked, so neither is a task. An election's term still is.
        auto c = client();
        c->eventsWanted->store(false);
        for (quint64 i = 1; i <= 3; ++i) {
            c->core.acquireLock(c->now(), a, DirectPromise | (2 * i), 10s, false);
            c->settle();
            QVERIFY(c->resolvedTerms.last());
            c->core.releaseLock(c->now(), a, c->resolvedTerms.last()->token, DirectPromise | (2 * i + 1));
            c->settle();
            QVERIFY(c->resolved.contains(DirectPromise | (2 * i + 1)));
        }
        QVERIFY(c->of(Type::Elected).isEmpty());
        QVERIFY(c->of(Type::Revoked).isEmpty());
        c->core.startElection(c->now(), QSimbaLeaseName::of(QStringLiteral("e")), Kind::Election);
        c->settle();
        QCOMPARE(c->of(Type::Elected).size(), 1);
        c->core.stopElection(c->now(), QSimbaLeaseName::of(QStringLiteral("e")), 0);
        c->settle();
        QCOMPARE(c->of(Type::Revoked).size(), 1);
    }

    void eventsAreNotPublishedWhileNobodyWantsThem()
    {
        auto c = client(); // SessionOpened, delivered
        QVERIFY(!c->eventTypes().isEmpty());
        const auto before = c->eventTypes().size();
        c->eventsWanted->store(false);
        c->core.startElection(c->now(), a, Kind::Election);
        c->settle();
        QCOMPARE(c->terms.size(), 1); // elected, without its event
        QCOMPARE(c->eventTypes().size(), before);
        c->eventsWanted->store(true);
        c->core.stopElection(c->now(), a, 0);
        c->settle();
        QCOMPARE(c->eventTypes().last(), QSimbaEvent::Type::Revoked);
    }

    void zeroTimeoutAcquireOfAFreeLockSucceeds()
    {
        auto c = client();
        c->core.acquireLock(c->now(), a, DirectPromise | 1, 0ns, false);
        c->settle();
        QCOMPARE(c->resolved, QList<quint64>{DirectPromise | 1});
        QVERIFY(c->resolvedTerms[0]);
    }

    void workCompletedCarriesTheTermsSession()
    {
        auto c = client();
        c->core.startElection(c->now(), a, Kind::Election, false, true);
        c->settle();
        const auto first = c->core.sessionId();
        const auto term = QSimbaTermPrivate::get(c->terms[0]);
        c->backend.expireSession(first);
        c->advance(1s); // lost; a new session opens
        QVERIFY(c->core.sessionId() != first);
        c->core.workFinished(c->now(), term, QSimbaEvent::WorkOutcome::Cancelled, QString());
        c->settle();
        QCOMPARE(c->callbacks.last().event.type(), QSimbaEvent::Type::WorkCompleted);
        QCOMPARE(c->callbacks.last().event.session(), first);
    }

    void closeBehindAHungCallCompletesAtTheDeadline()
    {
        auto c = elect(client(), a);
        const Nanos deadline = c->now() + c->terms[0].remaining();
        c->advance(1s - 1ns);
        c->hold = true;
        c->advance(1ns); // the renewal hangs
        c->core.close(c->now(), DirectPromise | 10, 11);
        c->advance(deadline - c->now() + 1ms);
        QVERIFY(c->resolved.contains(DirectPromise | 10));
        QVERIFY(c->core.isClosed());
    }

    void stoppedGroupLeavesAfterAPartitionMovedBackDuringItsHandover()
    {
        const QString g = QStringLiteral("g");
        auto x = client(1);
        x->core.startGroup(x->now(), g, 8);
        x->advance(100ms); // x alone: it leads all 8, their work running
        QCOMPARE(x->terms.size(), 8);
        // Each partition goes to x or y by a hash of the session ids: with one y in 256, x
        // would keep all 8 and nothing would move. Such a y (its session unused) is replaced.
        std::unique_ptr<EngineDriver> y;
        int moving = -1;
        for (quint64 seed = 2; moving < 0 && seed < 50; ++seed) {
            y = client(seed);
            QList<QSimbaSessionId> both{x->core.sessionId(), y->core.sessionId()};
            std::sort(both.begin(), both.end());
            const auto mine = QSimbaPartitionAssignment::partitionsOf(x->core.sessionId(), 8, both);
            for (int p = 0; p < 8 && moving < 0; ++p)
                if (!mine.contains(p))
                    moving = p;
        }
        QVERIFY(moving >= 0);
        y->core.startGroup(y->now(), g, 8);
        EngineDriver::advance({x.get(), y.get()}, 1100ms); // x's refresh: `moving` hands over to y
        const auto name = QSimbaLeaseName::of(QStringLiteral("g.%1").arg(moving));
        const auto status = [&](EngineDriver &d) {
            for (const auto &e : d.core.snapshot(d.now()).elections)
                if (e.name == name)
                    return e.status;
            return Status::Idle;
        };
        QCOMPARE(status(*x), Status::Handover); // its work has not exited
        y->core.stopGroup(y->now(), g, 0);
        EngineDriver::advance({x.get(), y.get()}, 1s); // y left; x's refresh moves it back
        QCOMPARE(status(*x), Status::Handover);
        x->core.stopGroup(x->now(), g, DirectPromise | 5);
        for (const auto &t : std::as_const(x->terms))
            x->core.workExited(x->now(), t.name(), t.token());
        x->advance(2s);
        QCOMPARE(status(*x), Status::Idle); // stopped, not contending again
        QVERIFY(x->backend.members(g).isEmpty());
        QVERIFY(x->resolved.contains(DirectPromise | 5));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_Engine)
#include "tst_engine.moc"
