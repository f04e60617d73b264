// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QFuture>
#include <QtCore/QSet>

#include <memory>

class QSimbaPartitionGroup;
class QSimbaTaskStopper;

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
    QSimbaGroupTask(QSimbaPartitionGroup *group, std::unique_ptr<QSimbaTaskStopper> stopper);
    QSimbaPartitionGroup *m_group;
    std::unique_ptr<QSimbaTaskStopper> m_stopper;
};
