// SPDX-License-Identifier: Apache-2.0
#include "metricsparser.h"

#include <QtCore/QList>

MetricsFigures MetricsFigures::parse(const QByteArray &text)
{
    MetricsFigures out;
    const QList<QByteArray> lines = text.split('\n');
    for (const QByteArray &raw : lines) {
        const QByteArray line = raw.trimmed();
        if (line.isEmpty() || line.startsWith('#') || !line.startsWith("simba_"))
            continue;
        // name{labels} value [timestamp]
        qsizetype nameEnd = line.indexOf('{');
        qsizetype valueStart;
        if (nameEnd >= 0) {
            const qsizetype close = line.indexOf('}', nameEnd);
            if (close < 0)
                continue;
            valueStart = close + 1;
        } else {
            nameEnd = line.indexOf(' ');
            if (nameEnd < 0)
                continue;
            valueStart = nameEnd;
        }
        const QByteArray name = line.left(nameEnd);
        const QList<QByteArray> rest = line.mid(valueStart).trimmed().split(' ');
        bool ok = false;
        const double value = rest.value(0).toDouble(&ok);
        if (!ok)
            continue;
        out.valid = true;
        if (name == "simba_backend_call_duration_seconds_sum")
            out.callSeconds += value;
        else if (name == "simba_backend_call_duration_seconds_count")
            out.calls += value;
        else if (name == "simba_elected_total")
            out.elected += value;
        else if (name == "simba_revoked_total")
            out.revoked += value;
        else if (name == "simba_backend_errors_total")
            out.backendErrors += value;
    }
    return out;
}
