// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredishintsubscription_p.h"

#include "qsimbaerror.h"
#include "qsimbaredisconnection_p.h"
#include "qsimbaredislogging_p.h"

#include <hiredis/hiredis.h>

#include <QtCore/QScopeGuard>

#include <sys/socket.h>

/*!
    \class QSimbaRedisHintSubscription
    \internal
    \brief Released and MembersChanged hints from Redis Pub/Sub, on a thread of its own.

    Hints only accelerate: while the connection is down, hints are lost and nobody waits
    for them. The listener is called on this subscription's thread.
*/

using namespace std::chrono_literals;

QSimbaRedisHintSubscription::QSimbaRedisHintSubscription(const QSimbaRedisLeaseBackend::Options &options,
                                                         const QString &description, const QByteArray &channel,
                                                         const QByteArray &marksChannel,
                                                         QSimbaLeaseBackend::HintListener listener)
    : m_options(options), m_description(description), m_channel(channel), m_marksChannel(marksChannel),
      m_listener(std::move(listener))
{
    m_thread = std::thread([this] { run(); });
}

QSimbaRedisHintSubscription::~QSimbaRedisHintSubscription()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        if (m_socket >= 0)
            ::shutdown(m_socket, SHUT_RDWR); // ends the blocked read
    }
    m_wake.notify_all();
    m_thread.join();
}

void QSimbaRedisHintSubscription::run()
{
    auto backoff = 100ms;
    QString told; // the failure last logged as a warning: a failure that repeats is logged once
    for (;;) {
        try {
            listen();
            backoff = 100ms; // it was subscribed: the next attempt may come soon
            told.clear();
        } catch (const QSimbaError &e) {
            // Operators must see that hints are broken (AUTH, NOPERM on the channel): waiters
            // then fall back to polling. A lost connection while stopping is no news.
            std::unique_lock lock(m_mutex);
            const bool stopping = m_stopping;
            lock.unlock();
            if (!stopping && e.message() != told)
                qCWarning(lcSimbaRedis, "hints unavailable, candidates poll until they return: %s", e.what());
            else
                qCDebug(lcSimbaRedis) << "hint subscription:" << e.message();
            told = e.message();
        }
        std::unique_lock lock(m_mutex);
        if (m_wake.wait_for(lock, backoff, [this] { return m_stopping; }))
            return;
        backoff = std::min<std::chrono::milliseconds>(backoff * 2, 1s);
    }
}

// One connection's life: subscribe, then deliver messages until the connection breaks.
void QSimbaRedisHintSubscription::listen()
{
    QSimbaRedisConnection connection(m_options, m_description);
    connection.ensureConnected();
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping)
            return;
        m_socket = connection.socket();
    }
    // Forgets the socket before the connection closes it (its number may be reused at once).
    const auto forget = qScopeGuard([this] {
        std::lock_guard lock(m_mutex);
        m_socket = -1;
    });
    // Both channels in one command: a release never counts this client on one and not the
    // other. Nothing is published on the marks channel: subscribing says that this client's
    // acquires mark what it waits for, so releases of unmarked names need not publish (a
    // subscriber of the hints channel alone is an older client, for whom they publish).
    connection.send({QByteArrayLiteral("SUBSCRIBE"), m_channel, m_marksChannel});
    for (int confirmed = 0; confirmed < 2; ++confirmed) {
        const auto confirm = connection.read();
        if (const QByteArray error = QSimbaRedisConnection::errorOf(confirm.get()); !error.isEmpty())
            throw QSimbaBackendError(m_description + QStringLiteral(": cannot subscribe: ") + QString::fromUtf8(error));
    }
    connection.clearReadTimeout();
    qCDebug(lcSimbaRedis) << "subscribed to hints on" << m_description;
    for (;;) {
        const auto message = connection.read();
        const redisReply *r = message.get();
        if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 || r->element[2]->type != REDIS_REPLY_STRING)
            continue;
        const QByteArray payload(r->element[2]->str, qsizetype(r->element[2]->len));
        if (payload.size() < 3 || payload.at(1) != ' ')
            continue;
        if (payload.at(0) != 'R' && payload.at(0) != 'M')
            continue; // not ours (a newer version's kind, or another publisher)
        const auto kind = payload.at(0) == 'R' ? QSimbaLeaseBackend::Hint::Kind::Released
                                               : QSimbaLeaseBackend::Hint::Kind::MembersChanged;
        try {
            m_listener({kind, QString::fromUtf8(payload.mid(2))});
        } catch (...) {
            qCWarning(lcSimbaRedis) << "a hint listener threw; ignored";
        }
    }
}
