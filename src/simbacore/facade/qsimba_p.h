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

class QSimbaElectionPrivate
{
public:
    //! The private part of \a election, for the client's own classes (Qt's get() idiom).
    static QSimbaElectionPrivate *get(QSimbaElection *election) { return election->d_func(); }

    QSimba *client = nullptr;
    QSimbaLeaseName name;
    std::atomic<bool> started{false}; // owner thread's view, for start()'s check (close() may clear it)

    // Written by callback tasks (possibly on a dedicated thread), read on the owner thread.
    mutable QMutex mutex;
    QSimbaElection::Status status = QSimbaElection::Status::Idle;
    QSimbaTerm term;
    QSimbaElection::ElectedCallback onElected;
    QSimbaElection::RevokedCallback onRevoked;
};

/*
 * What the handles of a client (lock terms, leader and group tasks, work threads) reach:
 * the runtime and the promises it completes. Shared, so a handle that outlives its client
 * finds it shut down instead of dangling. Thread-safe.
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

    //! Registers \a completer; a \a direct promise is completed on the engine thread itself.
    quint64 add(Completer completer, bool direct);
    //! A void promise and its future.
    std::pair<quint64, QFuture<void>> newPromise(bool direct = false);
    //! Runs the completer of \a id and says how it took a lock result.
    QSimbaEngine::Taken complete(quint64 id, const QSimbaEngine::TermPtr &term, QSimbaEngine::Failure failure);
    //! Forgets \a id; false when its completer already ran (or runs now).
    bool cancel(quint64 id);
    //! Feeds the engine; a no-op once shut down.
    void post(QSimbaRuntime::Input input);
    //! Feeds \a input to Core::handle() on the engine thread; a no-op once shut down.
    void post(QSimbaEngine::Input input);
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

    QMutex worksMutex;
    QHash<QSimbaLeaseName, std::pair<Work, std::optional<QSimbaSchedule>>> works;
    QHash<QString, std::pair<PartitionWork, std::optional<QSimbaSchedule>>> groupWorks;

private:
    QMutex m_mutex;
    QHash<quint64, Completer> m_completers;
    quint64 m_next = 1;
    QList<std::shared_ptr<QThread>> m_threads;
};

class QSimbaLeaderTask;
//! Starts leader tasks of an election (runWhileLeader, schedule).
struct QSimbaElectionTasks
{
    static std::unique_ptr<QSimbaLeaderTask> start(QSimbaElection *election, QSimbaLink::Work work,
                                                   std::optional<QSimbaSchedule> schedule);
};

class QSimbaLockTermPrivate
{
public:
    QSimbaTerm term;
    std::weak_ptr<QSimbaLink> link;
    QMutex mutex;
    bool releasing = false;
    QFuture<void> released;       // completes on the callback executor
    QFuture<void> releasedDirect; // completes on the engine thread (for close())
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
    QHash<QSimbaLeaseName, QSimbaElection *> elections; // owner thread
    QHash<QSimbaLeaseName, QSimbaLock *> locks;
    QHash<QString, QSimbaPartitionGroup *> groups;
    QMutex electionsMutex;                               // for lookups from callback threads

    // close() may come from leader work or a callback thread while the owner thread
    // destroys the client: the flag is atomic and the futures are set under closeMutex.
    std::atomic<bool> closing{false};
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
