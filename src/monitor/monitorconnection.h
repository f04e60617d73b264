// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "metricsparser.h"
#include "monitordata.h"
#include "sseparser.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTimer>
#include <QtCore/QUrl>

#include <functional>
#include <memory>

class QNetworkAccessManager;
class QNetworkRequest;
class QNetworkReply;
class QThread;

/*
 * One thing the operator watches: a backend (by its URL) or a service endpoint. Lives on
 * the GUI thread; a backend's inspection runs on a thread of its own. It never gives up:
 * a failure is shown in words (problem()) and retried with a growing delay (1 s … 30 s).
 * The URL given may hold a password: only its redacted form is ever shown or stored.
 */
class MonitorConnection : public QObject
{
    Q_OBJECT
public:
    enum class Kind { Backend, Endpoint };
    Q_ENUM(Kind)
    enum class State { Connecting, Up, Failing, NeedsPassword };
    Q_ENUM(State)

    //! A backend URL or, when it starts with http:// or https://, a service endpoint.
    static std::unique_ptr<MonitorConnection> create(const QString &url, QObject *parent = nullptr);
    static Kind kindOf(const QString &url);
    //! \a url with any password replaced by "***".
    static QString redact(const QString &url);
    //! True when \a url holds a password placeholder ("***") that must be supplied again.
    static bool needsPassword(const QString &url);

    ~MonitorConnection() override;

    Kind kind() const { return m_kind; }
    QString displayUrl() const { return m_displayUrl; }
    State state() const { return m_state; }
    //! Why the last attempt failed, in words of the current language; empty when up.
    QString problem() const { return m_problem ? m_problem() : QString(); }
    //! A problem is kept as how to say it, so a language switch says it again.
    using Problem = std::function<QString()>;
    //! Failed attempts in a row.
    int failures() const { return m_failures; }
    //! Healthy: up, and (for an endpoint) /simba/health answers UP.
    bool healthy() const { return m_state == State::Up && m_healthUp; }
    //! Why the endpoint says it is unhealthy, in words of the current language.
    QString healthReason() const;
    const MonitorSnapshot &snapshot() const { return m_snapshot; }
    //! When the snapshot was taken, on QElapsedTimer's monotonic clock (ms).
    qint64 snapshotAt() const { return m_snapshotAt; }
    QDateTime lastSuccess() const { return m_lastSuccess; }
    //! The poll interval (ms) of inspection or of GET /simba.
    int pollInterval() const { return m_pollInterval; }
    //! True when the backend publishes hints that speed up refreshes.
    bool hasHints() const { return m_hints; }

    //! Replaces the "***" of the URL by \a password and connects.
    void supplyPassword(const QString &password);
    virtual void start() = 0;

Q_SIGNALS:
    void changed();
    void snapshotUpdated();
    void eventReceived(const MonitorEvent &event);
    //! A backend call took \a ms (inspection itself, or the endpoint's average since the last scrape).
    void latencySample(double ms);
    //! \a count terms started (grants) since the last report.
    void leadershipChanges(int count);

protected:
    MonitorConnection(Kind kind, const QString &url, QObject *parent);
    void setUp(const MonitorSnapshot &snapshot);
    void setFailed(const Problem &problem);
    int retryDelay() const;

    Kind m_kind;
    QString m_url; //!< with the password: never shown, logged or stored
    QString m_displayUrl;
    State m_state = State::Connecting;
    Problem m_problem;
    int m_failures = 0;
    bool m_healthUp = true;
    QString m_healthReason; //!< as the endpoint said it: REASON\ndetail
    MonitorSnapshot m_snapshot;
    qint64 m_snapshotAt = 0;
    QDateTime m_lastSuccess;
    int m_pollInterval = 2000;
    bool m_hints = false;
    QElapsedTimer m_clock;
};

class BackendWorker;

/*
 * A backend by URL (any scheme of the backend factory). inspect() runs on the connection's
 * own thread every pollInterval() (2 s); where the backend publishes hints (PostgreSQL,
 * Redis, ZooKeeper) a hint brings the next inspection forward, at most one per 250 ms.
 * Changes of holder seen between two inspections become HOLDER_CHANGED events.
 */
class BackendConnection final : public MonitorConnection
{
    Q_OBJECT
public:
    BackendConnection(const QString &url, QObject *parent = nullptr);
    ~BackendConnection() override;
    void start() override;
    void setPollInterval(int ms) { m_pollInterval = ms; }

private:
    void stopThread();
    QThread *m_thread = nullptr;
    QPointer<BackendWorker> m_worker;
};

/*
 * A service endpoint (http://host:port): GET /simba every second, /simba/health every
 * 2 s, /simba/metrics every 5 s, and the event stream /simba/events kept open and resumed
 * with Last-Event-ID. Every request has a timeout. The password of the URL
 * (http://:TOKEN@host:port) is the endpoint's bearer token.
 */
class EndpointConnection final : public MonitorConnection
{
    Q_OBJECT
public:
    EndpointConnection(const QString &url, QObject *parent = nullptr);
    ~EndpointConnection() override;
    void start() override;

private:
    QNetworkRequest request(const QString &path) const;
    void poll();
    void pollHealth();
    void pollMetrics();
    void openEvents();
    void onEventBytes();
    void onEventsFinished();

    QNetworkAccessManager *m_network = nullptr;
    QTimer m_pollTimer;
    QTimer m_healthTimer;
    QTimer m_metricsTimer;
    QTimer m_eventsRetry;
    QPointer<QNetworkReply> m_events;
    QPointer<QNetworkReply> m_pending;
    SseParser m_sse;
    MetricsFigures m_lastMetrics;
    int m_eventFailures = 0;
    bool m_started = false;
};
