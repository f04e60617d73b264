// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaenginecall_p.h"
#include "qsimbaengineeffect_p.h"
#include "qsimbaengineinput_p.h"

#include "qsimbaconfig.h"

#include <QtCore/QHash>
#include <QtCore/QString>

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
 *   qsimbaenginesession.cpp     the session: open, renew, the local deadline, loss
 *   qsimbaenginecandidates.cpp  contending: when each name is tried, batched acquires, hints
 *   qsimbaengineslot.cpp        one name's term: win, loss, the handover, what comes after
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
    QSimbaSnapshot snapshot(Nanos now) const;
    bool isClosed() const { return m_closed; }
    bool isClosing() const { return m_closing; }
    bool isStarted(const QSimbaLeaseName &name) const;
    QSimbaSessionId sessionId() const { return m_session.id; }
    bool hasCallInFlight() const { return m_inflight.has_value(); }

private:
    enum class After { Candidate, Cooldown, Idle };
    struct Waiter
    {
        quint64 id = 0;
        Nanos deadline{0};
        Nanos timeout{0};
        bool tryOnce = false;
        bool granted = false;   // a term was handed to it; delivery pending
        bool cancelled = false;
        bool attempted = false; // an attempt for it was answered: its timeout may end it
    };
    /*
     * What differs between an election, a lock and a partition, stated here once: the
     * engine asks its slot's policy, never the kind (which only labels events and
     * snapshots). A start's policy applies at once when the slot is idle, after the
     * handover otherwise (Slot::restart).
     */
    struct Policy
    {
        Kind kind = Kind::Election; // labels events and snapshots
        bool oneTerm = false;       // one term per start, then idle
        bool withWork = false;      // every term runs leader work; its handover waits for it

        //! One term per acquire, handed to the acquire that waits longest.
        static Policy lock() { return {Kind::Lock, true, false}; }
        //! A partition of a group: every term runs the group's work.
        static Policy partition() { return {Kind::Group, false, true}; }

        //! A lock's terms go to its waiters (acquires), one at a time, in order
        //! (qsimbaenginelocks.cpp): a win is handed to the first waiter, an attempt answered
        //! HeldBy answers the tryAcquire ones, and with no waiter left the lock stops
        //! contending and its name is free again. The others' terms go to their elected.
        bool termsGoToWaiters() const { return kind == Kind::Lock; }
        //! How the term reaches the user: by an elected delivery (whose rejection steps the
        //! slot down), or by a lock result (qsimbaenginelocks.cpp, lockResultDelivered).
        bool deliveredByElected() const { return !termsGoToWaiters(); }
        //! A lock and an election (or partition) of one name exclude each other: a start of
        //! the one is refused (or answered Busy) while the other holds or wants the name.
        bool excludes(const Policy &other) const { return termsGoToWaiters() != other.termsGoToWaiters(); }
        //! What follows a term that ended asking for \a after: a one-term slot goes idle,
        //! except a lock that steps down for a cooldown (a rejected delivery).
        After afterTerm(After after) const
        {
            const bool lockCooldown = termsGoToWaiters() && after == After::Cooldown;
            return oneTerm && !lockCooldown ? After::Idle : after;
        }
        //! A lock contends on while an acquire is \a waiting (after a cooldown, if any),
        //! and has no cooldown to sit out when none waits.
        After whileWaiting(After after, bool waiting) const
        {
            if (!termsGoToWaiters())
                return after;
            if (waiting && after == After::Idle)
                return After::Candidate;
            if (!waiting && after == After::Cooldown)
                return After::Idle;
            return after;
        }
    };
    /*
     * Where a handover is (phase Handover). The order is fixed: (1) the term is revoked and
     * (2) the leader work may run until it exits or the term's deadline (AwaitingWork),
     * (3) revoked is queued and (4) the lease is released (Releasing); then `after`.
     */
    enum class Handover { None, AwaitingWork, Releasing };
    //! One lease name of this client: an election, a lock or a partition (its policy).
    struct Slot
    {
        QSimbaLeaseName name;
        Policy policy;
        Status phase = Status::Idle;
        Nanos nextTry{0};
        Nanos cooldownUntil{0};
        Nanos backoff{0};
        bool acquiring = false;        // in an acquire call now
        bool retryAfterReply = false;  // a Released hint came while its acquire was in flight
        qint64 lastToken = 0;          // the highest token this client was granted
        TermPtr term;                  // Leader or Handover
        QSimbaSessionId termSession;   // the session that won the term
        bool workRunning = false;      // the term's leader work has not exited yet
        Handover handover = Handover::None;
        Reason handoverReason = Reason::Stopped;
        Nanos handoverDeadline{0};
        After after = After::Candidate; // what follows the handover
        Nanos afterCooldown{0};
        std::optional<Policy> restart; // started again while stopping, as this asks
        std::vector<quint64> promises; // stop/stepDown/release futures waiting for the handover
        std::deque<Waiter> waiters;    // Lock: acquires waiting for a term
        quint64 grantedTo = 0;         // Lock: the direct waiter the current term went to
        QString group;                 // Group: the group this partition belongs to
        int partition = -1;
    };
    struct Group
    {
        QString name;
        int partitions = 0;
        bool stopping = false;
        QSimbaSessionId joined;        // the session that joined
        QSimbaSessionId joinSent;      // a session a join was sent for (maybe applied): leave it
        Nanos nextLeave{0};
        bool leaveRetry = false;       // a leave failed: retried at nextLeave
        Nanos nextJoin{0};
        Nanos nextRefresh{0};
        Nanos backoff{0};
        bool refreshNow = false;
        QList<QSimbaSessionId> members;
        QSet<int> owned;
        std::vector<quint64> promises;
    };
    struct Session
    {
        SessionStatus status = SessionStatus::Opening;
        QSimbaSessionId id;
        std::shared_ptr<std::atomic<qint64>> deadline; // shared with the terms of this session
        Nanos nextOpen{0};
        Nanos nextRenew{0};
        Nanos backoff{0};
        Nanos notLiveSince{0};
        Nanos openedAt{0};
        Nanos reopenBackoff{0}; // grows while sessions are lost right after opening
        bool suspendedPublished = false;
    };
    struct Inflight
    {
        quint64 id;
        Call call;
        Nanos sent;
    };
    struct PendingRelease
    {
        QSimbaSessionId session;
        QSimbaLeaseName name;
        qint64 token;
        Nanos notBefore{0}; // a failed release is retried after a backoff
    };
    struct Stream
    {
        std::deque<Task> queue;
        bool running = false;
        Task current;
    };

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
    void beginHandover(Nanos now, Slot &e, Reason reason, After after, Nanos cooldown = Nanos(0));
    void continueHandover(Nanos now, Slot &e);
    void onReleased(Nanos now, const Inflight &call, const Reply &reply);
    bool sendRelease(Nanos now);
    void finishHandover(Nanos now, Slot &e);
    void afterTerm(Nanos now, Slot &e, After fallback, Nanos cooldown);
    void enterAfter(Nanos now, Slot &e, After after, Nanos cooldown);

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
