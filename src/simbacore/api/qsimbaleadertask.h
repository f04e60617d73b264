// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QFuture>

#include <memory>

class QSimbaElection;
class QSimbaTaskStopper;

class QSIMBACORE_EXPORT QSimbaLeaderTask
{
public:
    ~QSimbaLeaderTask();
    QSimbaLeaderTask(const QSimbaLeaderTask &) = delete;
    QSimbaLeaderTask &operator=(const QSimbaLeaderTask &) = delete;

    QSimbaElection *election() const;
    //! Completes on the callback executor after the handover. Idempotent.
    [[nodiscard]] QFuture<void> stop();
    //! stop() and waits — except inside a callback or leader work. Idempotent.
    void close();

private:
    friend class QSimbaElection;
    QSimbaLeaderTask(QSimbaElection *election, std::unique_ptr<QSimbaTaskStopper> stopper);
    QSimbaElection *m_election;
    std::unique_ptr<QSimbaTaskStopper> m_stopper;
};
