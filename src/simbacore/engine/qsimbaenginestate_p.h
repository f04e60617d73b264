// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaenginecall_p.h"
#include "qsimbaengineeffect_p.h"

#include <QtCore/QList>
#include <QtCore/QSet>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

/*
 * The engine core's state, as data: one Slot per lease name of the client (its phase,
 * term, handover step and Policy), lock Waiters, partition Groups, the Session, the call in
 * flight, pending releases and callback Streams. Core (qsimbaengine_p.h) owns one of each
 * and names them by these aliases; the functions that change them live in the file of
 * their concept (see qsimbaengine_p.h).
 */
namespace QSimbaEngine::State {

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

} // namespace QSimbaEngine::State
