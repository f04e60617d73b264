// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>

/*
 * An incremental text/event-stream (Server-Sent Events) parser: feed() it bytes as they
 * arrive, in chunks of any size; it answers the events completed by them. Comment lines
 * (": keep-alive") and unknown fields are ignored, as the SSE specification says.
 */
class SseParser
{
public:
    struct Event
    {
        QString id;
        QString type; //!< "message" when the event has no "event:" line
        QString data; //!< data lines joined with '\n'
    };

    QList<Event> feed(const QByteArray &bytes);
    //! The last id seen: the Last-Event-ID of a reconnection.
    QString lastId() const { return m_lastId; }
    void reset() { m_buffer.clear(); m_current = {}; m_hasData = false; }

private:
    QByteArray m_buffer;
    Event m_current;
    bool m_hasData = false;
    QString m_lastId;
};
