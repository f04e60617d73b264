// SPDX-License-Identifier: Apache-2.0
#include "qsimbahandover_p.h"

#include <QtCore/QAbstractEventDispatcher>
#include <QtCore/QCoreApplication>
#include <QtCore/QEvent>
#include <QtCore/QThread>

#include <atomic>
#include <future>
#include <vector>
#include <memory>

namespace {
/*
 * One posted function. Everything its poster wrote before posting happens before the run
 * (release when built, acquire when run), and the run happens before the event's deletion
 * wherever Qt deletes it (acquire in the destructor).
 */
class HandOverEvent final : public QEvent
{
public:
    static Type eventType()
    {
        static const Type type = Type(QEvent::registerEventType());
        return type;
    }
    explicit HandOverEvent(std::function<void()> fn) : QEvent(eventType()), m_fn(std::move(fn))
    {
        QSimbaTsan::release(this);
    }
    ~HandOverEvent() override { QSimbaTsan::acquire(this); }
    void run()
    {
        QSimbaTsan::acquire(this);
        m_fn();
        QSimbaTsan::release(this);
    }

private:
    std::function<void()> m_fn;
};
#ifdef QSIMBA_UNDER_TSAN
// Held while posting, for TSan: Qt's posted-event list grows (a reallocation that frees the
// old block) under a mutex of libQt6Core, and a post wakes the receiving thread through its
// event dispatcher's descriptor, which that thread closes when it ends (see stopThread()).
QBasicMutex postMutex;
#endif
} // namespace

void QSimbaHandOverReceiver::post(QSimbaHandOverReceiver *receiver, std::function<void()> fn)
{
#ifdef QSIMBA_UNDER_TSAN
    QMutexLocker lock(&postMutex);
#endif
    QCoreApplication::postEvent(receiver, new HandOverEvent(std::move(fn)));
}

void QSimbaHandOverReceiver::postBlocking(QSimbaHandOverReceiver *receiver, const std::function<void()> &fn)
{
    Q_ASSERT(QThread::currentThread() != receiver->thread());
    // Dropped unrun (its receiver deleted), the function's copy destroys the promise: the
    // wait ends on the broken promise.
    auto done = std::make_shared<std::promise<void>>();
    auto finished = done->get_future();
    post(receiver, [&fn, done] {
        fn();
        done->set_value();
    });
    finished.wait();
}

void QSimbaHandOverReceiver::startThread(QThread &thread)
{
    auto started = std::make_shared<std::promise<void>>();
    auto running = started->get_future();
    // Direct: emitted on the new thread once its event dispatcher exists.
    const auto connection = QObject::connect(&thread, &QThread::started, [started] { started->set_value(); });
    thread.start();
    running.wait();
    QObject::disconnect(connection);
}

void QSimbaHandOverReceiver::stopThread(QThread &thread)
{
    Q_ASSERT(QThread::currentThread() != &thread);
    if (!thread.isRunning())
        return;
    // After `finished` (emitted on the thread) the thread deletes its event dispatcher, which
    // closes the descriptor quit() writes its wake-up to: it waits there for quit() to return
    // (so the write happens before the close), and what it did so far happens before the
    // return (QThread's own hand-over to wait() is under a mutex of libQt6Core).
    QSimbaThreadExit exit;
    auto quitReturned = std::make_shared<std::promise<void>>();
    std::shared_future<void> returned = quitReturned->get_future().share();
    // Set when the handler ran (the thread may have ended on its own meanwhile).
    auto armed = std::make_shared<std::atomic<bool>>(false);
    // The functors are read on the thread through Qt's connection list: acquired first.
    static const char connected = 0;
    const auto connection = QObject::connect(&thread, &QThread::finished, [returned, exit, armed] {
        QSimbaTsan::acquire(&connected);
        exit.arm();
        returned.wait();
#ifdef QSIMBA_UNDER_TSAN
        postMutex.lock(); // until the dispatcher is gone: no post wakes it meanwhile
#endif
        armed->store(true);
    });
#ifdef QSIMBA_UNDER_TSAN
    const auto dispatched = QObject::connect(QAbstractEventDispatcher::instance(&thread), &QObject::destroyed, [armed] {
        QSimbaTsan::acquire(&connected);
        if (armed->load())
            postMutex.unlock();
    });
#endif
    QSimbaTsan::release(&connected);
    thread.quit();
    quitReturned->set_value();
    thread.wait();
    if (armed->load())
        exit.wait(); // before the connection's functor, read on the thread, is deleted here
    QObject::disconnect(connection);
#ifdef QSIMBA_UNDER_TSAN
    QObject::disconnect(dispatched);
#endif
}

namespace {
struct ExitGuard
{
    std::vector<std::function<void()>> onExit;
    ~ExitGuard()
    {
        for (const auto &fn : onExit)
            fn();
    }
};
} // namespace

void QSimbaThreadExit::arm() const
{
    // Destroyed by the thread's exit, after QThread's last touch of its thread.
    thread_local ExitGuard guard;
    guard.onExit.push_back([state = m_state] {
        std::lock_guard lock(state->mutex);
        state->done = true;
        state->exited.notify_all();
    });
}

void QSimbaThreadExit::wait() const
{
    std::unique_lock lock(m_state->mutex);
    m_state->exited.wait(lock, [this] { return m_state->done; });
}

bool QSimbaHandOverReceiver::event(QEvent *event)
{
    QSimbaTsan::acquire(event); // before its type is read: it may be one of ours
    if (event->type() == HandOverEvent::eventType()) {
        static_cast<HandOverEvent *>(event)->run();
        return true;
    }
    return QObject::event(event);
}
