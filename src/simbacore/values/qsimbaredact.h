// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QString>

class QUrl;

/*
 * One way to keep secrets out of messages, logs and backend descriptions: every backend and
 * the factory use these functions, so a password looks the same ("***") everywhere.
 * Reentrant.
 */
namespace QSimbaRedact {
//! What a secret is replaced with.
inline constexpr QLatin1String Mask("***");
//! The query options whose value is a secret (digest keeps its user part: "digest=app:***").
QSIMBACORE_EXPORT bool isSecretOption(const QString &key);
//! \a url as text for a description or message: password and secret options masked.
QSIMBACORE_EXPORT QString url(const QUrl &url);
//! Any text that may quote URLs (raw, malformed or percent-encoded) with their secrets masked.
QSIMBACORE_EXPORT QString text(const QString &text);
//! "host:port", with an IPv6 address in brackets ("[::1]:6379").
QSIMBACORE_EXPORT QString hostPort(const QString &host, int port);
} // namespace QSimbaRedact
