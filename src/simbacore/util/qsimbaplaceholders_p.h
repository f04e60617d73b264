// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QString>

namespace QSimbaPlaceholders {
//! \a value with each ${VAR} replaced by the environment variable VAR and each
//! ${VAR:default} by VAR or, when VAR is unset, by default. Throws
//! QSimbaInvalidArgumentError naming the setting \a key for an unset variable without a
//! default or a placeholder that is not closed (the value quoted with secrets masked).
//! The one grammar of every setting: QSimbaSettings, the scheduler's declarations, the
//! endpoint's "simba/http" group. Reentrant.
QSIMBACORE_EXPORT QString expand(const QString &value, const QString &key);
} // namespace QSimbaPlaceholders
