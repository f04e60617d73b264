// SPDX-License-Identifier: Apache-2.0
#include "qsimbaerror.h"

#include "qsimbaduration_p.h"

/*!
    \class QSimbaLockTimeoutError
    \brief acquire(timeout) did not win a term in time.
*/

/*!
    \class QSimbaError
    \brief The base of every error QSimba throws or fails a QFuture with.

    The message names the offending value and the rule it broke. Plain value; reentrant.

    The one hierarchy of QSimba's errors. Every error derives from QException, so a QFuture
    carries it intact (clone() and raise() keep the dynamic type).
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
