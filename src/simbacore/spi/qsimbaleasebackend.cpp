// SPDX-License-Identifier: Apache-2.0
#include "qsimbaleasebackend.h"

#include "qsimbaerror.h"

/*!
    \class QSimbaLeaseBackend
    \brief The backend SPI; its rules are stated in the header.
*/

QSimbaLeaseBackend::~QSimbaLeaseBackend() = default;
QSimbaLeaseBackend::Subscription::~Subscription() = default;

std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaLeaseBackend::subscribe(HintListener)
{
    return std::make_unique<Subscription>();
}

QSimbaLeaseBackend::Inspection QSimbaLeaseBackend::inspect()
{
    throw QSimbaIllegalStateError(QStringLiteral("backend %1 does not support inspection").arg(describe()));
}

void QSimbaLeaseBackend::validateLease(Millis lease)
{
    if (lease < Millis(1))
        throw QSimbaInvalidArgumentError(
            QStringLiteral("lease duration must be at least 1ms, got %1ms").arg(lease.count()));
}

void QSimbaLeaseBackend::validateBatch(const QSet<QSimbaLeaseName> &names)
{
    if (names.size() > MaxBatch)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("acquire takes at most %1 names per call (MaxBatch), got %2").arg(MaxBatch).arg(names.size()));
    for (const auto &name : names)
        if (name.isEmpty())
            throw QSimbaInvalidArgumentError(QStringLiteral("acquire got an empty lease name"));
}

void QSimbaLeaseBackend::validateGroup(const QString &group)
{
    const QString error = QSimbaLeaseName::validate(group, u"group name");
    if (!error.isEmpty())
        throw QSimbaInvalidArgumentError(error);
}
