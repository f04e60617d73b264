// SPDX-License-Identifier: Apache-2.0
#include "qsimbahttpendpoint.h"
#include "qsimbahttpendpoint_p.h"

#include "qsimbahttplogging_p.h"

#include "qsimbaerror.h"
#include "qsimbaplaceholders_p.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QCryptographicHash>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QSettings>
#include <QtCore/QSysInfo>
#include <QtCore/QUrlQuery>
#include <QtHttpServer/QHttpServerRequest>
#include <QtNetwork/QTcpSocket>

/*!
    \class QSimbaHttpEndpoint
    \brief The operator endpoint of a QSimba client: snapshot, health, metrics, events.

    Attach it in one line, \c{QSimbaHttpEndpoint endpoint(simba.get(), 9464);}.
    Routes, formats and options: docs/endpoint.md. It derives its counters from the client's
    events from the moment it is attached, and reads the backend's call figures the client
    keeps from the start (QSimba::backendMetrics()).

    Thread-affine: create it on a thread with an event loop (usually the client's owner
    thread); it serves from there. Nothing it does waits for the engine except reading
    QSimba::snapshot(), which the engine answers between two inputs; a slow reader of
    /simba/events is dropped rather than waited for.

    The operator endpoint of a QSimba client, on QtHttpServer: GET /simba (snapshot JSON),
    /simba/health (200 UP / 503 with the reason), /simba/metrics (Prometheus text format) and
    /simba/events (Server-Sent Events with Last-Event-ID resume). Loopback unless told
    otherwise; an optional bearer token guards every route. It reads the client's snapshot
    and events only and never blocks the engine. Thread-affine: it serves from the thread
    that created it, which runs an event loop. See docs/endpoint.md.
*/

namespace {

const QByteArray JsonType = "application/json";

QByteArray sha256(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha256);
}

QString hostText(const QHostAddress &address)
{
    return address.protocol() == QAbstractSocket::IPv6Protocol ? u'[' + address.toString() + u']'
                                                                : address.toString();
}

} // namespace

// ---------------------------------------------------------------------------------------
// Options

QSimbaHttpEndpoint::Options QSimbaHttpEndpoint::Options::fromSettings(QSettings &settings)
{
    Options o;
    // Placeholders (${VAR}, ${VAR:default}) as in every other setting.
    const auto read = [&settings](const QString &key) {
        const QString path = QStringLiteral("simba/http/") + key;
        return QSimbaPlaceholders::expand(settings.value(path).toString(), path);
    };
    const QString address = read(QStringLiteral("address"));
    const QString port = read(QStringLiteral("port"));
    o.token = read(QStringLiteral("token")).toUtf8();
    if (!address.isEmpty() || !port.isEmpty()) {
        const QString host = address.contains(u':') ? u'[' + address + u']' : address; // IPv6
        const QString portText = port.isEmpty() ? QStringLiteral("0") : port;
        try {
            o = parseListen(address.isEmpty() ? portText : host + u':' + portText, o);
        } catch (const QSimbaInvalidArgumentError &e) {
            throw QSimbaInvalidArgumentError(QStringLiteral("settings simba/http/address and simba/http/port: ")
                                             + e.message());
        }
    }
    if (qEnvironmentVariableIsSet("SIMBA_HTTP_TOKEN"))
        o.token = qgetenv("SIMBA_HTTP_TOKEN");
    return o;
}

QSimbaHttpEndpoint::Options QSimbaHttpEndpoint::Options::parseListen(const QString &text, const Options &base)
{
    Options o = base;
    QString host;
    QString port = text;
    if (text.startsWith(u'[')) {
        const qsizetype close = text.indexOf(QStringLiteral("]:"));
        if (close < 0)
            throw QSimbaInvalidArgumentError(
                QStringLiteral("\"%1\" is not [HOST:]PORT: an IPv6 host is written [ADDRESS]:PORT").arg(text));
        host = text.mid(1, close - 1);
        port = text.mid(close + 2);
    } else if (text.count(u':') == 1) {
        host = text.section(u':', 0, 0);
        port = text.section(u':', 1);
    }
    bool ok = false;
    const uint number = port.toUInt(&ok);
    if (!ok || number > 65535)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("\"%1\" is not [HOST:]PORT: the port must be a number from 0 to 65535").arg(text));
    o.port = quint16(number);
    if (!host.isEmpty()) {
        if (host == QLatin1String("localhost"))
            o.address = QHostAddress(QHostAddress::LocalHost);
        else if (!o.address.setAddress(host))
            throw QSimbaInvalidArgumentError(
                QStringLiteral("\"%1\" is not [HOST:]PORT: the host must be an IP address or localhost").arg(text));
    }
    return o;
}

// ---------------------------------------------------------------------------------------
// The endpoint

static QSimbaHttpEndpoint::Options onPort(quint16 port)
{
    QSimbaHttpEndpoint::Options options;
    options.port = port;
    return options;
}

QSimbaHttpEndpoint::QSimbaHttpEndpoint(QSimba *simba, quint16 port, QObject *parent)
    : QSimbaHttpEndpoint(simba, onPort(port), parent)
{
}

QSimbaHttpEndpoint::QSimbaHttpEndpoint(QSimba *simba, const Options &options, QObject *parent)
    : QObject(parent), d_ptr(new QSimbaHttpEndpointPrivate)
{
    Q_D(QSimbaHttpEndpoint);
    const auto check = [](bool ok, const QString &rule) {
        if (!ok)
            throw QSimbaInvalidArgumentError(QStringLiteral("QSimbaHttpEndpoint: ") + rule);
    };
    check(simba != nullptr, QStringLiteral("the client is null"));
    check(options.eventBufferSize >= 1,
          QStringLiteral("eventBufferSize %1 must be at least 1").arg(options.eventBufferSize));
    check(options.keepAliveInterval.count() > 0,
          QStringLiteral("keepAliveInterval %1 ms must be positive").arg(options.keepAliveInterval.count()));
    check(options.maxReaders >= 0, QStringLiteral("maxReaders %1 must not be negative").arg(options.maxReaders));
    check(options.maxPendingBytes >= 1024,
          QStringLiteral("maxPendingBytes %1 must be at least 1024").arg(options.maxPendingBytes));
    check(options.maxNameSeries >= 0,
          QStringLiteral("maxNameSeries %1 must not be negative").arg(options.maxNameSeries));
    check(options.maxHeaderBytes >= 1024,
          QStringLiteral("maxHeaderBytes %1 must be at least 1024").arg(options.maxHeaderBytes));
    check(options.maxConnections >= 1,
          QStringLiteral("maxConnections %1 must be at least 1").arg(options.maxConnections));

    d->q = this;
    d->simba = simba;
    d->backendMetrics = simba->backendMetrics();
    d->options = options;
    if (!options.token.isEmpty())
        d->tokenDigest = sha256(options.token);
    d->startedAt = QDateTime::currentDateTimeUtc();

    d->hub = new QSimbaEventHub(options.eventBufferSize, options.maxPendingBytes, options.keepAliveInterval, this);
    connect(d->hub, &QSimbaEventHub::readerCountChanged, this, &QSimbaHttpEndpoint::readerCountChanged);
    connect(d->hub, &QSimbaEventHub::readerDropped, this, &QSimbaHttpEndpoint::readerDropped);

    d->server = new QSimbaHttpServer(d, this);
    auto listener = std::make_unique<QSimbaHttpListener>(options.maxConnections, options.maxHeaderBytes);
    if (!listener->listen(options.address, options.port)) {
        throw QSimbaIllegalStateError(QStringLiteral("QSimbaHttpEndpoint: cannot listen on %1:%2: %3")
                                          .arg(hostText(options.address))
                                          .arg(options.port)
                                          .arg(listener->errorString()));
    }
    d->listener = listener.release();
    d->server->bind(d->listener); // the server takes the listener as its child
    // The events arrive on the client's callback executor; AutoConnection queues them here
    // when that is another thread.
    connect(simba, &QSimba::event, this, [d](const QSimbaEvent &event) { d->onEvent(event); });
    qCInfo(lcSimbaHttp) << "serving" << url();
}

QSimbaHttpEndpoint::~QSimbaHttpEndpoint()
{
    Q_D(QSimbaHttpEndpoint);
    // The server's sockets go first: their signals reach the hub and the listener.
    delete d->server;
    d->server = nullptr;
}

QSimbaHttpEndpoint::Options QSimbaHttpEndpoint::options() const
{
    Q_D(const QSimbaHttpEndpoint);
    return d->options;
}

QHostAddress QSimbaHttpEndpoint::address() const
{
    Q_D(const QSimbaHttpEndpoint);
    return d->listener->serverAddress();
}

quint16 QSimbaHttpEndpoint::port() const
{
    Q_D(const QSimbaHttpEndpoint);
    return d->listener->serverPort();
}

QUrl QSimbaHttpEndpoint::url() const
{
    QUrl url;
    url.setScheme(QStringLiteral("http"));
    url.setHost(address().toString());
    url.setPort(port());
    url.setPath(QStringLiteral("/simba"));
    return url;
}

int QSimbaHttpEndpoint::readerCount() const
{
    Q_D(const QSimbaHttpEndpoint);
    return d->hub->readerCount();
}

qint64 QSimbaHttpEndpoint::lastEventId() const
{
    Q_D(const QSimbaHttpEndpoint);
    return d->hub->lastId();
}

// ---------------------------------------------------------------------------------------
// Requests

bool QSimbaHttpServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    m_d->handle(request, socket);
    return true;
}

void QSimbaHttpServer::missingHandler(const QHttpServerRequest &, QTcpSocket *)
{
    // handleRequest() answers every request.
}

void QSimbaHttpEndpointPrivate::handle(const QHttpServerRequest &request, QTcpSocket *socket)
{
    listener->requestDone(socket);
    if (hub->isReader(socket))
        return; // an event stream takes no further requests
    const bool close = header(request, "connection").toLower().contains("close");
    const bool head = request.method() == QHttpServerRequest::Method::Head;
    if (!authorized(request)) {
        Reply r = json(401, {{QStringLiteral("status"), 401},
                             {QStringLiteral("error"), QStringLiteral("a valid bearer token is required")}});
        r.headers.append(std::pair<QByteArray, QByteArray>("WWW-Authenticate", "Bearer realm=\"simba\""));
        send(socket, r, head, close);
        return;
    }
    const QString path = request.url().path();
    enum class Route { Snapshot, Health, Metrics, Events };
    static const QHash<QString, Route> routes{{QStringLiteral("/simba"), Route::Snapshot},
                                              {QStringLiteral("/simba/health"), Route::Health},
                                              {QStringLiteral("/simba/metrics"), Route::Metrics},
                                              {QStringLiteral("/simba/events"), Route::Events}};
    const auto route = routes.constFind(path);
    if (route == routes.cend()) {
        send(socket,
             json(404, {{QStringLiteral("status"), 404},
                        {QStringLiteral("error"), QStringLiteral("no such route; the routes are /simba, "
                                                                 "/simba/health, /simba/metrics, /simba/events")}}),
             head, close);
        return;
    }
    if (request.method() != QHttpServerRequest::Method::Get && !head) {
        Reply r = json(405, {{QStringLiteral("status"), 405},
                             {QStringLiteral("error"), QStringLiteral("only GET and HEAD are allowed")}});
        r.headers.append(std::pair<QByteArray, QByteArray>("Allow", "GET, HEAD"));
        send(socket, r, false, close);
        return;
    }
    switch (*route) {
    case Route::Snapshot:
        send(socket, snapshotReply(), head, close);
        return;
    case Route::Health:
        send(socket, healthReply(), head, close);
        return;
    case Route::Metrics:
        send(socket, metricsReply(), head, close);
        return;
    case Route::Events:
        break;
    }

    std::optional<qint64> lastEventId;
    QByteArray idText = header(request, "last-event-id");
    if (idText.isEmpty())
        idText = QUrlQuery(request.url()).queryItemValue(QStringLiteral("lastEventId")).toUtf8();
    if (!idText.isEmpty()) {
        bool ok = false;
        const qint64 id = idText.trimmed().toLongLong(&ok);
        if (!ok || id < 0) {
            send(socket,
                 json(400, {{QStringLiteral("status"), 400},
                            {QStringLiteral("error"), QStringLiteral("Last-Event-ID \"%1\" is not a non-negative "
                                                                     "integer")
                                                          .arg(QString::fromUtf8(idText.left(40)))}}),
                 head, close);
            return;
        }
        lastEventId = id;
    }
    if (hub->readerCount() >= options.maxReaders) {
        Reply r = json(503, {{QStringLiteral("status"), 503},
                             {QStringLiteral("error"), QStringLiteral("too many event streams (maxReaders %1)")
                                                           .arg(options.maxReaders)}});
        r.headers.append(std::pair<QByteArray, QByteArray>("Retry-After", "5"));
        send(socket, r, head, close);
        return;
    }
    // No length and no chunking: the stream's body ends when the connection does.
    socket->write("HTTP/1.1 200 OK\r\n"
                  "Content-Type: text/event-stream; charset=utf-8\r\n"
                  "Cache-Control: no-store\r\n"
                  "Connection: close\r\n"
                  "X-Accel-Buffering: no\r\n\r\n");
    if (head) {
        socket->disconnectFromHost();
        return;
    }
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    hub->addReader(socket, lastEventId);
}

bool QSimbaHttpEndpointPrivate::authorized(const QHttpServerRequest &request) const
{
    if (tokenDigest.isEmpty())
        return true;
    const QByteArray value = header(request, "authorization").trimmed();
    const qsizetype space = value.indexOf(' ');
    if (space < 0 || value.left(space).toLower() != "bearer")
        return false;
    return sameDigest(sha256(value.mid(space + 1).trimmed()), tokenDigest);
}

bool QSimbaHttpEndpointPrivate::sameDigest(const QByteArray &a, const QByteArray &b)
{
    if (a.size() != b.size()) // digests: always 32 bytes, so this leaks nothing
        return false;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < a.size(); ++i)
        diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

QByteArray QSimbaHttpEndpointPrivate::header(const QHttpServerRequest &request, const QByteArray &name)
{
    for (const auto &[key, value] : request.headers()) {
        if (key.compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return {};
}

QSimbaSnapshot QSimbaHttpEndpointPrivate::snapshot() const
{
    if (!simba) {
        QSimbaSnapshot closed;
        closed.session.status = QSimbaSessionSnapshot::Status::Closed;
        return closed;
    }
    return simba->snapshot();
}

QSimbaHttpEndpointPrivate::Reply QSimbaHttpEndpointPrivate::snapshotReply() const
{
    const QSimbaSnapshot snap = snapshot();
    QJsonArray elections;
    QJsonArray locks;
    QHash<QString, QList<int>> held; // group → partitions whose term this client holds
    for (const auto &e : snap.elections) {
        (e.kind == QSimbaElection::Kind::Lock ? locks : elections).append(e.toJson());
        if (e.kind == QSimbaElection::Kind::Group && e.status == QSimbaElection::Status::Leader
            && e.remaining.count() > 0) {
            const QString name = e.name.toString();
            const qsizetype dot = name.lastIndexOf(u'.');
            held[name.left(dot)].append(name.mid(dot + 1).toInt());
        }
    }
    QJsonArray groups;
    for (const auto &g : snap.groups) {
        QJsonObject o = g.toJson();
        QList<int> partitions = held.value(g.name);
        std::sort(partitions.begin(), partitions.end());
        QJsonArray heldList;
        for (int p : partitions)
            heldList.append(p);
        o.insert(QStringLiteral("held"), heldList);
        groups.append(o);
    }
    const QJsonObject client{{QStringLiteral("host"), QSysInfo::machineHostName()},
                             {QStringLiteral("pid"), QCoreApplication::applicationPid()},
                             {QStringLiteral("backend"), backendMetrics->backend()},
                             {QStringLiteral("startedAt"), startedAt.toString(Qt::ISODateWithMs)}};
    QJsonObject o = snap.toJson();
    o.insert(QStringLiteral("client"), client);
    o.insert(QStringLiteral("elections"), elections);
    o.insert(QStringLiteral("locks"), locks);
    o.insert(QStringLiteral("groups"), groups);
    return json(200, o);
}

QSimbaHttpEndpointPrivate::Reply QSimbaHttpEndpointPrivate::healthReply() const
{
    using Status = QSimbaSessionSnapshot::Status;
    const QSimbaSnapshot snap = snapshot();
    const auto ms = [](std::chrono::nanoseconds d) {
        return qint64(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
    };
    const auto down = [](const QString &reason, const QString &detail) {
        return json(503, {{QStringLiteral("status"), QStringLiteral("DOWN")},
                          {QStringLiteral("reason"), reason},
                          {QStringLiteral("detail"), detail}});
    };
    switch (snap.session.status) {
    case Status::Live:
        return json(200, {{QStringLiteral("status"), QStringLiteral("UP")},
                          {QStringLiteral("session"), snap.session.id.toString()},
                          {QStringLiteral("validForMs"), ms(snap.session.validFor)}});
    case Status::Suspended:
        return down(QStringLiteral("SESSION_SUSPENDED"),
                    QStringLiteral("keep-alive failing for %1 ms; terms stay valid for %2 ms")
                        .arg(ms(snap.session.notLiveFor))
                        .arg(ms(snap.session.validFor)));
    case Status::Closed:
        return down(QStringLiteral("CLOSED"), QStringLiteral("the client was closed"));
    case Status::Opening:
        break;
    }
    if (backendMetrics->lastFailed(QSimbaBackendMetrics::Call::OpenSession))
        return down(QStringLiteral("BACKEND_FAILING"),
                    QStringLiteral("opening a session on %1 fails (for %2 ms)")
                        .arg(backendMetrics->backend())
                        .arg(ms(snap.session.notLiveFor)));
    if (sessionLost)
        return down(QStringLiteral("SESSION_LOST"),
                    QStringLiteral("the session was lost %1 ms ago; a new one is opening")
                        .arg(ms(snap.session.notLiveFor)));
    return down(QStringLiteral("STARTING"), QStringLiteral("the first session is opening"));
}

QSimbaHttpEndpointPrivate::Reply QSimbaHttpEndpointPrivate::metricsReply() const
{
    QSimbaMetricsWriter::Input in;
    in.snapshot = snapshot();
    in.backend = backendMetrics.get();
    in.events = &counters;
    in.maxNameSeries = options.maxNameSeries;
    in.readers = hub->readerCount();
    in.readersDropped = hub->droppedCount();
    return {200, "text/plain; version=0.0.4; charset=utf-8", QSimbaMetricsWriter::write(in), {}};
}

void QSimbaHttpEndpointPrivate::onEvent(const QSimbaEvent &event)
{
    counters.count(event);
    if (event.type() == QSimbaEvent::Type::SessionExpired)
        sessionLost = true;
    else if (event.type() == QSimbaEvent::Type::SessionOpened)
        sessionLost = false;
    hub->publish(event);
}

QSimbaHttpEndpointPrivate::Reply QSimbaHttpEndpointPrivate::json(int status, const QJsonObject &object)
{
    return {status, JsonType, QJsonDocument(object).toJson(QJsonDocument::Compact), {}};
}

QByteArray QSimbaHttpEndpointPrivate::reasonPhrase(int status)
{
    switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    }
    return "Unknown";
}

void QSimbaHttpEndpointPrivate::send(QTcpSocket *socket, const Reply &reply, bool headOnly, bool close)
{
    QByteArray out = "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' + reasonPhrase(reply.status) + "\r\n";
    if (!reply.contentType.isEmpty())
        out += "Content-Type: " + reply.contentType + "\r\n";
    out += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\nCache-Control: no-store\r\n";
    for (const auto &[key, value] : reply.headers)
        out += key + ": " + value + "\r\n";
    if (close)
        out += "Connection: close\r\n";
    out += "\r\n";
    if (!headOnly)
        out += reply.body;
    socket->write(out);
    if (close)
        socket->disconnectFromHost();
}

// ---------------------------------------------------------------------------------------
// The listening socket

QSimbaHttpListener::QSimbaHttpListener(int maxConnections, int maxHeaderBytes, QObject *parent)
    : QTcpServer(parent), m_maxConnections(maxConnections), m_maxHeaderBytes(maxHeaderBytes)
{
}

void QSimbaHttpListener::incomingConnection(qintptr descriptor)
{
    auto *socket = new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    if (m_measures.size() >= m_maxConnections) {
        qCWarning(lcSimbaHttp) << "refusing a connection: maxConnections" << m_maxConnections << "reached";
        connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
        socket->write("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        socket->disconnectFromHost();
        return;
    }
    m_measures.insert(socket, {});
    // Connected before QtHttpServer's own readyRead handler, so it runs first.
    connect(socket, &QTcpSocket::readyRead, this, [this, socket] { measure(socket); });
    connect(socket, &QObject::destroyed, this, [this, socket] { m_measures.remove(socket); });
    addPendingConnection(socket);
}

void QSimbaHttpListener::requestDone(QTcpSocket *socket)
{
    const auto it = m_measures.find(socket);
    if (it != m_measures.end())
        *it = {};
}

//! A method token (upper-case letters) and a space, as far as \a bytes go.
static bool startsLikeARequest(const QByteArray &bytes)
{
    qsizetype i = 0;
    while (i < bytes.size() && i < 16 && bytes.at(i) >= 'A' && bytes.at(i) <= 'Z')
        ++i;
    return i == bytes.size() || (i > 0 && bytes.at(i) == ' ');
}

void QSimbaHttpListener::measure(QTcpSocket *socket)
{
    const auto it = m_measures.find(socket);
    if (it == m_measures.end())
        return;
    Measure &m = *it;
    const QByteArray chunk = socket->peek(socket->bytesAvailable());
    const qint64 before = m.received;
    m.received += chunk.size();
    if (!m.headersDone) {
        const QByteArray window = m.tail + chunk;
        const qsizetype end = window.indexOf("\r\n\r\n");
        if (end >= 0) {
            m.headersDone = true;
            m.headerBytes = before - m.tail.size() + end + 4;
        } else {
            m.tail = window.right(3);
        }
    }
    int status = 0;
    // QtHttpServer 6.4 answers nothing to what its parser rejects and leaves the connection
    // open: what does not start like a request line gets 400 here.
    if (before == 0 && !startsLikeARequest(chunk))
        status = 400;
    else if (m.headersDone ? m.headerBytes > m_maxHeaderBytes : m.received > m_maxHeaderBytes)
        status = 431;
    else if (m.headersDone && m.received - m.headerBytes > m_maxHeaderBytes)
        status = 413; // no route takes a body
    if (status == 0)
        return;
    qCInfo(lcSimbaHttp) << "refusing a request of" << m.received << "bytes from" << socket->peerAddress()
                        << "with" << status;
    // QtHttpServer's parser sees none of it: its handler, connected after ours, is skipped.
    disconnect(socket, &QTcpSocket::readyRead, nullptr, nullptr);
    socket->readAll();
    const QByteArray body = status == 431 ? "{\"status\":431,\"error\":\"the request's headers are too large\"}"
                            : status == 413 ? "{\"status\":413,\"error\":\"no route takes a request body\"}"
                                            : "{\"status\":400,\"error\":\"not an HTTP request\"}";
    socket->write("HTTP/1.1 " + QByteArray::number(status) + ' '
                  + QSimbaHttpEndpointPrivate::reasonPhrase(status)
                  + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                  + "\r\nConnection: close\r\n\r\n" + body);
    socket->disconnectFromHost();
}

#include "moc_qsimbahttpendpoint.cpp"
#include "moc_qsimbahttpendpoint_p.cpp"
