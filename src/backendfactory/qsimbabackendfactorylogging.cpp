// SPDX-License-Identifier: Apache-2.0
#include "qsimbabackendfactorylogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaBackendFactory, "qsimba.backends", QtWarningMsg)
