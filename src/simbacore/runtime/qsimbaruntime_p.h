// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaengine_p.h"
#include "qsimbahandover_p.h"

#include <QtCore/QObject>
#include <QtCore/QThread>
#include <QtCore/QTimer>

#include <atomic>
#include <deque>
#include <mutex>
#include <functional>
#include <memory>
#include <optional>

/*
 * The thin QThread adapter around the engine core. The core is a monitor: whichever thread
 * has an input for it (a caller's acquire or release, the backend thread's reply, a hint)
 * feeds it, as a typed QSimbaEngine::Input through Core::handle() (so the input trace of
 * Options::onInput records every one of them: the runtime's own — Start, Tick,
 * BackendReplied, Hint, Delivered — and the façade's), under the runtime's mutex and carries out its effects at once — backend calls
 * go to the "simba-backend" thread, promises are resolved, callback tasks go to the
 * "simba-engine" thread, which hands them to the callback executor in order and owns the
 * one timer for the core's next wake-up. So a lock's acquire costs two thread hops (to the
 * backend thread and back to the caller), not four (docs/engine.md "Threads") — and none
 * when the caller runs the call itself (CallerRuns).
 *
 * The core never blocks and nothing under the mutex waits for another thread: a hung
 * backend call cannot delay a local-deadline revocation. An input fed while the same
 * thread carries out effects (a promise's continuation, a revocation listener) is queued
 * and taken by that thread's loop, as a queued input was before.
 */
class QSimbaRuntime : public QSimbaHandOverReceiver
{
    Q_OBJECT
public:
    using Executor = std::function<bool(std::function<void()>)>;
    using Input = QSimbaEngine::Input;
    using Query = std::function<void(const QSimbaEngine::Core &, QSimbaEngine::Nanos now)>;

    struct Hooks
    {
        Executor executor;                                   //!< runs callback tasks
        //! A task's body, on the executor; says how a lock result was taken.
        std::function<QSimbaEngine::Taken(const QSimbaEngine::Task &)> perform;
        //! Completes a promise; thread-safe.
        std::function<void(quint64, const QSimbaEngine::TermPtr &, QSimbaEngine::Failure)> resolve;
    };

    QSimbaRuntime(QSimbaEngine::Options options, std::unique_ptr<QSimbaLeaseBackend> backend, Hooks hooks);
    ~QSimbaRuntime() override;

    //! Starts both threads and opens the session. Owner thread.
    void start();
    //! Feeds \a input to Core::handle(), on this thread (queued behind the effects this
    //! thread is carrying out, if any). Any thread; a no-op after shutdown().
    void post(Input input);
    //! Feeds \a input to Core::handle() at once, on this thread, and carries out its
    //! effects; returns what handle() returned (false: refused). Any thread.
    bool handleNow(const Input &input);
    //! Reads the core (snapshot, a group's partitions): changes nothing. Any thread.
    void query(const Query &fn) const;
    //! Drops the subscription and the backend on the backend thread, stops both threads.
    //! Owner thread; after the core closed.
    void shutdown();
    //! True on the engine thread, and on a thread that is carrying out the core's effects
    //! (a continuation or listener they run): a blocking wait there could deadlock.
    bool isEngineThread() const;
    QThread *engineThread() { return &m_engineThread; }
    QSimbaEngine::Nanos now() const { return m_ticker->now(); }

    /*
     * Caller runs (docs/engine.md): while one lives on a thread that is about to block until
     * the engine answers it, the first backend call caused by the inputs this thread feeds
     * is run by this thread itself — after it released the runtime's mutex, at the end of
     * post() or handleNow() — instead of on the backend thread, saving the two wake-ups of
     * the hop there and back. Only when the backend declares Capabilities::anyThread, the
     * backend thread is idle with nothing queued, and the call's bound
     * (Capabilities::callBound) ends by \a deadline (on this runtime's ticker; Core::Never:
     * the caller waits without one). Otherwise, and for every later call, nothing changes.
     * One per thread at a time; nests (the inner one is armed).
     */
    class CallerRuns
    {
    public:
        CallerRuns(QSimbaRuntime &runtime, QSimbaEngine::Nanos deadline);
        ~CallerRuns();
        Q_DISABLE_COPY_MOVE(CallerRuns)

    private:
        friend class QSimbaRuntime;
        QSimbaRuntime &m_runtime;
        QSimbaEngine::Nanos m_deadline;
        CallerRuns *m_previous;
        bool m_used = false;                       // took its one call
        std::optional<std::pair<quint64, QSimbaEngine::Call>> m_call; // taken, not yet run
        std::unique_lock<std::mutex> m_backendLock; // m_backendMutex, from taking to running
    };

private:
    //! Carries out the core's effects until there are none; m_mutex held.
    void apply();
    //! Arms the timer for the core's next wake-up; engine thread, m_mutex held.
    void arm();
    //! Hands the queued callback tasks to the executor, in order; engine thread, unlocked.
    void runTasks();
    //! After an input: runs the tasks when on the engine thread. m_mutex not held.
    void afterInput();
    //! Core::handle() at the runtime's time; m_mutex held.
    bool feed(const Input &input);
    //! Issues backend call \a id: to this thread's CallerRuns if it may take it, else to the
    //! backend thread. m_mutex held.
    void issue(quint64 id, QSimbaEngine::Call call);
    //! Runs the call this thread's CallerRuns took, if any, and feeds its reply. Unlocked.
    void runCallersCall();
    //! Feeds the reply to backend call \a id, which is no longer outstanding. Unlocked.
    void replied(quint64 id, const QSimbaEngine::Reply &reply);

    std::shared_ptr<QSimbaTicker> m_ticker;
    QSimbaEngine::Core m_core;                                // guarded by m_mutex
    Hooks m_hooks;
    // Used by one thread at a time, holding m_backendMutex: the backend thread, or a caller
    // whose CallerRuns took a call (only while the backend was idle, so calls keep their order).
    std::unique_ptr<QSimbaLeaseBackend> m_backend;
    std::mutex m_backendMutex;
    int m_backendCalls = 0; // guarded by m_mutex: issued and not yet answered (subscribe() too)
    std::unique_ptr<QSimbaLeaseBackend::Subscription> m_subscription;
    QThread m_engineThread;
    QThread m_backendThread;
    QSimbaHandOverReceiver *m_backendContext = nullptr;       // lives on the backend thread
    QTimer *m_timer = nullptr;                                // lives on the engine thread

    // A pthread mutex rather than QRecursiveMutex: ThreadSanitizer intercepts pthread locks,
    // while QRecursiveMutex locks inside Debian's uninstrumented libQt6Core, so TSan would
    // see none of the order it gives (docs/engine.md, "ThreadSanitizer").
    using Locker = std::lock_guard<std::recursive_mutex>;
    mutable std::recursive_mutex m_mutex;
    std::atomic<Qt::HANDLE> m_applyingThread{nullptr};        // the thread in apply(), if any
    std::deque<Input> m_pending;                              // inputs fed during apply()
    std::deque<std::pair<QString, std::function<void()>>> m_tasks; // for the executor, in order
    bool m_tasksPosted = false;                               // a runTasks() is queued
    QSimbaEngine::Nanos m_armedAt = QSimbaEngine::Core::Never; // what m_timer is armed for
    bool m_rearmPosted = false;                               // an arm() is queued
    bool m_stopped = false;
    bool m_runningTasks = false;                              // engine thread only
};
