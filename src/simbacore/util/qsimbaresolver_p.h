// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QString>
#include <QtCore/QStringList>

#include <chrono>

/*
 * Name resolution with a bound: getaddrinfo() has no timeout of its own (a DNS outage costs
 * the resolver's timeout times its attempts times its nameservers), so backends resolve
 * through this before connecting, within their connect timeout.
 */
namespace QSimbaResolver {
struct Result
{
    QStringList addresses; //!< numeric, IPv4 first; empty on failure
    QString error;         //!< why not, naming the host
};
//! The addresses of \a host (a name, or a numeric address returned as is), waiting at most
//! \a timeout. A lookup that takes longer goes on in the background and is abandoned.
//! Thread-safe; blocks.
QSIMBACORE_EXPORT Result resolve(const QString &host, std::chrono::milliseconds timeout);
} // namespace QSimbaResolver
