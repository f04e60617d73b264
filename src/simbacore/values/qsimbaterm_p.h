// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaterm.h"
#include "qsimbaticker.h"

#include <QtCore/QPromise>

#include "qsimbasessionid.h"

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

/*
 * The shared state of a term. Written only by the engine (revoke()), read from any thread.
 * The session deadline is shared with the session: a renewal moves it for every term.
 */
class QSIMBACORE_EXPORT QSimbaTermPrivate
{
public:
    QSimbaTermPrivate(const QSimbaLeaseName &name, qint64 token, std::shared_ptr<QSimbaTicker> ticker,
                      std::shared_ptr<std::atomic<qint64>> sessionDeadline);
    ~QSimbaTermPrivate();

    //! Marks the term revoked, runs the revocation listeners, then completes revoked();
    //! only the first call counts. No lock is held while listeners and continuations run.
    bool revoke(QSimbaTerm::RevokeReason reason);
    /*!
        Calls \a listener once when the term is revoked (at once when it already is), on the
        revoking thread. QSimba's own reactions to the end of a term (interrupting leader
        work, forgetting a lock attempt) use this, never a continuation of revoked(): a
        QFuture holds one continuation, and a user's then() must not replace ours.
    */
    void onRevoked(std::function<void()> listener);

    //! The shared state behind \a term (null for a null term).
    static std::shared_ptr<QSimbaTermPrivate> get(const QSimbaTerm &term) { return term.d; }
    //! The public handle of \a d (QSimbaTerm's constructor from its private part is private).
    static QSimbaTerm handle(std::shared_ptr<QSimbaTermPrivate> d) { return QSimbaTerm(std::move(d)); }

    //! Leader work of the term: started once when elected is delivered, unless the
    //! handover skipped it first (then it never starts).
    enum WorkState { WorkNotStarted, WorkStarted, WorkSkipped };
    //! True when the work may start now (the term is not revoked and nobody skipped it).
    bool beginWork();
    //! True when the work will never start (it had not, and now cannot).
    bool skipWork();
    bool isRevoked() const { return m_revoked.load(std::memory_order_acquire); }
    bool isValid() const;
    //! The session's local deadline; frozen when the term is revoked (renewals of the
    //! session no longer move it).
    std::chrono::nanoseconds deadline() const
    {
        return std::chrono::nanoseconds(isRevoked() ? m_frozenDeadline.load(std::memory_order_acquire)
                                                    : m_deadline->load(std::memory_order_acquire));
    }

    const QSimbaLeaseName name;
    const qint64 token;
    const std::shared_ptr<QSimbaTicker> ticker;
    //! Set when the elected callback ran (not rejected): only then is revoked delivered.
    std::atomic<bool> electedDelivered{false};
    //! The session that won the term (set by the engine before the term is shared).
    QSimbaSessionId session;
    //! The ticker time the term began (its grant was answered), set by the engine before
    //! the term is shared: a schedule's initial delay counts from it.
    std::chrono::nanoseconds began{0};

private:
    friend class QSimbaTerm;
    std::shared_ptr<std::atomic<qint64>> m_deadline;
    std::atomic<qint64> m_frozenDeadline{0};
    std::atomic<bool> m_revoked{false};
    std::atomic<int> m_work{WorkNotStarted};
    std::mutex m_mutex;
    std::vector<std::function<void()>> m_listeners;
    QPromise<QSimbaTerm::RevokeReason> m_promise;
    QFuture<QSimbaTerm::RevokeReason> m_future;
};
