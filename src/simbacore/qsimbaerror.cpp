// SPDX-License-Identifier: Apache-2.0
#include "qsimbaerror.h"

#include "qsimbaduration_p.h"

/*!
    \class QSimbaError
    \brief The base of every error QSimba throws or fails a QFuture with.

    The message names the offending value and the rule it broke. Plain value; reentrant.
*/
QSimbaError::QSimbaError(const QString &message)
    : m_message(message), m_what(message.toUtf8())
{
}

QSimbaError::~QSimbaError() = default;

QSimbaLockTimeoutError::QSimbaLockTimeoutError(const QString &name,
                                               std::chrono::nanoseconds timeout)
    : QSimbaError(QStringLiteral("lock \"%1\" not acquired within %2")
                      .arg(name, QSimbaDuration::format(timeout))),
      m_name(name),
      m_timeout(timeout)
{
}
