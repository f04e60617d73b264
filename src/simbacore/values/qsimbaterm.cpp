// SPDX-License-Identifier: Apache-2.0
#include "qsimbaterm.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaterm_p.h"
#include "qsimbaseedname_p.h"

/*!
    \class QSimbaTerm
    \brief A term of a lease, with its fencing token; thread-safe.

    A term is valid while it is not revoked and the session's local deadline (computed from
    the last renewal, DESIGN.md §2) has not passed. isValid() reads the ticker itself, so a
    term turns invalid at its deadline even before the engine notices.

    One term of a lease: from the acquire that granted it to its revocation. Every copy sees
    the same term. Thread-safe: any thread may read it and wait on revoked().
*/

QSimbaTermPrivate::QSimbaTermPrivate(const QSimbaLeaseName &n, qint64 t, std::shared_ptr<QSimbaTicker> tk,
                                     std::shared_ptr<std::atomic<qint64>> sessionDeadline)
    : name(n), token(t), ticker(std::move(tk)), m_deadline(std::move(sessionDeadline))
{
    m_future = m_promise.future();
    m_promise.start();
}

QSimbaTermPrivate::~QSimbaTermPrivate()
{
    std::lock_guard lock(m_mutex);
    if (!m_revoked.load())
        m_promise.finish(); // never revoked (the client went away): the future ends empty
}

bool QSimbaTermPrivate::revoke(QSimbaTerm::RevokeReason reason)
{
    std::vector<std::function<void()>> listeners;
    {
        std::lock_guard lock(m_mutex);
        if (m_revoked.load(std::memory_order_acquire))
            return false;
        m_frozenDeadline.store(m_deadline->load(std::memory_order_acquire), std::memory_order_release);
        m_revoked.store(true, std::memory_order_release);
        m_promise.addResult(reason);
        listeners.swap(m_listeners);
    }
    for (const auto &l : listeners)
        l();
    // Outside the lock: a continuation attached with then() (Launch::Sync) runs here, on
    // the engine thread; see docs/engine.md "Threads".
    m_promise.finish();
    return true;
}

void QSimbaTermPrivate::onRevoked(std::function<void()> listener)
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_revoked.load(std::memory_order_acquire)) {
            m_listeners.push_back(std::move(listener));
            return;
        }
    }
    listener();
}

bool QSimbaTermPrivate::beginWork()
{
    if (isRevoked()) {
        int expected = WorkNotStarted;
        m_work.compare_exchange_strong(expected, WorkSkipped, std::memory_order_acq_rel);
        return false;
    }
    int expected = WorkNotStarted;
    return m_work.compare_exchange_strong(expected, WorkStarted, std::memory_order_acq_rel);
}

bool QSimbaTermPrivate::skipWork()
{
    int expected = WorkNotStarted;
    return m_work.compare_exchange_strong(expected, WorkSkipped, std::memory_order_acq_rel)
           || expected == WorkSkipped;
}

bool QSimbaTermPrivate::isValid() const
{
    return !isRevoked() && ticker->now() < deadline();
}

QSimbaTerm::QSimbaTerm() = default;
QSimbaTerm::QSimbaTerm(std::shared_ptr<QSimbaTermPrivate> dd) : d(std::move(dd)) {}

QSimbaLeaseName QSimbaTerm::name() const { return d ? d->name : QSimbaLeaseName(); }
qint64 QSimbaTerm::token() const { return d ? d->token : 0; }
bool QSimbaTerm::isValid() const { return d && d->isValid(); }

std::chrono::nanoseconds QSimbaTerm::remaining() const
{
    if (!isValid())
        return std::chrono::nanoseconds(0);
    return std::max(std::chrono::nanoseconds(0), d->deadline() - d->ticker->now());
}

qint64 QSimbaTerm::remainingMs() const
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(remaining()).count();
}

/*! Throws QSimbaTermExpiredError unless the term is valid for more than \a minRemaining.
    Any thread; never blocks. */
void QSimbaTerm::ensureValid(std::chrono::nanoseconds minRemaining) const
{
    if (!d)
        throw QSimbaTermExpiredError(QStringLiteral("null term"));
    if (d->isRevoked())
        throw QSimbaTermExpiredError(QStringLiteral("term %1 of \"%2\" was revoked (%3)")
                                         .arg(d->token)
                                         .arg(d->name.toString(), reasonName(d->m_future.result())));
    const auto left = remaining();
    if (left <= minRemaining)
        throw QSimbaTermExpiredError(QStringLiteral("term %1 of \"%2\" has %3 left, needs more than %4")
                                         .arg(d->token)
                                         .arg(d->name.toString(), QSimbaDuration::format(left),
                                              QSimbaDuration::format(minRemaining)));
}

QFuture<QSimbaTerm::RevokeReason> QSimbaTerm::revoked() const
{
    return d ? d->m_future : QFuture<RevokeReason>();
}

QString QSimbaTerm::reasonName(RevokeReason reason)
{
    return qsimbaSeedName(reason);
}

QDebug operator<<(QDebug dbg, const QSimbaTerm &term)
{
    QDebugStateSaver saver(dbg);
    if (term.isNull())
        return dbg.nospace() << "QSimbaTerm()";
    dbg.nospace().noquote() << "QSimbaTerm(" << term.name().toString() << ", token=" << term.token()
                            << (term.isValid() ? ", valid" : ", ended") << ')';
    return dbg;
}

#include "moc_qsimbaterm.cpp"
