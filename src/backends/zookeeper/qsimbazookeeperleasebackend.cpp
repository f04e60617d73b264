// SPDX-License-Identifier: Apache-2.0
#include "qsimbazookeeperleasebackend.h"

#include "qsimbaerror.h"
#include "qsimbazookeeperbatch_p.h"
#include "qsimbazookeeperconnection_p.h"
#include "qsimbazookeeperhints_p.h"
#include "qsimbazookeeperlogging_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRandomGenerator>

#include <QtCore/QScopeGuard>

#include <optional>

/*!
    \class QSimbaZookeeperLeaseBackend
    \brief Leases in ZooKeeper, timed by ZooKeeper's own mtimes, fenced by zxids.

    Znodes under the base path B (default /simba):
    \list
    \li \c B/clock — written to learn the server's "now" (the mtime of the write);
    \li \c B/sessions/<id> — a QSimba session: JSON {lease, prev, prevLease, meta}; its mtime
        is its last keepAlive. Children \c l:<lease> and \c g:<group> index what it owns;
    \li \c B/leases/<name> — a held lease: data is the holder's session id, the token is the
        node's mzxid (the zxid of the granting write). Released leases are deleted;
    \li \c B/groups/<group>/<id> — group members.
    \endlist

    A session is live at server time \e now while its last write is valid and
    \e now < mtime + lease. Each keepAlive write records the mtime and lease it replaced
    (a version-checked set), so a write is valid only if it landed before the previous one
    ran out: a keepAlive that arrives too late writes its own tombstone, and an expired
    session can never be revived. So any client may delete an expired session with its
    index, memberships and leases: openSession() checks up to 16 sessions picked at random,
    members() and inspect() the expired ones they read, acquire() the holders it took over
    from, and keepAlive() its own. A crashed client's session is gone soon after it expired,
    as long as some client of the prefix is running.

    Every write that changes ownership is one zoo_multi with version checks on every node
    its decision read, so two sessions never both win, and an expired holder's lease is
    taken over atomically.

    Called from one thread at a time, one call at a time. Every call (connecting
    included) blocks at most the configured timeout, and throws QSimbaBackendError on a
    ZooKeeper failure.

    Leases kept in ZooKeeper (through the multi-threaded C client). A QSimba session is a
    znode whose liveness is its last keepAlive write, judged by ZooKeeper's own mtimes; the
    ZooKeeper session of the C client never keeps a QSimba session alive. Tokens are the
    zxids of the granting writes. See the README section "ZooKeeper backend" for the znode
    layout and the time model.

    One thread calls it at a time (the backend thread, or a caller blocked for the call's
    answer: Capabilities::anyThread). Hints are published on the C client's completion
    thread.
*/

using namespace std::chrono;
using Batch = QSimbaZookeeperBatch;
using Millis = QSimbaLeaseBackend::Millis;

namespace {
constexpr int MaxAttempts = 4; // rounds of read-decide-write before contention is an error
constexpr int SweepLimit = 16; // expired sessions one call removes at most
const QString LeaseIndex = QStringLiteral("l:");
const QString GroupIndex = QStringLiteral("g:");

// The content of a session znode.
struct SessionRecord
{
    qint64 lease = 0;
    qint64 prev = -1; // the mtime of the write this one replaced; -1 for the creating write
    qint64 prevLease = 0;
    QMap<QString, QString> metadata;

    QByteArray encode() const
    {
        QJsonObject meta;
        for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
            meta.insert(it.key(), it.value());
        return QJsonDocument(QJsonObject{{QStringLiteral("lease"), lease},
                                         {QStringLiteral("prev"), prev},
                                         {QStringLiteral("prevLease"), prevLease},
                                         {QStringLiteral("meta"), meta}})
            .toJson(QJsonDocument::Compact);
    }

    static std::optional<SessionRecord> decode(const QByteArray &data)
    {
        const QJsonObject o = QJsonDocument::fromJson(data).object();
        if (!o.value(QStringLiteral("lease")).isDouble())
            return std::nullopt;
        SessionRecord r;
        r.lease = qint64(o.value(QStringLiteral("lease")).toDouble());
        r.prev = qint64(o.value(QStringLiteral("prev")).toDouble(-1));
        r.prevLease = qint64(o.value(QStringLiteral("prevLease")).toDouble());
        const QJsonObject meta = o.value(QStringLiteral("meta")).toObject();
        for (auto it = meta.constBegin(); it != meta.constEnd(); ++it)
            r.metadata.insert(it.key(), it.value().toString());
        return r;
    }
};

// A session znode as read, judged at a server time.
struct SessionView
{
    bool exists = false;
    bool valid = false; // its last write landed while it was live
    qint64 mtime = 0;
    int version = -1;
    SessionRecord record;

    static SessionView of(const Batch::Reply &reply)
    {
        SessionView v;
        if (reply.rc != ZOK)
            return v;
        const auto record = SessionRecord::decode(reply.data);
        if (!record)
            return v; // not a session: never live
        v.exists = true;
        v.record = *record;
        v.mtime = reply.stat.mtime;
        v.version = reply.stat.version;
        v.valid = record->prev < 0 || reply.stat.mtime < record->prev + record->prevLease;
        return v;
    }
    bool isLive(qint64 now) const { return exists && valid && now < mtime + record.lease; }
    Millis remaining(qint64 now) const
    {
        return Millis(std::clamp<qint64>(mtime + record.lease - now, 0, record.lease));
    }
};

QSimbaSessionId sessionIdOf(const QString &text)
{
    try {
        return QSimbaSessionId::of(text);
    } catch (const QSimbaInvalidArgumentError &) {
        return {};
    }
}
} // namespace

struct QSimbaZookeeperLeaseBackend::Private
{
    explicit Private(const Options &options)
        : hints(std::make_shared<QSimbaZookeeperHints>(options.basePath + QStringLiteral("/leases"),
                                                       options.basePath + QStringLiteral("/groups"))),
          zk(options, hints)
    {
    }

    std::shared_ptr<QSimbaZookeeperHints> hints;
    QSimbaZookeeperConnection zk;
    //! A lease this instance granted: its token, session, and the lease znode's version then.
    //! A release of exactly that grant deletes with that version, without reading first.
    struct Granted
    {
        qint64 token = 0;
        QSimbaSessionId session;
        int version = -1;
    };
    QHash<QString, Granted> granted; // by lease name
    //! The sessions of this instance as it last wrote or read them (valid and live then), by
    //! id. Only a guess of the session's current version: the uncontended acquire checks
    //! that version in its multi instead of reading the session before it (acquireFree()).
    QHash<QString, SessionView> ownSessions;
    void noteOwn(const QSimbaSessionId &s, const SessionView &view)
    {
        if (view.exists && view.valid)
            ownSessions.insert(s.toString(), view);
        else
            ownSessions.remove(s.toString());
    }
    //! Names this instance released last (deleted): worth the one-round-trip acquire, with
    //! the session's version checked instead of read (a cycle of acquire and release).
    QSet<QString> releasedHere;
    //! The waiter node this instance created for a lease name a session of it waits for:
    //! "B/waiters/<name>/<session>-<sequence>". A release hands the lease to the first live
    //! waiter of the queue (see release()); see "The waiter queue" in the backend's docs.
    struct Queued
    {
        QSimbaSessionId session;
        QString path;
    };
    QHash<QString, Queued> queued; // by lease name; change it through queue() and unqueue()
    void queue(const QString &name, const Queued &q, int ahead, int version)
    {
        queued.insert(name, q);
        hints->setWaitingAs(name, q.session.toString(), ahead, version);
    }
    void unqueue(const QString &name)
    {
        if (queued.remove(name))
            hints->setWaitingAs(name, {}, -1, 0);
    }
    using Replies = QHash<QString, const Batch::Reply *>; // by lease name
    //! Waiter nodes being removed after a grant, not waited for by that acquire: the next
    //! call (or the destructor) collects the answers, so that no request is in flight when
    //! the handle closes (the C client may drop its completion then, ZOOKEEPER-3868).
    std::optional<Batch> leaving;
    void settleLeaving()
    {
        if (!leaving)
            return;
        try {
            leaving->wait();
        } catch (const QSimbaError &e) {
            qCInfo(lcSimbaZookeeper, "%s: cannot leave a waiter queue now: %s", qPrintable(zk.describe()), e.what());
        }
        leaving.reset();
    }

    //! Registers \a session as a waiter of each of \a names (one sequential node each) that
    //! it does not wait for yet; a node left by an earlier session of this instance goes.
    //! Sent into \a batch: the returned indexes are read by noteQueued() after its wait().
    QList<std::pair<QString, int>> queueAsWaiter(Batch &batch, const QSimbaSessionId &session,
                                                 const QList<QSimbaLeaseName> &names)
    {
        QList<std::pair<QString, int>> sent;
        if (!hints->hasListeners())
            return sent; // nobody would hear the handover: the waiter polls, as before
        for (const auto &name : names) {
            const auto it = queued.constFind(name.toString());
            if (it != queued.cend() && it->session == session)
                continue;
            if (it != queued.cend())
                batch.remove(it->path);
            sent.append({name.toString(),
                         batch.createSequential(waitersPath(name.toString()) + QLatin1Char('/') + session.toString()
                                                + QLatin1Char('-'))});
        }
        return sent;
    }
    //! \a waiterLists: the queues as read before the registration with \a leases, if they
    //! were: how many waiters are ahead, as of which version of the lease (a first waiter is
    //! hinted at a change of the lease without reading it first; see
    //! QSimbaZookeeperHints::setWaitingAs()).
    void noteQueued(const Batch &batch, const QSimbaSessionId &session, const QList<std::pair<QString, int>> &sent,
                    const Replies &waiterLists = {}, const Replies &leases = {})
    {
        std::optional<Batch> again; // queues nobody waited in yet: their parent first
        QList<std::pair<QString, int>> retried;
        for (const auto &[name, reply] : sent) {
            unqueue(name);
            int ahead = -1; // unknown
            const Batch::Reply *lease = leases.value(name);
            if (const Batch::Reply *list = waiterLists.value(name); list && lease && lease->ok()) {
                ahead = 0;
                for (const auto &w : list->children)
                    ahead += w.startsWith(session.toString()) ? 0 : 1;
            }
            if (batch[reply].ok()) {
                queue(name, {session, QString::fromUtf8(batch[reply].data)}, ahead, lease ? lease->stat.version : 0);
            } else if (batch[reply].rc == ZNONODE) {
                if (!again)
                    again.emplace(zk);
                again->create(waitersPath(name));
                retried.append({name, again->createSequential(waitersPath(name) + QLatin1Char('/')
                                                              + session.toString() + QLatin1Char('-'))});
            }
        }
        if (!again)
            return;
        again->wait();
        for (const auto &[name, reply] : std::as_const(retried))
            if ((*again)[reply].ok())
                queue(name, {session, QString::fromUtf8((*again)[reply].data)}, -1, 0);
    }
    //! This instance's waiter nodes of \a names, if any, are removed (sent into \a batch).
    void leaveQueues(Batch &batch, const QList<QSimbaLeaseName> &names)
    {
        for (const auto &name : names) {
            const auto it = queued.constFind(name.toString());
            if (it == queued.cend())
                continue;
            batch.remove(it->path);
            unqueue(name.toString());
        }
    }
    //! The waiter queue of lease \a name, listed with its watch: kept fresh while it is held.
    int listWaiters(Batch &batch, const QString &name)
    {
        return batch.children(waitersPath(name), &QSimbaZookeeperHints::waitersWatcher, hints.get());
    }
    void noteWaiters(const QString &name, const Batch::Reply *list)
    {
        if (list && list->ok())
            hints->setWaiters(name, list->children);
        else if (list && list->rc == ZNONODE)
            hints->watchQueueCreation(zk.handle(), name, waitersPath(name));
    }

    //! The uncontended acquire in one round trip; see acquire(). Tries the names of
    //! \a pending the hints do not know as held (mayBeFree()), and those in \a forced; the names
    //! found free again after losing are left in \a freed.
    void acquireFree(const QSimbaSessionId &session, QList<QSimbaLeaseName> &pending,
                     QHash<QSimbaLeaseName, AcquireResult> &results, const QList<QSimbaLeaseName> &forced,
                     QList<QSimbaLeaseName> &freed);
    //! Answers HeldBy, without writing the clock, for the names of \a leases (lease reads)
    //! held by a session live even at serverNowAtMost(); returns the names found free.
    //! The others stay in \a pending. The caller's own session must be live at that bound.
    //! A lease found handed to \a session by its holder's release (the first waiter of its
    //! queue) is answered Granted: the release was the grant. \a waiterLists are the
    //! queues read with the leases (listWaiters()), kept for the names granted.
    QList<QSimbaLeaseName> answerHeld(const QSimbaSessionId &session,
                                      const QList<std::pair<QSimbaLeaseName, const Batch::Reply *>> &leases,
                                      QList<QSimbaLeaseName> &pending, QHash<QSimbaLeaseName, AcquireResult> &results,
                                      const Replies &waiterLists);

    //! The server's clock as last seen by a write of this instance: the write's mtime, and
    //! when the request was sent (CLOCK_MONOTONIC ns). The write landed after the send, so
    //! at the send the server's clock was at most mtime + 1 ms (mtimes are whole ms).
    struct ServerTime
    {
        qint64 sentNs = 0;
        qint64 mtime = 0;
    };
    std::optional<ServerTime> serverTime;
    void noteServerTime(const Batch::Reply &write, qint64 mtime)
    {
        if (!serverTime || write.sentAt >= serverTime->sentNs)
            serverTime = ServerTime{write.sentAt, mtime};
    }
    //! An upper bound of the server's now (ms): the last write's mtime plus the time since
    //! its send on the local monotonic clock, rounded up, with 0.1 % for the two clocks'
    //! rates (NTP slews by at most 0.05 %). None without a write in the last minute. Only
    //! ever used to answer HeldBy without writing the clock: a holder live at this bound is
    //! live now; a bound that is off (a server clock stepped forward) makes a candidate
    //! retry later, it never grants anything.
    std::optional<qint64> serverNowAtMost() const
    {
        if (!serverTime)
            return std::nullopt;
        const qint64 elapsedNs = Batch::monotonicNow() - serverTime->sentNs;
        if (elapsedNs < 0 || elapsedNs > 60'000'000'000LL)
            return std::nullopt;
        return serverTime->mtime + 1 + (elapsedNs + elapsedNs / 1000) / 1'000'000 + 1;
    }

    QString sessionPath(const QSimbaSessionId &s) const { return zk.path(QStringLiteral("sessions/") + s.toString()); }
    QString sessionPath(const QString &s) const { return zk.path(QStringLiteral("sessions/") + s); }
    QString leasePath(const QString &name) const { return zk.path(QStringLiteral("leases/") + name); }
    QString groupPath(const QString &group) const { return zk.path(QStringLiteral("groups/") + group); }
    QString clockPath() const { return zk.path(QStringLiteral("clock")); }
    QString waitersPath(const QString &name) const { return zk.path(QStringLiteral("waiters/") + name); }

    // Marks the start of an SPI call in the debug trace (see QSimbaZookeeperBatch::trace).
    void traceCall(const char *call, const QSimbaSessionId &s) const
    {
        if (lcSimbaZookeeper().isDebugEnabled())
            qCDebug(lcSimbaZookeeper, "%s: call %s %s at %lld", qPrintable(zk.describe()), call,
                    qPrintable(s.toString()), qlonglong(std::chrono::steady_clock::now().time_since_epoch().count()));
    }

    [[noreturn]] void expired(const QSimbaSessionId &s) const
    {
        throw QSimbaSessionExpiredError(QStringLiteral("%1: session %2 has expired").arg(zk.describe(), s.toString()));
    }
    [[noreturn]] void contended(const QString &what) const
    {
        throw QSimbaBackendError(
            QStringLiteral("%1: %2 kept conflicting with concurrent writes (%3 attempts)").arg(zk.describe(), what).arg(MaxAttempts));
    }

    // Reads session \a s and the server's time (the clock write comes last, so now is no
    // earlier than the read). Throws QSimbaSessionExpiredError unless it is live.
    void requireLive(const QSimbaSessionId &s)
    {
        Batch batch(zk);
        const int session = batch.get(sessionPath(s));
        const int clock = batch.set(clockPath(), {});
        batch.wait();
        if (!SessionView::of(batch[session]).isLive(batch[clock].stat.mtime))
            expired(s);
    }

    // Deletes session \a s with its index, its member nodes and the leases it still holds,
    // in one multi. Returns quietly when it is already gone.
    void removeSession(const QSimbaSessionId &s)
    {
        const QString path = sessionPath(s);
        for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
            Batch read(zk);
            const int index = read.children(path);
            read.wait();
            if (read[index].rc == ZNONODE)
                return;
            const QStringList children = read[index].children;
            Batch leases(zk);
            QHash<QString, int> leaseReads;
            for (const auto &child : children)
                if (child.startsWith(LeaseIndex))
                    leaseReads.insert(child, leases.get(leasePath(child.mid(LeaseIndex.size()))));
            leases.wait();
            Batch::Multi multi;
            for (const auto &child : children) {
                multi.remove(path + QLatin1Char('/') + child);
                if (child.startsWith(LeaseIndex)) {
                    const auto &lease = leases[leaseReads.value(child)];
                    if (lease.rc == ZOK && QString::fromUtf8(lease.data) == s.toString())
                        multi.remove(leasePath(child.mid(LeaseIndex.size())), lease.stat.version);
                } else if (child.startsWith(GroupIndex)) {
                    multi.remove(groupPath(child.mid(GroupIndex.size())) + QLatin1Char('/') + s.toString());
                }
            }
            multi.remove(path);
            Batch write(zk);
            const int result = write.multi(multi);
            write.wait();
            if (write[result].ok())
                return;
            qCDebug(lcSimbaZookeeper, "%s: removing session %s raced (%s), again", qPrintable(zk.describe()),
                    qPrintable(s.toString()), zerror(write[result].rc));
        }
        contended(QStringLiteral("closing session ") + s.toString());
    }

    // Removes the expired sessions among \a ids (at most SweepLimit), found by any live
    // client: a crashed client never closes its session, so someone else has to. Each is
    // judged again on the server's clock first: an expired session can never be revived
    // (see the class doc), so removing it cannot race with its owner. Member znodes whose
    // session is gone are removed too. Failures are only logged: the caller's own answer
    // stands, and the next call sweeps again.
    //
    // The clock is written before the sessions are read (ZooKeeper answers one client's
    // requests in order): a session is judged on its last write as of now or later. Read
    // before now, a renewal landing between the read and the clock write went unseen, and
    // a session renewed in time was judged expired and removed with its leases while its
    // owner's terms were valid.
    void sweepExpired(const QStringList &ids, const QString &group = {})
    {
        if (ids.isEmpty())
            return;
        try {
            Batch read(zk);
            const int clock = read.set(clockPath(), {});
            QList<int> reads;
            for (const auto &id : ids)
                reads.append(read.get(sessionPath(id)));
            read.wait();
            const qint64 now = read[clock].stat.mtime;
            int swept = 0;
            Batch orphans(zk);
            bool anyOrphan = false;
            for (int i = 0; i < ids.size() && swept < SweepLimit; ++i) {
                const auto id = sessionIdOf(ids[i]);
                if (read[reads[i]].rc == ZNONODE) {
                    if (!group.isEmpty()) { // a member whose session is gone
                        orphans.remove(groupPath(group) + QLatin1Char('/') + ids[i]);
                        anyOrphan = true;
                    }
                } else if (!id.isNull() && !SessionView::of(read[reads[i]]).isLive(now)) {
                    sweep(id);
                    ++swept;
                }
            }
            if (anyOrphan)
                orphans.wait();
            if (swept > 0)
                qCDebug(lcSimbaZookeeper, "%s: removed %d expired sessions", qPrintable(zk.describe()), swept);
        } catch (const QSimbaError &e) {
            qCInfo(lcSimbaZookeeper, "%s: cannot sweep expired sessions now: %s", qPrintable(zk.describe()), e.what());
        }
    }

    // A few sessions picked at random among all: over many calls, every expired one is found.
    void sweepSome()
    {
        try {
            Batch list(zk);
            const int l = list.children(zk.path(QStringLiteral("sessions")));
            list.wait();
            QStringList ids = list[l].children;
            while (ids.size() > SweepLimit)
                ids.removeAt(qsizetype(QRandomGenerator::global()->bounded(quint32(ids.size()))));
            sweepExpired(ids);
        } catch (const QSimbaError &e) {
            qCInfo(lcSimbaZookeeper, "%s: cannot sweep expired sessions now: %s", qPrintable(zk.describe()), e.what());
        }
    }

    // removeSession() for a session found expired: a failure is only logged, the caller's
    // answer (Expired) stands.
    void sweep(const QSimbaSessionId &s)
    {
        try {
            removeSession(s);
        } catch (const QSimbaError &e) {
            qCInfo(lcSimbaZookeeper, "%s: cannot remove expired session %s yet: %s", qPrintable(zk.describe()),
                   qPrintable(s.toString()), e.what());
        }
    }
};

QSimbaZookeeperLeaseBackend::QSimbaZookeeperLeaseBackend(const Options &options)
    : d(new Private([&] {
          if (options.hosts.isEmpty())
              throw QSimbaInvalidArgumentError(QStringLiteral("ZooKeeper options: hosts is empty"));
          if (!options.basePath.startsWith(QLatin1Char('/')) || options.basePath.endsWith(QLatin1Char('/')))
              throw QSimbaInvalidArgumentError(
                  QStringLiteral("ZooKeeper options: basePath \"%1\" must start and not end with /").arg(options.basePath));
          if (options.timeout <= 0ms || options.sessionTimeout <= 0ms || options.timeout > 24h
              || options.sessionTimeout > 24h)
              throw QSimbaInvalidArgumentError(QStringLiteral("ZooKeeper options: timeouts must be from 1ms to 24h"));
          if (options.acl != Acl::Open && options.digest.isEmpty())
              throw QSimbaInvalidArgumentError(QStringLiteral("ZooKeeper options: a creator ACL needs digest credentials"));
          return options;
      }()))
{
}

QSimbaZookeeperLeaseBackend::~QSimbaZookeeperLeaseBackend()
{
    d->settleLeaving();
}

/*!
    Builds a backend from \a url (see parseUrl()). A QUrl cannot hold several hosts
    ("h1:2181,h2:2181"): pass such a URL as a string. Throws QSimbaInvalidArgumentError.
*/
std::unique_ptr<QSimbaZookeeperLeaseBackend> QSimbaZookeeperLeaseBackend::fromUrl(const QUrl &url)
{
    return std::make_unique<QSimbaZookeeperLeaseBackend>(parseUrl(url));
}

QSimbaZookeeperLeaseBackend::Options QSimbaZookeeperLeaseBackend::parseUrl(const QUrl &url)
{
    if (!url.isValid())
        throw QSimbaInvalidArgumentError(
            QStringLiteral("invalid ZooKeeper URL: QUrl rejected it (%1); a URL with several hosts must be "
                           "passed as a string")
                .arg(url.errorString().section(QLatin1String("; source was"), 0, 0)));
    return parseUrl(url.toString(QUrl::FullyEncoded));
}

std::unique_ptr<QSimbaZookeeperLeaseBackend> QSimbaZookeeperLeaseBackend::fromUrl(const QString &url)
{
    return std::make_unique<QSimbaZookeeperLeaseBackend>(parseUrl(url));
}

QSimbaZookeeperLeaseBackend::Options QSimbaZookeeperLeaseBackend::options() const
{
    return d->zk.options();
}

QSimbaLeaseBackend::Capabilities QSimbaZookeeperLeaseBackend::capabilities() const
{
    Capabilities caps{true, true, true};
    // The C client's handle is multi-threaded, its connection state and the hints are under
    // mutexes, the rest is used only inside a call: any thread may call, one call at a time.
    // Every call (connecting included) ends within the timeout (QSimbaZookeeperConnection::Call).
    caps.anyThread = true;
    caps.callBound = d->zk.timeout();
    caps.waiterQueues = true; // a release hands the lease to the first waiter: see release()
    return caps;
}

QString QSimbaZookeeperLeaseBackend::describe() const
{
    return d->zk.describe();
}

/*!
    Creates the session's znode; its creation time starts its lease.
*/
QSimbaLeaseBackend::SessionGrant QSimbaZookeeperLeaseBackend::openSession(Millis lease,
                                                                         const QMap<QString, QString> &metadata)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    d->traceCall("openSession", {});
    validateLease(lease);
    SessionRecord record;
    record.lease = lease.count();
    record.metadata = metadata;
    for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
        const auto id = QSimbaSessionId::generate();
        Batch batch(d->zk);
        const int create = batch.createWithStat(d->sessionPath(id), record.encode());
        batch.wait();
        if (batch[create].ok()) {
            SessionView created;
            created.exists = created.valid = true;
            created.mtime = batch[create].stat.mtime;
            created.version = batch[create].stat.version;
            created.record = record;
            d->noteOwn(id, created);
            d->sweepSome();
            return {id, lease};
        }
        if (batch[create].rc != ZNODEEXISTS)
            d->zk.raise(batch[create].rc, batch[create].what);
    }
    d->contended(QStringLiteral("opening a session"));
}

/*!
    One version-checked write of the session's znode, valid only if it lands before the
    session's previous write ran out; then the session's lease index is listed.
*/
QSimbaLeaseBackend::KeepAliveResult QSimbaZookeeperLeaseBackend::keepAlive(const QSimbaSessionId &session,
                                                                           Millis lease,
                                                                           const QSet<QSimbaLeaseName> &)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    d->traceCall("keepAlive", session);
    d->settleLeaving();
    validateLease(lease);
    const QString path = d->sessionPath(session);
    for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
        Batch read(d->zk);
        const int r = read.get(path);
        read.wait();
        const SessionView view = SessionView::of(read[r]);
        if (!view.exists || !view.valid)
            d->ownSessions.remove(session.toString());
        if (!view.exists)
            return KeepAliveResult::expired();
        if (!view.valid) {
            d->sweep(session);
            return KeepAliveResult::expired();
        }
        SessionRecord next = view.record;
        next.prev = view.mtime;
        next.prevLease = view.record.lease;
        next.lease = lease.count();
        Batch write(d->zk);
        const int w = write.set(path, next.encode(), view.version);
        const int index = write.children(path);
        write.wait();
        if (write[w].rc == ZBADVERSION)
            continue; // another instance kept it alive meanwhile: judge again
        if (write[w].rc == ZNONODE) {
            d->ownSessions.remove(session.toString());
            return KeepAliveResult::expired();
        }
        d->noteServerTime(write[w], write[w].stat.mtime);
        if (write[w].stat.mtime >= view.mtime + view.record.lease) {
            // Too late: the write is its own tombstone.
            d->ownSessions.remove(session.toString());
            d->sweep(session);
            return KeepAliveResult::expired();
        }
        SessionView written;
        written.exists = written.valid = true; // landed while the session was live (above)
        written.mtime = write[w].stat.mtime;
        written.version = write[w].stat.version;
        written.record = next;
        d->noteOwn(session, written);
        QSet<QSimbaLeaseName> owned;
        for (const auto &child : write[index].children)
            if (child.startsWith(LeaseIndex))
                owned.insert(QSimbaLeaseName::of(child.mid(LeaseIndex.size())));
        return KeepAliveResult::live(lease, owned);
    }
    d->contended(QStringLiteral("keepAlive of session ") + session.toString());
}

/*!
    The uncontended acquire, one round trip: for each name the hints do not know as held
    (QSimbaZookeeperHints::mayBeFree()), one multi per name that creates the lease, the session's index entry of it and
    writes the clock (the token and the server's now), preceded by a read of the caller's
    session, or, for names this instance released last, checking the session's version as
    this instance knows it (ownSessions) instead. A grant stands if the session, as read or
    as checked, was live at its time; otherwise it is undone and the session has expired.
    Names already held stay in \a pending for the full decision.
*/
void QSimbaZookeeperLeaseBackend::Private::acquireFree(const QSimbaSessionId &session,
                                                       QList<QSimbaLeaseName> &pending,
                                                       QHash<QSimbaLeaseName, AcquireResult> &results,
                                                       const QList<QSimbaLeaseName> &forced,
                                                       QList<QSimbaLeaseName> &freed)
{
    freed.clear();
    QList<QSimbaLeaseName> free;
    for (const auto &name : std::as_const(pending))
        if (forced.contains(name) || releasedHere.contains(name.toString()) || hints->mayBeFree(name.toString()))
            free.append(name);
    if (free.isEmpty())
        return;
    const QString own = sessionPath(session);
    const QByteArray holder = session.toString().toUtf8();
    // The caller's session, as this instance last wrote or read it: when every name is one
    // it released last (the uncontended cycle: no lease is read behind its multi), each
    // multi checks that version instead of a read of the session before it. The check
    // passing means the session's znode at the grant was exactly the one known here, so it
    // is judged live at the grant's time as a read would have had it; a check that fails
    // (another instance wrote the session, or it is gone) leaves the name to be tried again
    // with the read. One request per grant instead of two (the read cost a round trip of
    // server work ahead of the multi on this connection).
    const auto known = ownSessions.constFind(session.toString());
    bool useKnown = known != ownSessions.cend();
    for (const auto &name : std::as_const(free))
        useKnown = useKnown && releasedHere.contains(name.toString());
    const SessionView knownView = useKnown ? *known : SessionView();
    Batch batch(zk);
    const int ownRead = useKnown ? -1 : batch.get(own);
    struct Try
    {
        QSimbaLeaseName name;
        int reply;
        int indexOp;
        int clockOp;
        int checkOp;   // the check of the session's known version, or -1
        int leaseRead; // the lease read behind the multi (who won it), or -1
        int waitersRead; // its waiter queue, listed with its watch for the release, or -1
    };
    const bool listening = hints->hasListeners();
    QList<Try> tries;
    for (const auto &name : std::as_const(free)) {
        Batch::Multi multi;
        multi.create(leasePath(name.toString()), holder);
        const int indexOp = multi.create(own + QLatin1Char('/') + LeaseIndex + name.toString());
        const int clockOp = multi.set(clockPath(), {});
        const int checkOp = useKnown ? multi.check(own, knownView.version) : -1;
        const int reply = batch.multi(multi);
        // A name another client released is likely raced for by its other waiters: the
        // lease is read behind the multi (answered in order, so after it), and a loser
        // learns its winner in the same round trip.
        const int leaseRead = releasedHere.contains(name.toString()) ? -1 : batch.get(leasePath(name.toString()));
        // The same names have waiters: the queue comes along, for the release to hand over.
        const int waitersRead = leaseRead >= 0 && listening ? listWaiters(batch, name.toString()) : -1;
        tries.append({name, reply, indexOp, clockOp, checkOp, leaseRead, waitersRead});
    }
    batch.wait();
    const SessionView view = useKnown ? knownView : SessionView::of(batch[ownRead]);
    QList<Try> won;
    QList<QSimbaLeaseName> unchecked; // the session's version was not the known one
    bool live = view.exists;
    for (const auto &t : std::as_const(tries)) {
        const auto &reply = batch[t.reply];
        if (reply.ok()) {
            won.append(t);
            live = live && view.isLive(reply.stats[size_t(t.clockOp)].mtime);
        } else if (reply.errorOf(0) == ZOK && reply.errorOf(t.indexOp) == ZNONODE) {
            live = false; // the session's znode is gone
        } else if (t.checkOp >= 0 && reply.errorOf(0) == ZOK && reply.errorOf(t.checkOp) == ZBADVERSION) {
            unchecked.append(t.name); // nothing applied: tried again with a read of the session
        }
    }
    if (!unchecked.isEmpty())
        ownSessions.remove(session.toString());
    else if (!useKnown && live)
        noteOwn(session, view);
    // Whatever returns below: the unchecked names are tried again (with the read).
    const auto retryUnchecked = qScopeGuard([&] { freed += unchecked; });
    if (!live && (!won.isEmpty() || !view.exists)) {
        // Granted to a session that was no longer live: undone before anyone saw it.
        Batch undo(zk);
        for (const auto &t : std::as_const(won)) {
            Batch::Multi multi;
            multi.remove(leasePath(t.name.toString()), 0);
            multi.remove(own + QLatin1Char('/') + LeaseIndex + t.name.toString());
            undo.multi(multi);
        }
        if (!won.isEmpty())
            undo.wait();
        expired(session);
    }
    for (const auto &t : std::as_const(won)) {
        const auto &stat = batch[t.reply].stats[size_t(t.clockOp)];
        noteServerTime(batch[t.reply], stat.mtime);
        results.insert(t.name, AcquireResult::granted(stat.mzxid));
        granted.insert(t.name.toString(), {stat.mzxid, session, 0});
        releasedHere.remove(t.name.toString());
        pending.removeOne(t.name);
        noteWaiters(t.name.toString(), t.waitersRead >= 0 ? &batch[t.waitersRead] : nullptr);
    }

    // The names found held (the lease's create failed): answered HeldBy without writing the
    // clock when the holder is live even at the latest the server's now can be
    // (serverNowAtMost()). "Now" is needed to declare a holder expired, not to say it holds:
    // a holder that may have expired is left to the full decision, which writes the clock.
    QList<Try> held;
    for (const auto &t : std::as_const(tries)) {
        if (!batch[t.reply].ok() && batch[t.reply].errorOf(0) == ZNODEEXISTS) {
            held.append(t);
            releasedHere.remove(t.name.toString()); // another session took it since
        }
    }
    const auto ownLiveAtMost = serverNowAtMost();
    if (held.isEmpty() || !ownLiveAtMost || (!useKnown && !view.isLive(*ownLiveAtMost)))
        return;
    std::optional<Batch> late; // the leases not read behind their multi, with their queues
    QHash<QString, int> lateReads, lateLists;
    int lateOwn = -1; // the session, when it was not read with the multi
    if (useKnown) {
        late.emplace(zk);
        lateOwn = late->get(own);
    }
    for (const auto &t : std::as_const(held)) {
        if (t.leaseRead >= 0)
            continue;
        if (!late)
            late.emplace(zk);
        lateReads.insert(t.name.toString(), late->get(leasePath(t.name.toString())));
        if (listening)
            lateLists.insert(t.name.toString(), listWaiters(*late, t.name.toString()));
    }
    if (late)
        late->wait();
    if (lateOwn >= 0) {
        const auto bound = serverNowAtMost();
        if (!bound || !SessionView::of((*late)[lateOwn]).isLive(*bound))
            return;
    }
    QList<std::pair<QSimbaLeaseName, const Batch::Reply *>> leases;
    Replies waiterLists;
    for (const auto &t : std::as_const(held)) {
        leases.append({t.name, t.leaseRead >= 0 ? &batch[t.leaseRead] : &(*late)[lateReads.value(t.name.toString())]});
        if (t.waitersRead >= 0)
            waiterLists.insert(t.name.toString(), &batch[t.waitersRead]);
        else if (lateLists.contains(t.name.toString()))
            waiterLists.insert(t.name.toString(), &(*late)[lateLists.value(t.name.toString())]);
    }
    freed = answerHeld(session, leases, pending, results, waiterLists);
}

QList<QSimbaLeaseName> QSimbaZookeeperLeaseBackend::Private::answerHeld(
    const QSimbaSessionId &session, const QList<std::pair<QSimbaLeaseName, const Batch::Reply *>> &leases,
    QList<QSimbaLeaseName> &pending, QHash<QSimbaLeaseName, AcquireResult> &results, const Replies &waiterLists)
{
    QList<QSimbaLeaseName> free;
    Batch holders(zk);
    QHash<QString, int> holderReads;
    QList<QSimbaLeaseName> heldElsewhere;
    for (const auto &[name, lease] : leases) {
        if (lease->rc == ZNONODE) {
            free.append(name); // released since: worth the one-round-trip acquire again
            hints->noteFree(name.toString());
            continue;
        }
        const QString id = QString::fromUtf8(lease->data);
        if (lease->ok() && id == session.toString()) {
            // Handed over by the holder's release, which chose this session's waiter node
            // (first in the queue) and created its index entry in the same multi: that write
            // was the grant, and its zxid (the lease's mzxid) the token. The session is live
            // at the upper bound of now (the caller checked), so it was at the handover.
            results.insert(name, AcquireResult::granted(lease->stat.mzxid));
            granted.insert(name.toString(), {lease->stat.mzxid, session, lease->stat.version});
            unqueue(name.toString()); // the handover removed the waiter node
            releasedHere.remove(name.toString());
            noteWaiters(name.toString(), waiterLists.value(name.toString()));
            pending.removeOne(name);
            continue;
        }
        if (lease->ok() && !sessionIdOf(id).isNull()) {
            heldElsewhere.append(name);
            hints->forgetWaiters(name.toString()); // another session's queue now
            if (!holderReads.contains(id))
                holderReads.insert(id, holders.get(sessionPath(id)));
        }
    }
    if (holderReads.isEmpty())
        return free;
    // Held by another session: this one queues as a waiter (in the same round trip), so
    // that the holder's release hands the lease over instead of deleting it.
    const auto queuedNow = queueAsWaiter(holders, session, heldElsewhere);
    holders.wait();
    Replies leaseReplies;
    for (const auto &[name, lease] : leases)
        leaseReplies.insert(name.toString(), lease);
    noteQueued(holders, session, queuedNow, waiterLists, leaseReplies);
    const auto now = serverNowAtMost(); // after the reads: the later, the safer
    if (!now)
        return free;
    for (const auto &[name, lease] : leases) {
        const QString id = QString::fromUtf8(lease->data);
        if (!lease->ok() || !holderReads.contains(id))
            continue;
        const SessionView holderView = SessionView::of(holders[holderReads.value(id)]);
        if (!holderView.isLive(*now))
            continue;
        results.insert(name, AcquireResult::heldBy(sessionIdOf(id), lease->stat.mzxid, holderView.remaining(*now)));
        hints->watchLease(zk.handle(), name.toString(), lease->stat.mzxid); // the waiter's hint
        pending.removeOne(name);
    }
    return free;
}

/*!
    Reads the leases and the caller's session followed by a clock write (the server's now),
    then the other holders' sessions (when there are any), then grants every free name or
    name of an expired holder in one multi per name that checks the versions it decided on.
    A name whose multi lost a race is decided again.
*/
QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaZookeeperLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    d->traceCall("acquire", session);
    d->settleLeaving();
    validateBatch(names);
    const QString own = d->sessionPath(session);
    QHash<QSimbaLeaseName, AcquireResult> results;
    QList<QSimbaLeaseName> pending(names.cbegin(), names.cend());
    // A waiter granted otherwise than by a handover (the lease was deleted, or taken over)
    // leaves the queue: a node left there would get it handed over later. Not waited for:
    // ZooKeeper applies one client's requests in order, so every later request of this
    // instance (its release among them) comes after the removal; had the removal failed
    // (the connection lost), a handover to the node would leave the lease to this session,
    // which keepAlive reports as owned without a term, and QSimba releases it.
    const auto leaveGrantedQueues = qScopeGuard([&] {
        QList<QSimbaLeaseName> done;
        for (auto it = results.cbegin(); it != results.cend(); ++it) {
            if (it->isGranted)
                d->hints->noteFree(it.key().toString()); // held here now: not known held elsewhere
            if (it->isGranted && d->queued.contains(it.key().toString()))
                done.append(it.key());
        }
        if (done.isEmpty())
            return;
        try {
            d->leaving.emplace(d->zk);
            d->leaveQueues(*d->leaving, done);
        } catch (const QSimbaError &e) {
            d->leaving.reset();
            qCInfo(lcSimbaZookeeper, "%s: cannot leave a waiter queue now: %s", qPrintable(d->zk.describe()), e.what());
        }
    });
    QStringList expiredHolders; // taken over from: removed once the grants are done
    QList<QSimbaLeaseName> freed;
    d->acquireFree(session, pending, results, {}, freed);
    // A lock passed around quickly is often free again when a loser reads it: try again the
    // same way, as long as the reads keep finding it free.
    for (int again = 1; again < MaxAttempts && !freed.isEmpty() && !pending.isEmpty(); ++again)
        d->acquireFree(session, pending, results, QList<QSimbaLeaseName>(freed), freed);
    if (pending.isEmpty())
        return results;
    // Names the hints know as held: read, and answered HeldBy without writing the clock
    // when their holders are live at the latest the server's now can be (serverNowAtMost()).
    if (d->serverNowAtMost()) {
        Batch reads(d->zk);
        const int ownRead = reads.get(own);
        const bool listening = d->hints->hasListeners();
        QList<std::tuple<QSimbaLeaseName, int, int>> leaseReads;
        for (const auto &name : std::as_const(pending))
            leaseReads.append({name, reads.get(d->leasePath(name.toString())),
                               listening ? d->listWaiters(reads, name.toString()) : -1});
        reads.wait();
        const auto bound = d->serverNowAtMost();
        if (bound && SessionView::of(reads[ownRead]).isLive(*bound)) {
            QList<std::pair<QSimbaLeaseName, const Batch::Reply *>> leases;
            Private::Replies waiterLists;
            for (const auto &[name, read, waiters] : std::as_const(leaseReads)) {
                leases.append({name, &reads[read]});
                if (waiters >= 0)
                    waiterLists.insert(name.toString(), &reads[waiters]);
            }
            freed = d->answerHeld(session, leases, pending, results, waiterLists);
            for (int again = 0; again < MaxAttempts && !freed.isEmpty() && !pending.isEmpty(); ++again)
                d->acquireFree(session, pending, results, QList<QSimbaLeaseName>(freed), freed);
            if (pending.isEmpty())
                return results;
        }
    }
    const auto sweepHolders = qScopeGuard([&] { d->sweepExpired(expiredHolders); });
    for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
        // The leases, the caller's session, then the clock: now is no earlier than the reads.
        Batch leases(d->zk);
        QHash<QSimbaLeaseName, int> leaseReads;
        for (const auto &name : std::as_const(pending))
            leaseReads.insert(name, leases.get(d->leasePath(name.toString())));
        const int ownRead = leases.get(own);
        const int clock = leases.set(d->clockPath(), {});
        leases.wait();
        const qint64 now = leases[clock].stat.mtime;
        d->noteServerTime(leases[clock], now);
        if (!SessionView::of(leases[ownRead]).isLive(now))
            d->expired(session);

        // The other holders' sessions, when there are any. Read after now, a holder may
        // look fresher than at now: that only keeps it live (remaining is capped at its
        // lease), and the version checks below catch any change before a takeover.
        std::optional<Batch> holders;
        QHash<QString, int> holderReads;
        QList<QSimbaLeaseName> heldElsewhere;
        for (const auto &name : std::as_const(pending)) {
            const auto &lease = leases[leaseReads.value(name)];
            const QString holder = QString::fromUtf8(lease.data);
            // Data that is no session id (empty, or written by another tool) names no
            // holder: no session path is built from it, and the lease is free.
            if (lease.ok() && holder != session.toString() && !sessionIdOf(holder).isNull()) {
                heldElsewhere.append(name);
                if (!holders)
                    holders.emplace(d->zk);
                if (!holderReads.contains(holder))
                    holderReads.insert(holder, holders->get(d->sessionPath(holder)));
            }
        }
        if (holders) {
            // Queued as a waiter in the same round trip (see answerHeld()); a name granted
            // below leaves the queue again.
            const auto queuedNow = d->queueAsWaiter(*holders, session, heldElsewhere);
            holders->wait();
            d->noteQueued(*holders, session, queuedNow);
        }

        Batch grants(d->zk);
        struct Grant
        {
            QSimbaLeaseName name;
            int reply;
            int ownIndexOp;
            int clockOp;
            int version; // the lease znode's version after the grant
        };
        QList<Grant> attempted;
        for (const auto &name : std::as_const(pending)) {
            const auto &lease = leases[leaseReads.value(name)];
            const QString indexPath = own + QLatin1Char('/') + LeaseIndex + name.toString();
            Batch::Multi multi;
            if (lease.rc == ZNONODE) {
                multi.create(d->leasePath(name.toString()), session.toString().toUtf8());
            } else {
                const QString holder = QString::fromUtf8(lease.data);
                if (holder == session.toString()) {
                    results.insert(name, AcquireResult::granted(lease.stat.mzxid));
                    d->granted.insert(name.toString(), {lease.stat.mzxid, session, lease.stat.version});
                    d->unqueue(name.toString()); // handed over: its waiter node is gone
                    continue;
                }
                const SessionView holderView = holderReads.contains(holder)
                    ? SessionView::of((*holders)[holderReads.value(holder)])
                    : SessionView();
                if (holderView.isLive(now)) {
                    results.insert(name, AcquireResult::heldBy(sessionIdOf(holder), lease.stat.mzxid,
                                                               holderView.remaining(now)));
                    d->hints->watchLease(d->zk.handle(), name.toString(), lease.stat.mzxid); // the waiter's hint
                    continue;
                }
                // The holder expired: take over, provided neither the lease nor the holder
                // changed since they were read.
                multi.set(d->leasePath(name.toString()), session.toString().toUtf8(), lease.stat.version);
                if (holderView.exists) {
                    const QString holderPath = d->sessionPath(holder);
                    multi.check(holderPath, holderView.version);
                    multi.remove(holderPath + QLatin1Char('/') + LeaseIndex + name.toString());
                    if (!expiredHolders.contains(holder))
                        expiredHolders.append(holder);
                }
            }
            const int ownIndexOp = multi.create(indexPath);
            const int clockOp = multi.set(d->clockPath(), {});
            const int version = lease.rc == ZNONODE ? 0 : lease.stat.version + 1;
            attempted.append({name, grants.multi(multi), ownIndexOp, clockOp, version});
        }
        pending.clear();
        if (attempted.isEmpty())
            return results;
        grants.wait();
        for (const auto &grant : std::as_const(attempted)) {
            const auto &reply = grants[grant.reply];
            if (reply.ok()) {
                const qint64 token = reply.stats[size_t(grant.clockOp)].mzxid;
                results.insert(grant.name, AcquireResult::granted(token));
                d->granted.insert(grant.name.toString(), {token, session, grant.version});
            } else if (reply.errorOf(grant.ownIndexOp) == ZNONODE) {
                d->expired(session); // closed meanwhile
            } else {
                pending.append(grant.name); // lost a race: decide again
            }
        }
        if (pending.isEmpty())
            return results;
    }
    d->contended(QStringLiteral("acquire"));
}

/*!
    Deletes each lease the session still holds with exactly the given token (its mzxid),
    with a version check; anything else is a stale release and a no-op.
*/
void QSimbaZookeeperLeaseBackend::release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    d->traceCall("release", session);
    d->settleLeaving();
    if (leases.isEmpty())
        return;
    // Leases this instance granted with exactly these tokens: one multi each deletes the
    // lease with the version it was granted at and the session's index entry of it. The
    // index entry exists only while the session holds the name (a takeover or a sweep
    // removes it), the version only while the lease is the granted one: the multi applies
    // exactly when the release is not stale. One that fails is judged by reading.
    //
    // A lease with waiters (its queue as listed when it was granted, kept fresh by a watch)
    // is handed to the first of them in the same multi instead of deleted: the lease's data
    // becomes the waiter's session, its index entry is created, its waiter node removed. The
    // waiter's watch on the lease fires, and its acquire reads the lease as its own: the
    // handoff costs one write, not a delete and a create. A waiter whose session is gone
    // fails the multi (its index entry cannot be created); its node is removed and the lease
    // released as usual, by reading first.
    //
    // A token of 0 names no lease: the session stopped waiting for the name
    // (Capabilities::waiterQueues), and its waiter node goes. Once removed, no release can
    // hand the lease to it; a release that did so first left the lease to this session,
    // which keepAlive reports as owned without a term, and QSimba releases it then.
    QHash<QSimbaLeaseName, qint64> rest;
    QStringList staleWaiters; // waiter nodes of sessions that are gone
    {
        Batch fast(d->zk);
        QList<QSimbaLeaseName> withdrawn;
        for (auto it = leases.cbegin(); it != leases.cend(); ++it) {
            const auto queued = d->queued.constFind(it.key().toString());
            if (it.value() == 0 && queued != d->queued.cend() && queued->session == session)
                withdrawn.append(it.key());
        }
        d->leaveQueues(fast, withdrawn);
        // A handover may have come first (the holder's release read the queue before the
        // waiter's node went): the lease is then this session's, though the engine has no
        // term for it (it withdrew, and this instance never answered Granted for it). It is
        // read behind the removal and released at once below, instead of at the session's
        // next keepAlive (which reports it owned), a renew interval later: meanwhile nobody
        // could take the lock.
        QList<std::pair<QSimbaLeaseName, int>> withdrawnReads;
        for (const auto &name : std::as_const(withdrawn))
            withdrawnReads.append({name, fast.get(d->leasePath(name.toString()))});
        struct Sent
        {
            QSimbaLeaseName name;
            int reply;
            QString waiter; // the waiter node handed to, or empty
            int waiterIndexOp;
        };
        QList<Sent> sent;
        for (auto it = leases.cbegin(); it != leases.cend(); ++it) {
            if (it.value() == 0)
                continue; // no lease (above)
            const QString name = it.key().toString();
            const auto known = d->granted.take(name);
            const QStringList waiters = d->hints->waitersOf(name);
            if (known.token != it.value() || known.session != session) {
                d->hints->forgetWaiters(name);
                rest.insert(it.key(), it.value());
                continue;
            }
            QString next;
            for (const auto &w : waiters) {
                const QString waiter = w.section(QLatin1Char('-'), 0, -2);
                if (waiter != session.toString() && !sessionIdOf(waiter).isNull()) {
                    next = w;
                    break;
                }
            }
            Batch::Multi multi;
            int waiterIndexOp = -1;
            if (next.isEmpty()) {
                multi.remove(d->leasePath(name), known.version);
            } else {
                const QString waiter = next.section(QLatin1Char('-'), 0, -2);
                multi.set(d->leasePath(name), waiter.toUtf8(), known.version);
                waiterIndexOp = multi.create(d->sessionPath(waiter) + QLatin1Char('/') + LeaseIndex + name);
                multi.remove(d->waitersPath(name) + QLatin1Char('/') + next);
            }
            multi.remove(d->sessionPath(session) + QLatin1Char('/') + LeaseIndex + name);
            sent.append({it.key(), fast.multi(multi), next, waiterIndexOp});
        }
        if (!sent.isEmpty() || !withdrawn.isEmpty())
            fast.wait();
        for (const auto &[name, read] : std::as_const(withdrawnReads)) {
            const auto &lease = fast[read];
            const auto granted = d->granted.constFind(name.toString());
            const bool answeredGranted = granted != d->granted.cend() && granted->session == session;
            if (lease.ok() && QString::fromUtf8(lease.data) == session.toString() && !answeredGranted) {
                qCDebug(lcSimbaZookeeper, "%s: lease %s was handed to session %s, which stopped waiting: released",
                        qPrintable(d->zk.describe()), qPrintable(name.toString()), qPrintable(session.toString()));
                rest.insert(name, lease.stat.mzxid);
            }
        }
        if (!sent.isEmpty()) {
            for (const auto &t : std::as_const(sent)) {
                const auto &reply = fast[t.reply];
                if (reply.ok()) {
                    // Released with nobody queued: the queue's watch stays, and the next
                    // grant here of a name released here (which lists nothing) knows it.
                    if (t.waiter.isEmpty()) {
                        d->releasedHere.insert(t.name.toString());
                    } else {
                        d->hints->forgetWaiters(t.name.toString());
                        // Held by the waiter now: a next acquire here reads before it writes.
                        d->hints->noteHeld(t.name.toString());
                        qCDebug(lcSimbaZookeeper, "%s: lease %s handed over to waiter %s", qPrintable(d->zk.describe()),
                                qPrintable(t.name.toString()), qPrintable(t.waiter));
                    }
                    continue;
                }
                d->hints->forgetWaiters(t.name.toString());
                if (!t.waiter.isEmpty() && reply.errorOf(0) == ZOK && reply.errorOf(t.waiterIndexOp) == ZNONODE)
                    staleWaiters.append(d->waitersPath(t.name.toString()) + QLatin1Char('/') + t.waiter);
                rest.insert(t.name, leases.value(t.name));
            }
        }
    }
    if (rest.isEmpty())
        return;
    Batch read(d->zk);
    for (const auto &node : std::as_const(staleWaiters))
        read.remove(node);
    QHash<QSimbaLeaseName, int> reads;
    for (auto it = rest.cbegin(); it != rest.cend(); ++it)
        reads.insert(it.key(), read.get(d->leasePath(it.key().toString())));
    read.wait();
    Batch write(d->zk);
    bool any = false;
    for (auto it = rest.cbegin(); it != rest.cend(); ++it) {
        const auto &lease = read[reads.value(it.key())];
        if (!lease.ok() || QString::fromUtf8(lease.data) != session.toString() || lease.stat.mzxid != it.value())
            continue;
        Batch::Multi multi;
        multi.remove(d->leasePath(it.key().toString()), lease.stat.version);
        multi.remove(d->sessionPath(session) + QLatin1Char('/') + LeaseIndex + it.key().toString());
        write.multi(multi);
        any = true;
    }
    if (any)
        write.wait(); // a multi that lost a race released nothing: the release was stale
}

/*!
    Deletes the session with everything it holds: its leases are free at once.
*/
void QSimbaZookeeperLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    d->traceCall("closeSession", session);
    d->settleLeaving();
    QList<QSimbaLeaseName> waited; // the session's waiter nodes go too
    for (auto it = d->queued.cbegin(); it != d->queued.cend(); ++it)
        if (it->session == session)
            waited.append(QSimbaLeaseName::of(it.key()));
    if (!waited.isEmpty()) {
        Batch leave(d->zk);
        d->leaveQueues(leave, waited);
        leave.wait();
    }
    d->ownSessions.remove(session.toString());
    d->removeSession(session);
}

void QSimbaZookeeperLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    validateGroup(group);
    d->requireLive(session);
    Batch batch(d->zk);
    batch.create(d->groupPath(group)); // usually there already
    Batch::Multi multi;
    multi.create(d->groupPath(group) + QLatin1Char('/') + session.toString());
    const int indexOp = multi.create(d->sessionPath(session) + QLatin1Char('/') + GroupIndex + group);
    const int r = batch.multi(multi);
    batch.wait();
    if (batch[r].errorOf(indexOp) == ZNONODE)
        d->expired(session);
    // ZNODEEXISTS: a member already.
}

void QSimbaZookeeperLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    validateGroup(group);
    Batch batch(d->zk);
    Batch::Multi multi;
    multi.remove(d->groupPath(group) + QLatin1Char('/') + session.toString());
    multi.remove(d->sessionPath(session) + QLatin1Char('/') + GroupIndex + group);
    batch.multi(multi);
    batch.wait(); // ZNONODE: not a member
}

QList<QSimbaSessionId> QSimbaZookeeperLeaseBackend::members(const QString &group)
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    validateGroup(group);
    Batch list(d->zk);
    const int l = list.children(d->groupPath(group));
    list.wait();
    const QStringList ids = list[l].children;
    if (ids.isEmpty())
        return {};
    // Now first, then the sessions: each is judged on its last write as of now or later
    // (see sweepExpired()).
    Batch read(d->zk);
    const int clock = read.set(d->clockPath(), {});
    QList<int> reads;
    for (const auto &id : ids)
        reads.append(read.get(d->sessionPath(id)));
    read.wait();
    QList<QSimbaSessionId> result;
    QStringList dead;
    for (int i = 0; i < ids.size(); ++i) {
        const auto id = sessionIdOf(ids[i]);
        if (SessionView::of(read[reads[i]]).isLive(read[clock].stat.mtime) && !id.isNull())
            result.append(id);
        else if (!id.isNull())
            dead.append(ids[i]);
    }
    d->sweepExpired(dead.mid(0, SweepLimit), group);
    std::sort(result.begin(), result.end());
    return result;
}

namespace {
class ZookeeperSubscription final : public QSimbaLeaseBackend::Subscription
{
public:
    ZookeeperSubscription(std::shared_ptr<QSimbaZookeeperHints> hints, quint64 id)
        : m_hints(std::move(hints)), m_id(id) {}
    ~ZookeeperSubscription() override { m_hints->remove(m_id); }

private:
    std::shared_ptr<QSimbaZookeeperHints> m_hints;
    quint64 m_id;
};
} // namespace

/*!
    Registers \a listener and arms the watches. Does not throw: when ZooKeeper cannot be
    reached now, the watches are armed by the next call that connects.
*/
std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaZookeeperLeaseBackend::subscribe(HintListener listener)
{
    const quint64 id = d->hints->add(std::move(listener));
    const QSimbaZookeeperConnection::Call call(d->zk);
    try {
        d->hints->arm(d->zk.handle());
    } catch (const QSimbaError &e) {
        qCInfo(lcSimbaZookeeper, "%s: hints armed later: %s", qPrintable(describe()), e.what());
    }
    return std::make_unique<ZookeeperSubscription>(d->hints, id);
}

QSimbaLeaseBackend::Inspection QSimbaZookeeperLeaseBackend::inspect()
{
    const QSimbaZookeeperConnection::Call call(d->zk);
    Batch lists(d->zk);
    const int sessionList = lists.children(d->zk.path(QStringLiteral("sessions")));
    const int leaseList = lists.children(d->zk.path(QStringLiteral("leases")));
    const int groupList = lists.children(d->zk.path(QStringLiteral("groups")));
    lists.wait();
    Batch read(d->zk);
    const int clock = read.set(d->clockPath(), {}); // before the reads: see sweepExpired()
    QHash<QString, int> sessionReads, leaseReads, groupReads;
    for (const auto &id : lists[sessionList].children)
        sessionReads.insert(id, read.get(d->sessionPath(id)));
    for (const auto &name : lists[leaseList].children)
        leaseReads.insert(name, read.get(d->leasePath(name)));
    for (const auto &group : lists[groupList].children)
        groupReads.insert(group, read.children(d->groupPath(group)));
    read.wait();
    const qint64 now = read[clock].stat.mtime;

    Inspection result;
    QHash<QString, SessionView> live;
    QStringList dead;
    for (auto it = sessionReads.cbegin(); it != sessionReads.cend(); ++it) {
        const SessionView view = SessionView::of(read[it.value()]);
        const auto id = sessionIdOf(it.key());
        if (!view.isLive(now) && !id.isNull() && dead.size() < SweepLimit)
            dead.append(it.key());
        if (!view.isLive(now) || id.isNull())
            continue;
        live.insert(it.key(), view);
        result.sessions.append({id, view.remaining(now), view.record.metadata});
    }
    for (auto it = leaseReads.cbegin(); it != leaseReads.cend(); ++it) {
        const auto &lease = read[it.value()];
        const QString holder = QString::fromUtf8(lease.data);
        if (!lease.ok() || !live.contains(holder) || !QSimbaLeaseName::validate(it.key()).isEmpty())
            continue;
        result.leases.append({QSimbaLeaseName::of(it.key()), sessionIdOf(holder), lease.stat.mzxid,
                              live.value(holder).remaining(now)});
    }
    for (auto it = groupReads.cbegin(); it != groupReads.cend(); ++it) {
        QList<QSimbaSessionId> members;
        for (const auto &id : read[it.value()].children)
            if (live.contains(id))
                members.append(sessionIdOf(id));
        std::sort(members.begin(), members.end());
        if (!members.isEmpty())
            result.groups.append({it.key(), members});
    }
    d->sweepExpired(dead);
    std::sort(result.sessions.begin(), result.sessions.end(), [](auto &a, auto &b) { return a.id < b.id; });
    std::sort(result.leases.begin(), result.leases.end(), [](auto &a, auto &b) { return a.name < b.name; });
    std::sort(result.groups.begin(), result.groups.end(), [](auto &a, auto &b) { return a.name < b.name; });
    return result;
}
