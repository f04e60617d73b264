// SPDX-License-Identifier: Apache-2.0
#include "qsimbalockterm.h"

#include "qsimba_p.h"
#include "qsimbalockterm_p.h"
#include "qsimbalogging_p.h"

/*!
    \class QSimbaLockTerm
    \brief A held lock: its term (the fencing token) and the release of its lease.

    Early loss (the session's deadline passed, the backend expired the session, another
    session took the lease) ends the term before you close it: isValid() turns false,
    revoked() completes, ensureValid() throws, and the lock is never re-acquired behind
    your back; closing it afterwards is a harmless no-op.

    The credential of a held lock: a term that can also release its lease. Move-only and not
    bound to a thread: hand it to another thread and release it there. The destructor
    releases (like close()) and never throws. Thread-safe.
*/

using namespace QSimbaEngine;

QSimbaLockTerm::QSimbaLockTerm() = default;
QSimbaLockTerm::QSimbaLockTerm(std::shared_ptr<QSimbaLockTermPrivate> dd) : d(std::move(dd)) {}
QSimbaLockTerm::QSimbaLockTerm(QSimbaLockTerm &&other) noexcept = default;

QSimbaLockTerm &QSimbaLockTerm::operator=(QSimbaLockTerm &&other) noexcept
{
    if (this != &other) {
        QSimbaLockTerm old(std::move(*this)); // releases what this held
        d = std::move(other.d);
    }
    return *this;
}

QSimbaLockTerm::~QSimbaLockTerm()
{
    if (!d)
        return;
    try {
        close();
    } catch (const std::exception &e) {
        qCWarning(lcSimbaElection) << "releasing lock" << d->term.name() << "failed:" << e.what();
    }
}

QSimbaTerm QSimbaLockTerm::term() const
{
    return d ? d->term : QSimbaTerm();
}

QFuture<void> QSimbaLockTerm::releaseAsync()
{
    if (!d)
        return QtFuture::makeReadyFuture();
    QMutexLocker lock(&d->mutex);
    if (!d->releasing) {
        d->releasing = true;
        auto link = d->link.lock();
        if (!link || link->shutDown) {
            d->released = d->releasedDirect = QtFuture::makeReadyFuture();
        } else {
            auto [asyncId, asyncFuture] = link->newPromise();
            auto [directId, directFuture] = link->newPromise(/*direct=*/true);
            d->released = asyncFuture;
            d->releasedDirect = directFuture;
            const auto name = d->term.name();
            const qint64 token = d->term.token();
            const QFuture<void> released = d->released;
            // Fed outside the term's mutex: the engine may run on this thread now.
            lock.unlock();
            link->post(In::ReleaseLock{name, token, {asyncId, directId}});
            return released;
        }
    }
    return d->released;
}

void QSimbaLockTerm::close()
{
    if (!d)
        return;
    (void)releaseAsync();
    QFuture<void> direct;
    {
        QMutexLocker lock(&d->mutex);
        direct = d->releasedDirect;
    }
    if (direct.isFinished())
        return;
    auto link = d->link.lock();
    if (!link || !link->mayWait())
        return;
    direct.waitForFinished();
}
