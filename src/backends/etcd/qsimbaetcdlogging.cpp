// SPDX-License-Identifier: Apache-2.0
#include "qsimbaetcdlogging_p.h"

Q_LOGGING_CATEGORY(lcSimbaEtcd, "qsimba.backend.etcd", QtWarningMsg)
