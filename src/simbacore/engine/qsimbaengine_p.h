// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaenginecall_p.h"
#include "qsimbaengineeffect_p.h"
#include "qsimbaengineinput_p.h"
#include "qsimbaenginestate_p.h"

#include "qsimbaconfig.h"

#include <QtCore/QHash>
#include <QtCore/QString>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <variant>
#include <vector>

/*
 * The engine core: a deterministic state machine with no thread, clock, timer or I/O of its
 * own (DESIGN.md §1). Every input carries the time now; every output is an Effect the
 * caller carries out: call the backend, run a callback task, resolve a promise. The
 * QThread runtime and the simulation test drive this very class.
 *
 * One backend call is in flight at a time; the next one is chosen by priority when the
 * previous answered (session, releases, closing old sessions, groups, acquires).
 * Callback tasks run one at a time per stream (an election, or "" for events), in order;
 * the engine's progress never waits for them.
 *
 * The class is one, its definition is spread over files of one concept each:
 *   qsimbaengine.cpp            the router: inputs in, the pump, which call goes out next
 *   qsimbaengineinput.cpp       the inputs as text (describe)
 *   qsimbaenginestate_p.h       the state as data: Slot, Policy, Waiter, Group, Session, …
 *   qsimbaenginesession.cpp     the session: open, renew, the local deadline, loss
 *   qsimbaenginecandidates.cpp  contending: when each name is tried, batched acquires, hints
 *   qsimbaengineslot.cpp        one name's term: start, stop, step down, win, loss, what follows
 *   qsimbaenginehandover.cpp    the handover: revoke, wait for the work, revoked, release
 *   qsimbaenginelocks.cpp       lock waiters and how a term is handed to one
 *   qsimbaenginegroups.cpp      partition groups: join, members, assignment, leave
 *   qsimbaenginedeliveries.cpp  callback streams: deliveries, events, promises
 */
namespace QSimbaEngine {

struct Options
{
    QSimbaConfig config;
    //! Required: read by the terms for isValid(); the core itself reads no clock, only `now`.
    std::shared_ptr<QSimbaTicker> ticker;
    quint64 seed = 0;                     //!< for the jitter
    QMap<QString, QString> metadata;      //!< sent with openSession
    //! Observes every term the moment it is granted (the simulation checks them).
    std::function<void(const TermPtr &)> onTermGranted;
    //! The wall-clock time at one ticker time (taken where time enters the client): events
    //! are stamped wall + (now - ticks), for display. Not set: events have a null time.
    struct WallClock
    {
        Nanos ticks{0};
        QDateTime wall;
    } wallClock;
    //! Observes every input before it is handled: a trace of (now, input) pairs replays the
    //! run into a core built with the same options.
    std::function<void(Nanos, const Input &)> onInput;
    //! Whether anyone receives events: while it reads false, events are not delivered (each
    //! delivery is a task on the callback executor and an answer to the engine). Not set:
    //! every event is delivered.
    std::shared_ptr<const std::atomic<bool>> eventsWanted;
    //! The backend queues waiters (QSimbaLeaseBackend::Capabilities::waiterQueues): a
    //! candidate that stops contending without a term is released with token 0.
    bool withdrawals = false;
};

class Core
{
public:
    static constexpr Nanos Never = Nanos::max();

    explicit Core(Options options);
    ~Core();

    //! The one entry of every input (qsimbaengineinput_p.h), stamped \a now by the caller.
    //! It may add effects: call takeEffects() after. Returns false when the input was
    //! refused (a StartElection of a name a lock of this client holds or wants).
    bool handle(Nanos now, const Input &input);

    // The inputs as calls, for drivers and tests: each builds its Input for handle().
    void start(Nanos now) { handle(now, In::Start{}); }
    void tick(Nanos now) { handle(now, In::Tick{}); }
    bool startElection(Nanos now, const QSimbaLeaseName &name, Kind kind, bool oneTerm = false, bool withWork = false)
    {
        return handle(now, In::StartElection{name, kind, oneTerm, withWork});
    }
    void stopElection(Nanos now, const QSimbaLeaseName &name, quint64 promise)
    {
        handle(now, In::StopElection{name, Completion::of(promise)});
    }
    void stepDown(Nanos now, const QSimbaLeaseName &name, Nanos cooldown, quint64 promise)
    {
        handle(now, In::StepDown{name, cooldown, Completion::of(promise)});
    }
    //! \a closed resolves when the session is closed (the engine's part, for blocking
    //! waits); \a afterCallbacks completes on the events stream after the last callback.
    void close(Nanos now, quint64 closed, quint64 afterCallbacks) { handle(now, In::Close{{afterCallbacks, closed}}); }
    void backendReplied(Nanos now, quint64 callId, const Reply &reply) { handle(now, In::BackendReplied{callId, reply}); }
    void hint(Nanos now, const Backend::Hint &hint) { handle(now, In::Hint{hint}); }
    void taskFinished(Nanos now, const QString &stream, bool rejected, Taken taken = Taken::Yes)
    {
        handle(now, In::Delivered{stream, rejected, taken});
    }
    void workExited(Nanos now, const QSimbaLeaseName &name, qint64 token) { handle(now, In::WorkExited{name, token}); }
    void workFinished(Nanos now, const TermPtr &term, QSimbaEvent::WorkOutcome outcome, const QString &error,
                      bool exited = true)
    {
        handle(now, In::WorkFinished{term, outcome, error, exited});
    }
    void acquireLock(Nanos now, const QSimbaLeaseName &name, quint64 waiter, Nanos timeout, bool tryOnce)
    {
        handle(now, In::AcquireLock{name, waiter, timeout, tryOnce});
    }
    void cancelLock(Nanos now, const QSimbaLeaseName &name, quint64 waiter) { handle(now, In::CancelLock{name, waiter}); }
    void releaseLock(Nanos now, const QSimbaLeaseName &name, qint64 token, quint64 promise)
    {
        handle(now, In::ReleaseLock{name, token, Completion::of(promise)});
    }
    void startGroup(Nanos now, const QString &group, int partitions) { handle(now, In::StartGroup{group, partitions}); }
    void stopGroup(Nanos now, const QString &group, quint64 promise)
    {
        handle(now, In::StopGroup{group, Completion::of(promise)});
    }

    // Queries: they change nothing.
    QSet<int> groupPartitions(const QString &group) const;
    Nanos nextWakeup() const;
    std::vector<Effect> takeEffects();
    //! Whether an input left effects not taken yet.
    bool hasEffects() const { return !m_effects.empty(); }
    QSimbaSnapshot snapshot(Nanos now) const;
    bool isClosed() const { return m_closed; }
    bool isClosing() const { return m_closing; }
    bool isStarted(const QSimbaLeaseName &name) const;
    QSimbaSessionId sessionId() const { return m_session.id; }
    bool hasCallInFlight() const { return m_inflight.has_value(); }

private:
    // The state, as data (qsimbaenginestate_p.h).
    using After = State::After;
    using Waiter = State::Waiter;
    using Policy = State::Policy;
    using Handover = State::Handover;
    using Slot = State::Slot;
    using Group = State::Group;
    using Session = State::Session;
    using Inflight = State::Inflight;
    using PendingRelease = State::PendingRelease;
    using Stream = State::Stream;

    // The handlers of the inputs, each in the file of its concept (handle() routes).
    void on(Nanos now, const In::Start &in);        // qsimbaengine.cpp
    void on(Nanos now, const In::Tick &in);         // qsimbaengine.cpp
    void on(Nanos now, const In::Close &in);        // qsimbaengine.cpp
    void on(Nanos now, const In::BackendReplied &in); // qsimbaengine.cpp
    bool on(Nanos now, const In::StartElection &in); // qsimbaengineslot.cpp
    void on(Nanos now, const In::StopElection &in); // qsimbaengineslot.cpp
    void on(Nanos now, const In::StepDown &in);     // qsimbaengineslot.cpp
    void on(Nanos now, const In::WorkExited &in);   // qsimbaengineslot.cpp
    void on(Nanos now, const In::WorkFinished &in); // qsimbaengineslot.cpp
    void on(Nanos now, const In::Hint &in);         // qsimbaenginecandidates.cpp
    void on(Nanos now, const In::AcquireLock &in);  // qsimbaenginelocks.cpp
    void on(Nanos now, const In::CancelLock &in);   // qsimbaenginelocks.cpp
    void on(Nanos now, const In::ReleaseLock &in);  // qsimbaenginelocks.cpp
    void on(Nanos now, const In::StartGroup &in);   // qsimbaenginegroups.cpp
    void on(Nanos now, const In::StopGroup &in);    // qsimbaenginegroups.cpp
    void on(Nanos now, const In::Delivered &in);    // qsimbaenginedeliveries.cpp

    // qsimbaengine.cpp: the router
    void pump(Nanos now);
    bool sendNext(Nanos now);
    void send(Nanos now, Call call);
    void checkClosed(Nanos now);
    Nanos jitter(Nanos range);
    Nanos backoffStep(Nanos current) const;
    //! When a failed step is retried: \a backoff grows one step, from now.
    Nanos retryAt(Nanos now, Nanos &backoff) const;

    // qsimbaenginesession.cpp
    Millis leaseMillis() const;
    Nanos localDeadline(Nanos sent, Millis remaining) const;
    Nanos renewAfter(Nanos sent, Millis remaining) const;
    bool shortened(Millis remaining, Nanos rtt) const;
    //! The local deadline: every term of the session ends with it, whatever the backend does.
    void checkDeadline(Nanos now);
    void onOpened(Nanos now, const Inflight &call, const Reply &reply);
    void onKeepAlive(Nanos now, const Inflight &call, const Reply &reply);
    void onClosedSession(Nanos now, const Inflight &call, const Reply &reply);
    void setSessionStatus(Nanos now, SessionStatus status);
    void loseSession(Nanos now, Reason reason);
    bool sendSessionCall(Nanos now);
    bool sendStaleClose(Nanos now);
    bool sendSessionClose(Nanos now);

    // qsimbaenginecandidates.cpp
    //! Sets when a candidate tries next, and indexes it.
    void setNextTry(Slot &e, Nanos when);
    //! Indexes a time at which something of \a e may come due (cooldown, handover, waiter).
    void addTimer(const Slot &e, Nanos when);
    void dueTimers(Nanos now);
    //! Candidates due now, topped up with those due within the batch window.
    QSet<QSimbaLeaseName> dueCandidates(Nanos now);
    void onAcquired(Nanos now, const Inflight &call, const Reply &reply);
    bool sendAcquire(Nanos now);

    // qsimbaengineslot.cpp
    void startContending(Nanos now, Slot &e, const Policy &c);
    //! Stops contending: an active term hands over, then the election is idle.
    void stopContending(Nanos now, Slot &e);
    void setPhase(Slot &e, Status phase);
    void win(Nanos now, Slot &e, qint64 token);
    void loseTerm(Nanos now, Slot &e, Reason reason);
    void afterTerm(Nanos now, Slot &e, After fallback, Nanos cooldown);
    void enterAfter(Nanos now, Slot &e, After after, Nanos cooldown);

    // qsimbaenginehandover.cpp
    void beginHandover(Nanos now, Slot &e, Reason reason, After after, Nanos cooldown = Nanos(0));
    void continueHandover(Nanos now, Slot &e);
    void onReleased(Nanos now, const Inflight &call, const Reply &reply);
    bool sendRelease(Nanos now);
    void finishHandover(Nanos now, Slot &e);

    // qsimbaenginelocks.cpp
    bool lockWaiting(const Slot &e) const;
    void grantWaiter(Nanos now, Slot &e);
    void answerWaiter(Slot &e, const Waiter &w, const TermPtr &term, Failure failure);
    //! A lock waiter whose term ended undelivered waits on: contend again if nobody does.
    void resumeLock(Nanos now, Slot &e, std::deque<Waiter>::iterator w, Nanos cooldown = Nanos(0));
    //! Forgets the waiters of \a e; a lock with none left stops contending.
    void dropIdleLock(Slot &e);
    void expireWaiters(Nanos now, Slot &e);
    //! How the runner of a lock result took it (Delivered of a lock result).
    void lockResultDelivered(Nanos now, const Task &task, bool rejected, Taken taken);

    // qsimbaenginegroups.cpp
    QSimbaLeaseName partitionName(const Group &g, int p) const;
    void onJoined(Nanos now, const Inflight &call, const Reply &reply);
    void onLeft(Nanos now, const Inflight &call, const Reply &reply);
    void onMembers(Nanos now, const Inflight &call, const Reply &reply);
    void assign(Nanos now, Group &g);
    void checkGroupStopped(Nanos now, Group &g);
    bool sendGroupCall(Nanos now);
    //! Whether every partition slot of the stopping group \a name is idle: its leave may go.
    bool groupHandedOver(const QString &name) const;

    // qsimbaenginedeliveries.cpp
    void enqueue(const QString &stream, Task task);
    void dispatch(const QString &stream);
    void dispatchQueued(Stream &s, const QString &stream);
    void setStreamBusy(const QString &stream, bool before);
    void publish(const QSimbaEvent &event);
    void complete(const QString &stream, quint64 promise);
    void complete(const QString &stream, const Completion &done);
    //! Keeps \a done to complete when a handover or a stop is over.
    static void waitFor(std::vector<quint64> &promises, const Completion &done);

    Options m_options;
    std::mt19937_64 m_random;
    Session m_session;
    std::map<QSimbaLeaseName, Slot> m_slots;
    // Indexes, so that an input costs no full scan of the names (entries may be stale:
    // each is checked against the election's state when it comes due).
    using Due = std::pair<Nanos, QSimbaLeaseName>;
    std::priority_queue<Due, std::vector<Due>, std::greater<Due>> m_tries;  // candidates' nextTry
    std::priority_queue<Due, std::vector<Due>, std::greater<Due>> m_timers; // cooldowns, handovers, waiters
    int m_active = 0;      // elections not Idle
    int m_busyStreams = 0; // election streams running or queued
    std::map<QString, Group> m_groups;
    std::optional<Inflight> m_inflight;
    quint64 m_nextCallId = 1;
    std::deque<PendingRelease> m_releases;
    Nanos m_releaseBackoff{0};
    std::deque<QSimbaSessionId> m_staleSessions; // to close: lost locally, maybe alive remotely
    QSet<QSimbaLeaseName> m_orphans;             // owned without a term: acquire, then release
    QHash<QString, Stream> m_streams;
    std::vector<Effect> m_effects;
    Nanos m_now{0}; // the time of the input being handled
    bool m_started = false;
    bool m_closing = false;
    bool m_sessionClosing = false;
    bool m_closed = false;
    quint64 m_closedPromise = 0;
    quint64 m_afterCallbacksPromise = 0;
    std::vector<quint64> m_extraClosed, m_extraAfter; // later close() calls
};

} // namespace QSimbaEngine
