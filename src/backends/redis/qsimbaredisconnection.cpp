// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredisconnection_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredislogging_p.h"

#include <hiredis/hiredis.h>

#include <QtCore/QVarLengthArray>

#include <cerrno>
#include <cstring>

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
    const QString message = m_description + QStringLiteral(": ") + what + QStringLiteral(": ") + cause;
    qCDebug(lcSimbaRedis) << message;
    throw QSimbaBackendError(message);
}

/*!
    Connects (within connectTimeout), sets the command timeout, authenticates (AUTH user
    password, or AUTH password) and selects the database, unless already connected. Blocks;
    throws QSimbaBackendError naming the server and the cause.
*/
void QSimbaRedisConnection::ensureConnected()
{
    if (m_context)
        return;
    const QByteArray host = m_options.host.toUtf8();
    m_context.reset(redisConnectWithTimeout(host.constData(), m_options.port, toTimeval(m_options.connectTimeout)));
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
    qCDebug(lcSimbaRedis) << "connected to" << m_description;
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
}

QSimbaRedisReply QSimbaRedisConnection::read()
{
    if (!m_context)
        fail(QStringLiteral("read"));
    void *reply = nullptr;
    if (redisGetReply(m_context.get(), &reply) != REDIS_OK || !reply)
        fail(QStringLiteral("no reply"));
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
