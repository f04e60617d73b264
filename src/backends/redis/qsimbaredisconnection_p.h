// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaredisleasebackend.h"

#include <QtCore/QByteArray>
#include <QtCore/QDeadlineTimer>
#include <QtCore/QList>

#include <memory>

struct redisContext;
struct redisReply;

struct QSimbaRedisReplyDeleter
{
    void operator()(redisReply *reply) const;
};
struct QSimbaRedisContextDeleter
{
    void operator()(redisContext *context) const;
};
using QSimbaRedisReply = std::unique_ptr<redisReply, QSimbaRedisReplyDeleter>;

/*
 * One blocking hiredis connection (RAII), connected on demand: the first command after a
 * failure reconnects. The one place where hiredis error codes become QSimbaBackendError
 * (naming the server and the cause; a broken connection is dropped there). Error replies
 * of the server are returned, not thrown: the caller knows what they mean.
 * Every wait (name resolution, connecting, sending, each read) ends at the call's deadline
 * (setDeadline()), so a slow or stalled server cannot stretch one call over several
 * command timeouts. Used from one thread at a time.
 */
class QSimbaRedisConnection
{
public:
    using Options = QSimbaRedisLeaseBackend::Options;

    QSimbaRedisConnection(const Options &options, const QString &description);
    ~QSimbaRedisConnection();

    //! Every wait from now on ends by \a deadline as well (QDeadlineTimer::Forever: none).
    void setDeadline(QDeadlineTimer deadline) { m_deadline = deadline; }
    //! Sends the next connections to \a host:\a port (a MOVED redirection) instead of the
    //! configured server, until a connection there fails; empty \a host: the configured one.
    void redirect(const QString &host, quint16 port);
    //! The server connections go to now, as host:port.
    QString target() const;
    //! Connects, authenticates and selects the database unless connected. Throws.
    void ensureConnected();
    //! Sends \a args and waits for the reply (within commandTimeout). Throws on I/O errors.
    QSimbaRedisReply command(const QList<QByteArray> &args);
    //! Sends \a args without waiting; for a subscriber.
    void send(const QList<QByteArray> &args);
    //! Waits for the next reply, forever when \a blocking and no timeout is set.
    QSimbaRedisReply read();
    //! No read timeout from now on (a subscriber waits for messages indefinitely).
    void clearReadTimeout();
    void disconnect();
    bool isConnected() const { return bool(m_context); }
    //! Whether the last failure was a command timeout (the server may be hung).
    bool lastFailureTimedOut() const { return m_timedOut; }
    //! The socket, to wake a blocked read from another thread with shutdown(); -1 if none.
    int socket() const;

    //! The text of an error reply (or an empty string when \a reply is not an error).
    static QByteArray errorOf(const redisReply *reply);

private:
    [[noreturn]] void fail(const QString &what);
    [[noreturn]] void timeOut(const QString &what, QDeadlineTimer by);
    //! Waits until the socket is ready for \a events or \a by passes; false on the latter.
    bool waitFor(short events, QDeadlineTimer by) const;
    //! The earlier of the call's deadline and \a limit from now.
    QDeadlineTimer within(std::chrono::milliseconds limit) const;
    //! Sets the time limit of the next reply (m_commandBy, m_socketBounds).
    void limitNextReply();

    Options m_options;
    QString m_description;
    std::unique_ptr<redisContext, QSimbaRedisContextDeleter> m_context;
    QDeadlineTimer m_deadline{QDeadlineTimer::Forever};
    QDeadlineTimer m_commandBy{QDeadlineTimer::Forever}; // of the command in flight
    // Whether m_commandBy is what the socket's own timeouts give (the command timeout, or
    // none for a subscriber): read() then writes and reads without a poll() first.
    bool m_socketBounds = false;
    QString m_redirectHost;
    quint16 m_redirectPort = 0;
    bool m_timedOut = false;
    bool m_noReadTimeout = false;
};

//! Reading replies; each throws QSimbaBackendError on an unexpected shape.
namespace QSimbaRedisReplies {
qint64 integer(const redisReply *reply, const QString &server);
QByteArray string(const redisReply *reply, const QString &server);
QString text(const redisReply *reply, const QString &server);
const redisReply *element(const redisReply *array, size_t index, const QString &server);
size_t size(const redisReply *array, const QString &server);
} // namespace QSimbaRedisReplies
