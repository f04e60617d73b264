// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaterm.h"

#include <QtCore/QFuture>

#include <memory>

class QSimbaLockTermPrivate;

class QSIMBACORE_EXPORT QSimbaLockTerm
{
public:
    QSimbaLockTerm(); // empty: holds nothing
    QSimbaLockTerm(QSimbaLockTerm &&other) noexcept;
    QSimbaLockTerm &operator=(QSimbaLockTerm &&other) noexcept;
    QSimbaLockTerm(const QSimbaLockTerm &) = delete;
    QSimbaLockTerm &operator=(const QSimbaLockTerm &) = delete;
    ~QSimbaLockTerm();

    bool isNull() const { return !d; }
    QSimbaTerm term() const;
    QSimbaLeaseName name() const { return term().name(); }
    qint64 token() const { return term().token(); }
    bool isValid() const { return term().isValid(); }
    std::chrono::nanoseconds remaining() const { return term().remaining(); }
    void ensureValid(std::chrono::nanoseconds minRemaining = std::chrono::nanoseconds(0)) const
    {
        term().ensureValid(minRemaining);
    }
    QFuture<QSimbaTerm::RevokeReason> revoked() const { return term().revoked(); }

    //! Revokes the term and releases the lease without waiting; completes on the callback
    //! executor. Idempotent: later calls return the same future.
    [[nodiscard]] QFuture<void> releaseAsync();
    //! releaseAsync() and waits for the release — except inside a callback or leader work,
    //! where it returns at once. Never waits once the release completed. Idempotent.
    void close();

private:
    friend class QSimbaLockTermPrivate;
    explicit QSimbaLockTerm(std::shared_ptr<QSimbaLockTermPrivate> d);
    std::shared_ptr<QSimbaLockTermPrivate> d;
};
