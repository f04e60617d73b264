// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaredisleasebackend.h"

#include <condition_variable>
#include <mutex>
#include <thread>

/*
 * A Pub/Sub subscription to the hint channel on its own connection and thread (and to the
 * channel that tells releases this client marks what it waits for): a blocking
 * read loop that calls the listener for each hint, and reconnects and resubscribes (with
 * backoff up to 1 s) whenever the connection is lost. The destructor wakes the blocked read
 * by shutting the socket down and joins the thread.
 */
class QSimbaRedisHintSubscription final : public QSimbaLeaseBackend::Subscription
{
public:
    QSimbaRedisHintSubscription(const QSimbaRedisLeaseBackend::Options &options, const QString &description,
                                const QByteArray &channel, const QByteArray &marksChannel,
                                QSimbaLeaseBackend::HintListener listener);
    ~QSimbaRedisHintSubscription() override;

private:
    void run();
    void listen();

    QSimbaRedisLeaseBackend::Options m_options;
    QString m_description;
    QByteArray m_channel;
    QByteArray m_marksChannel;
    QSimbaLeaseBackend::HintListener m_listener;

    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    int m_socket = -1; // of the connection the thread reads from, while it reads
    std::thread m_thread;
};
