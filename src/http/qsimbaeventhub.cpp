// SPDX-License-Identifier: Apache-2.0
#include "qsimbaeventhub_p.h"

#include "qsimbahttplogging_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QMetaEnum>
#include <QtNetwork/QTcpSocket>

QSimbaEventHub::QSimbaEventHub(int capacity, qint64 maxPending, std::chrono::milliseconds keepAlive, QObject *parent)
    : QObject(parent), m_capacity(capacity), m_maxPending(maxPending)
{
    m_keepAlive.setInterval(keepAlive);
    connect(&m_keepAlive, &QTimer::timeout, this, &QSimbaEventHub::keepAlive);
    m_keepAlive.start();
}

QByteArray QSimbaEventHub::eventName(QSimbaEvent::Type type)
{
    const QByteArray camel = QMetaEnum::fromType<QSimbaEvent::Type>().valueToKey(int(type));
    QByteArray upper;
    for (qsizetype i = 0; i < camel.size(); ++i) {
        const char c = camel.at(i);
        if (i > 0 && c >= 'A' && c <= 'Z')
            upper += '_';
        upper += char(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    }
    return upper;
}

void QSimbaEventHub::publish(const QSimbaEvent &event)
{
    const qint64 id = ++m_lastId;
    QByteArray frame = "id: " + QByteArray::number(id) + "\nevent: " + eventName(event.type()) + "\ndata: "
                       + QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact) + "\n\n";
    m_ring.push_back({id, frame});
    while (int(m_ring.size()) > m_capacity)
        m_ring.pop_front();
    // send() may drop a reader: iterate over a copy.
    const auto readers = m_readers;
    for (QTcpSocket *socket : readers)
        send(socket, frame);
}

void QSimbaEventHub::addReader(QTcpSocket *socket, std::optional<qint64> lastEventId)
{
    m_readers.append(socket);
    // A bounded kernel buffer too: a stalled reader shows in bytesToWrite() soon, not after
    // the several megabytes send-buffer autotuning would take.
    socket->setSocketOption(QAbstractSocket::SendBufferSizeSocketOption, int(std::min<qint64>(m_maxPending, 64 * 1024)));
    connect(socket, &QTcpSocket::disconnected, this, [this, socket] { remove(socket); });
    connect(socket, &QObject::destroyed, this, [this, socket] { remove(socket); });
    // An event stream takes no further requests: whatever the reader sends is ignored.
    QByteArray start = "retry: 2000\n\n";
    if (lastEventId) {
        const qint64 from = *lastEventId;
        if (from + 1 < oldestId() || from > m_lastId) {
            start += "event: GAP\ndata: {\"from\":" + QByteArray::number(from) + ",\"oldest\":"
                     + QByteArray::number(oldestId()) + "}\n\n";
        }
        for (const Entry &e : m_ring) {
            if (e.id > from || from > m_lastId)
                start += e.frame;
        }
    }
    // The replay is bounded by the ring buffer: it is written whatever maxPending says.
    socket->write(start);
    Q_EMIT readerCountChanged(readerCount());
}

bool QSimbaEventHub::isReader(const QTcpSocket *socket) const
{
    return m_readers.contains(socket);
}

bool QSimbaEventHub::send(QTcpSocket *socket, const QByteArray &bytes)
{
    if (socket->bytesToWrite() > m_maxPending) {
        drop(socket);
        return false;
    }
    socket->write(bytes);
    return true;
}

void QSimbaEventHub::drop(QTcpSocket *socket)
{
    qCInfo(lcSimbaHttp) << "dropping an event stream" << socket->peerAddress() << socket->peerPort() << "with"
                        << socket->bytesToWrite() << "bytes queued";
    ++m_dropped;
    remove(socket);
    socket->abort(); // discards what is queued: the memory is freed now
    Q_EMIT readerDropped();
}

void QSimbaEventHub::remove(QTcpSocket *socket)
{
    if (m_readers.removeOne(socket)) {
        disconnect(socket, nullptr, this, nullptr);
        Q_EMIT readerCountChanged(readerCount());
    }
}

void QSimbaEventHub::keepAlive()
{
    static const QByteArray comment = ": keep-alive\n\n";
    const auto readers = m_readers;
    for (QTcpSocket *socket : readers)
        send(socket, comment);
}

#include "moc_qsimbaeventhub_p.cpp"
