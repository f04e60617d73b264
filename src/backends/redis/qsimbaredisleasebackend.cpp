// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredisleasebackend.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredact.h"
#include "qsimbaredisconnection_p.h"
#include "qsimbaredishintsubscription_p.h"
#include "qsimbaredislogging_p.h"
#include "qsimbaredisscripts_p.h"

#include <hiredis/hiredis.h>

#include <QtCore/QRegularExpression>
#include <QtCore/QScopeGuard>
#include <QtCore/QUrlQuery>

/*!
    \class QSimbaRedisLeaseBackend
    \brief Leases in Redis 7 through hiredis: one Lua script per SPI call, on the server's
    clock, with Pub/Sub hints.

    Every SPI call runs one script (EVALSHA; loaded with SCRIPT LOAD when the server answers
    NOSCRIPT) that reads the server's TIME, so every expiry is judged and every remaining
    duration measured on the server. All keys start with "{prefix}:", one hash tag: a Redis
    Cluster keeps them in one slot, so one shard carries the whole load.

    Tokens never reset, even when Redis loses its data: a new token is
    max(last token + 1, server TIME in microseconds). After a loss of data (the store's
    epoch is missing, or another server run answers), no lease is granted for
    Options::maxLease, so a term handed out before the loss has ended before its name is
    granted again; acquire answers HeldBy(recoveringHolder()) meanwhile.

    A broken connection is re-established on the next call (a call on a connection that
    broke since the last call is retried once on a new one: every script is idempotent).
    Every failure throws QSimbaBackendError naming the server and the cause; connecting and
    each command are bounded by Options::connectTimeout and Options::commandTimeout.

    Not thread-safe: one thread calls one instance at a time (any thread, each call after the
    previous one returned); the calls block.

    The Redis backend: leases in a Redis 7 server, reached through hiredis. Every SPI call
    is one Lua script judged on the server's clock (TIME); all keys share one hash tag.
    Hints arrive through Pub/Sub on a second connection. See docs/backend-redis.md.

    One instance is used by one thread at a time: the engine's "simba-backend" thread, or a
    caller blocked for the call's answer (Capabilities::anyThread). Hint listeners run on
    the subscription's own thread.
*/

using namespace std::chrono;
using Millis = QSimbaLeaseBackend::Millis;
namespace R = QSimbaRedisReplies;

// An error reply that sends the call elsewhere (see movesAway()); eval() tries again.
class QSimbaRedisMovedError : public QSimbaBackendError
{
public:
    using QSimbaBackendError::QSimbaBackendError;
};

class QSimbaRedisLeaseBackendPrivate
{
public:
    QSimbaRedisLeaseBackendPrivate(const QSimbaRedisLeaseBackend::Options &o, const QString &d)
        : options(o), description(d), base('{' + o.prefix.toUtf8() + "}:"),
          epochKey(base + "epoch"), channel(base + "hints"), marksChannel(base + "waitmarks"), connection(o, d)
    {
    }

    QSimbaRedisReply evalOnce(QSimbaRedisScripts::Id script, const QList<QByteArray> &args);
    QSimbaRedisReply eval(QSimbaRedisScripts::Id script, const QList<QByteArray> &args);
    QSimbaSessionId sessionOf(const redisReply *reply) const;
    void recovering(const QByteArray &why, Millis remaining);
    [[noreturn]] void sessionExpired(const QSimbaSessionId &session) const;
    QByteArray leaseArg(Millis lease) const
    {
        return QByteArray::number(qint64(std::min(lease, options.maxLease).count()));
    }

    QSimbaRedisLeaseBackend::Options options;
    QString description;
    QByteArray base;
    QByteArray epochKey;
    QByteArray channel;
    QByteArray marksChannel; // subscribed by clients whose waits mark the lease (see release)
    QSimbaRedisConnection connection;
    QByteArray toldWhy; // the recovery reason last logged (empty after a grant)
};

namespace {
// Error replies that say "not here" or "not now" about the node rather than about the call:
// the connection is dropped (a new one re-resolves the host name) and the call tried again.
bool movesAway(const QByteArray &error)
{
    for (const char *code : {"MOVED ", "READONLY", "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN"})
        if (error.startsWith(code))
            return true;
    return false;
}
} // namespace

QSimbaRedisReply QSimbaRedisLeaseBackendPrivate::evalOnce(QSimbaRedisScripts::Id script,
                                                          const QList<QByteArray> &args)
{
    QList<QByteArray> command{QByteArrayLiteral("EVALSHA"), QSimbaRedisScripts::sha(script),
                              QByteArrayLiteral("1"), epochKey, base,
                              QByteArray::number(qint64(options.maxLease.count()))};
    command.append(args);
    auto reply = connection.command(command);
    QByteArray error = QSimbaRedisConnection::errorOf(reply.get());
    if (error.startsWith("NOSCRIPT")) {
        const auto loaded = connection.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"),
                                                QSimbaRedisScripts::body(script)});
        error = QSimbaRedisConnection::errorOf(loaded.get());
        if (error.isEmpty()) {
            qCDebug(lcSimbaRedis) << "loaded script" << QSimbaRedisScripts::name(script) << "into" << description;
            reply = connection.command(command);
            error = QSimbaRedisConnection::errorOf(reply.get());
        }
    }
    if (error.isEmpty())
        return reply;
    const QString failed = QStringLiteral("%1: %2 failed: %3")
                               .arg(description, QLatin1String(QSimbaRedisScripts::name(script)), QString::fromUtf8(error));
    if (!movesAway(error))
        throw QSimbaBackendError(failed);
    // "MOVED <slot> <host>:<port>": a Redis Cluster moved the prefix's slot to another node.
    const QList<QByteArray> moved = error.split(' ');
    if (error.startsWith("MOVED ") && moved.size() == 3) {
        const qsizetype colon = moved[2].lastIndexOf(':');
        const QString host = QString::fromUtf8(moved[2].left(colon));
        const int port = moved[2].mid(colon + 1).toInt();
        if (colon > 0 && port > 0 && port < 65536) {
            qCInfo(lcSimbaRedis) << description << "redirected to" << QSimbaRedact::hostPort(host, port) << "by" << error;
            connection.redirect(host, quint16(port));
        } else {
            connection.disconnect();
        }
    } else {
        qCInfo(lcSimbaRedis) << description << "answered" << error << "- reconnecting";
        connection.disconnect();
    }
    throw QSimbaRedisMovedError(failed);
}

/*!
    Runs \a script within one deadline, connectTimeout + commandTimeout for the whole call.
    A connection that broke since the last call (a server restart, an idle disconnect) is
    replaced and the script sent once more: every script is idempotent. So is a node that
    answers MOVED (followed to the node it names), READONLY (demoted by a failover),
    LOADING, MASTERDOWN, CLUSTERDOWN or TRYAGAIN: the connection is dropped and the call
    tried again on a new one, whose host name is resolved again. A timeout is not retried.
*/
QSimbaRedisReply QSimbaRedisLeaseBackendPrivate::eval(QSimbaRedisScripts::Id script, const QList<QByteArray> &args)
{
    connection.setDeadline(QDeadlineTimer(options.connectTimeout + options.commandTimeout));
    const auto reset = qScopeGuard([this] { connection.setDeadline(QDeadlineTimer::Forever); });
    for (int attempt = 0;; ++attempt) {
        const bool reused = connection.isConnected();
        try {
            return evalOnce(script, args);
        } catch (const QSimbaRedisMovedError &e) {
            if (attempt >= 2)
                throw QSimbaBackendError(e.message());
            qCDebug(lcSimbaRedis) << "retrying on a new connection after:" << e.message();
        } catch (const QSimbaBackendError &e) {
            if (attempt > 0 || !reused || connection.isConnected() || connection.lastFailureTimedOut())
                throw;
            qCDebug(lcSimbaRedis) << "retrying on a new connection after:" << e.message();
        }
    }
}

QSimbaSessionId QSimbaRedisLeaseBackendPrivate::sessionOf(const redisReply *reply) const
{
    const QString id = R::text(reply, description);
    try {
        return QSimbaSessionId::of(id);
    } catch (const QSimbaInvalidArgumentError &e) {
        throw QSimbaBackendError(description + QStringLiteral(": unexpected session id: ") + e.message());
    }
}

/*!
    Says once, as a warning, why the recovery guard holds back grants and for how long: a
    first-time user sees at once that nothing hangs.
*/
void QSimbaRedisLeaseBackendPrivate::recovering(const QByteArray &why, Millis remaining)
{
    if (why == toldWhy)
        return;
    toldWhy = why;
    const QString maxLease = QSimbaDuration::format(options.maxLease);
    QString reason;
    if (why == "new")
        reason = QStringLiteral("the prefix is new, but the server started less than maxLease (%1) ago: a restart "
                                "may have lost leases that are still held")
                     .arg(maxLease);
    else if (why == "lost")
        reason = QStringLiteral("the prefix has no data on the server, and the server lost data since it started "
                                "(FLUSHALL/FLUSHDB, DEBUG RELOAD, RESTORE, an eviction, a replica promoted, or "
                                "CONFIG RESETSTAT hides whether it did): leases lost with it may still be held");
    else if (why == "reload")
        reason = QStringLiteral("the server replaced its data since the prefix was last used (DEBUG RELOAD, "
                                "FLUSHALL/FLUSHDB, SWAPDB, RESTORE, REPLICAOF, or CONFIG RESETSTAT hides whether it "
                                "did): leases lost with its data may still be held");
    else
        reason = QStringLiteral("the server restarted or failed over since the prefix was last used: leases lost "
                                "with its data may still be held");
    qCWarning(lcSimbaRedis, "%s: prefix %s: no lease is granted for %s (the recovery guard): %s",
              qPrintable(description), qPrintable(options.prefix),
              qPrintable(QSimbaDuration::format(remaining)), qPrintable(reason));
}

void QSimbaRedisLeaseBackendPrivate::sessionExpired(const QSimbaSessionId &session) const
{
    throw QSimbaSessionExpiredError(
        QStringLiteral("%1: session %2 has expired").arg(description, session.toString()));
}

/*! The URL of these options, the password shown as \c{***}; reentrant. */
QString QSimbaRedisLeaseBackend::Options::toRedactedUrl() const
{
    const Options &o = *this;
    QString userInfo;
    if (!o.user.isEmpty())
        userInfo = o.user + QLatin1Char(':') + QSimbaRedact::Mask + QLatin1Char('@');
    else if (!o.password.isEmpty())
        userInfo = QLatin1Char(':') + QSimbaRedact::Mask + QLatin1Char('@');
    QString result = QStringLiteral("redis://") + userInfo + QSimbaRedact::hostPort(o.host, o.port)
        + QLatin1Char('/') + QString::number(o.database);
    if (o.prefix != QLatin1String("simba"))
        result += QStringLiteral("?prefix=") + o.prefix;
    return result;
}

namespace {

// Empty when \a o is usable, else what is wrong with it.
QString validateOptions(const QSimbaRedisLeaseBackend::Options &o)
{
    static const QRegularExpression prefixRule(QStringLiteral("^[A-Za-z0-9._:-]{1,64}$"));
    if (o.host.isEmpty())
        return QStringLiteral("host is empty");
    if (o.port == 0)
        return QStringLiteral("port must be 1-65535, got 0");
    if (o.database < 0)
        return QStringLiteral("database must be >= 0, got %1").arg(o.database);
    if (!prefixRule.match(o.prefix).hasMatch())
        return QStringLiteral("prefix must be 1-64 characters of [A-Za-z0-9._:-], got \"%1\"").arg(o.prefix);
    if (!o.user.isEmpty() && o.password.isEmpty())
        return QStringLiteral("user \"%1\" needs a password").arg(o.user);
    const std::pair<const char *, milliseconds> durations[] = {
        {"connectTimeout", o.connectTimeout}, {"commandTimeout", o.commandTimeout}, {"maxLease", o.maxLease}};
    for (const auto &[name, value] : durations)
        if (value < 1ms)
            return QStringLiteral("%1 must be at least 1ms, got %2ms").arg(QLatin1String(name)).arg(value.count());
    return {};
}
} // namespace

/*!
    A backend on the server \a options name. Does not connect: the first call does. Throws
    QSimbaInvalidArgumentError naming a bad option (empty host, port 0, negative database,
    a prefix outside 1-64 of [A-Za-z0-9._:-], a user without password, a duration under 1ms).
*/
QSimbaRedisLeaseBackend::QSimbaRedisLeaseBackend(const Options &options)
    : d_ptr(std::make_unique<QSimbaRedisLeaseBackendPrivate>(options, options.toRedactedUrl()))
{
    if (const QString error = validateOptions(options); !error.isEmpty())
        throw QSimbaInvalidArgumentError(QStringLiteral("invalid Redis options for %1: %2")
                                             .arg(options.toRedactedUrl(), error));
}

QSimbaRedisLeaseBackend::~QSimbaRedisLeaseBackend() = default;

/*!
    Parses a backend URL, "redis://[user:password@]host[:port][/db][?options]" with the
    options prefix (default simba), connectTimeout, commandTimeout (default 2s each) and
    maxLease (default 30s); durations are a number and a unit (ns, us, ms, s, m, h). Throws
    QSimbaInvalidArgumentError naming what is wrong and the URL with its password redacted.
*/
QSimbaRedisLeaseBackend::Options QSimbaRedisLeaseBackend::parseUrl(const QUrl &url)
{
    const QString shown = QSimbaRedact::url(url);
    const auto bad = [&](const QString &why) {
        throw QSimbaInvalidArgumentError(
            QStringLiteral("invalid Redis URL %1: %2").arg(shown.isEmpty() ? QStringLiteral("(empty)") : shown, why));
    };
    if (!url.isValid()) // only the reason: the rest of QUrl's message quotes the password
        bad(url.errorString().section(QLatin1Char(';'), 0, 0));
    if (url.scheme() == QLatin1String("rediss"))
        bad(QStringLiteral("TLS (rediss://) is not supported: hiredis 0.14 has no TLS; reach the server through a "
                           "TLS tunnel such as stunnel or spiped on localhost (see docs/backend-redis.md)"));
    if (url.scheme() != QLatin1String("redis"))
        bad(QStringLiteral("the scheme must be \"redis\", got \"%1\"").arg(url.scheme()));
    if (url.host().isEmpty())
        bad(QStringLiteral("no host"));
    if (url.hasFragment()) // the fragment may be the tail of a password with a '#': not quoted
        bad(QStringLiteral("unexpected fragment (#…); a '#' in a password must be written %23"));
    Options o;
    o.host = url.host();
    if (url.port() == 0)
        bad(QStringLiteral("port must be 1-65535, got 0"));
    o.port = quint16(url.port(6379));
    const QString path = url.path();
    if (!path.isEmpty() && path != QLatin1String("/")) {
        static const QRegularExpression dbRule(QStringLiteral("^/(\\d{1,9})$"));
        const auto m = dbRule.match(path);
        if (!m.hasMatch())
            bad(QStringLiteral("the path must be a database number like /0, got \"%1\"").arg(path));
        o.database = m.captured(1).toInt();
    }
    o.user = url.userName(QUrl::FullyDecoded);
    o.password = url.password(QUrl::FullyDecoded);
    if (!o.user.isEmpty() && o.password.isEmpty())
        bad(QStringLiteral("user \"%1\" needs a password").arg(o.user));

    QSet<QString> seen;
    const auto items = QUrlQuery(url).queryItems(QUrl::FullyDecoded);
    for (const auto &[key, value] : items) {
        if (seen.contains(key))
            bad(QStringLiteral("option %1 is given twice").arg(key));
        seen.insert(key);
        if (key == QLatin1String("prefix")) {
            o.prefix = value;
            continue;
        }
        milliseconds *target = key == QLatin1String("connectTimeout") ? &o.connectTimeout
            : key == QLatin1String("commandTimeout")                  ? &o.commandTimeout
            : key == QLatin1String("maxLease")                        ? &o.maxLease
                                                                      : nullptr;
        if (!target)
            bad(QStringLiteral("unknown option \"%1\" (known: prefix, connectTimeout, commandTimeout, maxLease)")
                    .arg(key));
        const auto parsed = QSimbaDuration::parse(value);
        if (!parsed || *parsed < 1ms)
            bad(QStringLiteral("option %1 must be a duration of at least 1ms like 2s or 500ms, got \"%2\"")
                    .arg(key, value));
        *target = duration_cast<milliseconds>(*parsed);
    }
    if (const QString error = validateOptions(o); !error.isEmpty())
        bad(error);
    return o;
}

/*! As parseUrl(const QUrl &), for \a url as text. */
QSimbaRedisLeaseBackend::Options QSimbaRedisLeaseBackend::parseUrl(const QString &url)
{
    return parseUrl(QUrl(url, QUrl::StrictMode));
}

/*! Builds a backend from \a url (see parseUrl()); does not connect. */
std::unique_ptr<QSimbaRedisLeaseBackend> QSimbaRedisLeaseBackend::fromUrl(const QUrl &url)
{
    return std::make_unique<QSimbaRedisLeaseBackend>(parseUrl(url));
}

/*! As fromUrl(const QUrl &), for \a url as text. */
std::unique_ptr<QSimbaRedisLeaseBackend> QSimbaRedisLeaseBackend::fromUrl(const QString &url)
{
    return std::make_unique<QSimbaRedisLeaseBackend>(parseUrl(url));
}

/*! The options this backend was built with (the password included). */
QSimbaRedisLeaseBackend::Options QSimbaRedisLeaseBackend::options() const
{
    return d_ptr->options;
}

/*!
    The holder that acquire's HeldBy names while the server recovers from a loss of its data
    (or on the first use of a prefix): no session has this id. Its holderRemaining is the
    time left until leases are granted again.
*/
QSimbaSessionId QSimbaRedisLeaseBackend::recoveringHolder()
{
    static const QSimbaSessionId id = QSimbaSessionId::of(QStringLiteral("redis.recovering"));
    return id;
}

QSimbaLeaseBackend::Capabilities QSimbaRedisLeaseBackend::capabilities() const
{
    Capabilities caps{true, true, true};
    // The connection is a blocking hiredis context and plain members, no QObject or thread
    // state: any thread may use it, one call at a time. Each call ends within one deadline
    // (eval()), whatever it retries.
    caps.anyThread = true;
    caps.callBound = d_ptr->options.connectTimeout + d_ptr->options.commandTimeout;
    return caps;
}

QString QSimbaRedisLeaseBackend::describe() const
{
    return d_ptr->description;
}

/*!
    Opens a session with a new random id that lives \a lease (shortened to
    Options::maxLease, which the grant's remaining then shows) unless kept alive. Blocks for
    one script; throws QSimbaInvalidArgumentError for a lease under 1ms, QSimbaBackendError
    when the server fails.
*/
QSimbaLeaseBackend::SessionGrant QSimbaRedisLeaseBackend::openSession(Millis lease,
                                                                      const QMap<QString, QString> &metadata)
{
    validateLease(lease);
    const auto id = QSimbaSessionId::generate();
    QList<QByteArray> args{id.toString().toUtf8(), d_ptr->leaseArg(lease)};
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        args << it.key().toUtf8() << it.value().toUtf8();
    const auto reply = d_ptr->eval(QSimbaRedisScripts::Open, args);
    return {id, Millis(R::integer(reply.get(), d_ptr->description))};
}

/*!
    Extends \a session by \a lease (at most Options::maxLease) from the server's now and
    lists every lease it owns; Expired once its time ran out or it was closed (ending it).
    Blocks for one script; throws QSimbaBackendError when the server fails.
*/
QSimbaLeaseBackend::KeepAliveResult QSimbaRedisLeaseBackend::keepAlive(const QSimbaSessionId &session,
                                                                        Millis lease, const QSet<QSimbaLeaseName> &)
{
    validateLease(lease);
    const QString &server = d_ptr->description;
    const auto reply = d_ptr->eval(QSimbaRedisScripts::KeepAlive,
                                   {session.toString().toUtf8(), d_ptr->leaseArg(lease)});
    if (R::integer(R::element(reply.get(), 0, server), server) != 1)
        return KeepAliveResult::expired();
    QSet<QSimbaLeaseName> owned;
    const size_t n = R::size(reply.get(), server);
    for (size_t i = 2; i < n; ++i)
        owned.insert(QSimbaLeaseName::of(R::text(R::element(reply.get(), i, server), server)));
    return KeepAliveResult::live(Millis(R::integer(R::element(reply.get(), 1, server), server)), owned);
}

/*!
    Grants every free name (a name whose holder's session expired is free). While the
    server recovers from a loss of its data, a free name answers
    HeldBy(recoveringHolder(), last token, time left until grants resume).
*/
QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaRedisLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    validateBatch(names);
    QHash<QSimbaLeaseName, AcquireResult> results;
    if (names.isEmpty())
        return results;
    const QString &server = d_ptr->description;
    const QList<QSimbaLeaseName> order(names.cbegin(), names.cend());
    QList<QByteArray> args{session.toString().toUtf8()};
    for (const auto &name : order)
        args.append(name.toString().toUtf8());
    const auto reply = d_ptr->eval(QSimbaRedisScripts::Acquire, args);
    if (R::integer(R::element(reply.get(), 0, server), server) != 1)
        d_ptr->sessionExpired(session);
    if (R::size(reply.get(), server) != size_t(1 + 4 * order.size()))
        throw QSimbaBackendError(server + QStringLiteral(": acquire answered a reply of the wrong size"));
    for (qsizetype i = 0; i < order.size(); ++i) {
        const auto at = [&](int field) { return R::element(reply.get(), size_t(1 + 4 * i + field), server); };
        const qint64 token = R::integer(at(1), server);
        if (R::integer(at(0), server) == 1) {
            d_ptr->toldWhy.clear();
            results.insert(order[i], AcquireResult::granted(token));
            continue;
        }
        const QByteArray holder = R::string(at(2), server);
        const Millis remaining(R::integer(at(3), server));
        if (holder.startsWith('!')) {
            d_ptr->recovering(holder.mid(1), remaining);
            results.insert(order[i], AcquireResult::heldBy(recoveringHolder(), token, remaining));
        } else {
            results.insert(order[i], AcquireResult::heldBy(d_ptr->sessionOf(at(2)), token, remaining));
        }
    }
    return results;
}

/*!
    Frees each lease that \a session still owns with exactly the given token (anything else
    is a no-op) and publishes Released for it if somebody waits for it (an acquire answered
    HeldBy since it was granted) or a client too old to say so listens. Blocks for one script.
*/
void QSimbaRedisLeaseBackend::release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases)
{
    if (leases.isEmpty())
        return;
    QList<QByteArray> args{session.toString().toUtf8()};
    for (auto it = leases.cbegin(); it != leases.cend(); ++it)
        args << it.key().toString().toUtf8() << QByteArray::number(it.value());
    d_ptr->eval(QSimbaRedisScripts::Release, args);
}

/*! Ends \a session now: frees its leases and memberships (with hints). Idempotent. */
void QSimbaRedisLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    d_ptr->eval(QSimbaRedisScripts::Close, {session.toString().toUtf8()});
}

/*! Adds \a session to \a group; throws QSimbaSessionExpiredError if the session ended. */
void QSimbaRedisLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    const auto reply = d_ptr->eval(QSimbaRedisScripts::Join, {session.toString().toUtf8(), group.toUtf8()});
    if (R::integer(reply.get(), d_ptr->description) != 1)
        d_ptr->sessionExpired(session);
}

/*! Removes \a session from \a group (a no-op when it is not a member). */
void QSimbaRedisLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    d_ptr->eval(QSimbaRedisScripts::Leave, {session.toString().toUtf8(), group.toUtf8()});
}

/*! The live sessions of \a group, sorted; ends the expired sessions it finds there. */
QList<QSimbaSessionId> QSimbaRedisLeaseBackend::members(const QString &group)
{
    validateGroup(group);
    const auto reply = d_ptr->eval(QSimbaRedisScripts::Members, {group.toUtf8()});
    QList<QSimbaSessionId> result;
    const size_t n = R::size(reply.get(), d_ptr->description);
    for (size_t i = 0; i < n; ++i)
        result.append(d_ptr->sessionOf(R::element(reply.get(), i, d_ptr->description)));
    std::sort(result.begin(), result.end());
    return result;
}

/*!
    Hints from Pub/Sub on a connection and thread of the subscription's own; \a listener is
    called on that thread. A lost connection is re-established (resubscribing) with backoff.
    Returns at once; destroying the subscription blocks until its thread ended (at most the
    connect timeout, while it is connecting).
*/
std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaRedisLeaseBackend::subscribe(HintListener listener)
{
    return std::make_unique<QSimbaRedisHintSubscription>(d_ptr->options, d_ptr->description, d_ptr->channel,
                                                         d_ptr->marksChannel, std::move(listener));
}

/*! The live sessions (with metadata), the leases of live sessions and the non-empty groups. */
QSimbaLeaseBackend::Inspection QSimbaRedisLeaseBackend::inspect()
{
    const QString &server = d_ptr->description;
    const auto reply = d_ptr->eval(QSimbaRedisScripts::Inspect, {});
    const auto *sessions = R::element(reply.get(), 0, server);
    const auto *leases = R::element(reply.get(), 1, server);
    const auto *groups = R::element(reply.get(), 2, server);
    Inspection result;
    for (size_t i = 0; i < R::size(sessions, server); ++i) {
        const auto *s = R::element(sessions, i, server);
        const auto *meta = R::element(s, 2, server);
        QMap<QString, QString> metadata;
        for (size_t j = 0; j + 1 < R::size(meta, server); j += 2)
            metadata.insert(R::text(R::element(meta, j, server), server), R::text(R::element(meta, j + 1, server), server));
        result.sessions.append({d_ptr->sessionOf(R::element(s, 0, server)),
                                Millis(R::integer(R::element(s, 1, server), server)), metadata});
    }
    for (size_t i = 0; i < R::size(leases, server); ++i) {
        const auto *l = R::element(leases, i, server);
        result.leases.append({QSimbaLeaseName::of(R::text(R::element(l, 0, server), server)),
                              d_ptr->sessionOf(R::element(l, 1, server)), R::integer(R::element(l, 2, server), server),
                              Millis(R::integer(R::element(l, 3, server), server))});
    }
    for (size_t i = 0; i < R::size(groups, server); ++i) {
        const auto *g = R::element(groups, i, server);
        const auto *ids = R::element(g, 1, server);
        QList<QSimbaSessionId> members;
        for (size_t j = 0; j < R::size(ids, server); ++j)
            members.append(d_ptr->sessionOf(R::element(ids, j, server)));
        std::sort(members.begin(), members.end());
        result.groups.append({R::text(R::element(g, 0, server), server), members});
    }
    std::sort(result.sessions.begin(), result.sessions.end(), [](auto &a, auto &b) { return a.id < b.id; });
    std::sort(result.leases.begin(), result.leases.end(), [](auto &a, auto &b) { return a.name < b.name; });
    std::sort(result.groups.begin(), result.groups.end(), [](auto &a, auto &b) { return a.name < b.name; });
    return result;
}
