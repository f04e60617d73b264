// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbagrouptask.h"
#include "qsimbaschedule.h"
#include "qsimbaterm.h"

#include <QtCore/QObject>

#include <functional>
#include <memory>

class QSimba;
class QSimbaPartitionGroupPrivate;

class QSIMBACORE_EXPORT QSimbaPartitionGroup : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString name READ name CONSTANT)
    Q_PROPERTY(int partitions READ partitions CONSTANT)

public:
    using Work = std::function<void(const QSimbaTerm &term, int partition)>;

    ~QSimbaPartitionGroup() override;
    QString name() const;
    int partitions() const;

    //! Joins the group and runs \a work once per term of each partition assigned here, on a
    //! thread of its own. Throws QSimbaIllegalStateError when a task already runs.
    [[nodiscard]] std::unique_ptr<QSimbaGroupTask> runWhileLeader(Work work);
    //! The same, running \a work on \a schedule while each partition's term lasts.
    [[nodiscard]] std::unique_ptr<QSimbaGroupTask> schedule(const QSimbaSchedule &schedule, Work work);

private:
    friend class QSimba;
    QSimbaPartitionGroup(QSimba *client, const QString &name, int partitions);
    std::unique_ptr<QSimbaGroupTask> start(Work work, std::optional<QSimbaSchedule> schedule);
    Q_DECLARE_PRIVATE(QSimbaPartitionGroup)
    std::unique_ptr<QSimbaPartitionGroupPrivate> const d_ptr;
};
