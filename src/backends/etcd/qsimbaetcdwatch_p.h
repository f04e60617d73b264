// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaetcdleasebackend.h"

#include <QtCore/QByteArray>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

typedef void CURLM;

/*
 * Hints from one etcd watch on the prefix, on a thread and HTTP connection of its own: a
 * deleted lease-name key is Released, a written or deleted membership key MembersChanged.
 * The watch resumes from the revision after the last event it saw, on the next endpoint
 * after a failure (with backoff). When that revision was compacted away, it re-reads the
 * prefix, publishes MembersChanged for every group found (the events in between are lost)
 * and watches from the revision it read at.
 */
class QSimbaEtcdWatch final : public QSimbaLeaseBackend::Subscription
{
public:
    using Options = QSimbaEtcdLeaseBackend::Options;

    QSimbaEtcdWatch(const Options &options, const QString &description, const QByteArray &base,
                    QSimbaLeaseBackend::HintListener listener);
    ~QSimbaEtcdWatch() override;

    //! How many times the watch found its revision compacted (for tests and logs).
    int resyncs() const { return m_resyncs.load(); }

private:
    enum class End { Stopped, Broken, Compacted };
    void run();
    End stream(const QString &endpoint, const QByteArray &token, QString *cause, qint64 *compactedAt);
    void handleLine(const QByteArray &line, End *end, QString *cause, qint64 *compactedAt);
    void resync(class QSimbaEtcdConnection &connection);
    void waitFor(std::chrono::milliseconds delay);

    Options m_options;
    QString m_description;
    QByteArray m_base;
    QSimbaLeaseBackend::HintListener m_listener;
    CURLM *m_multi = nullptr;
    qint64 m_next = 0; // the first revision not seen yet; 0: not known yet
    std::atomic<bool> m_stop{false};
    std::atomic<int> m_resyncs{0};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::thread m_thread;
};
