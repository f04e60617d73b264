// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaleasename.h"
#include "qsimbalockterm.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <chrono>
#include <memory>
#include <optional>

class QSimba;
class QSimbaLockPrivate;

class QSIMBACORE_EXPORT QSimbaLock : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString name READ nameString CONSTANT)

public:
    ~QSimbaLock() override;

    QSimbaLeaseName name() const;

    //! Waits up to \a timeout (on the client's clock) for a term. A term that ends right
    //! after it was won does not end the wait. Throws QSimbaLockTimeoutError on timeout,
    //! QSimbaInterruptedError when the calling QThread's interruption is requested (the
    //! attempt is abandoned), QSimbaIllegalStateError on the engine loop or after close,
    //! QSimbaInvalidArgumentError for a negative timeout. Huge timeouts saturate.
    QSimbaLockTerm acquire(std::chrono::nanoseconds timeout);
    //! One attempt: the term when this client wins it; empty when another session or this
    //! client holds the lease, or when no attempt was answered within one lease duration.
    [[nodiscard]] std::optional<QSimbaLockTerm> tryAcquire();
    //! acquire() without blocking; completes on the callback executor, failing with the same
    //! errors (it throws none itself). Cancelling the future abandons the attempt and
    //! releases a term already won. A term that ended before completion is never returned.
    [[nodiscard]] QFuture<QSimbaLockTerm> acquireAsync(std::chrono::nanoseconds timeout);
    [[nodiscard]] QFuture<std::optional<QSimbaLockTerm>> tryAcquireAsync();

private:
    friend class QSimba;
    QSimbaLock(QSimba *client, const QSimbaLeaseName &name);
    QString nameString() const { return name().toString(); }
    Q_DECLARE_PRIVATE(QSimbaLock)
    std::unique_ptr<QSimbaLockPrivate> const d_ptr;
};
