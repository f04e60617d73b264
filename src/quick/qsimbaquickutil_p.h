// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QLoggingCategory>
#include <QtCore/QString>
#include <QtCore/QVariant>

#include <chrono>
#include <optional>

Q_DECLARE_LOGGING_CATEGORY(lcSimbaQuick)

namespace QSimbaQuick {
//! A QML duration: a number of milliseconds or a string such as "10s", "500ms", "PT1M".
//! An undefined, null or empty value is absent (nullopt, no error); a malformed one sets
//! \a error to a message naming \a property and the rule.
std::optional<std::chrono::nanoseconds> durationOf(const QVariant &value, const QString &property, QString *error);
//! Whether \a value is set (not undefined, null or an empty string).
bool isSet(const QVariant &value);
} // namespace QSimbaQuick
