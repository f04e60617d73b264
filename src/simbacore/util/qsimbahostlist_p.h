// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QStringList>

namespace QSimbaHostList {
//! Parses the host list of a multi-host URL ("h1:2181,[::1]:2182,h3"): each entry a host
//! name, an IPv4 address or a bracketed IPv6 address, with an optional port 1–65535
//! (\a defaultPort when absent). Returns the entries as "host:port", or sets \a problem to
//! words naming the bad entry and the rule (then the list is empty).
QSIMBACORE_EXPORT QStringList parse(const QString &hosts, int defaultPort, QString *problem);
} // namespace QSimbaHostList
