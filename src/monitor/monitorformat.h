// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QDateTime>
#include <QtCore/QObject>
#include <QtCore/QString>

/*
 * Durations, numbers and times as the operator reads them: in the current default QLocale
 * (set by the language switch) and with translated units. Invokable from QML as "Format".
 */
class MonitorFormat : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    //! "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min"; "expired" at or below zero.
    Q_INVOKABLE static QString duration(qint64 ms);
    //! A number with the locale's digit grouping.
    Q_INVOKABLE static QString number(qint64 n);
    //! A wall-clock time of day with milliseconds, in the locale's short format.
    Q_INVOKABLE static QString time(const QDateTime &time);
    //! A date and time in the locale's short format.
    Q_INVOKABLE static QString dateTime(const QDateTime &time);
    //! The event type (ELECTED, SessionSuspended, …) in words of the current language.
    Q_INVOKABLE static QString eventType(const QString &type);
    //! A revoke or health reason (TAKEN_OVER, SESSION_LOST, …) in words.
    Q_INVOKABLE static QString reason(const QString &reason);
    //! "ELECTED", "Elected" and "elected" all become "ELECTED"; "SessionOpened" becomes
    //! "SESSION_OPENED".
    static QString canonicalType(const QString &type);
};
