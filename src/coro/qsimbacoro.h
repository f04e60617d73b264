// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacoro_export.h"

#include <qsimbalock.h>
#include <qsimbalockterm.h>
#include <qsimbaterm.h>

#include <QCoro/QCoroTask>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <stop_token>
#include <type_traits>
#include <utility>

/*
 * Coroutines on QCoro: the seeds' simba-coroutines. Call them on the thread that owns the
 * QSimba client (its event loop resumes them). QCoro 0.8 tasks cannot be cancelled and a
 * destroyed QCoro::Task keeps running: cancel a wait with the std::stop_token the functions
 * take (std::stop_source::request_stop() from any thread); the wait then throws
 * QSimbaInterruptedError. A coroutine frame destroyed while it waits in one of these
 * functions' awaiters cancels the wait in the same way.
 */
namespace QSimbaCoro {

//! Suspends until \a lock is won (QSimbaLock::acquireAsync). Throws QSimbaLockTimeoutError
//! on timeout, QSimbaInterruptedError when \a stop is requested — the attempt is abandoned
//! and a term won meanwhile is released, so a cancelled acquire never keeps the lock.
QSIMBACORO_EXPORT QCoro::Task<QSimbaLockTerm> awaitAcquire(QSimbaLock *lock, std::chrono::nanoseconds timeout,
                                                          std::stop_token stop = {});

//! Suspends for one attempt (QSimbaLock::tryAcquireAsync): the term, or empty when the lock
//! is held elsewhere. Cancellation as for awaitAcquire().
QSIMBACORO_EXPORT QCoro::Task<std::optional<QSimbaLockTerm>> awaitTryAcquire(QSimbaLock *lock,
                                                                             std::stop_token stop = {});

//! Suspends until \a term is revoked and returns the reason. Cancelling the wait (\a stop)
//! throws QSimbaInterruptedError and leaves the term alone.
QSIMBACORO_EXPORT QCoro::Task<QSimbaTerm::RevokeReason> awaitRevoked(QSimbaTerm term, std::stop_token stop = {});

//! Releases \a term (QSimbaLockTerm::releaseAsync) and suspends until the release is done.
QSIMBACORO_EXPORT QCoro::Task<> awaitRelease(QSimbaLockTerm &term);

namespace detail {
template<typename T>
struct TaskValue
{
    using type = T;
    static constexpr bool isTask = false;
};
template<typename T>
struct TaskValue<QCoro::Task<T>>
{
    using type = T;
    static constexpr bool isTask = true;
};
template<typename F>
using BlockReturn = std::invoke_result_t<F &, QSimbaLockTerm &>;
template<typename F>
using BlockValue = typename TaskValue<BlockReturn<F>>::type;
} // namespace detail

//! Acquires \a lock (awaitAcquire()), runs \a block with the term and releases the term
//! afterwards — when the block returns, when it throws (the exception is rethrown after the
//! release), and when the task was dropped while the block ran. \a block takes a
//! QSimbaLockTerm & and returns a QCoro::Task<R> or a plain R. \a stop cancels the acquire;
//! a block that should stop early reads the same token. The term may still end before the
//! block returns: pass term.token() to the protected resource.
template<typename F>
auto withLock(QSimbaLock *lock, std::chrono::nanoseconds timeout, F block, std::stop_token stop = {})
    -> QCoro::Task<detail::BlockValue<F>>
{
    using R = detail::BlockValue<F>;
    QSimbaLockTerm term = co_await awaitAcquire(lock, timeout, std::move(stop));
    std::exception_ptr error;
    if constexpr (std::is_void_v<R>) {
        try {
            if constexpr (detail::TaskValue<detail::BlockReturn<F>>::isTask)
                co_await std::invoke(block, term);
            else
                std::invoke(block, term);
        } catch (...) {
            error = std::current_exception();
        }
        co_await awaitRelease(term);
        if (error)
            std::rethrow_exception(error);
    } else {
        std::optional<R> result;
        try {
            if constexpr (detail::TaskValue<detail::BlockReturn<F>>::isTask)
                result.emplace(co_await std::invoke(block, term));
            else
                result.emplace(std::invoke(block, term));
        } catch (...) {
            error = std::current_exception();
        }
        co_await awaitRelease(term);
        if (error)
            std::rethrow_exception(error);
        co_return std::move(*result);
    }
}

} // namespace QSimbaCoro
