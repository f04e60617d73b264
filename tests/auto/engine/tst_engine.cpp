// SPDX-License-Identifier: Apache-2.0
// The engine core under a fake clock: timing (DESIGN.md §2), the election contract, every
// revoke reason, candidates, callbacks, close.
#include "enginedriver.h"

#include <QtTest/QTest>

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
};

QTEST_GUILESS_MAIN(tst_Engine)
#include "tst_engine.moc"
