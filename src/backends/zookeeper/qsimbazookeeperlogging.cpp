// SPDX-License-Identifier: Apache-2.0
#include "qsimbazookeeperlogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaZookeeper, "qsimba.backend.zookeeper", QtWarningMsg)
