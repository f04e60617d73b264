// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimba_p.h"
#include "qsimbalogging_p.h"

#include <QtCore/QFuture>
#include <QtCore/QRecursiveMutex>

#include <functional>
#include <memory>

/*
 * Stops a leader or group task once: \a stop builds the input that stops it, given two
 * promises, one completed on the callback executor (stop()'s future) and one on the engine
 * thread (what close() waits for).
 */
class QSimbaTaskStopper
{
public:
    //! The input that stops the task, completing \a done.
    using Stop = std::function<QSimbaEngine::Input(const QSimbaEngine::Completion &done)>;
    QSimbaTaskStopper(std::weak_ptr<QSimbaLink> link, Stop stop, std::function<void()> onStop)
        : m_link(std::move(link)), m_stop(std::move(stop)), m_onStop(std::move(onStop)) {}

    QFuture<void> stop()
    {
        // stop() and close() may come from leader work while the owner destroys the task.
        QMutexLocker lock(&m_mutex);
        if (m_stopped)
            return m_future;
        m_stopped = true;
        if (m_onStop)
            m_onStop();
        auto link = m_link.lock();
        if (!link || link->shutDown) {
            m_future = m_direct = QtFuture::makeReadyFuture();
            return m_future;
        }
        auto [asyncId, asyncFuture] = link->newPromise();
        auto [directId, directFuture] = link->newPromise(/*direct=*/true);
        m_future = asyncFuture;
        m_direct = directFuture;
        link->post(m_stop(QSimbaEngine::Completion{asyncId, directId}));
        return m_future;
    }

    void close()
    {
        (void)stop();
        QFuture<void> direct;
        {
            QMutexLocker lock(&m_mutex);
            direct = m_direct;
        }
        auto link = m_link.lock();
        if (!link || direct.isFinished() || !link->mayWait())
            return;
        direct.waitForFinished();
    }

    //! close(), logging what it throws: for destructors.
    void closeQuietly(const char *what)
    {
        try {
            close();
        } catch (const std::exception &e) {
            qCWarning(lcSimbaElection) << "closing" << what << "failed:" << e.what();
        }
    }

    std::shared_ptr<QSimbaLink> link() const { return m_link.lock(); }

private:
    std::weak_ptr<QSimbaLink> m_link;
    Stop m_stop;
    std::function<void()> m_onStop;
    QRecursiveMutex m_mutex; // a startedChanged slot may stop again
    bool m_stopped = false;
    QFuture<void> m_future, m_direct;
};

class QSimbaElection;
class QSimbaPartitionGroup;

//! QSimbaLeaderTask's private: its election and the stopper of its work.
class QSimbaLeaderTaskPrivate
{
public:
    QSimbaLeaderTaskPrivate(QSimbaElection *election, std::unique_ptr<QSimbaTaskStopper> stopper)
        : election(election), stopper(std::move(stopper)) {}
    QSimbaElection *const election;
    const std::unique_ptr<QSimbaTaskStopper> stopper;
};

//! QSimbaGroupTask's private: its group and the stopper of its work.
class QSimbaGroupTaskPrivate
{
public:
    QSimbaGroupTaskPrivate(QSimbaPartitionGroup *group, std::unique_ptr<QSimbaTaskStopper> stopper)
        : group(group), stopper(std::move(stopper)) {}
    QSimbaPartitionGroup *const group;
    const std::unique_ptr<QSimbaTaskStopper> stopper;
};
