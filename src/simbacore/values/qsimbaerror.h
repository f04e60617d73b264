// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QException>
#include <QtCore/QString>

#include <chrono>

class QSIMBACORE_EXPORT QSimbaError : public QException
{
public:
    explicit QSimbaError(const QString &message);
    ~QSimbaError() override;

    QString message() const { return m_message; }
    const char *what() const noexcept override { return m_what.constData(); }
    void raise() const override { throw *this; }
    QSimbaError *clone() const override { return new QSimbaError(*this); }

private:
    QString m_message;
    QByteArray m_what;
};

#define QSIMBA_DECLARE_ERROR(Name, Base)                                                     \
    class QSIMBACORE_EXPORT Name : public Base                                               \
    {                                                                                        \
    public:                                                                                  \
        using Base::Base;                                                                    \
        void raise() const override { throw *this; }                                         \
        Name *clone() const override { return new Name(*this); }                             \
    };

//! Bad input: a name that breaks the lease-name rules, an invalid config, a malformed URL.
QSIMBA_DECLARE_ERROR(QSimbaInvalidArgumentError, QSimbaError)
//! Misuse: starting something after close(), starting an election twice.
QSIMBA_DECLARE_ERROR(QSimbaIllegalStateError, QSimbaError)
//! The calling thread's interruption was requested while it waited.
QSIMBA_DECLARE_ERROR(QSimbaInterruptedError, QSimbaError)
//! ensureValid() on a term that is revoked or has too little time left.
QSIMBA_DECLARE_ERROR(QSimbaTermExpiredError, QSimbaError)
//! A backend call on a session that expired (an expired session is never revived).
QSIMBA_DECLARE_ERROR(QSimbaSessionExpiredError, QSimbaError)
//! A backend failed: unreachable server, authentication, protocol or schema problem.
QSIMBA_DECLARE_ERROR(QSimbaBackendError, QSimbaError)

#undef QSIMBA_DECLARE_ERROR

class QSIMBACORE_EXPORT QSimbaLockTimeoutError : public QSimbaError
{
public:
    QSimbaLockTimeoutError(const QString &name, std::chrono::nanoseconds timeout);
    QString name() const { return m_name; }
    std::chrono::nanoseconds timeout() const { return m_timeout; }
    void raise() const override { throw *this; }
    QSimbaLockTimeoutError *clone() const override { return new QSimbaLockTimeoutError(*this); }

private:
    QString m_name;
    std::chrono::nanoseconds m_timeout;
};
