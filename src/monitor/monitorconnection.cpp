// SPDX-License-Identifier: Apache-2.0
#include "monitorconnection.h"

#include "monitorformat.h"
#include "monitorlogging_p.h"

#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QRegularExpression>
#include <QtCore/QThread>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtNetwork/QNetworkRequest>

using namespace std::chrono_literals;

namespace {
constexpr int MaxRetryMs = 30'000;
constexpr int MinHintGapMs = 250;
const QString Placeholder = QStringLiteral("***");
} // namespace

std::unique_ptr<MonitorConnection> MonitorConnection::create(const QString &url, QObject *parent)
{
    if (kindOf(url) == Kind::Endpoint)
        return std::make_unique<EndpointConnection>(url, parent);
    return std::make_unique<BackendConnection>(url, parent);
}

MonitorConnection::Kind MonitorConnection::kindOf(const QString &url)
{
    const QString t = url.trimmed();
    return t.startsWith(u"http://", Qt::CaseInsensitive) || t.startsWith(u"https://", Qt::CaseInsensitive)
               ? Kind::Endpoint
               : Kind::Backend;
}

QString MonitorConnection::redact(const QString &url)
{
    return QSimbaBackendFactory::redacted(url.trimmed());
}

bool MonitorConnection::needsPassword(const QString &url)
{
    return url.contains(u":***@") || (url.contains(u"digest=") && url.contains(Placeholder));
}

MonitorConnection::MonitorConnection(Kind kind, const QString &url, QObject *parent)
    : QObject(parent), m_kind(kind), m_url(url.trimmed()), m_displayUrl(redact(url))
{
    m_clock.start();
    if (needsPassword(m_url)) {
        m_state = State::NeedsPassword;
        m_problem = [] { return tr("The password is not stored: enter it to connect."); };
    }
}

MonitorConnection::~MonitorConnection() = default;

QString MonitorConnection::healthReason() const
{
    if (m_healthReason.isEmpty())
        return {};
    const QString reason = m_healthReason.section(QLatin1Char('\n'), 0, 0);
    const QString detail = m_healthReason.section(QLatin1Char('\n'), 1);
    return detail.isEmpty() ? MonitorFormat::reason(reason) : MonitorFormat::reason(reason) + QStringLiteral(": ") + detail;
}

void MonitorConnection::supplyPassword(const QString &password)
{
    const QString encoded = QString::fromUtf8(QUrl::toPercentEncoding(password));
    m_url.replace(QStringLiteral(":***@"), QLatin1Char(':') + encoded + QLatin1Char('@'));
    static const QRegularExpression digest(QStringLiteral("(digest=[^:&\\s]*:)\\*\\*\\*"));
    m_url.replace(digest, QStringLiteral("\\1") + encoded);
    m_state = State::Connecting;
    m_problem = nullptr;
    Q_EMIT changed();
    start();
}

void MonitorConnection::setUp(const MonitorSnapshot &snapshot)
{
    m_snapshot = snapshot;
    m_snapshotAt = m_clock.elapsed();
    m_lastSuccess = QDateTime::currentDateTimeUtc();
    const bool wasUp = m_state == State::Up;
    m_state = State::Up;
    m_problem = nullptr;
    m_failures = 0;
    Q_EMIT snapshotUpdated();
    if (!wasUp)
        qCInfo(lcMonitor) << "connected to" << m_displayUrl;
    Q_EMIT changed();
}

void MonitorConnection::setFailed(const Problem &problem)
{
    ++m_failures;
    if (m_state != State::Failing || this->problem() != problem())
        qCWarning(lcMonitor).noquote() << m_displayUrl << "failed:" << problem();
    m_state = State::Failing;
    m_problem = problem;
    Q_EMIT changed();
}

int MonitorConnection::retryDelay() const
{
    const int shift = std::min(m_failures, 6);
    return std::min(1000 << shift >> 1, MaxRetryMs); // 1 s, 1 s, 2 s, 4 s … 30 s
}

// ---------------------------------------------------------------------------------------

/*
 * Owns the backend on the connection's thread: creates it, inspects it on a timer and on
 * hints, and reports to the connection by queued signals.
 */
class BackendWorker : public QObject
{
    Q_OBJECT
public:
    enum { NotInspectable, InvalidUrl, BackendFailed };
    BackendWorker(const QString &url, int pollInterval) : m_url(url), m_pollInterval(pollInterval) {}
    ~BackendWorker() override
    {
        m_subscription.reset();
        m_backend.reset();
    }

    void begin()
    {
        m_timer = new QTimer(this);
        m_timer->setSingleShot(true);
        connect(m_timer, &QTimer::timeout, this, &BackendWorker::inspect);
        inspect();
    }

Q_SIGNALS:
    void inspected(const MonitorSnapshot &snapshot, double latencyMs, const QList<MonitorEvent> &events,
                   int grants, bool hints);
    //! \a what: NotInspectable, InvalidUrl or BackendFailed; \a detail: the backend's own words.
    void failed(int what, const QString &detail, bool retrying);

private:
    void schedule(int ms)
    {
        if (!m_timer->isActive() || m_timer->remainingTime() > ms)
            m_timer->start(ms);
    }

    void hinted()
    {
        const qint64 since = m_sinceLast.isValid() ? m_sinceLast.elapsed() : MinHintGapMs;
        schedule(int(std::max<qint64>(0, MinHintGapMs - since)));
    }

    void inspect()
    {
        QString detail;
        int what = BackendFailed;
        bool retry = true;
        try {
            if (!m_backend) {
                m_backend = QSimbaBackendFactory::create(m_url);
                const auto caps = m_backend->capabilities();
                if (!caps.inspection) {
                    m_backend.reset();
                    Q_EMIT failed(NotInspectable, {}, false);
                    return;
                }
                if (caps.releaseHints || caps.membershipHints) {
                    QPointer<BackendWorker> self(this);
                    m_subscription = m_backend->subscribe([self](const QSimbaLeaseBackend::Hint &) {
                        QMetaObject::invokeMethod(self.data(), [self] { if (self) self->hinted(); },
                                                  Qt::QueuedConnection);
                    });
                    m_hints = true;
                }
            }
            QElapsedTimer t;
            t.start();
            const auto in = m_backend->inspect();
            const double latency = double(t.nsecsElapsed()) / 1e6;
            m_sinceLast.start();
            MonitorSnapshot snapshot = MonitorSnapshot::fromInspection(in);
            int grants = 0;
            const QList<MonitorEvent> events = diff(snapshot, &grants);
            m_failures = 0;
            Q_EMIT inspected(snapshot, latency, events, grants, m_hints);
            m_timer->start(m_pollInterval);
            return;
        } catch (const QSimbaInvalidArgumentError &e) {
            detail = e.message();
            what = InvalidUrl;
            retry = false;
        } catch (const QSimbaError &e) {
            detail = e.message();
        } catch (const std::exception &e) {
            detail = QString::fromLocal8Bit(e.what());
        }
        // A backend that failed may hold a broken connection: build a new one next time.
        m_subscription.reset();
        m_backend.reset();
        m_hints = false;
        ++m_failures;
        Q_EMIT failed(what, detail, retry);
        if (retry)
            m_timer->start(std::min(1000 << std::min(m_failures - 1, 5), MaxRetryMs));
    }

    // What changed since the last inspection, as the monitor saw it.
    QList<MonitorEvent> diff(const MonitorSnapshot &now, int *grants)
    {
        QList<MonitorEvent> out;
        QHash<QString, std::pair<QString, qint64>> current;
        current.reserve(now.leases.size());
        const QDateTime time = QDateTime::currentDateTimeUtc();
        for (const auto &l : now.leases) {
            const QString holder = l.remainingMs > 0 ? l.holder : QString();
            current.insert(l.name, {holder, l.token});
            if (!m_first) {
                const auto it = m_previous.constFind(l.name);
                const QString before = it == m_previous.cend() ? QString() : it->first;
                const qint64 beforeToken = it == m_previous.cend() ? 0 : it->second;
                if (before != holder || (!holder.isEmpty() && beforeToken != l.token)) {
                    if (!holder.isEmpty() && l.token != beforeToken)
                        ++*grants;
                    MonitorEvent e;
                    e.time = time;
                    e.type = QStringLiteral("HOLDER_CHANGED");
                    e.name = l.name;
                    e.session = holder;
                    e.token = l.token;
                    e.fields = QJsonObject{{QStringLiteral("type"), e.type},
                                           {QStringLiteral("name"), l.name},
                                           {QStringLiteral("previousHolder"), before},
                                           {QStringLiteral("holder"), holder},
                                           {QStringLiteral("token"), l.token},
                                           {QStringLiteral("remainingMs"), l.remainingMs}};
                    out.append(e);
                }
            }
        }
        m_previous = std::move(current);
        m_first = false;
        return out;
    }

    QString m_url;
    int m_pollInterval;
    std::unique_ptr<QSimbaLeaseBackend> m_backend;
    std::unique_ptr<QSimbaLeaseBackend::Subscription> m_subscription;
    QTimer *m_timer = nullptr;
    QElapsedTimer m_sinceLast;
    QHash<QString, std::pair<QString, qint64>> m_previous;
    bool m_first = true;
    bool m_hints = false;
    int m_failures = 0;
};

BackendConnection::BackendConnection(const QString &url, QObject *parent)
    : MonitorConnection(Kind::Backend, url, parent)
{
}

BackendConnection::~BackendConnection()
{
    stopThread();
}

void BackendConnection::stopThread()
{
    if (!m_thread)
        return;
    m_thread->quit();
    // An inspection in progress ends within the backend's own timeouts.
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
}

void BackendConnection::start()
{
    if (m_state == State::NeedsPassword)
        return;
    stopThread();
    m_thread = new QThread;
    m_thread->setObjectName(QStringLiteral("simba-monitor-inspect"));
    auto *worker = new BackendWorker(m_url, m_pollInterval);
    worker->moveToThread(m_thread);
    m_worker = worker;
    connect(m_thread, &QThread::started, worker, &BackendWorker::begin);
    connect(m_thread, &QThread::finished, worker, &QObject::deleteLater);
    connect(worker, &BackendWorker::inspected, this,
            [this](const MonitorSnapshot &snapshot, double latency, const QList<MonitorEvent> &events, int grants,
                   bool hints) {
                m_hints = hints;
                setUp(snapshot);
                Q_EMIT latencySample(latency);
                if (grants > 0)
                    Q_EMIT leadershipChanges(grants);
                for (auto e : events) {
                    e.connection = m_displayUrl;
                    Q_EMIT eventReceived(e);
                }
            });
    connect(worker, &BackendWorker::failed, this, [this](int what, const QString &detail, bool retrying) {
        setFailed([what, detail, retrying] {
            QString text;
            switch (what) {
            case BackendWorker::NotInspectable:
                text = tr("This backend cannot be inspected: connect to the service endpoints of its clients instead.");
                break;
            case BackendWorker::InvalidUrl:
                text = tr("The URL is not valid: %1").arg(detail);
                break;
            default:
                text = tr("The backend failed: %1").arg(detail);
                break;
            }
            return retrying ? text : text + QLatin1Char(' ') + tr("(not retried: change the URL)");
        });
    });
    m_thread->start();
}

// ---------------------------------------------------------------------------------------

namespace {
MonitorConnection::Problem networkProblem(QNetworkReply *reply)
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QString path = reply->url().path();
    const QString authority = reply->url().authority();
    const QString host = reply->url().host();
    const QString error = reply->errorString();
    if (status == 401)
        return [] { return EndpointConnection::tr("The endpoint wants a token (HTTP 401): add it as the password"); };
    if (status != 0)
        return [=] { return EndpointConnection::tr("The endpoint answered HTTP %1 to %2").arg(status).arg(path); };
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError:
        return [=] { return EndpointConnection::tr("Nothing listens at %1 (connection refused)").arg(authority); };
    case QNetworkReply::HostNotFoundError:
        return [=] { return EndpointConnection::tr("The host %1 is not known").arg(host); };
    case QNetworkReply::OperationCanceledError:
    case QNetworkReply::TimeoutError:
        return [=] { return EndpointConnection::tr("%1 did not answer in time").arg(authority); };
    default:
        return [=] { return EndpointConnection::tr("Cannot reach %1: %2").arg(authority, error); };
    }
}
} // namespace

EndpointConnection::EndpointConnection(const QString &url, QObject *parent)
    : MonitorConnection(Kind::Endpoint, url, parent)
{
    m_pollInterval = 1000;
    m_pollTimer.setSingleShot(true);
    m_healthTimer.setInterval(2000);
    m_metricsTimer.setInterval(5000);
    m_eventsRetry.setSingleShot(true);
    connect(&m_pollTimer, &QTimer::timeout, this, &EndpointConnection::poll);
    connect(&m_healthTimer, &QTimer::timeout, this, &EndpointConnection::pollHealth);
    connect(&m_metricsTimer, &QTimer::timeout, this, &EndpointConnection::pollMetrics);
    connect(&m_eventsRetry, &QTimer::timeout, this, &EndpointConnection::openEvents);
}

EndpointConnection::~EndpointConnection()
{
    if (m_events)
        m_events->abort();
}

QNetworkRequest EndpointConnection::request(const QString &path) const
{
    QUrl url(m_url);
    const QString token = url.password();
    QString base = url.path();
    if (base.endsWith(u"/simba"))
        base.chop(6);
    while (base.endsWith(QLatin1Char('/')))
        base.chop(1);
    url.setPath(base + path);
    url.setQuery(QString());
    url.setUserInfo(QString());
    QNetworkRequest request(url);
    if (!token.isEmpty())
        request.setRawHeader("Authorization", "Bearer " + token.toUtf8());
    return request;
}

void EndpointConnection::start()
{
    if (m_state == State::NeedsPassword || m_started)
        return;
    m_started = true;
    m_network = new QNetworkAccessManager(this);
    m_network->setAutoDeleteReplies(true);
    m_network->setTransferTimeout(5000);
    m_healthTimer.start();
    m_metricsTimer.start();
    poll();
    pollHealth();
    pollMetrics();
    openEvents();
}

void EndpointConnection::poll()
{
    if (m_pending)
        return;
    QNetworkReply *reply = m_network->get(request(QStringLiteral("/simba")));
    m_pending = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (reply->error() != QNetworkReply::NoError) {
            setFailed(networkProblem(reply));
            m_pollTimer.start(retryDelay());
            return;
        }
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(reply->readAll(), &error);
        if (!doc.isObject()) {
            const QString path = reply->url().path();
            const QString why = error.errorString();
            setFailed([path, why] { return tr("GET %1 did not answer a JSON object: %2").arg(path, why); });
            m_pollTimer.start(retryDelay());
            return;
        }
        const QJsonObject o = doc.object();
        if (o.contains(u"healthy"))
            m_healthUp = o.value(u"healthy").toBool();
        setUp(MonitorSnapshot::fromEndpoint(o));
        m_pollTimer.start(m_pollInterval);
    });
}

void EndpointConnection::pollHealth()
{
    QNetworkReply *reply = m_network->get(request(QStringLiteral("/simba/health")));
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status != 200 && status != 503)
            return; // unreachable: poll() says why
        const QJsonObject o = QJsonDocument::fromJson(reply->readAll()).object();
        const bool up = status == 200;
        QString reason;
        if (!up)
            reason = o.value(u"reason").toString() + QLatin1Char('\n') + o.value(u"detail").toString();
        if (up != m_healthUp || reason != m_healthReason) {
            m_healthUp = up;
            m_healthReason = reason;
            Q_EMIT changed();
        }
    });
}

void EndpointConnection::pollMetrics()
{
    QNetworkReply *reply = m_network->get(request(QStringLiteral("/simba/metrics")));
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        if (reply->error() != QNetworkReply::NoError)
            return;
        const MetricsFigures now = MetricsFigures::parse(reply->readAll());
        if (!now.valid)
            return;
        if (m_lastMetrics.valid) {
            const double calls = now.calls - m_lastMetrics.calls;
            if (calls > 0)
                Q_EMIT latencySample((now.callSeconds - m_lastMetrics.callSeconds) / calls * 1000.0);
        }
        m_lastMetrics = now;
    });
}

void EndpointConnection::openEvents()
{
    QNetworkRequest events = request(QStringLiteral("/simba/events"));
    events.setRawHeader("Accept", "text/event-stream");
    // Keep-alive comments come every 15 s: a stream silent for 45 s is dead.
    events.setTransferTimeout(45'000);
    if (!m_sse.lastId().isEmpty())
        events.setRawHeader("Last-Event-ID", m_sse.lastId().toUtf8());
    m_sse.reset();
    m_events = m_network->get(events);
    connect(m_events.data(), &QNetworkReply::readyRead, this, &EndpointConnection::onEventBytes);
    connect(m_events.data(), &QNetworkReply::finished, this, &EndpointConnection::onEventsFinished);
}

void EndpointConnection::onEventBytes()
{
    if (!m_events || !m_events->isOpen())
        return;
    if (m_events->bytesAvailable() > 0)
        m_eventFailures = 0;
    const auto events = m_sse.feed(m_events->readAll());
    int grants = 0;
    for (const auto &sse : events) {
        const QJsonObject data = QJsonDocument::fromJson(sse.data.toUtf8()).object();
        MonitorEvent e;
        e.sequence = sse.id.toLongLong();
        e.type = MonitorFormat::canonicalType(sse.type == u"message" ? data.value(u"type").toString() : sse.type);
        e.time = QDateTime::fromString(data.value(u"time").toString(), Qt::ISODateWithMs);
        if (!e.time.isValid())
            e.time = QDateTime::currentDateTimeUtc();
        e.connection = m_displayUrl;
        e.name = data.value(u"name").toString();
        e.session = data.value(u"session").toString();
        e.token = data.value(u"token").toInteger();
        e.fields = data;
        if (e.type == u"ELECTED")
            ++grants;
        Q_EMIT eventReceived(e);
    }
    if (grants > 0)
        Q_EMIT leadershipChanges(grants);
}

void EndpointConnection::onEventsFinished()
{
    QNetworkReply *reply = m_events;
    if (!reply)
        return;
    onEventBytes();
    m_events.clear();
    ++m_eventFailures;
    // Resume after the last event seen; the endpoint replays what we missed or says GAP.
    m_eventsRetry.start(std::min(1000 << std::min(m_eventFailures - 1, 5), MaxRetryMs));
}

#include "monitorconnection.moc"

#include "moc_monitorconnection.cpp"
