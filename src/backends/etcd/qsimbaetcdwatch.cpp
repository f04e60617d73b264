// SPDX-License-Identifier: Apache-2.0
#include "qsimbaetcdwatch_p.h"

#include "qsimbaerror.h"
#include "qsimbaetcdconnection_p.h"
#include "qsimbaetcdlogging_p.h"

#include <curl/curl.h>

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QSet>

using namespace std::chrono;
using Hint = QSimbaLeaseBackend::Hint;
namespace J = QSimbaEtcdJson;

namespace {
struct StreamState
{
    QSimbaEtcdWatch *watch;
    QByteArray buffer;
    std::function<void(const QByteArray &)> onLine;
};

size_t receive(char *data, size_t size, size_t count, void *target)
{
    auto *state = static_cast<StreamState *>(target);
    state->buffer.append(data, qsizetype(size * count));
    qsizetype newline;
    while ((newline = state->buffer.indexOf('\n')) >= 0) {
        const QByteArray line = state->buffer.left(newline).trimmed();
        state->buffer.remove(0, newline + 1);
        if (!line.isEmpty())
            state->onLine(line);
    }
    return size * count;
}
} // namespace

QSimbaEtcdWatch::QSimbaEtcdWatch(const Options &options, const QString &description, const QByteArray &base,
                                 QSimbaLeaseBackend::HintListener listener)
    : m_options(options), m_description(description), m_base(base), m_listener(std::move(listener))
{
    QSimbaEtcdConnection::initCurl();
    m_multi = curl_multi_init();
    m_thread = std::thread([this] { run(); });
}

QSimbaEtcdWatch::~QSimbaEtcdWatch()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    curl_multi_wakeup(m_multi);
    m_thread.join();
    curl_multi_cleanup(m_multi);
}

void QSimbaEtcdWatch::waitFor(milliseconds delay)
{
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, delay, [this] { return m_stop.load(); });
}

void QSimbaEtcdWatch::run()
{
    QSimbaEtcdConnection connection(m_options, m_description);
    milliseconds backoff = 100ms;
    while (!m_stop) {
        QString cause;
        try {
            if (m_next == 0) {
                const QJsonObject body = connection.call(
                    "/v3/kv/range", {{QStringLiteral("key"), J::bytes(m_base)}, {QStringLiteral("limit"), J::number(1)},
                                     {QStringLiteral("keys_only"), true}},
                    QStringLiteral("watch start"));
                m_next = J::integer(body.value(QLatin1String("header")).toObject().value(QLatin1String("revision"))) + 1;
            }
            const QString endpoint = connection.currentEndpoint();
            const QByteArray token = connection.authToken(endpoint);
            qint64 compactedAt = 0;
            const End end = stream(endpoint, token, &cause, &compactedAt);
            if (end == End::Stopped)
                return;
            if (end == End::Compacted) {
                qCDebug(lcSimbaEtcd) << m_description << "watch: revision" << m_next << "compacted (at" << compactedAt
                                     << "): re-reading";
                resync(connection);
                backoff = 100ms;
                continue;
            }
            connection.dropAuthToken();
            connection.advance();
        } catch (const QSimbaError &e) {
            cause = e.message();
            connection.advance();
        }
        qCDebug(lcSimbaEtcd) << m_description << "watch broken:" << cause << "- again in" << backoff.count() << "ms";
        waitFor(backoff);
        backoff = std::min(backoff * 2, milliseconds(2000));
    }
}

/*!
    Re-reads the prefix after a compaction: every group found gets a MembersChanged (what
    changed in between is unknown), and the watch continues after the revision read.
*/
void QSimbaEtcdWatch::resync(QSimbaEtcdConnection &connection)
{
    const QJsonObject body = connection.call(
        "/v3/kv/range", {{QStringLiteral("key"), J::bytes(m_base + "g/")},
                         {QStringLiteral("range_end"), J::bytes(J::prefixEnd(m_base + "g/"))},
                         {QStringLiteral("keys_only"), true}},
        QStringLiteral("watch resync"));
    QSet<QString> groups;
    const QByteArray memberships = m_base + "g/";
    for (const auto &kv : body.value(QLatin1String("kvs")).toArray()) {
        const QByteArray rest = J::bytesOf(kv.toObject().value(QLatin1String("key"))).mid(memberships.size());
        if (const qsizetype slash = rest.lastIndexOf('/'); slash > 0)
            groups.insert(QString::fromUtf8(rest.left(slash)));
    }
    m_next = J::integer(body.value(QLatin1String("header")).toObject().value(QLatin1String("revision"))) + 1;
    ++m_resyncs;
    for (const QString &group : std::as_const(groups))
        m_listener(Hint{Hint::Kind::MembersChanged, group});
}

void QSimbaEtcdWatch::handleLine(const QByteArray &line, End *end, QString *cause, qint64 *compactedAt)
{
    const QJsonObject message = QJsonDocument::fromJson(line).object();
    if (message.contains(QLatin1String("error"))) {
        const QJsonObject error = message.value(QLatin1String("error")).toObject();
        *cause = error.value(QLatin1String("message")).toString(QString::fromUtf8(line.left(200)));
        return;
    }
    const QJsonObject result = message.value(QLatin1String("result")).toObject();
    if (const qint64 compacted = J::integer(result.value(QLatin1String("compact_revision"))); compacted > 0) {
        *end = End::Compacted;
        *compactedAt = compacted;
        return;
    }
    if (result.value(QLatin1String("canceled")).toBool()) {
        *cause = QStringLiteral("watch canceled: ") + result.value(QLatin1String("cancel_reason")).toString();
        return;
    }
    const QJsonArray events = result.value(QLatin1String("events")).toArray();
    if (events.isEmpty() && !result.value(QLatin1String("created")).toBool()) {
        // A progress notification: every event up to its revision was sent. (The "created"
        // answer is none: the events from the start revision on follow it.)
        const qint64 revision = J::integer(result.value(QLatin1String("header")).toObject().value(QLatin1String("revision")));
        m_next = std::max(m_next, revision + 1);
        return;
    }
    const QByteArray leases = m_base + "l/", memberships = m_base + "g/";
    for (const auto &item : events) {
        const QJsonObject event = item.toObject();
        const QJsonObject kv = event.value(QLatin1String("kv")).toObject();
        const QByteArray key = J::bytesOf(kv.value(QLatin1String("key")));
        m_next = std::max(m_next, J::integer(kv.value(QLatin1String("mod_revision"))) + 1);
        const bool deleted = event.value(QLatin1String("type")).toString() == QLatin1String("DELETE");
        if (deleted && key.startsWith(leases)) {
            m_listener(Hint{Hint::Kind::Released, QString::fromUtf8(key.mid(leases.size()))});
        } else if (key.startsWith(memberships)) {
            const QByteArray rest = key.mid(memberships.size());
            if (const qsizetype slash = rest.lastIndexOf('/'); slash > 0)
                m_listener(Hint{Hint::Kind::MembersChanged, QString::fromUtf8(rest.left(slash))});
        }
    }
}

/*!
    One watch request on \a endpoint from m_next, until the stream breaks, reports a
    compaction or the subscription ends. The transfer has no overall timeout (a watch may be
    quiet for hours); TCP keepalive notices a vanished server, and the destructor wakes the
    poll at once.
*/
QSimbaEtcdWatch::End QSimbaEtcdWatch::stream(const QString &endpoint, const QByteArray &token, QString *cause,
                                             qint64 *compactedAt)
{
    QSimbaEtcdCurl easy(curl_easy_init());
    if (!easy) {
        *cause = QStringLiteral("cannot create a libcurl handle");
        return End::Broken;
    }
    const QJsonObject create{{QStringLiteral("key"), J::bytes(m_base)},
                             {QStringLiteral("range_end"), J::bytes(J::prefixEnd(m_base))},
                             {QStringLiteral("start_revision"), J::number(m_next)},
                             // Progress notifications move the resume point on while the
                             // prefix is quiet, so that a reconnect rarely meets a compaction.
                             {QStringLiteral("progress_notify"), true}};
    const QByteArray body =
        QJsonDocument(QJsonObject{{QStringLiteral("create_request"), create}}).toJson(QJsonDocument::Compact);
    QSimbaEtcdConnection::configure(easy.get(), m_options, endpoint, "/v3/watch", body);
    curl_easy_setopt(easy.get(), CURLOPT_TCP_KEEPIDLE, 5L);
    curl_easy_setopt(easy.get(), CURLOPT_TCP_KEEPINTVL, 5L);
    const auto headers = qsimbaEtcdHeaders(token);
    curl_easy_setopt(easy.get(), CURLOPT_HTTPHEADER, headers.get());
    End end = End::Broken;
    StreamState state{this, {}, [&](const QByteArray &line) {
                          if (end == End::Broken)
                              handleLine(line, &end, cause, compactedAt);
                      }};
    curl_easy_setopt(easy.get(), CURLOPT_WRITEFUNCTION, receive);
    curl_easy_setopt(easy.get(), CURLOPT_WRITEDATA, &state);
    char errorBuffer[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(easy.get(), CURLOPT_ERRORBUFFER, errorBuffer);

    curl_multi_add_handle(m_multi, easy.get());
    qCDebug(lcSimbaEtcd) << m_description << "watching from revision" << m_next << "at" << endpoint;
    int running = 1;
    while (!m_stop && end == End::Broken && cause->isEmpty()) {
        curl_multi_perform(m_multi, &running);
        if (!running)
            break;
        curl_multi_poll(m_multi, nullptr, 0, 1000, nullptr);
    }
    if (running == 0 && cause->isEmpty() && end == End::Broken) {
        int pending = 0;
        CURLcode code = CURLE_OK;
        while (CURLMsg *msg = curl_multi_info_read(m_multi, &pending))
            if (msg->msg == CURLMSG_DONE)
                code = msg->data.result;
        *cause = code != CURLE_OK ? QString::fromLocal8Bit(errorBuffer[0] ? errorBuffer : curl_easy_strerror(code))
                                  : QStringLiteral("the server ended the watch");
    }
    curl_multi_remove_handle(m_multi, easy.get());
    return m_stop ? End::Stopped : end;
}
