// SPDX-License-Identifier: Apache-2.0
#include "qsimbahostlist_p.h"

#include <QtCore/QRegularExpression>

QStringList QSimbaHostList::parse(const QString &hosts, int defaultPort, QString *problem)
{
    const auto fail = [problem](const QString &words) {
        *problem = words;
        return QStringList();
    };
    QStringList result;
    for (const QString &entry : hosts.split(QLatin1Char(','))) {
        static const QRegularExpression hostPort(
            QStringLiteral("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(?::([^:]*))?$"));
        const auto match = hostPort.match(entry);
        if (!match.hasMatch())
            return fail(QStringLiteral("malformed host \"%1\" (expected host or host:port)").arg(entry));
        QString port = match.captured(2);
        if (port.isEmpty() && entry.endsWith(QLatin1Char(':')))
            return fail(QStringLiteral("empty port in \"%1\"").arg(entry));
        if (port.isEmpty()) {
            port = QString::number(defaultPort);
        } else {
            bool ok = false;
            const int number = port.toInt(&ok);
            if (!ok || number < 1 || number > 65535 || !port.front().isDigit())
                return fail(QStringLiteral("invalid port \"%1\" in \"%2\" (expected 1–65535)").arg(port, entry));
        }
        result.append(match.captured(1) + QLatin1Char(':') + port);
    }
    problem->clear();
    return result;
}
