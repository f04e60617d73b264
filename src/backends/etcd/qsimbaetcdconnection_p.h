// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaetcdleasebackend.h"

#include <QtCore/QByteArray>
#include <QtCore/QJsonObject>
#include <QtCore/QString>

#include <memory>

typedef void CURL;

struct QSimbaEtcdCurlDeleter
{
    void operator()(CURL *handle) const;
};
using QSimbaEtcdCurl = std::unique_ptr<CURL, QSimbaEtcdCurlDeleter>;
struct curl_slist;
struct QSimbaEtcdHeadersDeleter
{
    void operator()(curl_slist *list) const;
};
//! The request headers: JSON, and the authentication token when there is one.
std::unique_ptr<curl_slist, QSimbaEtcdHeadersDeleter> qsimbaEtcdHeaders(const QByteArray &token);

/*
 * One client of etcd's JSON gateway: one libcurl handle (its keep-alive connection reused
 * from call to call), the endpoint that answered last, and the authentication token. The one
 * place where transport failures, HTTP statuses and gRPC errors of the gateway become
 * QSimbaBackendError naming the server and the cause, and where the client fails over to the
 * next endpoint (on a connection failure, a timeout or a member without leader).
 * Used from one thread at a time.
 */
class QSimbaEtcdConnection
{
public:
    using Options = QSimbaEtcdLeaseBackend::Options;

    //! What etcd answered: a body, or a gRPC error (code and message).
    struct Reply
    {
        QJsonObject body;
        int code = 0;   //!< 0: success; else the gRPC status code
        QString error;  //!< the server's message when code != 0
        bool ok() const { return code == 0; }
    };

    QSimbaEtcdConnection(const Options &options, const QString &description);
    ~QSimbaEtcdConnection();

    //! POSTs \a body to \a path ("/v3/kv/range") and returns the answer, an error of etcd
    //! included. Throws QSimbaBackendError when no endpoint answered (each tried once, each
    //! bounded by the connect and request timeouts) or authentication failed.
    Reply request(const char *path, const QJsonObject &body);
    //! As request(), but an error of etcd throws QSimbaBackendError naming \a what.
    QJsonObject call(const char *path, const QJsonObject &body, const QString &what);

    //! Prepares \a handle for a POST of \a body (which must outlive the transfer) to
    //! \a endpoint: TLS files, connect timeout, keep-alive. No overall timeout.
    static void configure(CURL *handle, const Options &options, const QString &endpoint, const char *path,
                          const QByteArray &body);
    //! The "Authorization" header value, authenticating first if needed (empty without a
    //! user). Throws QSimbaBackendError.
    QByteArray authToken(const QString &endpoint);
    //! Forgets the authentication token (it expired).
    void dropAuthToken() { m_token.clear(); }
    //! The endpoint tried first: the last that answered.
    QString currentEndpoint() const { return m_options.endpoints.value(m_current); }
    //! Moves on to the next endpoint (after a failure seen elsewhere, e.g. by a watch).
    void advance() { m_current = (m_current + 1) % int(m_options.endpoints.size()); }
    const QString &description() const { return m_description; }

    //! Parses a gateway answer into a Reply; a body that is no JSON object is code -1.
    static Reply parse(long httpStatus, const QByteArray &data);
    //! curl's global set-up, once per process.
    static void initCurl();

private:
    enum class Outcome { Answered, Unreachable };
    bool authenticate(const QString &endpoint, QString *cause);
    Outcome perform(const QString &endpoint, const char *path, const QByteArray &body, Reply *reply,
                    QString *cause);

    Options m_options;
    QString m_description;
    QSimbaEtcdCurl m_curl;
    int m_current = 0;
    QByteArray m_token;
};

//! JSON helpers for the gateway's encoding: bytes are base64, 64-bit numbers strings,
//! false and zero fields are left out.
namespace QSimbaEtcdJson {
QString bytes(const QByteArray &data);
QByteArray bytesOf(const QJsonValue &value);
qint64 integer(const QJsonValue &value); //!< "123", 123 or absent (0)
QString number(qint64 value);
//! The end of the range of every key starting with \a prefix.
QByteArray prefixEnd(const QByteArray &prefix);
} // namespace QSimbaEtcdJson
