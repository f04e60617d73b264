// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbabackendmetrics.h"
#include "qsimbaevent.h"
#include "qsimbasnapshot.h"

#include <QtCore/QByteArray>
#include <QtCore/QMap>

/*
 * Counters the endpoint derives from a client's events (from the moment it was attached),
 * every label combination present from the start at 0. Thread-affine (the endpoint's).
 */
struct QSimbaEventCounters
{
    QSimbaEventCounters();
    void count(const QSimbaEvent &event);

    QMap<QString, quint64> elected;        //!< by kind
    QMap<QString, quint64> revoked;        //!< by "kind\treason"
    QMap<QString, quint64> sessionLosses;  //!< by reason
    QMap<QByteArray, quint64> events;      //!< by SSE event name
    quint64 suspensions = 0;
    quint64 acquireFailures = 0;
};

/*
 * Writes the Prometheus text exposition format (version 0.0.4) of one client: one HELP and
 * one TYPE line per metric, label values escaped, names per Prometheus' conventions
 * (simba_ prefix, base units, _total counters). Per-name series are capped at maxNameSeries,
 * leaders first; see docs/endpoint.md.
 */
class QSimbaMetricsWriter
{
public:
    struct Input
    {
        QSimbaSnapshot snapshot;
        const QSimbaBackendMetrics *backend = nullptr;
        const QSimbaEventCounters *events = nullptr;
        int maxNameSeries = 1000;
        int readers = 0;
        quint64 readersDropped = 0;
    };
    static QByteArray write(const Input &input);
    //! \a value as a label value: backslash, double quote and line feed escaped.
    static QByteArray escapeLabel(const QString &value);
};
