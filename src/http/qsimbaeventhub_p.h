// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaevent.h"

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTimer>

#include <deque>
#include <optional>

class QTcpSocket;

/*
 * The Server-Sent Events side of the endpoint: a ring buffer of the last events, each
 * serialized once, and the open streams it writes them to. Writing never waits: a stream
 * whose socket has more than maxPending bytes queued is closed (a slow reader is dropped,
 * so memory stays bounded by the buffer plus readers × maxPending). Thread-affine (the
 * endpoint's thread).
 */
class QSimbaEventHub : public QObject
{
    Q_OBJECT

public:
    QSimbaEventHub(int capacity, qint64 maxPending, std::chrono::milliseconds keepAlive, QObject *parent = nullptr);

    //! "SESSION_SUSPENDED" for SessionSuspended: the SSE event name.
    static QByteArray eventName(QSimbaEvent::Type type);

    //! Numbers \a event, keeps it and writes it to every stream.
    void publish(const QSimbaEvent &event);
    //! Takes \a socket (whose response headers were written) as a stream: replays the events
    //! after \a lastEventId (with a GAP first when they are no longer all kept), then live.
    void addReader(QTcpSocket *socket, std::optional<qint64> lastEventId);
    bool isReader(const QTcpSocket *socket) const;

    int readerCount() const { return int(m_readers.size()); }
    qint64 lastId() const { return m_lastId; }
    qint64 oldestId() const { return m_ring.empty() ? m_lastId + 1 : m_ring.front().id; }
    quint64 droppedCount() const { return m_dropped; }

Q_SIGNALS:
    void readerCountChanged(int readers);
    void readerDropped();

private:
    struct Entry
    {
        qint64 id;
        QByteArray frame;
    };
    //! Writes \a bytes unless the reader is too far behind; then drops it (false).
    bool send(QTcpSocket *socket, const QByteArray &bytes);
    void drop(QTcpSocket *socket);
    void remove(QTcpSocket *socket);
    void keepAlive();

    int m_capacity;
    qint64 m_maxPending;
    std::deque<Entry> m_ring;
    qint64 m_lastId = 0;
    QList<QTcpSocket *> m_readers;
    quint64 m_dropped = 0;
    QTimer m_keepAlive;
};
