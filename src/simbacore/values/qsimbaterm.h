// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaleasename.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <chrono>
#include <memory>

class QSimbaTermPrivate;

class QSIMBACORE_EXPORT QSimbaTerm
{
    Q_GADGET
    Q_PROPERTY(QString name READ nameString CONSTANT)
    Q_PROPERTY(qint64 token READ token CONSTANT)
    Q_PROPERTY(bool valid READ isValid)
    Q_PROPERTY(qint64 remainingMs READ remainingMs)

public:
    enum class RevokeReason {
        Stopped,        //!< STOPPED: stop() or close()
        SteppedDown,    //!< STEPPED_DOWN: stepDown(), a rejected callback, work out of memory
        SessionExpired, //!< SESSION_EXPIRED: the backend answered that the session expired
        DeadlinePassed, //!< DEADLINE_PASSED: the local deadline passed without a renewal
        TakenOver,      //!< TAKEN_OVER: a renewal showed the lease owned by no longer this session
    };
    Q_ENUM(RevokeReason)

    QSimbaTerm(); // a null term: not valid, token 0

    bool isNull() const { return !d; }
    QSimbaLeaseName name() const;
    //! Fencing token: > 0, constant within the term, strictly increasing across terms.
    qint64 token() const;
    //! Not revoked and the session's local deadline has not passed.
    bool isValid() const;
    //! Time left before the local deadline; zero once the term ended.
    std::chrono::nanoseconds remaining() const;
    //! Throws QSimbaTermExpiredError unless valid for more than \a minRemaining.
    void ensureValid(std::chrono::nanoseconds minRemaining = std::chrono::nanoseconds(0)) const;
    //! Completes exactly once, with the reason, when the term is revoked.
    QFuture<RevokeReason> revoked() const;

    friend bool operator==(const QSimbaTerm &a, const QSimbaTerm &b) { return a.d == b.d; }
    friend bool operator!=(const QSimbaTerm &a, const QSimbaTerm &b) { return a.d != b.d; }

    //! "STOPPED", "STEPPED_DOWN", …: the seeds' names, used in JSON and metrics.
    static QString reasonName(RevokeReason reason);

private:
    explicit QSimbaTerm(std::shared_ptr<QSimbaTermPrivate> d);
    QString nameString() const { return name().toString(); }
    qint64 remainingMs() const;
    friend class QSimbaTermPrivate;
    std::shared_ptr<QSimbaTermPrivate> d;
};

QSIMBACORE_EXPORT QDebug operator<<(QDebug dbg, const QSimbaTerm &term);
Q_DECLARE_METATYPE(QSimbaTerm)
