// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaengine_p.h"

#include <QtCore/QObject>
#include <QtCore/QThread>
#include <QtCore/QTimer>

#include <functional>
#include <memory>

/*
 * The thin QThread adapter around the engine core: it lives on the "simba-engine" thread,
 * feeds the core its inputs with the ticker's time, and carries out its effects — backend
 * calls on the "simba-backend" thread, tasks on the callback executor, promises resolved —
 * and arms one timer for the core's next wake-up.
 */
class QSimbaRuntime : public QObject
{
    Q_OBJECT
public:
    using Executor = std::function<bool(std::function<void()>)>;
    using Input = std::function<void(QSimbaEngine::Core &, QSimbaEngine::Nanos now)>;

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
    //! Feeds \a input to the core on the engine thread. Any thread.
    void post(Input input);
    //! Runs \a fn on the engine thread and waits (inline when already there). Any thread
    //! but the backend's.
    void runBlocking(const std::function<void(QSimbaEngine::Core &, QSimbaEngine::Nanos)> &fn);
    //! Drops the subscription and the backend on the backend thread, stops both threads.
    //! Owner thread; after the core closed.
    void shutdown();
    bool isEngineThread() const { return QThread::currentThread() == &m_engineThread; }
    QThread *engineThread() { return &m_engineThread; }
    QSimbaEngine::Nanos now() const { return m_ticker->now(); }

private:
    void apply();

    std::shared_ptr<QSimbaTicker> m_ticker;
    QSimbaEngine::Core m_core;
    Hooks m_hooks;
    std::unique_ptr<QSimbaLeaseBackend> m_backend;           // used on the backend thread only
    std::unique_ptr<QSimbaLeaseBackend::Subscription> m_subscription;
    QThread m_engineThread;
    QThread m_backendThread;
    QObject *m_backendContext = nullptr;                      // lives on the backend thread
    QTimer *m_timer = nullptr;                                // lives on the engine thread
    bool m_applying = false;
};
