// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredislogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaRedis, "qsimba.backend.redis", QtWarningMsg)
