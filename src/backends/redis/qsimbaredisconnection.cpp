// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredisconnection_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredact.h"
#include "qsimbaredislogging_p.h"
#include "qsimbaresolver_p.h"

#include <hiredis/hiredis.h>

#include <QtCore/QVarLengthArray>

#include <cerrno>
#include <cstring>

#include <poll.h>

/*!
    \class QSimbaRedisConnection
    \internal
    \brief A blocking hiredis connection with typed errors; reconnects on demand.
*/

void QSimbaRedisReplyDeleter::operator()(redisReply *reply) const
{
    freeReplyObject(reply);
}

void QSimbaRedisContextDeleter::operator()(redisContext *context) const
{
    redisFree(context);
}

namespace {
timeval toTimeval(std::chrono::milliseconds d)
{
    timeval tv;
    tv.tv_sec = time_t(d.count() / 1000);
    tv.tv_usec = suseconds_t((d.count() % 1000) * 1000);
    return tv;
}
} // namespace

QSimbaRedisConnection::QSimbaRedisConnection(const Options &options, const QString &description)
    : m_options(options), m_description(description)
{
}

QSimbaRedisConnection::~QSimbaRedisConnection() = default;

int QSimbaRedisConnection::socket() const
{
    return m_context ? m_context->fd : -1;
}

void QSimbaRedisConnection::disconnect()
{
    m_context.reset();
}

void QSimbaRedisConnection::redirect(const QString &host, quint16 port)
{
    m_redirectHost = host;
    m_redirectPort = port;
    m_context.reset();
}

QString QSimbaRedisConnection::target() const
{
    return m_redirectHost.isEmpty() ? QSimbaRedact::hostPort(m_options.host, m_options.port)
                                    : QSimbaRedact::hostPort(m_redirectHost, m_redirectPort);
}

QDeadlineTimer QSimbaRedisConnection::within(std::chrono::milliseconds limit) const
{
    const QDeadlineTimer own(limit);
    return m_deadline.isForever() || own.deadlineNSecs() < m_deadline.deadlineNSecs() ? own : m_deadline;
}

bool QSimbaRedisConnection::waitFor(short events, QDeadlineTimer by) const
{
    pollfd p{m_context->fd, events, 0};
    for (;;) {
        const qint64 left = by.remainingTime(); // -1: forever
        const int rc = ::poll(&p, 1, left < 0 ? -1 : int(std::min<qint64>(left, 1 << 30)));
        if (rc > 0)
            return true;
        if (rc == 0)
            return false;
        if (errno != EINTR)
            return true; // let the read or write report the error
    }
}

/*!
    The choke point: turns the context's error into a QSimbaBackendError naming the server,
    \a what was attempted and the cause, and drops the (now unusable) connection.
*/
void QSimbaRedisConnection::fail(const QString &what)
{
    QString cause = QStringLiteral("connection lost");
    m_timedOut = false;
    if (m_context && m_context->err) {
        const bool timedOut = m_timedOut = m_context->err == REDIS_ERR_IO
            && (std::strcmp(m_context->errstr, std::strerror(EAGAIN)) == 0
                || std::strcmp(m_context->errstr, std::strerror(EWOULDBLOCK)) == 0);
        cause = timedOut ? QStringLiteral("no answer within the command timeout (%1)")
                               .arg(QSimbaDuration::format(m_options.commandTimeout))
                         : QString::fromLocal8Bit(m_context->errstr);
    }
    m_context.reset();
    if (!m_redirectHost.isEmpty()) {
        cause += QStringLiteral(" (at %1, where the server redirected; the next call goes to %2 again)")
                     .arg(target(), QSimbaRedact::hostPort(m_options.host, m_options.port));
        m_redirectHost.clear();
    }
    const QString message = m_description + QStringLiteral(": ") + what + QStringLiteral(": ") + cause;
    qCDebug(lcSimbaRedis) << message;
    throw QSimbaBackendError(message);
}

// A wait that ended at \a by: the command timeout, or the call's deadline if that came first.
void QSimbaRedisConnection::timeOut(const QString &what, QDeadlineTimer by)
{
    const bool call = !m_deadline.isForever() && by.deadlineNSecs() == m_deadline.deadlineNSecs();
    m_context.reset();
    m_timedOut = true;
    const QString message = m_description + QStringLiteral(": ") + what + QStringLiteral(": ")
        + (call ? QStringLiteral("no answer within the call's time limit (connectTimeout + commandTimeout = %1)")
                      .arg(QSimbaDuration::format(m_options.connectTimeout + m_options.commandTimeout))
                : QStringLiteral("no answer within the command timeout (%1)")
                      .arg(QSimbaDuration::format(m_options.commandTimeout)));
    if (!m_redirectHost.isEmpty())
        m_redirectHost.clear();
    qCDebug(lcSimbaRedis) << message;
    throw QSimbaBackendError(message);
}

/*!
    Resolves the host and connects (both within connectTimeout and the call's deadline),
    authenticates (AUTH user password, or AUTH password) and selects the database, unless
    already connected. Blocks; throws QSimbaBackendError naming the server and the cause.
*/
void QSimbaRedisConnection::ensureConnected()
{
    if (m_context)
        return;
    const QDeadlineTimer connectBy = within(m_options.connectTimeout);
    const QString host = m_redirectHost.isEmpty() ? m_options.host : m_redirectHost;
    const int port = m_redirectHost.isEmpty() ? m_options.port : m_redirectPort;
    const auto resolved = QSimbaResolver::resolve(host, std::chrono::milliseconds(std::max<qint64>(1, connectBy.remainingTime())));
    if (resolved.addresses.isEmpty()) {
        m_redirectHost.clear();
        throw QSimbaBackendError(m_description + QStringLiteral(": cannot connect: ") + resolved.error);
    }
    // Each address in turn (IPv4 first), all within connectTimeout.
    for (const QString &candidate : resolved.addresses) {
        const qint64 left = connectBy.remainingTime();
        if (left == 0)
            timeOut(QStringLiteral("cannot connect to %1").arg(QSimbaRedact::hostPort(host, port)), connectBy);
        const QByteArray address = candidate.toUtf8();
        m_context.reset(redisConnectWithTimeout(address.constData(), port, toTimeval(std::chrono::milliseconds(left))));
        if (m_context && !m_context->err)
            break;
        if (candidate != resolved.addresses.constLast())
            qCDebug(lcSimbaRedis) << "cannot connect to" << candidate << "of" << host << "- trying the next address";
    }
    if (!m_context || m_context->err)
        fail(QStringLiteral("cannot connect within %1").arg(QSimbaDuration::format(m_options.connectTimeout)));
    if (redisSetTimeout(m_context.get(), toTimeval(m_options.commandTimeout)) != REDIS_OK)
        fail(QStringLiteral("cannot set the command timeout"));
    if (!m_options.password.isEmpty()) {
        QList<QByteArray> auth{QByteArrayLiteral("AUTH")};
        if (!m_options.user.isEmpty())
            auth.append(m_options.user.toUtf8());
        auth.append(m_options.password.toUtf8());
        const auto reply = command(auth);
        if (const QByteArray error = errorOf(reply.get()); !error.isEmpty()) {
            m_context.reset();
            throw QSimbaBackendError(QStringLiteral("%1: authentication as %2 failed: %3")
                                         .arg(m_description,
                                              m_options.user.isEmpty() ? QStringLiteral("default") : m_options.user,
                                              QString::fromUtf8(error)));
        }
    }
    if (m_options.database != 0) {
        const auto reply = command({QByteArrayLiteral("SELECT"), QByteArray::number(m_options.database)});
        if (const QByteArray error = errorOf(reply.get()); !error.isEmpty()) {
            m_context.reset();
            throw QSimbaBackendError(QStringLiteral("%1: cannot select database %2: %3")
                                         .arg(m_description).arg(m_options.database).arg(QString::fromUtf8(error)));
        }
    }
    qCDebug(lcSimbaRedis) << "connected to" << m_description << "at" << target();
}

void QSimbaRedisConnection::send(const QList<QByteArray> &args)
{
    ensureConnected();
    QVarLengthArray<const char *, 16> argv;
    QVarLengthArray<size_t, 16> argvlen;
    for (const auto &a : args) {
        argv.append(a.constData());
        argvlen.append(size_t(a.size()));
    }
    if (redisAppendCommandArgv(m_context.get(), int(args.size()), argv.data(), argvlen.data()) != REDIS_OK)
        fail(QStringLiteral("cannot send %1").arg(QString::fromUtf8(args.value(0))));
    limitNextReply();
}

// The time limit of the next reply: the command timeout, or the call's deadline if earlier
// (none for a subscriber without a read timeout, but the call's).
void QSimbaRedisConnection::limitNextReply()
{
    if (m_noReadTimeout) {
        m_commandBy = m_deadline;
        m_socketBounds = m_deadline.isForever(); // SO_RCVTIMEO 0: a read waits forever
        return;
    }
    const QDeadlineTimer own(m_options.commandTimeout);
    m_socketBounds = m_deadline.isForever() || own.deadlineNSecs() <= m_deadline.deadlineNSecs();
    m_commandBy = m_socketBounds ? own : m_deadline;
}

/*!
    Flushes what send() queued and waits for the next reply, each wait ending by the
    command's time limit (the command timeout, or the call's deadline if earlier): a server
    that answers slowly, byte by byte, or not at all fails here, dropping the connection.

    While that limit is the command timeout itself, the socket's own timeouts (SO_SNDTIMEO
    and SO_RCVTIMEO, set to the command timeout when connecting) end a blocking write and
    the first blocking read as poll() would: a command is one write and one read, as a
    plain redisCommand(), instead of a poll() before each. Only the waits after a partial
    reply, and every wait under a call's deadline that ends first, go through poll(). (The
    write cannot block in practice: one small command is in flight at a time, on a socket
    whose send queue the last complete reply acknowledged.)
*/
QSimbaRedisReply QSimbaRedisConnection::read()
{
    if (!m_context)
        fail(QStringLiteral("read"));
    const QDeadlineTimer by = m_commandBy;
    // A write bounded by the socket's timeout only while that is the command's limit; a
    // write is skipped when nothing is queued (a subscriber's next message).
    bool writable = m_socketBounds;
    for (int done = 0; !done;) {
        if (!writable && !waitFor(POLLOUT, by))
            timeOut(QStringLiteral("cannot send"), by);
        writable = false;
        if (redisBufferWrite(m_context.get(), &done) != REDIS_OK)
            fail(QStringLiteral("cannot send"));
    }
    void *reply = nullptr;
    if (redisGetReplyFromReader(m_context.get(), &reply) != REDIS_OK)
        fail(QStringLiteral("no reply"));
    // The first read blocks, bounded by SO_RCVTIMEO, if that ends by the command's limit
    // (give or take the write's microseconds: within 1ms of it).
    bool readable = !reply && m_socketBounds
        && (by.isForever()
            || by.remainingTimeNSecs() >= std::chrono::nanoseconds(m_options.commandTimeout - std::chrono::milliseconds(1)).count());
    while (!reply) {
        if (!readable && !waitFor(POLLIN, by))
            timeOut(QStringLiteral("no reply"), by);
        readable = false;
        if (redisBufferRead(m_context.get()) != REDIS_OK || redisGetReplyFromReader(m_context.get(), &reply) != REDIS_OK)
            fail(QStringLiteral("no reply"));
    }
    limitNextReply(); // for the next reply
    return QSimbaRedisReply(static_cast<redisReply *>(reply));
}

/*!
    Sends \a args and waits for the reply, at most commandTimeout. An I/O error or timeout
    throws QSimbaBackendError (and drops the connection); an error reply is returned.
*/
QSimbaRedisReply QSimbaRedisConnection::command(const QList<QByteArray> &args)
{
    send(args);
    return read();
}

/*!
    Lets read() wait for as long as the connection lives (a subscriber's next message may be
    hours away). TCP keepalive is turned on instead, so that a server that vanished without
    closing the connection is noticed after all.
*/
void QSimbaRedisConnection::clearReadTimeout()
{
    if (!m_context)
        return;
    m_noReadTimeout = true;
    limitNextReply();
    if (redisSetTimeout(m_context.get(), timeval{0, 0}) != REDIS_OK)
        fail(QStringLiteral("cannot clear the read timeout"));
    if (redisEnableKeepAlive(m_context.get()) != REDIS_OK)
        fail(QStringLiteral("cannot enable TCP keepalive"));
}

QByteArray QSimbaRedisConnection::errorOf(const redisReply *reply)
{
    if (!reply || reply->type != REDIS_REPLY_ERROR)
        return {};
    return QByteArray(reply->str, qsizetype(reply->len));
}

namespace QSimbaRedisReplies {
namespace {
[[noreturn]] void unexpected(const redisReply *reply, const char *wanted, const QString &server)
{
    const QString got = reply && reply->type == REDIS_REPLY_ERROR
        ? QStringLiteral("error ") + QString::fromUtf8(reply->str, qsizetype(reply->len))
        : QStringLiteral("type %1").arg(reply ? reply->type : -1);
    throw QSimbaBackendError(QStringLiteral("%1: unexpected reply: wanted %2, got %3")
                                 .arg(server, QLatin1String(wanted), got));
}
} // namespace

qint64 integer(const redisReply *reply, const QString &server)
{
    if (!reply || reply->type != REDIS_REPLY_INTEGER)
        unexpected(reply, "an integer", server);
    return qint64(reply->integer);
}

QByteArray string(const redisReply *reply, const QString &server)
{
    if (!reply || (reply->type != REDIS_REPLY_STRING && reply->type != REDIS_REPLY_STATUS))
        unexpected(reply, "a string", server);
    return QByteArray(reply->str, qsizetype(reply->len));
}

QString text(const redisReply *reply, const QString &server)
{
    return QString::fromUtf8(string(reply, server));
}

size_t size(const redisReply *array, const QString &server)
{
    if (!array || array->type != REDIS_REPLY_ARRAY)
        unexpected(array, "an array", server);
    return array->elements;
}

const redisReply *element(const redisReply *array, size_t index, const QString &server)
{
    if (index >= size(array, server))
        unexpected(array, "a longer array", server);
    return array->element[index];
}
} // namespace QSimbaRedisReplies
