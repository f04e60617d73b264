// SPDX-License-Identifier: Apache-2.0
#include "qsimbacoro.h"

#include "qsimbacorofuture_p.h"

#include <qsimbaerror.h>

/*!
    \namespace QSimbaCoro
    \brief Coroutines on QCoro over QSimba's async API (the seeds' simba-coroutines).

    Every function runs on the thread that owns the QSimba client and resumes there, from
    its event loop. A wait is cancelled with the std::stop_token it takes: the wait then
    throws QSimbaInterruptedError. QCoro 0.8 has no cancellation of its own, and destroying a
    QCoro::Task does not stop its coroutine (it runs on, detached), hence the token.
*/

using QSimbaCoroPrivate::AwaitFuture;
using QSimbaCoroPrivate::FutureAwaiter;

namespace QSimbaCoro {

namespace {
void requireLock(const QSimbaLock *lock, const char *function)
{
    if (!lock)
        throw QSimbaInvalidArgumentError(QStringLiteral("%1: the lock is null").arg(QLatin1String(function)));
}
} // namespace

/*!
    Suspends until \a lock is won, waiting at most \a timeout on the client's clock, and
    returns the term. Runs on the client's owner thread.

    Throws (at the co_await) QSimbaLockTimeoutError on timeout, QSimbaInterruptedError when
    \a stop is requested, QSimbaIllegalStateError after the client closed,
    QSimbaInvalidArgumentError for a null lock or a negative timeout. A cancelled wait
    cancels the acquireAsync() future: the attempt is abandoned and a term won meanwhile is
    released, so the lock is never left held by a cancelled acquire.
*/
QCoro::Task<QSimbaLockTerm> awaitAcquire(QSimbaLock *lock, std::chrono::nanoseconds timeout, std::stop_token stop)
{
    requireLock(lock, "awaitAcquire");
    const QString what = QStringLiteral("awaitAcquire of lock \"%1\"").arg(lock->name().toString());
    using Awaiter = FutureAwaiter<QSimbaLockTerm>;
    const AwaitFuture<QSimbaLockTerm> acquired{lock->acquireAsync(timeout), std::move(stop), Awaiter::Ownership::Owned,
                                               what};
    co_return co_await acquired;
}

/*!
    Suspends for one attempt on \a lock (tryAcquireAsync()): the term when this client wins
    it, empty when the lock is held (by another session or by this client) or when no
    attempt was answered within one lease duration. Cancellation and errors as for
    awaitAcquire().
*/
QCoro::Task<std::optional<QSimbaLockTerm>> awaitTryAcquire(QSimbaLock *lock, std::stop_token stop)
{
    requireLock(lock, "awaitTryAcquire");
    const QString what = QStringLiteral("awaitTryAcquire of lock \"%1\"").arg(lock->name().toString());
    using Awaiter = FutureAwaiter<std::optional<QSimbaLockTerm>>;
    const AwaitFuture<std::optional<QSimbaLockTerm>> attempted{lock->tryAcquireAsync(), std::move(stop),
                                                              Awaiter::Ownership::Owned, what};
    co_return co_await attempted;
}

/*!
    Suspends until \a term is revoked and returns the reason (at once when it already is).
    Any thread with an event loop may wait. Cancelling the wait with \a stop throws
    QSimbaInterruptedError and does not touch the term: its revoked() future stays shared
    with every other waiter. Throws QSimbaInvalidArgumentError for a null term.
*/
QCoro::Task<QSimbaTerm::RevokeReason> awaitRevoked(QSimbaTerm term, std::stop_token stop)
{
    if (term.isNull())
        throw QSimbaInvalidArgumentError(QStringLiteral("awaitRevoked: the term is null"));
    const QString what = QStringLiteral("awaitRevoked of \"%1\" (token %2)").arg(term.name().toString()).arg(term.token());
    using Awaiter = FutureAwaiter<QSimbaTerm::RevokeReason>;
    const AwaitFuture<QSimbaTerm::RevokeReason> revoked{term.revoked(), std::move(stop), Awaiter::Ownership::Shared,
                                                        what};
    co_return co_await revoked;
}

/*!
    Releases \a term (QSimbaLockTerm::releaseAsync(), idempotent) and suspends until the
    lease is released, without blocking the thread. Not cancellable. A null term completes at
    once.
*/
QCoro::Task<> awaitRelease(QSimbaLockTerm &term)
{
    using Awaiter = FutureAwaiter<void>;
    const AwaitFuture<void> released{term.releaseAsync(), {}, Awaiter::Ownership::Shared, QStringLiteral("awaitRelease")};
    co_await released;
}

} // namespace QSimbaCoro
