// SPDX-License-Identifier: Apache-2.0
#include "qsimbazookeeperconnection_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaresolver_p.h"
#include "qsimbazookeeperbatch_p.h"
#include "qsimbazookeeperhints_p.h"
#include "qsimbazookeeperlogging_p.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QRegularExpression>
#include <QtCore/QStringList>

/*!
    \class QSimbaZookeeperConnection
    \internal
    \brief The zhandle_t of one backend, connected on demand; the error choke point.
*/

namespace {
// The C client's log callback carries no context: keep its recent lines, so that a failed
// connect can name the cause the client saw ("Connection refused").
QMutex logMutex;
QStringList &recentLog()
{
    static QStringList lines;
    return lines;
}

QString stateName(int state)
{
    if (state == ZOO_CONNECTED_STATE)
        return QStringLiteral("connected");
    if (state == ZOO_CONNECTING_STATE)
        return QStringLiteral("connecting");
    if (state == ZOO_ASSOCIATING_STATE)
        return QStringLiteral("associating");
    if (state == ZOO_EXPIRED_SESSION_STATE)
        return QStringLiteral("session expired");
    if (state == ZOO_AUTH_FAILED_STATE)
        return QStringLiteral("authentication failed");
    if (state == ZOO_READONLY_STATE)
        return QStringLiteral("read-only");
    return QStringLiteral("not connected");
}
} // namespace

QSimbaZookeeperConnection::QSimbaZookeeperConnection(const Options &options,
                                                     std::shared_ptr<QSimbaZookeeperHints> hints)
    : m_options(options), m_description(options.toRedactedUrl()), m_hints(std::move(hints)),
      m_state(std::make_unique<State>())
{
    m_state->hints = m_hints.get();
    // CreatorRead: everything for the authenticated creator, reading for anyone.
    m_creatorReadAcl = {{ZOO_PERM_ALL, ZOO_AUTH_IDS}, {ZOO_PERM_READ, ZOO_ANYONE_ID_UNSAFE}};
    m_creatorRead.count = int(m_creatorReadAcl.size());
    m_creatorRead.data = m_creatorReadAcl.data();
    m_clockAcl = {{ZOO_PERM_ALL, ZOO_AUTH_IDS}, {ZOO_PERM_READ | ZOO_PERM_WRITE, ZOO_ANYONE_ID_UNSAFE}};
    m_clock.count = int(m_clockAcl.size());
    m_clock.data = m_clockAcl.data();
}

QSimbaZookeeperConnection::~QSimbaZookeeperConnection() = default;

QSimbaZookeeperConnection::Call::Call(QSimbaZookeeperConnection &connection)
    : m_connection(connection), m_outer(!connection.m_inCall)
{
    if (m_outer) {
        m_connection.m_inCall = true;
        m_connection.m_callDeadline = QDeadlineTimer(m_connection.m_options.timeout);
    }
}

QSimbaZookeeperConnection::Call::~Call()
{
    if (m_outer)
        m_connection.m_inCall = false;
}

QDeadlineTimer QSimbaZookeeperConnection::deadline() const
{
    return m_inCall ? m_callDeadline : QDeadlineTimer(m_options.timeout);
}

void QSimbaZookeeperConnection::Closer::operator()(zhandle_t *zh) const
{
    // Joins the C client's threads and answers pending completions with ZCLOSING.
    zookeeper_close(zh);
}

const ACL_vector *QSimbaZookeeperConnection::acl() const
{
    switch (m_options.acl) {
    case QSimbaZookeeperLeaseBackend::Acl::Creator:
        return &ZOO_CREATOR_ALL_ACL;
    case QSimbaZookeeperLeaseBackend::Acl::CreatorRead:
        return &m_creatorRead;
    case QSimbaZookeeperLeaseBackend::Acl::Open:
        break;
    }
    return &ZOO_OPEN_ACL_UNSAFE;
}

const ACL_vector *QSimbaZookeeperConnection::clockAcl() const
{
    return m_options.acl == QSimbaZookeeperLeaseBackend::Acl::Open ? &ZOO_OPEN_ACL_UNSAFE : &m_clock;
}

QString QSimbaZookeeperConnection::path(const QString &relative) const
{
    return m_options.basePath + QLatin1Char('/') + relative;
}

void QSimbaZookeeperConnection::watcher(zhandle_t *zh, int type, int state, const char *, void *context)
{
    if (type != ZOO_SESSION_EVENT)
        return;
    auto *s = static_cast<State *>(context);
    bool ready;
    {
        QMutexLocker lock(&s->mutex);
        s->state = state;
        ready = s->ready;
        s->changed.wakeAll();
    }
    // A reconnect: watches whose re-arming failed while the connection was down are armed
    // again (asynchronously: nothing here blocks the C client's thread).
    if (state == ZOO_CONNECTED_STATE && ready)
        s->hints->arm(zh);
}

void QSimbaZookeeperConnection::log(const char *message)
{
    const QString line = QString::fromUtf8(message).trimmed();
    qCDebug(lcSimbaZookeeper, "zookeeper client: %s", qPrintable(line));
    QMutexLocker lock(&logMutex);
    auto &lines = recentLog();
    lines.append(line);
    if (lines.size() > 32)
        lines.removeFirst();
}

[[noreturn]] void QSimbaZookeeperConnection::raise(int rc, const QString &what) const
{
    QString cause;
    switch (rc) {
    case ZCONNECTIONLOSS:
        cause = QStringLiteral("connection lost");
        break;
    case ZOPERATIONTIMEOUT:
        cause = QStringLiteral("no answer within %1ms").arg(m_options.timeout.count());
        break;
    case ZSESSIONEXPIRED:
        cause = QStringLiteral("the ZooKeeper session expired (a new one is made on the next call)");
        break;
    case ZNOAUTH:
        cause = QStringLiteral("not authorized (check the digest credentials and the ACL)");
        break;
    case ZAUTHFAILED:
        cause = QStringLiteral("authentication failed");
        break;
    case ZNONODE:
        cause = QStringLiteral("no such node");
        break;
    case ZINVALIDSTATE:
    case ZCLOSING:
        cause = QStringLiteral("the connection is closed");
        break;
    default:
        cause = QString::fromUtf8(zerror(rc));
        break;
    }
    throw QSimbaBackendError(QStringLiteral("%1: %2 failed: %3 (ZooKeeper error %4)")
                                 .arg(m_description, what, cause)
                                 .arg(rc));
}

zhandle_t *QSimbaZookeeperConnection::connectedHandle()
{
    if (!m_handle)
        return nullptr;
    QMutexLocker lock(&m_state->mutex);
    return m_state->state == ZOO_CONNECTED_STATE ? m_handle.get() : nullptr;
}

zhandle_t *QSimbaZookeeperConnection::handle()
{
    {
        QMutexLocker lock(&m_state->mutex);
        const bool connected = m_handle && m_state->state == ZOO_CONNECTED_STATE;
        lock.unlock();
        if (connected && m_preparing)
            return m_handle.get();
        if (connected && m_ready) {
            m_hints->arm(m_handle.get()); // repairs a watch lost to a dropped connection
            return m_handle.get();
        }
    }
    const QDeadlineTimer deadline = this->deadline();
    for (int attempt = 0;; ++attempt) {
        if (m_handle) {
            const int state = zoo_state(m_handle.get());
            if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE || is_unrecoverable(m_handle.get())) {
                qCInfo(lcSimbaZookeeper, "%s: ZooKeeper session lost (%s): making a new one",
                       qPrintable(m_description), qPrintable(stateName(state)));
                m_hints->disarm();
                m_handle.reset();
            }
        }
        if (!m_handle)
            connect();
        QMutexLocker lock(&m_state->mutex);
        while (m_state->state != ZOO_CONNECTED_STATE && m_state->state != ZOO_AUTH_FAILED_STATE
               && m_state->state != ZOO_EXPIRED_SESSION_STATE) {
            if (!m_state->changed.wait(&m_state->mutex, deadline))
                break;
        }
        const int state = m_state->state;
        lock.unlock();
        if (state == ZOO_CONNECTED_STATE)
            break;
        // A session that expired while we waited is replaced at once, within the deadline.
        if (state != ZOO_EXPIRED_SESSION_STATE || attempt > 0 || deadline.hasExpired())
            throw QSimbaBackendError(connectError(state));
    }
    if (!m_ready) {
        // Once per handle; the guard lets ensureLayout() use this handle itself.
        m_preparing = true;
        try {
            ensureLayout();
        } catch (...) {
            m_preparing = false;
            throw;
        }
        m_preparing = false;
        m_ready = true;
        {
            QMutexLocker lock(&m_state->mutex);
            m_state->ready = true;
        }
        m_hints->arm(m_handle.get());
    }
    return m_handle.get();
}

// The last error the C client logged about one of our hosts ("Connection refused").
QString QSimbaZookeeperConnection::lastClientError() const
{
    static const QRegularExpression error(QStringLiteral("ZOO_ERROR@[^@]*@\\d+: (.*)$"));
    QStringList hosts = m_options.hosts.split(QLatin1Char(','));
    for (const QString &address : std::as_const(m_addresses))
        hosts.append(address);
    QMutexLocker lock(&logMutex);
    for (auto it = recentLog().crbegin(); it != recentLog().crend(); ++it) {
        const auto match = error.match(*it);
        if (match.hasMatch() && std::any_of(hosts.cbegin(), hosts.cend(), [&](const QString &h) { return it->contains(h); }))
            return match.captured(1);
    }
    return {};
}

/*!
    The hosts as the C client takes them: each name resolved here, within the call's
    deadline (the C client resolves synchronously, without a bound), and IPv6 addresses
    without brackets ("::1:2181": the client splits at the last colon). Hosts that do not
    resolve are left out while one does; throws QSimbaBackendError when none does.
*/
QString QSimbaZookeeperConnection::resolvedHosts()
{
    const QDeadlineTimer by = deadline();
    QStringList out, errors;
    m_addresses.clear();
    for (const QString &entry : m_options.hosts.split(QLatin1Char(','))) {
        const qsizetype colon = entry.lastIndexOf(QLatin1Char(':'));
        QString host = entry.left(colon);
        const QString port = entry.mid(colon + 1);
        if (host.startsWith(QLatin1Char('[')) && host.endsWith(QLatin1Char(']')))
            host = host.mid(1, host.size() - 2);
        const auto resolved = QSimbaResolver::resolve(host, std::chrono::milliseconds(std::max<qint64>(1, by.remainingTime())));
        if (resolved.addresses.isEmpty())
            errors.append(resolved.error);
        for (const QString &address : resolved.addresses) {
            out.append(address + QLatin1Char(':') + port);
            m_addresses.append(address);
        }
    }
    if (out.isEmpty())
        throw QSimbaBackendError(QStringLiteral("%1: cannot connect: %2").arg(m_description, errors.join(QLatin1String("; "))));
    if (!errors.isEmpty())
        qCWarning(lcSimbaZookeeper, "%s: %s; using the other hosts", qPrintable(m_description),
                  qPrintable(errors.join(QLatin1String("; "))));
    return out.join(QLatin1Char(','));
}

QString QSimbaZookeeperConnection::connectError(int state) const
{
    const QString seen = lastClientError();
    QString message = QStringLiteral("%1: cannot connect within %2ms (%3)")
                          .arg(m_description)
                          .arg(m_options.timeout.count())
                          .arg(stateName(state));
    if (!seen.isEmpty())
        message += QStringLiteral("; last client error: ") + seen;
    return message;
}

void QSimbaZookeeperConnection::connect()
{
    {
        QMutexLocker lock(&m_state->mutex);
        m_state->state = ZOO_CONNECTING_STATE;
        m_state->ready = false;
    }
    const QByteArray hosts = resolvedHosts().toUtf8();
    zhandle_t *zh = zookeeper_init2(hosts.constData(), watcher, int(m_options.sessionTimeout.count()), nullptr,
                                    m_state.get(), 0, log);
    if (!zh) {
        const QString cause = QString::fromLocal8Bit(strerror(errno));
        const QString seen = lastClientError();
        throw QSimbaBackendError(QStringLiteral("%1: cannot create a ZooKeeper client: %2")
                                     .arg(m_description, seen.isEmpty() ? cause : seen));
    }
    m_handle.reset(zh);
    m_ready = false;
    // The hosts are addresses (resolvedHosts()), resolved again for every new handle. By
    // default the C client resolves its host list again each time its IO thread polls the
    // socket: a getaddrinfo() with a netlink dump of the machine's interfaces per request
    // sent and per answer received. -1 keeps the routine resolutions off; a connection loss
    // still resolves (the addresses are numeric: no DNS).
    zoo_set_servers_resolution_delay(zh, -1);
    if (!m_options.digest.isEmpty()) {
        const QByteArray credentials = m_options.digest.toUtf8();
        const int rc = zoo_add_auth(zh, "digest", credentials.constData(), int(credentials.size()), nullptr, nullptr);
        if (rc != ZOK)
            raise(rc, QStringLiteral("adding digest credentials"));
    }
}

// Creates the base path and its fixed children when missing (checking first, so that a
// client allowed only to read can still work on an existing layout).
void QSimbaZookeeperConnection::ensureLayout()
{
    QStringList paths;
    QString prefix;
    for (const auto &part : m_options.basePath.split(QLatin1Char('/'), Qt::SkipEmptyParts)) {
        prefix += QLatin1Char('/') + part;
        paths.append(prefix);
    }
    const qsizetype ancestors = paths.size() - 1; // shared parents like /apps of /apps/simba
    for (const char *child : {"sessions", "leases", "groups", "waiters", "clock"})
        paths.append(path(QString::fromLatin1(child)));
    QSimbaZookeeperBatch probe(*this);
    for (const auto &p : paths)
        probe.exists(p);
    probe.wait();
    QSimbaZookeeperBatch create(*this);
    bool any = false;
    for (int i = 0; i < paths.size(); ++i) {
        if (probe[i].rc == ZNONODE) {
            // Parents above the base path are shared with other applications: they get the
            // open ACL (they hold no data), so that other identities can create beside us.
            create.create(paths[i], {}, i == paths.size() - 1 ? clockAcl() : i < ancestors ? &ZOO_OPEN_ACL_UNSAFE : acl());
            any = true;
        }
    }
    if (any)
        create.wait();
}
