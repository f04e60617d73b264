// SPDX-License-Identifier: Apache-2.0
// Private to QSimba::Coro; not installed.
#pragma once

#include <qsimbaerror.h>

#include <QtCore/QCoreApplication>
#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>

#include <coroutine>
#include <functional>
#include <optional>
#include <stop_token>
#include <utility>

namespace QSimbaCoroPrivate {

/*
 * Awaits a QFuture on the awaiting coroutine's thread, unlike QCoro 0.8's awaiter: it takes
 * move-only results (takeResult()), resumes once, when the future finished, cancels on a
 * std::stop_token (from any thread), and tolerates the coroutine frame being destroyed while
 * it waits (its watcher goes with it, so nothing resumes a dead frame).
 *
 * The future is either owned by this wait (Owned: a stop cancels the future, abandoning the
 * operation, and the result is taken) or shared with others (Shared: a stop only ends this
 * wait; the result is copied and the future left alone).
 */
template<typename T>
class FutureAwaiter
{
public:
    enum class Ownership { Owned, Shared };

    //! \a what names the wait in the QSimbaInterruptedError of a cancelled wait.
    FutureAwaiter(QFuture<T> future, std::stop_token stop, Ownership ownership, QString what)
        : m_future(std::move(future)), m_stop(std::move(stop)), m_ownership(ownership), m_what(std::move(what))
    {
    }
    FutureAwaiter(const FutureAwaiter &) = delete;
    FutureAwaiter &operator=(const FutureAwaiter &) = delete;
    ~FutureAwaiter()
    {
        if (m_handle) { // the frame is destroyed while it waits
            m_handle = {};
            detach();
            if (m_ownership == Ownership::Owned)
                abandon();
        }
    }

    bool await_ready() const noexcept { return m_future.isFinished() || m_stop.stop_requested(); }

    void await_suspend(std::coroutine_handle<> handle)
    {
        m_handle = handle;
        m_watcher = new QFutureWatcher<void>(); // <void>: no result copies, so move-only T is fine
        auto *watcher = m_watcher;
        // Only on finished: a future failed with an exception is canceled first, then finished.
        QObject::connect(watcher, &QFutureWatcherBase::finished, watcher, [this] { resume(); });
        watcher->setFuture(QFuture<void>(m_future));
        if (m_stop.stop_possible()) {
            // Runs on the thread that requests the stop; resumes on this one.
            m_stopCallback.emplace(m_stop, StopHandler{watcher, this});
        }
    }

    //! The result (or the future's exception); QSimbaInterruptedError when cancelled.
    T await_resume()
    {
        if (m_stop.stop_requested()) {
            if (m_ownership == Ownership::Owned)
                abandon();
            throw QSimbaInterruptedError(QStringLiteral("%1: cancelled").arg(m_what));
        }
        if (m_future.isCanceled() && !hasResult()) {
            m_future.waitForFinished(); // finished: rethrows the exception that failed it
            throw QSimbaInterruptedError(QStringLiteral("%1: the future was cancelled").arg(m_what));
        }
        if constexpr (std::is_void_v<T>) {
            m_future.waitForFinished(); // finished: rethrows a stored exception
        } else if constexpr (std::is_copy_constructible_v<T>) {
            if (m_ownership == Ownership::Shared)
                return m_future.result();
            return m_future.takeResult();
        } else {
            return m_future.takeResult(); // move-only: the result is this wait's alone
        }
    }

private:
    struct StopHandler
    {
        QFutureWatcher<void> *watcher;
        FutureAwaiter *self;
        void operator()() const noexcept
        {
            auto *s = self;
            QMetaObject::invokeMethod(watcher, [s] { s->resume(); }, Qt::QueuedConnection);
        }
    };

    bool hasResult() const
    {
        if constexpr (std::is_void_v<T>)
            return false;
        else
            return m_future.isFinished() && m_future.resultCount() > 0;
    }

    void resume()
    {
        if (!m_handle)
            return;
        auto handle = std::exchange(m_handle, {});
        detach();
        handle.resume();
    }

    void detach()
    {
        // First the stop callback: its destructor waits for a callback running on another
        // thread, which may still post to the watcher; deleting the watcher drops that post.
        m_stopCallback.reset();
        if (auto *watcher = std::exchange(m_watcher, nullptr)) {
            watcher->disconnect();
            QCoreApplication::removePostedEvents(watcher, QEvent::MetaCall);
            watcher->deleteLater(); // resume() may run inside one of its signals
        }
    }

    //! Cancels the operation; a result already delivered is dropped (a term is released).
    void abandon()
    {
        if (!m_future.isFinished())
            m_future.cancel();
        if constexpr (!std::is_void_v<T>) {
            if (hasResult()) {
                try {
                    (void)m_future.takeResult();
                } catch (...) {
                    // Failed or taken already: nothing is held.
                }
            }
        }
    }

    QFuture<T> m_future;
    std::stop_token m_stop;
    Ownership m_ownership;
    QString m_what;
    std::coroutine_handle<> m_handle;
    QFutureWatcher<void> *m_watcher = nullptr;
    std::optional<std::stop_callback<StopHandler>> m_stopCallback;
};

/*
 * What co_await takes: QCoro 0.8's await_transform copies an awaiter given as an lvalue,
 * and FutureAwaiter cannot be copied (it holds its watcher and stop callback), so the
 * awaiter is made by operator co_await, in place.
 */
template<typename T>
struct AwaitFuture
{
    QFuture<T> future;
    std::stop_token stop;
    typename FutureAwaiter<T>::Ownership ownership;
    QString what;

    FutureAwaiter<T> operator co_await() const { return FutureAwaiter<T>(future, stop, ownership, what); }
};

} // namespace QSimbaCoroPrivate
