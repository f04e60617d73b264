// SPDX-License-Identifier: Apache-2.0
#include "qsimbalogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaEngine, "qsimba.engine", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSimbaSession, "qsimba.session", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSimbaElection, "qsimba.election", QtWarningMsg)
Q_LOGGING_CATEGORY(lcSimbaMemory, "qsimba.backend.memory", QtWarningMsg)
