// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqllogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaSql, "qsimba.backend.sql", QtWarningMsg)
