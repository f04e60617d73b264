// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbahttpendpoint.h"
#include "qsimbaeventhub_p.h"
#include "qsimbametricswriter_p.h"

#include "qsimba.h"

#include <QtCore/QDateTime>
#include <QtCore/QHash>
#include <QtCore/QPointer>
#include <QtHttpServer/QAbstractHttpServer>
#include <QtNetwork/QTcpServer>

class QTcpSocket;

/*
 * The listening socket: counts open connections (refusing those beyond maxConnections with
 * 503) and measures each request before QtHttpServer parses it, answering 431 when its
 * request line and headers exceed maxHeaderBytes (QtHttpServer 6.4 itself has no such
 * limit below its parser's 80 KiB, and on a parse error leaves the connection open without
 * an answer).
 */
class QSimbaHttpListener : public QTcpServer
{
    Q_OBJECT
public:
    QSimbaHttpListener(int maxConnections, int maxHeaderBytes, QObject *parent = nullptr);
    //! A request on \a socket was answered: the next one starts from zero.
    void requestDone(QTcpSocket *socket);

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    struct Measure
    {
        qint64 received = 0;
        bool headersDone = false;
        qint64 headerBytes = 0;
        QByteArray tail; // the last bytes seen, to find "\r\n\r\n" across reads
    };
    void measure(QTcpSocket *socket);
    int m_maxConnections;
    int m_maxHeaderBytes;
    QHash<QTcpSocket *, Measure> m_measures;
};

//! QtHttpServer's request handling, answered on the socket itself (streams included).
class QSimbaHttpServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    explicit QSimbaHttpServer(QSimbaHttpEndpointPrivate *d, QObject *parent = nullptr)
        : QAbstractHttpServer(parent), m_d(d)
    {
    }

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    QSimbaHttpEndpointPrivate *m_d;
};

class QSimbaHttpEndpointPrivate
{
public:
    struct Reply
    {
        int status = 200;
        QByteArray contentType;
        QByteArray body;
        QList<std::pair<QByteArray, QByteArray>> headers;
    };

    QSimbaHttpEndpoint *q = nullptr;
    QPointer<QSimba> simba;
    std::shared_ptr<const QSimbaBackendMetrics> backendMetrics;
    QSimbaHttpEndpoint::Options options;
    QByteArray tokenDigest;
    QDateTime startedAt;
    QSimbaHttpServer *server = nullptr;
    QSimbaHttpListener *listener = nullptr;
    QSimbaEventHub *hub = nullptr;
    QSimbaEventCounters counters;
    bool sessionLost = false;

    void handle(const QHttpServerRequest &request, QTcpSocket *socket);
    bool authorized(const QHttpServerRequest &request) const;
    QSimbaSnapshot snapshot() const;
    Reply snapshotReply() const;
    Reply healthReply() const;
    Reply metricsReply() const;
    void onEvent(const QSimbaEvent &event);

    static QByteArray header(const QHttpServerRequest &request, const QByteArray &name);
    static QByteArray reasonPhrase(int status);
    static Reply json(int status, const QJsonObject &object);
    //! Writes \a reply on \a socket (its body unless \a headOnly); closes after it when \a close.
    static void send(QTcpSocket *socket, const Reply &reply, bool headOnly, bool close);
    //! Compares SHA-256 digests without an early exit.
    static bool sameDigest(const QByteArray &a, const QByteArray &b);
};
