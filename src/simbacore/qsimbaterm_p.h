// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaterm.h"
#include "qsimbaticker.h"

#include <QtCore/QPromise>

#include <atomic>
#include <mutex>

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

    //! Marks the term revoked and completes revoked(); only the first call counts.
    bool revoke(QSimbaTerm::RevokeReason reason);
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

private:
    friend class QSimbaTerm;
    std::shared_ptr<std::atomic<qint64>> m_deadline;
    std::atomic<qint64> m_frozenDeadline{0};
    std::atomic<bool> m_revoked{false};
    std::mutex m_mutex;
    QPromise<QSimbaTerm::RevokeReason> m_promise;
    QFuture<QSimbaTerm::RevokeReason> m_future;
};
