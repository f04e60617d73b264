// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QHash>
#include <QtCore/QString>

/*
 * The few figures the monitor reads from a Prometheus text exposition (GET /simba/metrics):
 * sums over all label values of the series it charts.
 */
struct MetricsFigures
{
    double callSeconds = 0;   //!< simba_backend_call_duration_seconds_sum, all calls
    double calls = 0;         //!< simba_backend_call_duration_seconds_count, all calls
    double elected = 0;       //!< simba_elected_total, all kinds
    double revoked = 0;       //!< simba_revoked_total, all kinds and reasons
    double backendErrors = 0; //!< simba_backend_errors_total
    bool valid = false;       //!< at least one simba_ series was read

    static MetricsFigures parse(const QByteArray &text);
};
