// SPDX-License-Identifier: Apache-2.0
// Leader work: one thread per term, interrupted when the term ends (DESIGN.md §5).
#include "qsimba_p.h"
#include "qsimbaerror.h"
#include "qsimbalogging_p.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QWaitCondition>

#include <optional>

using namespace QSimbaEngine;
using Outcome = QSimbaEvent::WorkOutcome;

namespace {

// Wakes a schedule's waits when its term ends.
struct WorkState
{
    QMutex mutex;
    QWaitCondition wake;
    bool over = false;
};

//! Waits until \a due on \a ticker; false once the term is over or the thread interrupted.
bool waitUntil(WorkState &state, const QSimbaTicker &ticker, bool systemTicker, Nanos due)
{
    QMutexLocker lock(&state.mutex);
    for (;;) {
        if (state.over || QThread::currentThread()->isInterruptionRequested())
            return false;
        const Nanos left = due - ticker.now();
        if (left <= Nanos(0))
            return true;
        // A fake ticker moves without telling anyone: look at it often.
        const Nanos slice = systemTicker ? left : std::min(left, Nanos(std::chrono::milliseconds(5)));
        QSimbaTsan::wait(state.wake, &state.mutex, QDeadlineTimer(slice));
    }
}

QString describeException(std::exception_ptr error)
{
    try {
        std::rethrow_exception(error);
    } catch (const std::exception &e) {
        return QString::fromLocal8Bit(e.what());
    } catch (...) {
        return QStringLiteral("a non-standard exception");
    }
}

} // namespace

void QSimbaLink::startWork(const TermPtr &term, Work work, std::optional<QSimbaSchedule> schedule)
{
    auto state = std::make_shared<WorkState>();
    auto self = shared_from_this();
    auto body = [self, term, work = std::move(work), schedule, state] {
        QSimbaPrivate::CallbackScope scope; // blocking QSimba calls do not wait here
        const QSimbaTerm handle = QSimbaTermPrivate::handle(term);
        Outcome outcome = Outcome::Completed;
        QString error;
        bool outOfMemory = false;
        try {
            if (!schedule) {
                work(handle);
            } else {
                const bool system = self->ticker == QSimbaTicker::system();
                // The initial delay counts from the start of the term (seeds 001), not from
                // whenever this thread got to run: a loaded machine delays the thread.
                Nanos due = term->began + schedule->initialDelay();
                while (waitUntil(*state, *self->ticker, system, due)) {
                    handle.ensureValid();
                    std::optional<QString> failed;
                    try {
                        work(handle);
                    } catch (const std::bad_alloc &) {
                        throw;
                    } catch (...) {
                        if (!handle.isValid())
                            throw;
                        failed = describeException(std::current_exception());
                    }
                    // The run's end is read before anything is published about the run.
                    due = schedule->nextStart(due, self->ticker->now());
                    if (failed) {
                        // A failed run is published and the loop goes on.
                        qCInfo(lcSimbaElection) << "scheduled run of" << term->name << "failed:" << *failed;
                        self->post(In::WorkFinished{term, Outcome::Failed, *failed, /*exited=*/false});
                    }
                }
            }
        } catch (const std::bad_alloc &) {
            // The analogue of a VirtualMachineError: end the work, step down for one lease.
            outOfMemory = true;
            outcome = Outcome::Failed;
            error = QStringLiteral("out of memory");
        } catch (...) {
            error = describeException(std::current_exception());
            outcome = handle.isValid() ? Outcome::Failed : Outcome::Cancelled;
        }
        if (!error.isEmpty())
            qCInfo(lcSimbaElection) << "leader work of" << term->name << "ended:" << error;
        if (outOfMemory) {
            const Nanos lease = self->config.leaseDuration();
            self->post(In::StepDown{term->name, lease, {}});
        }
        self->post(In::WorkFinished{term, outcome, error, /*exited=*/true});
    };
    // Deleted once really ended (see QSimbaThreadExit): a finished QThread still wakes wait().
    const QSimbaThreadExit exit;
    std::shared_ptr<QThread> thread(QThread::create([exit, body = std::move(body)]() mutable {
        exit.arm();
        body();
    }), [exit](QThread *t) {
        if (t->isFinished())
            exit.wait();
        delete t;
    });
    thread->setObjectName(QStringLiteral("simba-work:") + term->name.toString());
    std::weak_ptr<QThread> weakThread = thread;
    {
        QMutexLocker lock(&m_worksMutex);
        m_threads.removeIf([](const std::shared_ptr<QThread> &t) { return t->isFinished(); });
        m_threads.append(thread);
    }
    thread->start();
    // The end of the term interrupts the work (a listener of our own: a user's then() on
    // revoked() replaces a continuation, never a listener).
    term->onRevoked([state, weakThread] {
        {
            QMutexLocker lock(&state->mutex);
            state->over = true;
            state->wake.wakeAll();
        }
        if (auto t = weakThread.lock())
            t->requestInterruption();
    });
}

void QSimbaLink::waitForWork(std::chrono::milliseconds timeout)
{
    QList<std::shared_ptr<QThread>> threads;
    {
        QMutexLocker lock(&m_worksMutex);
        threads.swap(m_threads);
    }
    QDeadlineTimer deadline(timeout);
    for (auto &t : threads) {
        t->requestInterruption();
        if (!t->wait(deadline)) {
            // Work that ignores interruption cannot be stopped: leave its thread to finish
            // on its own rather than destroy it running.
            qCWarning(lcSimbaElection) << "leader work" << t->objectName() << "still runs after the client closed";
            static QMutex abandonedMutex;
            static QList<std::shared_ptr<QThread>> abandoned;
            QMutexLocker lock(&abandonedMutex);
            abandoned.append(t);
        }
    }
}

void QSimbaLink::setWork(const QSimbaLeaseName &name, Work work, std::optional<QSimbaSchedule> schedule)
{
    QMutexLocker lock(&m_worksMutex);
    m_works.insert(name, {std::move(work), std::move(schedule)});
}

void QSimbaLink::removeWork(const QSimbaLeaseName &name)
{
    QMutexLocker lock(&m_worksMutex);
    m_works.remove(name);
}

void QSimbaLink::setGroupWork(const QString &group, PartitionWork work, std::optional<QSimbaSchedule> schedule)
{
    QMutexLocker lock(&m_worksMutex);
    m_groupWorks.insert(group, {std::move(work), std::move(schedule)});
}

void QSimbaLink::removeGroupWork(const QString &group)
{
    QMutexLocker lock(&m_worksMutex);
    m_groupWorks.remove(group);
}

std::optional<std::pair<QSimbaLink::Work, std::optional<QSimbaSchedule>>> QSimbaLink::workFor(const Task &task)
{
    QMutexLocker lock(&m_worksMutex);
    if (!task.group.isEmpty()) {
        auto it = m_groupWorks.find(task.group);
        if (it == m_groupWorks.end())
            return std::nullopt;
        const int partition = task.partition;
        auto fn = it->first;
        return std::pair<Work, std::optional<QSimbaSchedule>>([fn, partition](const QSimbaTerm &term) { fn(term, partition); },
                                                              it->second);
    }
    if (auto it = m_works.find(task.name); it != m_works.end())
        return *it;
    return std::nullopt;
}
