// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaleasename.h"
#include "qsimbasessionid.h"

#include <QtCore/QHash>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QSet>
#include <QtCore/QString>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

/*
 * The backend SPI: where leases live. QSimba calls one backend from one thread (its
 * "simba-backend" thread), one call at a time; an implementation needs no locking of its
 * own unless it shares state between instances. Every call blocks until the backend
 * answered or failed. A backend that declares Capabilities::anyThread is still called one
 * call at a time, but a call may come from another thread (a caller waiting for it).
 *
 * Rules every implementation follows (checked by QSimbaConformanceTest):
 *  1. Every method makes a bounded number of backend calls, without waiting, scheduling,
 *     notifying or keeping local lease state: two instances on the same storage see the
 *     same sessions and leases.
 *  2. Every remaining duration is computed with the backend's clock and returned as a
 *     duration, never a timestamp.
 *  3. A token is > 0, strictly increases with every new term of its name and never resets
 *     (across release, session expiry and new backend instances on the same storage).
 *  4. A session expires once it was not kept alive for its lease, even if the transport
 *     keeps a connection alive.
 *  5. An expired (or closed) session is never revived: keepAlive answers Expired; acquire
 *     and join throw QSimbaSessionExpiredError.
 *  6. keepAlive reports every lease the session owns, whatever `held` says; an owned lease
 *     lasts at least as long as its session.
 *  7. Inputs are validated alike, with QSimbaInvalidArgumentError: leases of at least 1 ms,
 *     group names under the lease-name rules, at most MaxBatch names per acquire (use the
 *     protected validate*() helpers).
 *  8. release frees only leases the session still owns with exactly the given token, so a
 *     stale release is a no-op. acquire of a name the session already owns answers
 *     Granted with its current token (a retried acquire whose answer was lost is harmless).
 *  9. Hints only accelerate; losing one never affects correctness.
 * Failures of the backend itself (unreachable, authentication, protocol) throw
 * QSimbaBackendError with a message naming the server and the cause.
 */
class QSIMBACORE_EXPORT QSimbaLeaseBackend
{
public:
    static constexpr int MaxBatch = 64;
    using Millis = std::chrono::milliseconds;

    struct Capabilities
    {
        bool releaseHints = false;    //!< Released hints are published
        bool membershipHints = false; //!< MembersChanged hints are published
        bool inspection = false;      //!< inspect() is supported
        //! Calls may come from any thread, one at a time (each after the previous one
        //! returned, with what it did visible to the next): QSimba then lets a thread that
        //! is about to block for a call's answer run that call itself while the backend
        //! thread is idle (docs/engine.md, "Caller runs"). A backend whose client is bound
        //! to the thread that created it (QSqlDatabase) keeps one client per calling thread.
        bool anyThread = false;
        //! With anyThread: the longest one call can take, by the backend's own deadlines
        //! (Millis::max(): unbounded). A caller runs a call only when its own deadline
        //! leaves at least this long, so it returns by that deadline as it would have.
        Millis callBound = Millis::max();
        //! The backend queues the candidates it answered HeldBy, to hand a released lease to
        //! the first of them: QSimba then tells it when a candidate stops contending for a
        //! name without a term (a lock waiter that timed out or was interrupted, an election
        //! stopped) with release(session, {name: 0}) — a token of 0 names no lease, so
        //! releasing it is otherwise a no-op — so that no lease is handed to a session that
        //! no longer wants it.
        bool waiterQueues = false;
    };

    struct SessionGrant
    {
        QSimbaSessionId id;
        Millis remaining; //!< the lease granted, as the backend's clock measures it
    };

    struct KeepAliveResult
    {
        static KeepAliveResult live(Millis remaining, QSet<QSimbaLeaseName> owned)
        {
            return {true, remaining, std::move(owned)};
        }
        static KeepAliveResult expired() { return {false, Millis(0), {}}; }

        bool isLive = false;
        Millis remaining{0};          //!< when live: time left on the session
        QSet<QSimbaLeaseName> owned;  //!< when live: every lease the session owns
    };

    struct AcquireResult
    {
        static AcquireResult granted(qint64 token) { return {true, token, {}, std::nullopt}; }
        static AcquireResult heldBy(const QSimbaSessionId &holder, qint64 token,
                                    std::optional<Millis> holderRemaining = std::nullopt)
        {
            return {false, token, holder, holderRemaining};
        }

        bool isGranted = false;
        qint64 token = 0;         //!< Granted: the new term's token; HeldBy: the holder's
        QSimbaSessionId holder;   //!< HeldBy only
        //! HeldBy only: the holder's remaining lease on the backend's clock, when known.
        std::optional<Millis> holderRemaining;
    };

    struct Hint
    {
        enum class Kind { Released, MembersChanged };
        Kind kind;
        QString name; //!< the lease name (Released) or the group (MembersChanged)
    };
    //! Called on any thread, possibly concurrently with backend calls: must not block.
    using HintListener = std::function<void(const Hint &)>;

    //! Unsubscribes on destruction.
    class QSIMBACORE_EXPORT Subscription
    {
    public:
        virtual ~Subscription();
    };

    //! Beyond the SPI: what tools and the monitor show.
    struct Inspection
    {
        struct Session { QSimbaSessionId id; Millis remaining; QMap<QString, QString> metadata; };
        struct Lease { QSimbaLeaseName name; QSimbaSessionId holder; qint64 token; Millis remaining; };
        struct Group { QString name; QList<QSimbaSessionId> members; };
        QList<Session> sessions;
        QList<Lease> leases;
        QList<Group> groups;
    };

    virtual ~QSimbaLeaseBackend();

    virtual Capabilities capabilities() const = 0;
    //! "redis://127.0.0.1:6379/0", with any password redacted: for messages and logs.
    virtual QString describe() const = 0;

    virtual SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata = {}) = 0;
    virtual KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease,
                                      const QSet<QSimbaLeaseName> &held) = 0;
    virtual QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session,
                                                         const QSet<QSimbaLeaseName> &names) = 0;
    virtual void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) = 0;
    virtual void closeSession(const QSimbaSessionId &session) = 0;

    virtual void join(const QSimbaSessionId &session, const QString &group) = 0;
    virtual void leave(const QSimbaSessionId &session, const QString &group) = 0;
    //! The live sessions of \a group, sorted.
    virtual QList<QSimbaSessionId> members(const QString &group) = 0;

    //! Hints for \a listener until the returned subscription is destroyed. The default
    //! publishes nothing.
    virtual std::unique_ptr<Subscription> subscribe(HintListener listener);
    //! The default throws QSimbaIllegalStateError: inspection is not supported.
    virtual Inspection inspect();

protected:
    static void validateLease(Millis lease);
    static void validateBatch(const QSet<QSimbaLeaseName> &names);
    static void validateGroup(const QString &group);
};
