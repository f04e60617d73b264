// SPDX-License-Identifier: Apache-2.0
// simbactl assign; not installed.
#pragma once

#include <QtCore/QStringList>

/*
 * `simbactl assign --partitions N [--json] MEMBER…`: the owner of every partition among the
 * members (QSimbaPartitionAssignment), without a backend.
 */
class AssignCommand
{
public:
    static int run(const QStringList &args);
};
