// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QFuture>

#include <memory>

class QSimbaElection;
class QSimbaLeaderTaskPrivate;

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
    explicit QSimbaLeaderTask(std::unique_ptr<QSimbaLeaderTaskPrivate> dd);
    std::unique_ptr<QSimbaLeaderTaskPrivate> d;
};
