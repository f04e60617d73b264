// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include <QtCore/QtGlobal>

#include <time.h>

// CLOCK_MONOTONIC in nanoseconds: one clock for every process of the host, so the runner
// can compare the intervals its workers record.
inline qint64 monotonicNs()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
