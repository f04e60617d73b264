// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbaschedule.h"
#include "qsimbaruntime_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QPointer>
#include <QtCore/QPromise>

#include <atomic>
#include <memory>

/*
 * The one narrow link between the façade objects and the engine: every QSimbaElection,
 * QSimbaLock, QSimbaPartitionGroup, lock term, leader or group task and work thread holds
 * it (a shared_ptr handed over at construction) and reaches the engine only through it:
 * post an input (QSimbaEngine::In::…), register a completion (add, newPromise) that the
 * engine's Resolve or Complete answers, and register the leader work a term runs when it
 * is delivered (setWork). No façade object reaches into another's private part. Shared,
 * so a handle that outlives its client finds it shut down instead of dangling.
 * Thread-safe.
 */
class QSimbaLink : public std::enable_shared_from_this<QSimbaLink>
{
public:
    //! How a completer took a lock result: declined ones are answered again later (Keep: the
    //! term ended before it could be handed over) or never (Drop: the future was cancelled).
    enum class Answer { Accepted, Keep, Drop };
    //! Completes a promise with the term won (lock waiters) and how it failed.
    using Completer = std::function<Answer(const QSimbaEngine::TermPtr &, QSimbaEngine::Failure)>;

    std::unique_ptr<QSimbaRuntime> runtime;
    QSimbaConfig config;
    std::shared_ptr<QSimbaTicker> ticker;
    std::atomic<bool> shutDown{false};
    //! close() was called: nothing new may start (ensureOpen()).
    std::atomic<bool> closing{false};

    //! Throws QSimbaIllegalStateError naming \a what once the client is closed.
    void ensureOpen(const char *what) const;

    //! Registers \a completer; a \a direct promise is completed on the engine thread itself.
    quint64 add(Completer completer, bool direct);
    //! A void promise and its future.
    std::pair<quint64, QFuture<void>> newPromise(bool direct = false);
    //! Runs the completer of \a id and says how it took a lock result.
    QSimbaEngine::Taken complete(quint64 id, const QSimbaEngine::TermPtr &term, QSimbaEngine::Failure failure);
    //! Forgets \a id; false when its completer already ran (or runs now).
    bool cancel(quint64 id);
    //! Feeds \a input to Core::handle() (QSimbaRuntime::post); a no-op once shut down.
    void post(QSimbaEngine::Input input);
    //! post(), from a thread that then blocks until the engine answered \a input, by
    //! \a deadline on the ticker (Core::Never: without one): the backend call the input
    //! causes may run on this thread (QSimbaRuntime::CallerRuns).
    void postAndWait(QSimbaEngine::Input input, QSimbaEngine::Nanos deadline);
    //! The deadline \a timeout from now on the ticker (Core::Never if it lies beyond).
    QSimbaEngine::Nanos deadlineIn(std::chrono::nanoseconds timeout) const;
    //! Starts contending for \a name as an election; throws when a lock of this client
    //! holds or waits for it.
    void startElection(const QSimbaLeaseName &name, bool withWork);
    //! Completes every promise left (at shut-down: nobody else will).
    void completeAll();
    //! What a blocking call waits for: a QSimba future (completed on the callback executor,
    //! after callbacks and leader work) or only the engine (a direct promise, such as a
    //! blocking acquire's answer).
    enum class WaitFor { Futures, Engine };
    //! May this thread block until \a what? Never on the engine loop (what it waits for is
    //! fed there); a callback or leader work may wait for the engine but not for futures,
    //! which may need that very thread or wait for that very work (seeds: close() does not
    //! wait inside a callback or leader work; acquire() refuses only the engine loop).
    bool mayWait(WaitFor what = WaitFor::Futures) const;

    //! Leader work: one thread per term.
    using Work = std::function<void(const QSimbaTerm &)>;
    using PartitionWork = std::function<void(const QSimbaTerm &, int)>;
    void startWork(const QSimbaEngine::TermPtr &term, Work work, std::optional<QSimbaSchedule> schedule);
    void waitForWork(std::chrono::milliseconds timeout);

    //! The leader work of election \a name (the engine carries only "with work"); looked
    //! up when its elected is delivered.
    void setWork(const QSimbaLeaseName &name, Work work, std::optional<QSimbaSchedule> schedule);
    void removeWork(const QSimbaLeaseName &name);
    //! The work of every partition of \a group.
    void setGroupWork(const QString &group, PartitionWork work, std::optional<QSimbaSchedule> schedule);
    void removeGroupWork(const QString &group);
    //! The work registered for the term \a task delivers (an elected with work), if any.
    std::optional<std::pair<Work, std::optional<QSimbaSchedule>>> workFor(const QSimbaEngine::Task &task);

private:
    QMutex m_mutex;
    QHash<quint64, Completer> m_completers;
    quint64 m_next = 1;
    QMutex m_worksMutex;
    QHash<QSimbaLeaseName, std::pair<Work, std::optional<QSimbaSchedule>>> m_works;
    QHash<QString, std::pair<PartitionWork, std::optional<QSimbaSchedule>>> m_groupWorks;
    QList<std::shared_ptr<QThread>> m_threads;
};

class QSimbaPrivate
{
public:
    //! The private part of \a client, for the client's own classes (Qt's get() idiom): the
    //! one way in, instead of a friend per class.
    static QSimbaPrivate *get(QSimba *client) { return client->d_func(); }

    //! True while this thread runs a QSimba callback or leader work: blocking calls must
    //! not wait there.
    static bool insideCallback();
    struct CallbackScope
    {
        CallbackScope();
        ~CallbackScope();
    };

    //! For tests: observes every engine input of each client built while it is set (the
    //! engine's Options::onInput: called under the runtime's mutex, on the feeding thread),
    //! so a test records the trace that replays its client's run.
    static std::function<void(QSimbaEngine::Nanos, const QSimbaEngine::Input &)> inputObserverForTests;

    QSimba *q = nullptr;
    std::shared_ptr<QSimbaLink> link;
    std::shared_ptr<QSimbaBackendMetrics> backendMetrics;
    std::unique_ptr<QThread> callbackThread;
    QSimbaHandOverReceiver *callbackContext = nullptr;
    QList<QSimba::EventListener> listeners;
    //! Whether anyone receives events (the engine's Options::eventsWanted): true until an
    //! event is delivered to nobody, and again from a connection to QSimba::event.
    std::shared_ptr<std::atomic<bool>> eventsWanted = std::make_shared<std::atomic<bool>>(true);
    QHash<QSimbaLeaseName, QSimbaElection *> elections; // owner thread
    QHash<QSimbaLeaseName, QSimbaLock *> locks;
    QHash<QString, QSimbaPartitionGroup *> groups;
    QMutex electionsMutex;                               // for lookups from callback threads

    // close() may come from leader work or a callback thread while the owner thread
    // destroys the client: the flag (link->closing) is atomic and the futures are set under
    // closeMutex.
    mutable QMutex closeMutex;
    QFuture<void> closeFuture;
    QFuture<void> closedFuture;
    QFuture<void> closedFutureLocked() const
    {
        QMutexLocker lock(&closeMutex);
        return closedFuture;
    }

    QSimbaEngine::Taken perform(const QSimbaEngine::Task &task);
    void ensureOpen(const char *what) const;
    void shutdown();
    //! Waits for \a future unless inside a callback or on the engine thread.
    bool mayWait() const;
};
