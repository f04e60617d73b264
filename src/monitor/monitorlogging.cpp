// SPDX-License-Identifier: Apache-2.0
#include "monitorlogging_p.h"

Q_LOGGING_CATEGORY(lcMonitor, "qsimba.monitor")
