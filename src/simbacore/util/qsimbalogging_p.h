// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QLoggingCategory>

QSIMBACORE_EXPORT Q_DECLARE_LOGGING_CATEGORY(lcSimbaEngine)
QSIMBACORE_EXPORT Q_DECLARE_LOGGING_CATEGORY(lcSimbaSession)
QSIMBACORE_EXPORT Q_DECLARE_LOGGING_CATEGORY(lcSimbaElection)
QSIMBACORE_EXPORT Q_DECLARE_LOGGING_CATEGORY(lcSimbaMemory)
