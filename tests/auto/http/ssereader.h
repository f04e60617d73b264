// SPDX-License-Identifier: Apache-2.0
// Test support: Server-Sent Events readers over QNetworkAccessManager and over a bare socket.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QUrl>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QTcpSocket>

#include <optional>

struct SseEvent
{
    qint64 id = -1; //!< -1 without an id line (GAP)
    QByteArray event;
    QByteArray data;
};

//! Takes every complete event block out of \a buffer (the text/event-stream grammar's subset
//! the endpoint writes: id, event, data, retry and comment lines).
inline void takeSseEvents(QByteArray &buffer, QList<SseEvent> &events, int &comments)
{
    qsizetype end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
        const QByteArray block = buffer.left(end);
        buffer.remove(0, end + 2);
        SseEvent e;
        bool any = false;
        for (const QByteArray &line : block.split('\n')) {
            if (line.startsWith(':'))
                ++comments;
            else if (line.startsWith("id: "))
                e.id = line.mid(4).toLongLong(), any = true;
            else if (line.startsWith("event: "))
                e.event = line.mid(7), any = true;
            else if (line.startsWith("data: "))
                e.data = line.mid(6), any = true;
        }
        if (any)
            events.append(e);
    }
}

//! A reader on QNetworkAccessManager, as a Qt client would read the stream.
class SseReader : public QObject
{
    Q_OBJECT
public:
    void open(const QUrl &url, std::optional<qint64> lastEventId = std::nullopt, const QByteArray &token = {})
    {
        QNetworkRequest request(url);
        request.setRawHeader("Accept", "text/event-stream");
        if (lastEventId)
            request.setRawHeader("Last-Event-ID", QByteArray::number(*lastEventId));
        if (!token.isEmpty())
            request.setRawHeader("Authorization", "Bearer " + token);
        reply = nam.get(request);
        connect(reply, &QNetworkReply::readyRead, this, [this] {
            buffer += reply->readAll();
            takeSseEvents(buffer, events, comments);
        });
    }
    void close()
    {
        if (reply) {
            reply->abort();
            reply->deleteLater();
        }
    }
    int status() const { return reply ? reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() : 0; }

    QNetworkAccessManager nam;
    QPointer<QNetworkReply> reply;
    QByteArray buffer;
    QList<SseEvent> events;
    int comments = 0;
};

//! A reader on a bare socket: many of them at once (QNetworkAccessManager queues more than
//! six connections to one host), or one that stops reading.
class RawSseReader : public QObject
{
    Q_OBJECT
public:
    void open(quint16 port, std::optional<qint64> lastEventId = std::nullopt)
    {
        connect(&socket, &QTcpSocket::readyRead, this, &RawSseReader::read);
        socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        QByteArray request = "GET /simba/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n";
        if (lastEventId)
            request += "Last-Event-ID: " + QByteArray::number(*lastEventId) + "\r\n";
        socket.write(request + "\r\n");
    }
    void read()
    {
        if (paused)
            return;
        buffer += socket.readAll();
        if (!headersDone) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            headers = buffer.left(end);
            buffer.remove(0, end + 4);
            headersDone = true;
        }
        takeSseEvents(buffer, events, comments);
    }

    QTcpSocket socket;
    bool paused = false;
    bool headersDone = false;
    QByteArray headers;
    QByteArray buffer;
    QList<SseEvent> events;
    int comments = 0;
};
