// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QString>

#include <chrono>
#include <optional>

namespace QSimbaDuration {
//! "15s", "250ms", "1.5s", "2m" — the form used in messages and by simbactl.
QSIMBACORE_EXPORT QString format(std::chrono::nanoseconds d);
//! Parses "500ms", "10s", "1m", "1h", "250us", "100ns" (a number and a unit) or an ISO-8601
//! duration ("PT1M", "PT0.5S", "P1DT2H"); nullopt when malformed.
QSIMBACORE_EXPORT std::optional<std::chrono::nanoseconds> parse(const QString &text);
} // namespace QSimbaDuration
