// SPDX-License-Identifier: Apache-2.0
#include "qsimbahttplogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaHttp, "qsimba.http", QtWarningMsg)
