// SPDX-License-Identifier: Apache-2.0
#include "qsimbaetcdconnection_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaetcdlogging_p.h"

#include <curl/curl.h>

#include <QtCore/QJsonDocument>

#include <mutex>

/*!
    \class QSimbaEtcdConnection
    \internal
    \brief A blocking client of etcd's JSON gateway with typed errors and endpoint failover.
*/

namespace {
// gRPC status codes the gateway reports.
constexpr int Unavailable = 14;
constexpr int Unauthenticated = 16;
constexpr int InvalidArgument = 3;

size_t appendTo(char *data, size_t size, size_t count, void *target)
{
    static_cast<QByteArray *>(target)->append(data, qsizetype(size * count));
    return size * count;
}
} // namespace

void QSimbaEtcdHeadersDeleter::operator()(curl_slist *list) const
{
    curl_slist_free_all(list);
}

std::unique_ptr<curl_slist, QSimbaEtcdHeadersDeleter> qsimbaEtcdHeaders(const QByteArray &token)
{
    std::unique_ptr<curl_slist, QSimbaEtcdHeadersDeleter> headers(
        curl_slist_append(nullptr, "Content-Type: application/json"));
    if (!token.isEmpty()) // curl copies the string
        headers.reset(curl_slist_append(headers.release(), QByteArray("Authorization: " + token).constData()));
    return headers;
}

void QSimbaEtcdCurlDeleter::operator()(CURL *handle) const
{
    curl_easy_cleanup(handle);
}

void QSimbaEtcdConnection::initCurl()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

QSimbaEtcdConnection::QSimbaEtcdConnection(const Options &options, const QString &description)
    : m_options(options), m_description(description)
{
    initCurl();
}

QSimbaEtcdConnection::~QSimbaEtcdConnection() = default;

void QSimbaEtcdConnection::configure(CURL *handle, const Options &options, const QString &endpoint,
                                     const char *path, const QByteArray &body)
{
    const QByteArray url = (options.tls ? QByteArrayLiteral("https://") : QByteArrayLiteral("http://"))
        + endpoint.toUtf8() + path;
    curl_easy_setopt(handle, CURLOPT_URL, url.constData()); // curl copies strings
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS, long(options.connectTimeout.count()));
    curl_easy_setopt(handle, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(handle, CURLOPT_TCP_KEEPALIVE, 1L);
    // The gateway speaks HTTP/1.1 with keep-alive on the client port (HTTP/2 there is gRPC's).
    curl_easy_setopt(handle, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
#if LIBCURL_VERSION_NUM >= 0x075500 // 7.85
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS, long(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    // etcd is reached directly: an http_proxy meant for the web must not reroute it.
    curl_easy_setopt(handle, CURLOPT_NOPROXY, "*");
    if (options.tls) {
        if (!options.caFile.isEmpty())
            curl_easy_setopt(handle, CURLOPT_CAINFO, options.caFile.toLocal8Bit().constData());
        if (!options.certFile.isEmpty()) {
            curl_easy_setopt(handle, CURLOPT_SSLCERT, options.certFile.toLocal8Bit().constData());
            curl_easy_setopt(handle, CURLOPT_SSLKEY, options.keyFile.toLocal8Bit().constData());
        }
    }
    curl_easy_setopt(handle, CURLOPT_POST, 1L);
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.constData());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE, long(body.size()));
}

QSimbaEtcdConnection::Reply QSimbaEtcdConnection::parse(long httpStatus, const QByteArray &data)
{
    Reply reply;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &error);
    if (!doc.isObject()) {
        reply.code = -1;
        reply.error = QStringLiteral("HTTP %1 with a body that is no JSON object (%2): %3")
                          .arg(httpStatus)
                          .arg(error.errorString(), QString::fromUtf8(data.left(200)));
        return reply;
    }
    reply.body = doc.object();
    if (httpStatus != 200 || reply.body.contains(QLatin1String("error"))) {
        reply.code = int(reply.body.value(QLatin1String("code")).toInt(-1));
        reply.error = reply.body.value(QLatin1String("message")).toString(
            reply.body.value(QLatin1String("error")).toString());
        if (reply.error.isEmpty())
            reply.error = QStringLiteral("HTTP %1").arg(httpStatus);
    }
    return reply;
}

/*!
    One attempt on \a endpoint. Unreachable: the endpoint did not answer (connection refused
    or lost, a timeout, TLS failure), with the cause in \a cause; another may.
*/
QSimbaEtcdConnection::Outcome QSimbaEtcdConnection::perform(const QString &endpoint, const char *path,
                                                            const QByteArray &body, Reply *reply, QString *cause)
{
    if (!m_curl) {
        m_curl.reset(curl_easy_init());
        if (!m_curl)
            throw QSimbaBackendError(m_description + QStringLiteral(": cannot create a libcurl handle"));
    }
    CURL *curl = m_curl.get();
    curl_easy_reset(curl); // keeps the connection cache: the connection is reused
    configure(curl, m_options, endpoint, path, body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, long(m_options.requestTimeout.count()));
    QByteArray response;
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, appendTo);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
    const auto headers = qsimbaEtcdHeaders(m_token);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
    char errorBuffer[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);

    const CURLcode result = curl_easy_perform(curl);
    if (result != CURLE_OK) {
        *cause = QString::fromLocal8Bit(errorBuffer[0] ? errorBuffer : curl_easy_strerror(result));
        if (result == CURLE_OPERATION_TIMEDOUT)
            *cause += QStringLiteral(" (connect timeout %1, request timeout %2)")
                          .arg(QSimbaDuration::format(m_options.connectTimeout),
                               QSimbaDuration::format(m_options.requestTimeout));
        return Outcome::Unreachable;
    }
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    *reply = parse(status, response);
    // A member that lost its leader (or is not part of a quorum) answers Unavailable:
    // another member may serve the request.
    if (reply->code == Unavailable) {
        *cause = reply->error;
        return Outcome::Unreachable;
    }
    return Outcome::Answered;
}

/*!
    Authenticates at \a endpoint unless a token is at hand: POST /v3/auth/authenticate with
    the user and password. False (with \a cause) when the endpoint did not answer; throws
    QSimbaBackendError naming the user and etcd's reason (never the password) when etcd
    refused.
*/
bool QSimbaEtcdConnection::authenticate(const QString &endpoint, QString *cause)
{
    if (m_options.user.isEmpty() || !m_token.isEmpty())
        return true;
    const QJsonObject body{{QStringLiteral("name"), m_options.user}, {QStringLiteral("password"), m_options.password}};
    Reply reply;
    if (perform(endpoint, "/v3/auth/authenticate", QJsonDocument(body).toJson(QJsonDocument::Compact), &reply,
                cause) != Outcome::Answered)
        return false;
    if (!reply.ok())
        throw QSimbaBackendError(QStringLiteral("%1: authentication as %2 failed: %3")
                                     .arg(m_description, m_options.user, reply.error));
    m_token = reply.body.value(QLatin1String("token")).toString().toUtf8();
    if (m_token.isEmpty())
        throw QSimbaBackendError(QStringLiteral("%1: authentication as %2 answered no token (is auth enabled?)")
                                     .arg(m_description, m_options.user));
    qCDebug(lcSimbaEtcd) << "authenticated as" << m_options.user << "at" << endpoint;
    return true;
}

QByteArray QSimbaEtcdConnection::authToken(const QString &endpoint)
{
    QString cause;
    if (!authenticate(endpoint, &cause))
        throw QSimbaBackendError(QStringLiteral("%1: cannot authenticate at %2: %3").arg(m_description, endpoint, cause));
    return m_token;
}

/*!
    The choke point: tries the endpoints in order, from the one that answered last, each
    once (an expired authentication token is renewed once). Throws QSimbaBackendError naming
    every endpoint tried and why it failed.
*/
QSimbaEtcdConnection::Reply QSimbaEtcdConnection::request(const char *path, const QJsonObject &body)
{
    const QByteArray data = QJsonDocument(body).toJson(QJsonDocument::Compact);
    QStringList failures;
    const int count = int(m_options.endpoints.size());
    bool reauthenticated = false;
    for (int attempt = 0; attempt < count; ++attempt) {
        const QString endpoint = m_options.endpoints.at(m_current);
        Reply reply;
        QString cause;
        // Credentials etcd refused throw: another member would refuse them too.
        if (authenticate(endpoint, &cause) && perform(endpoint, path, data, &reply, &cause) == Outcome::Answered) {
            const bool tokenRejected = reply.code == Unauthenticated
                || (reply.code == InvalidArgument && reply.error.contains(QLatin1String("invalid auth token")));
            if (tokenRejected && !m_options.user.isEmpty() && !reauthenticated) {
                qCDebug(lcSimbaEtcd) << "token rejected by" << endpoint << "(" << reply.error << "): authenticating again";
                reauthenticated = true;
                m_token.clear();
                --attempt; // the same endpoint once more, with a new token
                continue;
            }
            return reply;
        }
        qCDebug(lcSimbaEtcd) << m_description << "endpoint" << endpoint << "failed:" << cause;
        failures.append(endpoint + QStringLiteral(": ") + cause);
        advance();
        if (!m_options.user.isEmpty())
            m_token.clear(); // a token need not be valid on another member
    }
    throw QSimbaBackendError(QStringLiteral("%1: %2 failed on every endpoint: %3")
                                 .arg(m_description, QLatin1String(path), failures.join(QStringLiteral("; "))));
}

QJsonObject QSimbaEtcdConnection::call(const char *path, const QJsonObject &body, const QString &what)
{
    const Reply reply = request(path, body);
    if (!reply.ok())
        throw QSimbaBackendError(QStringLiteral("%1: %2 failed: %3").arg(m_description, what, reply.error));
    return reply.body;
}

namespace QSimbaEtcdJson {
QString bytes(const QByteArray &data)
{
    return QString::fromLatin1(data.toBase64());
}

QByteArray bytesOf(const QJsonValue &value)
{
    return QByteArray::fromBase64(value.toString().toLatin1());
}

qint64 integer(const QJsonValue &value)
{
    if (value.isString())
        return value.toString().toLongLong();
    if (value.isDouble())
        return qint64(value.toDouble());
    return 0;
}

QString number(qint64 value)
{
    return QString::number(value);
}

QByteArray prefixEnd(const QByteArray &prefix)
{
    QByteArray end = prefix;
    while (!end.isEmpty()) {
        if (quint8(end.back()) < 0xff) {
            end.back() = char(quint8(end.back()) + 1);
            return end;
        }
        end.chop(1);
    }
    return QByteArray(1, '\0'); // every key
}
} // namespace QSimbaEtcdJson
