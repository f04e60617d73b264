// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QDeadlineTimer>
#include <QtCore/QMutex>
#include <QtCore/QObject>
#include <QtCore/QWaitCondition>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#if defined(__SANITIZE_THREAD__)
#  define QSIMBA_UNDER_TSAN
#elif defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define QSIMBA_UNDER_TSAN
#  endif
#endif
#ifdef QSIMBA_UNDER_TSAN
#  include <sanitizer/tsan_interface.h>
#endif

QT_BEGIN_NAMESPACE
class QThread;
QT_END_NAMESPACE

/*
 * Hand-overs between threads that ThreadSanitizer can follow (docs/engine.md,
 * "ThreadSanitizer"). Debian's Qt is not built with it: a queued call crosses threads
 * through Qt's posted-event queue, whose mutex (a futex) and wake-up live in libQt6Core,
 * so TSan sees a value written on one thread and read on another with nothing ordering
 * them. These helpers say where the order comes from; outside a TSan build the
 * annotations are empty.
 */
namespace QSimbaTsan {
//! What this thread did so far happens before what a thread does after acquire(\a addr).
inline void release(const void *addr)
{
#ifdef QSIMBA_UNDER_TSAN
    __tsan_release(const_cast<void *>(addr));
#else
    Q_UNUSED(addr);
#endif
}
inline void acquire(const void *addr)
{
#ifdef QSIMBA_UNDER_TSAN
    __tsan_acquire(const_cast<void *>(addr));
#else
    Q_UNUSED(addr);
#endif
}

/*!
    \a condition.wait(\a mutex, \a deadline), told to TSan: the QMutex is unlocked and locked
    again inside libQt6Core, where Qt's inline lock annotations (qtsan_impl.h) are not
    compiled in, so without this TSan believes the waiter holds the mutex throughout.
*/
inline bool wait(QWaitCondition &condition, QMutex *mutex, QDeadlineTimer deadline = QDeadlineTimer(QDeadlineTimer::Forever))
{
#ifdef QSIMBA_UNDER_TSAN
    __tsan_mutex_pre_unlock(mutex, 0);
    __tsan_mutex_post_unlock(mutex, 0);
#endif
    const bool woken = condition.wait(mutex, deadline);
#ifdef QSIMBA_UNDER_TSAN
    __tsan_mutex_pre_lock(mutex, 0);
    __tsan_mutex_post_lock(mutex, 0, 0);
#endif
    return woken;
}
} // namespace QSimbaTsan

/*
 * The end of a thread, as TSan can see it. QThread::wait() and isFinished() hand over under
 * a mutex of libQt6Core, and the finishing thread still wakes wait() through QThread's own
 * QWaitCondition after that: a QThread destroyed right after either reads as racing with
 * it. An armed exit watch marks its thread's very end (a thread_local destroyed when the
 * thread exits, after QThread let go of it).
 */
class QSimbaThreadExit
{
public:
    //! On the thread to watch, any time before it ends.
    void arm() const;
    //! Waits until the armed thread exited; what it did happens before the return. Only once
    //! its QThread finished (the wait is then short), and only when it was armed.
    void wait() const;

private:
    struct State
    {
        std::mutex mutex;
        std::condition_variable exited;
        bool done = false;
    };
    std::shared_ptr<State> m_state = std::make_shared<State>();
};

/*
 * A QObject that runs functions handed to it from other threads, on its own thread, in the
 * order they were posted (as a queued QMetaObject::invokeMethod would, but with an event of
 * ours: its allocation, run and deletion are ordered for TSan). A function posted to a
 * receiver that is deleted first is dropped with its event.
 */
class QSimbaHandOverReceiver : public QObject
{
public:
    using QObject::QObject;

    //! Runs \a fn on \a receiver's thread. Any thread.
    static void post(QSimbaHandOverReceiver *receiver, std::function<void()> fn);
    //! Runs \a fn on \a receiver's thread and waits until it ran or was dropped. Any thread
    //! but the receiver's.
    static void postBlocking(QSimbaHandOverReceiver *receiver, const std::function<void()> &fn);

    //! Starts \a thread and returns once its event dispatcher exists (created on that
    //! thread, then used by every thread that posts to it).
    static void startThread(QThread &thread);
    //! Ends \a thread's event loop and waits for its end; what the thread did happens before
    //! the return. Not from \a thread itself.
    static void stopThread(QThread &thread);

protected:
    bool event(QEvent *event) override;
};
