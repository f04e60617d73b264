// SPDX-License-Identifier: Apache-2.0
// Leader tasks and group tasks: RAII handles whose stop() is a handover.
#include "qsimbagrouptask.h"
#include "qsimbaleadertask.h"
#include "qsimbapartitiongroup.h"

#include "qsimbaelection_p.h"
#include "qsimbaerror.h"
#include "qsimbataskstopper_p.h"

using namespace QSimbaEngine;

// ---------------------------------------------------------------------------------------

/*!
    \class QSimbaLeaderTask
    \brief Leader work bound to an election; RAII.

    Leader work bound to an election (runWhileLeader or schedule). RAII: the destructor
    closes it. stop() stops the election and completes once the current work exited (or ran
    out of time) and the lease is released. Thread-affine, like its election.
*/
QSimbaLeaderTask::QSimbaLeaderTask(std::unique_ptr<QSimbaLeaderTaskPrivate> dd)
    : d(std::move(dd))
{
}

QSimbaLeaderTask::~QSimbaLeaderTask()
{
    d->stopper->closeQuietly("a leader task");
}

QSimbaElection *QSimbaLeaderTask::election() const { return d->election; }
QFuture<void> QSimbaLeaderTask::stop() { return d->stopper->stop(); }
void QSimbaLeaderTask::close() { d->stopper->close(); }

std::unique_ptr<QSimbaTaskStopper> QSimbaElectionPrivate::startTask(QSimbaElection *q, QSimbaLink::Work work,
                                                                    std::optional<QSimbaSchedule> schedule)
{
    link->ensureOpen("QSimbaElection::runWhileLeader");
    if (started)
        throw QSimbaIllegalStateError(QStringLiteral("election \"%1\" is already started").arg(name.toString()));
    if (!work)
        throw QSimbaInvalidArgumentError(QStringLiteral("runWhileLeader of \"%1\": the work is empty").arg(name.toString()));
    const auto n = name;
    link->setWork(n, std::move(work), schedule);
    try {
        link->startElection(n, /*withWork=*/true);
    } catch (...) {
        link->removeWork(n);
        throw;
    }
    started = true;
    Q_EMIT q->startedChanged(true);
    QPointer<QSimbaElection> guard(q);
    return std::make_unique<QSimbaTaskStopper>(
        link, [n](const Completion &done) -> Input { return In::StopElection{n, done}; },
        [guard, l = link, n] {
            l->removeWork(n);
            if (guard && QSimbaElectionPrivate::get(guard)->started) {
                QSimbaElectionPrivate::get(guard)->started = false;
                Q_EMIT guard->startedChanged(false);
            }
        });
}

// ---------------------------------------------------------------------------------------

/*!
    \class QSimbaPartitionGroup
    \brief Partitions spread over the live members of a group.

    A partition group: `partitions` partitions spread over the live members of the group,
    each on exactly one node at a time. Partition p is the lease "{name}.{p}"; a node contends
    only for the partitions rendezvous hashing assigns to it (QSimbaPartitionAssignment).
    Every member must use the same number of partitions. Owned by the client; thread-affine.
*/
class QSimbaPartitionGroupPrivate
{
public:
    std::shared_ptr<QSimbaLink> link; // the one way to the engine
    QString name;
    int partitions = 0;
    bool running = false;
};

QSimbaPartitionGroup::QSimbaPartitionGroup(QSimba *client, const QString &name, int partitions)
    : QObject(client), d_ptr(new QSimbaPartitionGroupPrivate)
{
    Q_D(QSimbaPartitionGroup);
    d->link = QSimbaPrivate::get(client)->link;
    d->name = name;
    d->partitions = partitions;
}

QSimbaPartitionGroup::~QSimbaPartitionGroup() = default;

QString QSimbaPartitionGroup::name() const { return d_func()->name; }
int QSimbaPartitionGroup::partitions() const { return d_func()->partitions; }

std::unique_ptr<QSimbaGroupTask> QSimbaPartitionGroup::runWhileLeader(Work work)
{
    return start(std::move(work), std::nullopt);
}

std::unique_ptr<QSimbaGroupTask> QSimbaPartitionGroup::schedule(const QSimbaSchedule &schedule, Work work)
{
    return start(std::move(work), schedule);
}

std::unique_ptr<QSimbaGroupTask> QSimbaPartitionGroup::start(Work work, std::optional<QSimbaSchedule> schedule)
{
    Q_D(QSimbaPartitionGroup);
    const auto &link = d->link;
    link->ensureOpen("QSimbaPartitionGroup::runWhileLeader");
    if (d->running)
        throw QSimbaIllegalStateError(QStringLiteral("group \"%1\" already runs a task").arg(d->name));
    if (!work)
        throw QSimbaInvalidArgumentError(QStringLiteral("group \"%1\": the work is empty").arg(d->name));
    const QString group = d->name;
    link->setGroupWork(group, std::move(work), schedule);
    d->running = true;
    link->post(In::StartGroup{group, d->partitions});
    QPointer<QSimbaPartitionGroup> guard(this);
    auto stopper = std::make_unique<QSimbaTaskStopper>(
        link, [group](const Completion &done) -> Input { return In::StopGroup{group, done}; },
        [guard, link, group] {
            link->removeGroupWork(group);
            if (guard)
                guard->d_func()->running = false;
        });
    return std::unique_ptr<QSimbaGroupTask>(
        new QSimbaGroupTask(std::make_unique<QSimbaGroupTaskPrivate>(this, std::move(stopper))));
}

/*!
    \class QSimbaGroupTask
    \brief Partition work of a group on this node; RAII.

    Partition work of a group on this node (runWhileLeader or schedule). RAII: the destructor
    closes it. stop() leaves the group and completes once every partition handed over,
    including ones an earlier view moved away that are still handing over.
*/
QSimbaGroupTask::QSimbaGroupTask(std::unique_ptr<QSimbaGroupTaskPrivate> dd)
    : d(std::move(dd))
{
}

QSimbaGroupTask::~QSimbaGroupTask()
{
    d->stopper->closeQuietly("a group task");
}

QSimbaPartitionGroup *QSimbaGroupTask::group() const { return d->group; }

QSet<int> QSimbaGroupTask::partitions() const
{
    auto link = d->stopper->link();
    if (!link || link->shutDown)
        return {};
    QSet<int> result;
    const QString name = d->group->name();
    link->runtime->query([&](const Core &core, Nanos) { result = core.groupPartitions(name); });
    return result;
}

QFuture<void> QSimbaGroupTask::stop() { return d->stopper->stop(); }
void QSimbaGroupTask::close() { d->stopper->close(); }

#include "moc_qsimbapartitiongroup.cpp"
