// SPDX-License-Identifier: Apache-2.0
#include "monitorformat.h"

#include <QtCore/QLocale>

QString MonitorFormat::duration(qint64 ms)
{
    const QLocale locale;
    if (ms <= 0)
        return tr("expired");
    if (ms < 1000)
        return tr("%1 ms").arg(locale.toString(ms));
    if (ms < 60'000)
        return tr("%1 s").arg(locale.toString(double(ms) / 1000.0, 'f', 1));
    if (ms < 3'600'000)
        return tr("%1 min %2 s").arg(locale.toString(ms / 60'000)).arg(locale.toString((ms / 1000) % 60));
    return tr("%1 h %2 min").arg(locale.toString(ms / 3'600'000)).arg(locale.toString((ms / 60'000) % 60));
}

QString MonitorFormat::number(qint64 n)
{
    return QLocale().toString(n);
}

QString MonitorFormat::time(const QDateTime &time)
{
    if (!time.isValid())
        return QString();
    const QLocale locale;
    QString format = locale.timeFormat(QLocale::LongFormat);
    // The long format carries seconds (and a zone we do not need); add milliseconds.
    format.remove(QLatin1Char('t')).replace(QStringLiteral("ss"), QStringLiteral("ss.zzz"));
    return locale.toString(time.toLocalTime().time(), format.trimmed());
}

QString MonitorFormat::dateTime(const QDateTime &time)
{
    return time.isValid() ? QLocale().toString(time.toLocalTime(), QLocale::ShortFormat) : QString();
}

QString MonitorFormat::canonicalType(const QString &type)
{
    if (type.contains(QLatin1Char('_')) || type == type.toUpper())
        return type.toUpper();
    QString out;
    for (qsizetype i = 0; i < type.size(); ++i) {
        if (i > 0 && type.at(i).isUpper())
            out += QLatin1Char('_');
        out += type.at(i).toUpper();
    }
    return out;
}

QString MonitorFormat::eventType(const QString &type)
{
    const QString t = canonicalType(type);
    if (t == u"SESSION_OPENED")
        return tr("Session opened");
    if (t == u"SESSION_RENEWED")
        return tr("Session renewed");
    if (t == u"SESSION_SUSPENDED")
        return tr("Session suspended");
    if (t == u"SESSION_EXPIRED")
        return tr("Session expired");
    if (t == u"SESSION_LEASE_SHORTENED")
        return tr("Lease shortened");
    if (t == u"SESSION_CLOSED")
        return tr("Session closed");
    if (t == u"ELECTED")
        return tr("Elected");
    if (t == u"REVOKED")
        return tr("Revoked");
    if (t == u"ACQUIRE_FAILED")
        return tr("Acquire failed");
    if (t == u"WORK_COMPLETED")
        return tr("Work completed");
    if (t == u"GAP")
        return tr("Events missed");
    // Observed by the monitor itself, from inspection.
    if (t == u"HOLDER_CHANGED")
        return tr("Holder changed");
    if (t == u"LEASE_EXPIRED")
        return tr("Expired without release");
    return type;
}

QString MonitorFormat::reason(const QString &reason)
{
    if (reason == u"STOPPED")
        return tr("stopped");
    if (reason == u"STEPPED_DOWN")
        return tr("stepped down");
    if (reason == u"SESSION_EXPIRED")
        return tr("session expired");
    if (reason == u"DEADLINE_PASSED")
        return tr("deadline passed");
    if (reason == u"TAKEN_OVER")
        return tr("taken over");
    if (reason == u"SESSION_SUSPENDED")
        return tr("session suspended");
    if (reason == u"SESSION_LOST")
        return tr("session lost");
    if (reason == u"BACKEND_FAILING")
        return tr("backend failing");
    if (reason == u"CLOSED")
        return tr("closed");
    if (reason == u"STARTING")
        return tr("starting");
    return reason;
}

#include "moc_monitorformat.cpp"
