// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QFuture>
#include <QtCore/QSet>

#include <memory>

class QSimbaPartitionGroup;
class QSimbaGroupTaskPrivate;

class QSIMBACORE_EXPORT QSimbaGroupTask
{
public:
    ~QSimbaGroupTask();
    QSimbaGroupTask(const QSimbaGroupTask &) = delete;
    QSimbaGroupTask &operator=(const QSimbaGroupTask &) = delete;

    QSimbaPartitionGroup *group() const;
    //! The partitions this node runs in its latest view of the members.
    QSet<int> partitions() const;
    [[nodiscard]] QFuture<void> stop();
    void close();

private:
    friend class QSimbaPartitionGroup;
    explicit QSimbaGroupTask(std::unique_ptr<QSimbaGroupTaskPrivate> dd);
    std::unique_ptr<QSimbaGroupTaskPrivate> d;
};
