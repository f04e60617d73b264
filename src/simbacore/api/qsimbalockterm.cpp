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
    return d ? d->release(/*wait=*/false) : QtFuture::makeReadyFuture();
}

/*
    close() that waits makes the direct promise only: the executor's promise, `released`,
    would be one callback task per lock cycle (two thread hops, the engine's and the
    executor's) that nobody can see, since nobody holds its future. A releaseAsync() after
    such a close() makes it then, through a second ReleaseLock of the same token: the engine
    completes it on the name's callback stream, after the callbacks before it, as it would
    have completed the first (at once if the release is done, else with it).
*/
QFuture<void> QSimbaLockTermPrivate::release(bool wait)
{
    QMutexLocker lock(&mutex);
    if (releasing && (wait || hasReleased))
        return hasReleased ? released : releasedDirect;
    auto engine = link.lock();
    if (!engine || engine->shutDown) {
        if (!releasing)
            releasedDirect = QtFuture::makeReadyFuture();
        releasing = hasReleased = true;
        released = QtFuture::makeReadyFuture();
        return released;
    }
    In::ReleaseLock input{term.name(), term.token(), {}};
    if (!wait) {
        auto [asyncId, asyncFuture] = engine->newPromise();
        released = asyncFuture;
        hasReleased = true;
        input.done.async = asyncId;
    }
    if (!releasing) {
        auto [directId, directFuture] = engine->newPromise(/*direct=*/true);
        releasedDirect = directFuture;
        input.done.direct = directId;
    }
    releasing = true;
    const auto held = QSimbaTermPrivate::get(term);
    // Fed outside the term's mutex: the engine may run on this thread now.
    lock.unlock();
    if (wait) // close(): the caller may run the release call, within the term's local deadline
        engine->postAndWait(std::move(input), held ? held->deadline() : Core::Never);
    else
        engine->post(std::move(input));
    return wait ? releasedDirect : released;
}

void QSimbaLockTerm::close()
{
    if (!d)
        return;
    {
        const auto link = d->link.lock();
        (void)d->release(/*wait=*/link && link->mayWait()); // close() waits for it below
    }
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
