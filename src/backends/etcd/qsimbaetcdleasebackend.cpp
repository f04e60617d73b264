// SPDX-License-Identifier: Apache-2.0
#include "qsimbaetcdleasebackend.h"

#include "qsimbaerror.h"
#include "qsimbaetcdconnection_p.h"
#include "qsimbaetcdlogging_p.h"
#include "qsimbaetcdwatch_p.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>

/*!
    \class QSimbaEtcdLeaseBackend
    \brief Leases in etcd v3: sessions are etcd leases, lease names are keys attached to
    them, acquired by a transaction on the key's create revision, which is the token.

    Keys live under "<prefix>/": "s/<session>" (the session's metadata), "l/<name>" (the
    holder's session id; its create revision is the token) and "g/<group>/<session>"
    (a membership). Every key a session writes is attached to its etcd lease, so etcd deletes
    them when the session expires or is closed: expiry is judged on etcd's clock, and no
    QSimba state outlives its session.

    etcd measures leases in whole seconds and raises a TTL below its minimum (1.5 election
    timeouts, 2s with etcd's defaults) to that minimum: a session's lease is the requested
    one rounded up to whole seconds, then raised to etcd's minimum; openSession answers what
    etcd granted. The TTL is fixed when the session opens: keepAlive renews it.

    Every call makes a fixed number of requests (one or two; openSession five, inspect one
    per live session more), each bounded by Options::requestTimeout on one endpoint; when an
    endpoint does not answer, the next one is tried. Failures throw QSimbaBackendError naming the server and
    the cause.

    Not thread-safe: one thread calls one instance at a time; the calls block.

    Leases kept in etcd v3 (3.4 and later), through its JSON gateway (/v3/…) over one
    keep-alive HTTP connection (libcurl). A QSimba session is an etcd lease: its id is the
    lease id, its remaining time the lease's TTL on the etcd leader's clock, and every key the
    session writes (its lease names, its group memberships) is attached to that lease, so etcd
    itself deletes them when the session expires. A lease name is acquired by one
    transaction comparing its key's create revision with 0; its token is that revision plus
    the prefix's token floor, which moves up when a restored snapshot took etcd back to an
    earlier revision. Hints come from a watch on the prefix. See docs/backend-etcd.md.

    Thread-affine like every backend: one thread calls it, one call at a time. Hint listeners
    run on the subscription's own thread.
*/

using namespace std::chrono;
using Millis = QSimbaLeaseBackend::Millis;
namespace J = QSimbaEtcdJson;

QString qsimbaEtcdPrefixProblem(const QString &prefix); // qsimbaetcdoptions.cpp

namespace {
constexpr int NotFound = 5;

QString describeOptions(const QSimbaEtcdLeaseBackend::Options &o)
{
    return o.toRedactedUrl();
}

QString validateOptions(const QSimbaEtcdLeaseBackend::Options &o)
{
    if (o.endpoints.isEmpty())
        return QStringLiteral("no endpoint");
    for (const QString &e : o.endpoints)
        if (e.isEmpty() || !e.contains(QLatin1Char(':')))
            return QStringLiteral("endpoint \"%1\" is not host:port").arg(e);
    if (const QString problem = qsimbaEtcdPrefixProblem(o.prefix); !problem.isEmpty())
        return problem;
    if (!o.user.isEmpty() && o.password.isEmpty())
        return QStringLiteral("user \"%1\" needs a password").arg(o.user);
    if (o.user.isEmpty() && !o.password.isEmpty())
        return QStringLiteral("a password needs a user name");
    if (o.connectTimeout < 1ms || o.requestTimeout < 1ms)
        return QStringLiteral("connectTimeout and requestTimeout must be at least 1ms");
    if (!o.tls && (!o.caFile.isEmpty() || !o.certFile.isEmpty() || !o.keyFile.isEmpty()))
        return QStringLiteral("cacert, cert and key need TLS (etcds://)");
    if (o.certFile.isEmpty() != o.keyFile.isEmpty())
        return QStringLiteral("cert and key go together");
    return {};
}

QJsonObject compareCreate(const QByteArray &key, const char *result, qint64 revision)
{
    return {{QStringLiteral("key"), J::bytes(key)},
            {QStringLiteral("target"), QStringLiteral("CREATE")},
            {QStringLiteral("result"), QLatin1String(result)},
            {QStringLiteral("create_revision"), J::number(revision)}};
}

QJsonObject op(const char *kind, const QJsonObject &request)
{
    return {{QLatin1String(kind), request}};
}

QJsonObject put(const QByteArray &key, const QByteArray &value, qint64 lease)
{
    return op("request_put", {{QStringLiteral("key"), J::bytes(key)},
                              {QStringLiteral("value"), J::bytes(value)},
                              {QStringLiteral("lease"), J::number(lease)}});
}

QJsonObject txn(const QJsonArray &compare, const QJsonArray &success, const QJsonArray &failure = {})
{
    return {{QStringLiteral("compare"), compare},
            {QStringLiteral("success"), success},
            {QStringLiteral("failure"), failure}};
}

Millis ttlMillis(qint64 ttl)
{
    return duration_cast<Millis>(std::chrono::seconds(std::max<qint64>(ttl, 0)));
}

QJsonObject compareMod(const QByteArray &key, qint64 revision)
{
    return {{QStringLiteral("key"), J::bytes(key)},
            {QStringLiteral("target"), QStringLiteral("MOD")},
            {QStringLiteral("result"), QStringLiteral("EQUAL")},
            {QStringLiteral("mod_revision"), J::number(revision)}};
}

QJsonObject rangeOf(const QByteArray &key)
{
    return op("request_range", {{QStringLiteral("key"), J::bytes(key)}});
}

// The first key-value of a range response inside a transaction's responses (empty: none).
QJsonObject firstKv(const QJsonValue &response)
{
    return response.toObject().value(QLatin1String("response_range")).toObject()
        .value(QLatin1String("kvs")).toArray().at(0).toObject();
}

qint64 revisionOf(const QJsonObject &body)
{
    return J::integer(body.value(QLatin1String("header")).toObject().value(QLatin1String("revision")));
}

/*
 * How far the token floor moves when the store went back to an earlier revision (a restored
 * snapshot): 2^40 revisions, more than etcd writes in years (at 50 000 writes a second, its
 * top rate, 254 days), so every token handed out after the snapshot was taken stays below
 * the next one; 2^63 holds eight million such moves.
 */
constexpr qint64 FloorStep = qint64(1) << 40;
constexpr int MaxAttempts = 4;
} // namespace

struct QSimbaEtcdLeaseBackend::Private
{
    Private(const Options &o, const QString &d)
        : options(o), description(d), base(o.prefix.toUtf8() + '/'), connection(o, d)
    {
    }

    QByteArray sessionKey(const QString &id) const { return base + "s/" + id.toUtf8(); }
    QByteArray leaseKey(const QSimbaLeaseName &name) const { return base + "l/" + name.toString().toUtf8(); }
    QByteArray groupPrefix(const QString &group) const { return base + "g/" + group.toUtf8() + '/'; }
    //! The lease name of a key under "l/"; none for other keys (or one not written by QSimba).
    std::optional<QSimbaLeaseName> leaseNameOf(const QByteArray &key) const
    {
        const QByteArray leases = base + "l/";
        if (!key.startsWith(leases))
            return std::nullopt;
        const QString name = QString::fromUtf8(key.mid(leases.size()));
        if (!QSimbaLeaseName::validate(name).isEmpty())
            return std::nullopt;
        return QSimbaLeaseName::of(name);
    }

    //! The etcd lease of \a session; none for an id that no etcd lease has (never a session here).
    static std::optional<qint64> leaseOf(const QSimbaSessionId &session)
    {
        const QString id = session.toString();
        if (id.size() != 16)
            return std::nullopt;
        bool ok = false;
        const quint64 value = id.toULongLong(&ok, 16);
        if (!ok || value == 0 || id != idOf(qint64(value)))
            return std::nullopt;
        return qint64(value);
    }
    static QString idOf(qint64 lease) { return QStringLiteral("%1").arg(quint64(lease), 16, 16, QLatin1Char('0')); }

    QSimbaSessionId sessionOf(const QByteArray &id) const
    {
        try {
            return QSimbaSessionId::of(QString::fromUtf8(id));
        } catch (const QSimbaInvalidArgumentError &e) {
            throw QSimbaBackendError(description + QStringLiteral(": unexpected session id: ") + e.message());
        }
    }
    [[noreturn]] void sessionExpired(const QSimbaSessionId &session) const
    {
        throw QSimbaSessionExpiredError(QStringLiteral("%1: session %2 has expired").arg(description, session.toString()));
    }
    //! The TTL etcd reports for \a lease: whole seconds left (truncated), -1 once it is gone.
    qint64 timeToLive(qint64 lease, QJsonArray *keys = nullptr)
    {
        const QJsonObject body = connection.call("/v3/lease/timetolive",
                                                 {{QStringLiteral("ID"), J::number(lease)},
                                                  {QStringLiteral("keys"), keys != nullptr}},
                                                 QStringLiteral("lease time-to-live"));
        if (keys)
            *keys = body.value(QLatin1String("keys")).toArray();
        return J::integer(body.value(QLatin1String("TTL")));
    }
    QJsonArray range(const QByteArray &prefix, bool keysOnly)
    {
        const QJsonObject body = connection.call("/v3/kv/range",
                                                 {{QStringLiteral("key"), J::bytes(prefix)},
                                                  {QStringLiteral("range_end"), J::bytes(J::prefixEnd(prefix))},
                                                  {QStringLiteral("keys_only"), keysOnly}},
                                                 QStringLiteral("range"));
        return body.value(QLatin1String("kvs")).toArray();
    }

    // ---- Tokens across a restored snapshot (docs/backend-etcd.md, "Tokens") ----------
    // A token is a create revision plus the prefix's token floor (the key "floor", absent:
    // 0). The key "epoch" records the raft applied index and term etcd reported when a
    // session last opened. A restored snapshot takes etcd back to an earlier revision, and
    // its raft log starts again near index 0: a member that applied fewer entries than the
    // epoch records, is in an earlier term, or answers a revision below one this instance
    // already saw, was restored, and the floor moves up by FloorStep, above every token
    // handed out before.
    QByteArray floorKey() const { return base + "floor"; }
    QByteArray epochKey() const { return base + "epoch"; }

    //! Remembers the revision of a write's or a linearizable read's answer; true when it is
    //! below one seen before: the store went back (or the answer is stale: checkEpoch() tells).
    bool observe(const QJsonObject &body)
    {
        const qint64 revision = revisionOf(body);
        const bool back = revision > 0 && revision < highestRevision;
        highestRevision = std::max(highestRevision, revision);
        return back;
    }

    //! Reads the floor and the epoch, asks the member for its raft progress, moves the floor
    //! up if the store was restored, and records the progress in the epoch. Three requests.
    void checkEpoch()
    {
        for (int attempt = 0; attempt < MaxAttempts; ++attempt) {
            const QJsonObject read = connection.call("/v3/kv/txn", txn({}, {rangeOf(floorKey()), rangeOf(epochKey())}),
                                                     QStringLiteral("reading the token floor"));
            const QJsonObject status = connection.call("/v3/maintenance/status", {}, QStringLiteral("status"));
            const QJsonArray reads = read.value(QLatin1String("responses")).toArray();
            const QJsonObject floorKv = firstKv(reads.at(0)), epochKv = firstKv(reads.at(1));
            const qint64 floorRevision = J::integer(floorKv.value(QLatin1String("mod_revision")));
            const qint64 epochRevision = J::integer(epochKv.value(QLatin1String("mod_revision")));
            const qint64 storedFloor = J::bytesOf(floorKv.value(QLatin1String("value"))).toLongLong();
            const QJsonObject epoch = QJsonDocument::fromJson(J::bytesOf(epochKv.value(QLatin1String("value")))).object();
            const qint64 applied = J::integer(status.value(QLatin1String("raftAppliedIndex")));
            const qint64 term = J::integer(status.value(QLatin1String("raftTerm")));
            const auto memberOf = [](const QJsonObject &body) {
                return body.value(QLatin1String("header")).toObject().value(QLatin1String("member_id")).toString();
            };
            const qint64 revision = revisionOf(read);
            // The read is linearizable: the member applied the epoch's write before
            // answering, so in one history its progress is at least the recorded one.
            const bool restored = epochRevision > 0 && memberOf(read) == memberOf(status)
                && (applied < J::integer(epoch.value(QLatin1String("applied")))
                    || term < J::integer(epoch.value(QLatin1String("term"))));
            // A revision below one this instance saw, while nobody moved the floor since.
            const bool wentBack = revision < highestRevision && floorRevision == floorRevisionSeen;
            qint64 next = storedFloor;
            if (restored || wentBack)
                next = std::max(storedFloor, floor) + std::max(FloorStep, highestRevision - revision + 1);
            const QJsonObject progress{{QStringLiteral("applied"), J::number(applied)},
                                       {QStringLiteral("term"), J::number(term)}};
            const QJsonObject epochPut = put(epochKey(), QJsonDocument(progress).toJson(QJsonDocument::Compact), 0);
            // The epoch only records progress: written as it is (a concurrent writer's older
            // figures lower the mark a little, nothing more). Moving the floor is a
            // compare-and-swap: one move per restore, and a client that lost the race reads
            // the winner's floor and epoch and adopts them.
            const QJsonObject written = next == storedFloor
                ? connection.call("/v3/kv/txn", txn({}, {epochPut}), QStringLiteral("writing the epoch"))
                : connection.call("/v3/kv/txn",
                                  txn({compareMod(floorKey(), floorRevision)},
                                      {epochPut, put(floorKey(), QByteArray::number(next), 0)}),
                                  QStringLiteral("moving the token floor"));
            if (!written.value(QLatin1String("succeeded")).toBool())
                continue; // another client moved the floor meanwhile: judge again
            if (next != storedFloor) {
                qCWarning(lcSimbaEtcd).noquote()
                    << description << "went back to an earlier state (a restored snapshot?): tokens continue above" << next;
                highestRevision = revisionOf(written); // the history before is gone
                floorRevisionSeen = revisionOf(written);
            } else {
                if (floorRevision != floorRevisionSeen && floorRevisionSeen >= 0)
                    highestRevision = 0; // another client moved the floor past the history before
                observe(written);
                floorRevisionSeen = floorRevision;
            }
            floor = next;
            return;
        }
        floorContended();
    }

    [[noreturn]] void floorContended() const
    {
        throw QSimbaBackendError(description + QStringLiteral(": the token floor kept changing; tried %1 times")
                                                   .arg(MaxAttempts));
    }

    //! The floor's revision this instance knows; checks the epoch first when it knows none.
    qint64 knownFloorRevision()
    {
        if (floorRevisionSeen < 0)
            checkEpoch();
        return floorRevisionSeen;
    }

    Options options;
    QString description;
    QByteArray base;
    QSimbaEtcdConnection connection;
    qint64 floor = 0;              // added to create revisions: the tokens' floor
    qint64 floorRevisionSeen = -1; // the floor key's mod revision (0: absent); -1: not read yet
    qint64 highestRevision = 0;    // the highest revision a write or read answered
};

/*!
    A backend on the etcd cluster \a options name. Does not connect: the first call does.
    Throws QSimbaInvalidArgumentError naming a bad option.
*/
QSimbaEtcdLeaseBackend::QSimbaEtcdLeaseBackend(const Options &options)
    : d(std::make_unique<Private>(options, describeOptions(options)))
{
    if (const QString error = validateOptions(options); !error.isEmpty())
        throw QSimbaInvalidArgumentError(
            QStringLiteral("invalid etcd options for %1: %2").arg(describeOptions(options), error));
}

QSimbaEtcdLeaseBackend::~QSimbaEtcdLeaseBackend() = default;

/*! The options this backend was built with (the password included). */
QSimbaEtcdLeaseBackend::Options QSimbaEtcdLeaseBackend::options() const
{
    return d->options;
}

QString QSimbaEtcdLeaseBackend::currentEndpoint() const
{
    return d->connection.currentEndpoint();
}

QSimbaLeaseBackend::Capabilities QSimbaEtcdLeaseBackend::capabilities() const
{
    return {true, true, true};
}

QString QSimbaEtcdLeaseBackend::describe() const
{
    return d->description;
}

/*!
    Grants an etcd lease of \a lease rounded up to whole seconds (etcd raises it to its
    minimum TTL) and writes the session's metadata under it; the session id is the lease id.
    Two requests. The grant's remaining is the TTL etcd granted.
*/
QSimbaLeaseBackend::SessionGrant QSimbaEtcdLeaseBackend::openSession(Millis lease, const QMap<QString, QString> &metadata)
{
    validateLease(lease);
    const qint64 ttl = std::max<qint64>(1, (lease.count() + 999) / 1000);
    const QJsonObject grant = d->connection.call("/v3/lease/grant", {{QStringLiteral("TTL"), J::number(ttl)}},
                                                 QStringLiteral("lease grant"));
    const qint64 id = J::integer(grant.value(QLatin1String("ID")));
    const qint64 granted = J::integer(grant.value(QLatin1String("TTL")));
    if (id == 0 || granted <= 0)
        throw QSimbaBackendError(d->description + QStringLiteral(": lease grant answered no lease"));
    const QString session = Private::idOf(id);
    try {
        d->checkEpoch(); // a new session: the moment to notice a restored snapshot
    } catch (const QSimbaBackendError &) {
        try { // best effort: the lease expires on its own otherwise
            d->connection.request("/v3/lease/revoke", {{QStringLiteral("ID"), J::number(id)}});
        } catch (const QSimbaBackendError &e) {
            qCDebug(lcSimbaEtcd) << "revoking the unused lease failed:" << e.message();
        }
        throw;
    }
    QJsonObject meta;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        meta.insert(it.key(), it.value());
    const QByteArray value = QJsonDocument(QJsonObject{{QStringLiteral("metadata"), meta}}).toJson(QJsonDocument::Compact);
    const QJsonObject body = put(d->sessionKey(session), value, id).value(QLatin1String("request_put")).toObject();
    const auto reply = d->connection.request("/v3/kv/put", body);
    d->observe(reply.body);
    if (!reply.ok()) {
        try { // best effort: the lease expires on its own otherwise
            d->connection.request("/v3/lease/revoke", {{QStringLiteral("ID"), J::number(id)}});
        } catch (const QSimbaBackendError &e) {
            qCDebug(lcSimbaEtcd) << "revoking the unused lease failed:" << e.message();
        }
        throw QSimbaBackendError(QStringLiteral("%1: writing session %2 failed: %3").arg(d->description, session, reply.error));
    }
    qCDebug(lcSimbaEtcd) << "opened session" << session << "with a TTL of" << granted << "s";
    return {QSimbaSessionId::of(session), ttlMillis(granted)};
}

/*!
    Renews \a session's etcd lease (to the TTL granted when it opened; \a lease is only
    validated: etcd cannot change a lease's TTL) and lists the lease names attached to it.
    Expired when etcd no longer has the lease. Two requests.
*/
QSimbaLeaseBackend::KeepAliveResult QSimbaEtcdLeaseBackend::keepAlive(const QSimbaSessionId &session, Millis lease,
                                                                       const QSet<QSimbaLeaseName> &)
{
    validateLease(lease);
    const auto id = Private::leaseOf(session);
    if (!id)
        return KeepAliveResult::expired();
    const auto renewed = d->connection.request("/v3/lease/keepalive", {{QStringLiteral("ID"), J::number(*id)}});
    if (!renewed.ok()) {
        if (renewed.code == NotFound)
            return KeepAliveResult::expired();
        throw QSimbaBackendError(QStringLiteral("%1: lease keep-alive failed: %2").arg(d->description, renewed.error));
    }
    const QJsonObject result = renewed.body.value(QLatin1String("result")).toObject();
    const qint64 ttl = J::integer(result.value(QLatin1String("TTL")));
    if (ttl <= 0)
        return KeepAliveResult::expired();
    // The leader answers keep-alives with its revision: one below what this instance saw
    // is a hint of a restored snapshot, which checkEpoch() confirms (or not).
    if (const qint64 revision = revisionOf(result); revision > 0 && revision < d->highestRevision)
        d->checkEpoch();
    QJsonArray keys;
    if (d->timeToLive(*id, &keys) < 0)
        return KeepAliveResult::expired();
    const QByteArray own = d->sessionKey(session.toString());
    bool isSession = false;
    QSet<QSimbaLeaseName> owned;
    for (const auto &k : std::as_const(keys)) {
        const QByteArray key = J::bytesOf(k);
        if (key == own)
            isSession = true;
        else if (const auto name = d->leaseNameOf(key))
            owned.insert(*name);
    }
    if (!isSession) // an etcd lease, but no session of this prefix
        return KeepAliveResult::expired();
    return KeepAliveResult::live(ttlMillis(ttl), owned);
}

/*!
    One transaction: if \a session's key still exists, one nested transaction per name puts
    the name's key (attached to the session's lease) when its create revision is 0, or reads
    the holder otherwise. A granted token is the revision of that put, the key's create
    revision; a HeldBy carries the holder's TTL (one more request per holder).
*/
QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaEtcdLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    validateBatch(names);
    QHash<QSimbaLeaseName, AcquireResult> results;
    const auto id = Private::leaseOf(session);
    if (!id)
        d->sessionExpired(session);
    const QList<QSimbaLeaseName> order(names.cbegin(), names.cend());
    const QByteArray self = session.toString().toUtf8();
    QJsonArray perName;
    for (const auto &name : order) {
        const QByteArray key = d->leaseKey(name);
        perName.append(op("request_txn",
                          txn({compareCreate(key, "EQUAL", 0)}, {put(key, self, *id)},
                              {op("request_range", {{QStringLiteral("key"), J::bytes(key)}})})));
    }
    // The floor must be the one this instance knows: a floor moved meanwhile (by a client
    // that saw a restored snapshot) is read, and the acquire made again.
    QJsonObject body;
    for (int attempt = 0;; ++attempt) {
        const qint64 floorRevision = d->knownFloorRevision();
        body = d->connection.call("/v3/kv/txn",
                                  txn({compareCreate(d->sessionKey(session.toString()), "GREATER", 0),
                                       compareMod(d->floorKey(), floorRevision)},
                                      perName, {rangeOf(d->floorKey())}),
                                  QStringLiteral("acquire"));
        if (body.value(QLatin1String("succeeded")).toBool())
            break;
        const qint64 seen = J::integer(firstKv(body.value(QLatin1String("responses")).toArray().at(0))
                                           .value(QLatin1String("mod_revision")));
        if (seen == floorRevision)
            d->sessionExpired(session);
        if (attempt + 1 >= MaxAttempts)
            d->floorContended();
        d->checkEpoch();
    }
    if (d->observe(body))
        d->checkEpoch(); // went back: the grants below count from the floor it settles
    const qint64 floor = d->floor;
    const QJsonArray responses = body.value(QLatin1String("responses")).toArray();
    if (responses.size() != order.size())
        throw QSimbaBackendError(d->description + QStringLiteral(": acquire answered %1 results for %2 names")
                                     .arg(responses.size()).arg(order.size()));
    const qint64 revision = J::integer(body.value(QLatin1String("header")).toObject().value(QLatin1String("revision")));
    QHash<qint64, qint64> ttls; // holder lease -> TTL, asked once per holder
    for (qsizetype i = 0; i < order.size(); ++i) {
        const QJsonObject inner = responses.at(i).toObject().value(QLatin1String("response_txn")).toObject();
        if (inner.value(QLatin1String("succeeded")).toBool()) {
            results.insert(order[i], AcquireResult::granted(revision + floor));
            continue;
        }
        const QJsonObject kv = inner.value(QLatin1String("responses")).toArray().at(0).toObject()
                                   .value(QLatin1String("response_range")).toObject()
                                   .value(QLatin1String("kvs")).toArray().at(0).toObject();
        const qint64 created = J::integer(kv.value(QLatin1String("create_revision")));
        const qint64 token = created + floor;
        const QByteArray holder = J::bytesOf(kv.value(QLatin1String("value")));
        if (created <= 0 || holder.isEmpty())
            throw QSimbaBackendError(d->description + QStringLiteral(": acquire read no holder of ") + order[i].toString());
        if (holder == self) {
            results.insert(order[i], AcquireResult::granted(token));
            continue;
        }
        const qint64 lease = J::integer(kv.value(QLatin1String("lease")));
        if (!ttls.contains(lease))
            ttls.insert(lease, d->timeToLive(lease));
        results.insert(order[i], AcquireResult::heldBy(d->sessionOf(holder), token, ttlMillis(ttls.value(lease))));
    }
    return results;
}

/*!
    One transaction: each name's key is deleted if its value is \a session and its create
    revision the given token; anything else is left alone.
*/
void QSimbaEtcdLeaseBackend::release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases)
{
    if (leases.isEmpty())
        return;
    const QString self = J::bytes(session.toString().toUtf8());
    QJsonArray perName;
    for (auto it = leases.cbegin(); it != leases.cend(); ++it) {
        // A token of the floor before a move no longer matches: that release is stale, and
        // the key goes with its session (or the engine's release of an orphan).
        const qint64 created = it.value() - d->floor;
        if (created <= 0)
            continue;
        const QByteArray key = d->leaseKey(it.key());
        const QJsonObject sameHolder{{QStringLiteral("key"), J::bytes(key)},
                                     {QStringLiteral("target"), QStringLiteral("VALUE")},
                                     {QStringLiteral("result"), QStringLiteral("EQUAL")},
                                     {QStringLiteral("value"), self}};
        perName.append(op("request_txn",
                          txn({sameHolder, compareCreate(key, "EQUAL", created)},
                              {op("request_delete_range", {{QStringLiteral("key"), J::bytes(key)}})})));
    }
    if (!perName.isEmpty())
        d->observe(d->connection.call("/v3/kv/txn", txn({}, perName), QStringLiteral("release")));
}

/*! Revokes \a session's etcd lease: etcd deletes every key attached to it. Idempotent. */
void QSimbaEtcdLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    const auto id = Private::leaseOf(session);
    if (!id)
        return;
    const auto reply = d->connection.request("/v3/lease/revoke", {{QStringLiteral("ID"), J::number(*id)}});
    if (!reply.ok() && reply.code != NotFound)
        throw QSimbaBackendError(QStringLiteral("%1: closing session %2 failed: %3")
                                     .arg(d->description, session.toString(), reply.error));
}

/*! Puts the membership key, attached to \a session's lease, if the session still exists. */
void QSimbaEtcdLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    const auto id = Private::leaseOf(session);
    if (!id)
        d->sessionExpired(session);
    const QByteArray self = session.toString().toUtf8();
    const QJsonObject body = d->connection.call(
        "/v3/kv/txn",
        txn({compareCreate(d->sessionKey(session.toString()), "GREATER", 0)}, {put(d->groupPrefix(group) + self, self, *id)}),
        QStringLiteral("join"));
    if (!body.value(QLatin1String("succeeded")).toBool())
        d->sessionExpired(session);
}

/*! Deletes the membership key (a no-op when \a session is no member). */
void QSimbaEtcdLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    d->connection.call("/v3/kv/deleterange",
                       {{QStringLiteral("key"), J::bytes(d->groupPrefix(group) + session.toString().toUtf8())}},
                       QStringLiteral("leave"));
}

/*! The sessions whose membership key exists (etcd deleted those of ended sessions), sorted. */
QList<QSimbaSessionId> QSimbaEtcdLeaseBackend::members(const QString &group)
{
    validateGroup(group);
    const QByteArray prefix = d->groupPrefix(group);
    QList<QSimbaSessionId> result;
    for (const auto &kv : d->range(prefix, true))
        result.append(d->sessionOf(J::bytesOf(kv.toObject().value(QLatin1String("key"))).mid(prefix.size())));
    std::sort(result.begin(), result.end());
    return result;
}

/*!
    Hints from a watch on the prefix, on a thread and connection of the subscription's own;
    \a listener is called on that thread. Returns at once; destroying the subscription ends
    the watch at once, or within the request timeouts while it is in a request.
*/
std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaEtcdLeaseBackend::subscribe(HintListener listener)
{
    return std::make_unique<QSimbaEtcdWatch>(d->options, d->description, d->base, std::move(listener));
}

/*!
    Everything under the prefix in one range request, and each live session's TTL (one
    request per session): sessions with metadata, leases with holder, token and the holder's
    remaining TTL, and non-empty groups.
*/
QSimbaLeaseBackend::Inspection QSimbaEtcdLeaseBackend::inspect()
{
    Inspection view;
    QHash<QString, Millis> remaining;
    QMap<QString, QList<QSimbaSessionId>> groups;
    const QByteArray sessions = d->base + "s/", memberships = d->base + "g/";
    const QJsonArray kvs = d->range(d->base, false);
    qint64 floor = 0;
    for (const auto &item : kvs) {
        const QJsonObject kv = item.toObject();
        const QByteArray key = J::bytesOf(kv.value(QLatin1String("key")));
        if (key == d->floorKey())
            floor = J::bytesOf(kv.value(QLatin1String("value"))).toLongLong();
        if (!key.startsWith(sessions))
            continue;
        const QString id = QString::fromUtf8(key.mid(sessions.size()));
        const qint64 ttl = d->timeToLive(J::integer(kv.value(QLatin1String("lease"))));
        if (ttl < 0)
            continue; // expired since the range
        QMap<QString, QString> metadata;
        const QJsonObject value = QJsonDocument::fromJson(J::bytesOf(kv.value(QLatin1String("value")))).object();
        const QJsonObject meta = value.value(QLatin1String("metadata")).toObject();
        for (auto it = meta.begin(); it != meta.end(); ++it)
            metadata.insert(it.key(), it.value().toString());
        remaining.insert(id, ttlMillis(ttl));
        view.sessions.append({d->sessionOf(id.toUtf8()), ttlMillis(ttl), metadata});
    }
    for (const auto &item : kvs) {
        const QJsonObject kv = item.toObject();
        const QByteArray key = J::bytesOf(kv.value(QLatin1String("key")));
        if (const auto name = d->leaseNameOf(key)) {
            const QString holder = QString::fromUtf8(J::bytesOf(kv.value(QLatin1String("value"))));
            if (!remaining.contains(holder))
                continue;
            view.leases.append({*name, d->sessionOf(holder.toUtf8()),
                                J::integer(kv.value(QLatin1String("create_revision"))) + floor, remaining.value(holder)});
        } else if (key.startsWith(memberships)) {
            const QByteArray rest = key.mid(memberships.size());
            const qsizetype slash = rest.lastIndexOf('/');
            if (slash <= 0 || !remaining.contains(QString::fromUtf8(rest.mid(slash + 1))))
                continue;
            groups[QString::fromUtf8(rest.left(slash))].append(d->sessionOf(rest.mid(slash + 1)));
        }
    }
    for (auto it = groups.begin(); it != groups.end(); ++it) {
        std::sort(it->begin(), it->end());
        view.groups.append({it.key(), *it});
    }
    std::sort(view.sessions.begin(), view.sessions.end(), [](auto &a, auto &b) { return a.id < b.id; });
    std::sort(view.leases.begin(), view.leases.end(), [](auto &a, auto &b) { return a.name < b.name; });
    return view;
}
