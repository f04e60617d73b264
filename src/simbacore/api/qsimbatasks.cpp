// SPDX-License-Identifier: Apache-2.0
// Leader tasks and group tasks: RAII handles whose stop() is a handover.
#include "qsimbagrouptask.h"
#include "qsimbaleadertask.h"
#include "qsimbapartitiongroup.h"

#include "qsimba_p.h"
#include "qsimbaerror.h"
#include "qsimbalogging_p.h"

using namespace QSimbaEngine;

/*
 * Stops a task once: \a stop builds the input that stops it, given two promises, one
 * completed on the callback executor (stop()'s future) and one on the engine thread (what
 * close() waits for).
 */
class QSimbaTaskStopper
{
public:
    //! The input that stops the task, completing \a done.
    using Stop = std::function<Input(const Completion &done)>;
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
        link->post(m_stop(Completion{asyncId, directId}));
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

    std::shared_ptr<QSimbaLink> link() const { return m_link.lock(); }

private:
    std::weak_ptr<QSimbaLink> m_link;
    Stop m_stop;
    std::function<void()> m_onStop;
    QRecursiveMutex m_mutex; // a startedChanged slot may stop again
    bool m_stopped = false;
    QFuture<void> m_future, m_direct;
};

static void closeQuietly(QSimbaTaskStopper &stopper, const char *what)
{
    try {
        stopper.close();
    } catch (const std::exception &e) {
        qCWarning(lcSimbaElection) << "closing" << what << "failed:" << e.what();
    }
}

// ---------------------------------------------------------------------------------------

/*!
    \class QSimbaLeaderTask
    \brief Leader work bound to an election; RAII.

    Leader work bound to an election (runWhileLeader or schedule). RAII: the destructor
    closes it. stop() stops the election and completes once the current work exited (or ran
    out of time) and the lease is released. Thread-affine, like its election.
*/
QSimbaLeaderTask::QSimbaLeaderTask(QSimbaElection *election, std::unique_ptr<QSimbaTaskStopper> stopper)
    : m_election(election), m_stopper(std::move(stopper))
{
}

QSimbaLeaderTask::~QSimbaLeaderTask()
{
    closeQuietly(*m_stopper, "a leader task");
}

QSimbaElection *QSimbaLeaderTask::election() const { return m_election; }
QFuture<void> QSimbaLeaderTask::stop() { return m_stopper->stop(); }
void QSimbaLeaderTask::close() { m_stopper->close(); }

std::unique_ptr<QSimbaLeaderTask> QSimbaElectionTasks::start(QSimbaElection *election, QSimbaLink::Work work,
                                                              std::optional<QSimbaSchedule> schedule)
{
    auto *ed = QSimbaElectionPrivate::get(election);
    auto *cd = QSimbaPrivate::get(ed->client);
    cd->ensureOpen("QSimbaElection::runWhileLeader");
    if (ed->started)
        throw QSimbaIllegalStateError(QStringLiteral("election \"%1\" is already started").arg(ed->name.toString()));
    if (!work)
        throw QSimbaInvalidArgumentError(QStringLiteral("runWhileLeader of \"%1\": the work is empty").arg(ed->name.toString()));
    auto link = cd->link;
    const auto name = ed->name;
    {
        QMutexLocker lock(&link->worksMutex);
        link->works.insert(name, {std::move(work), schedule});
    }
    try {
        link->startElection(name, /*withWork=*/true);
    } catch (...) {
        QMutexLocker lock(&link->worksMutex);
        link->works.remove(name);
        throw;
    }
    ed->started = true;
    Q_EMIT election->startedChanged(true);
    QPointer<QSimbaElection> guard(election);
    auto stopper = std::make_unique<QSimbaTaskStopper>(
        link, [name](const Completion &done) -> Input { return In::StopElection{name, done}; },
        [guard, link, name] {
            {
                QMutexLocker lock(&link->worksMutex);
                link->works.remove(name);
            }
            if (guard && QSimbaElectionPrivate::get(guard)->started) {
                QSimbaElectionPrivate::get(guard)->started = false;
                Q_EMIT guard->startedChanged(false);
            }
        });
    return std::unique_ptr<QSimbaLeaderTask>(new QSimbaLeaderTask(election, std::move(stopper)));
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
QSimbaPartitionGroup::QSimbaPartitionGroup(QSimba *client, const QString &name, int partitions)
    : QObject(client), m_client(client), m_name(name), m_partitions(partitions)
{
}

QSimbaPartitionGroup::~QSimbaPartitionGroup() = default;

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
    auto *cd = QSimbaPrivate::get(m_client);
    cd->ensureOpen("QSimbaPartitionGroup::runWhileLeader");
    if (m_running)
        throw QSimbaIllegalStateError(QStringLiteral("group \"%1\" already runs a task").arg(m_name));
    if (!work)
        throw QSimbaInvalidArgumentError(QStringLiteral("group \"%1\": the work is empty").arg(m_name));
    auto link = cd->link;
    const QString group = m_name;
    const int partitions = m_partitions;
    {
        QMutexLocker lock(&link->worksMutex);
        link->groupWorks.insert(group, {std::move(work), schedule});
    }
    m_running = true;
    link->post(In::StartGroup{group, partitions});
    QPointer<QSimbaPartitionGroup> guard(this);
    auto stopper = std::make_unique<QSimbaTaskStopper>(
        link, [group](const Completion &done) -> Input { return In::StopGroup{group, done}; },
        [guard, link, group] {
            {
                QMutexLocker lock(&link->worksMutex);
                link->groupWorks.remove(group);
            }
            if (guard)
                guard->m_running = false;
        });
    return std::unique_ptr<QSimbaGroupTask>(new QSimbaGroupTask(this, std::move(stopper)));
}

/*!
    \class QSimbaGroupTask
    \brief Partition work of a group on this node; RAII.

    Partition work of a group on this node (runWhileLeader or schedule). RAII: the destructor
    closes it. stop() leaves the group and completes once every partition handed over,
    including ones an earlier view moved away that are still handing over.
*/
QSimbaGroupTask::QSimbaGroupTask(QSimbaPartitionGroup *group, std::unique_ptr<QSimbaTaskStopper> stopper)
    : m_group(group), m_stopper(std::move(stopper))
{
}

QSimbaGroupTask::~QSimbaGroupTask()
{
    closeQuietly(*m_stopper, "a group task");
}

QSimbaPartitionGroup *QSimbaGroupTask::group() const { return m_group; }

QSet<int> QSimbaGroupTask::partitions() const
{
    auto link = m_stopper->link();
    if (!link || link->shutDown)
        return {};
    QSet<int> result;
    const QString name = m_group->name();
    link->runtime->query([&](const Core &core, Nanos) { result = core.groupPartitions(name); });
    return result;
}

QFuture<void> QSimbaGroupTask::stop() { return m_stopper->stop(); }
void QSimbaGroupTask::close() { m_stopper->close(); }
