// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QVariant>
#include <QtQml/QQmlParserStatus>
#include <QtQml/qqmlregistration.h>

#include <memory>

class QSimba;
class QSimbaEvent;
class QQmlEngine;

/*
 * SimbaClient: one QSimba client (one backend session). Built once its properties are set;
 * a change of backend or timing afterwards is refused with a warning. Without an explicit
 * client, the other elements use the application's default client, built from QSettings
 * group "simba" and the SIMBA_* environment (QSimbaSettings). Thread-affine (GUI thread).
 */
class QSimbaQuickClient : public QObject, public QQmlParserStatus
{
    Q_OBJECT
    Q_INTERFACES(QQmlParserStatus)
    QML_NAMED_ELEMENT(SimbaClient)
    Q_PROPERTY(QString backend READ backend WRITE setBackend NOTIFY backendChanged)
    Q_PROPERTY(QVariant leaseDuration READ leaseDuration WRITE setLeaseDuration NOTIFY configChanged)
    Q_PROPERTY(QVariant renewInterval READ renewInterval WRITE setRenewInterval NOTIFY configChanged)
    Q_PROPERTY(QVariant margin READ margin WRITE setMargin NOTIFY configChanged)
    Q_PROPERTY(QVariant retryJitter READ retryJitter WRITE setRetryJitter NOTIFY configChanged)
    Q_PROPERTY(QVariant minBackoff READ minBackoff WRITE setMinBackoff NOTIFY configChanged)
    Q_PROPERTY(QVariant drift READ drift WRITE setDrift NOTIFY configChanged)
    Q_PROPERTY(bool schedulingEnabled READ schedulingEnabled WRITE setSchedulingEnabled NOTIFY schedulingEnabledChanged)
    Q_PROPERTY(Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(bool healthy READ isHealthy NOTIFY statusChanged)
    Q_PROPERTY(QString sessionId READ sessionId NOTIFY statusChanged)
    Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
    Q_PROPERTY(qint64 leaseDurationMs READ leaseDurationMs NOTIFY statusChanged)

public:
    //! Error: the client could not be built (see errorString); Opening … Closed: the session.
    enum class Status { Error, Opening, Live, Suspended, Closed };
    Q_ENUM(Status)

    explicit QSimbaQuickClient(QObject *parent = nullptr);
    ~QSimbaQuickClient() override;

    //! The default client of \a engine (built from settings on first use), or nullptr.
    static QSimbaQuickClient *defaultClient(QQmlEngine *engine);
    //! The client of an element: \a explicitClient, else the default client of \a element's engine.
    static QSimbaQuickClient *resolve(QSimbaQuickClient *explicitClient, QObject *element);

    //! The QSimba client, built on first use; nullptr when it could not be built (status Error).
    QSimba *client();

    QString backend() const { return m_backend; }
    void setBackend(const QString &backend);
    QVariant leaseDuration() const { return m_leaseDuration; }
    void setLeaseDuration(const QVariant &v) { setConfigValue(m_leaseDuration, v, "leaseDuration"); }
    QVariant renewInterval() const { return m_renewInterval; }
    void setRenewInterval(const QVariant &v) { setConfigValue(m_renewInterval, v, "renewInterval"); }
    QVariant margin() const { return m_margin; }
    void setMargin(const QVariant &v) { setConfigValue(m_margin, v, "margin"); }
    QVariant retryJitter() const { return m_retryJitter; }
    void setRetryJitter(const QVariant &v) { setConfigValue(m_retryJitter, v, "retryJitter"); }
    QVariant minBackoff() const { return m_minBackoff; }
    void setMinBackoff(const QVariant &v) { setConfigValue(m_minBackoff, v, "minBackoff"); }
    QVariant drift() const { return m_drift; }
    void setDrift(const QVariant &v) { setConfigValue(m_drift, v, "drift"); }
    bool schedulingEnabled() const { return m_schedulingEnabled; }
    void setSchedulingEnabled(bool enabled);

    Status status() const { return m_status; }
    bool isHealthy() const { return m_status == Status::Live; }
    QString sessionId() const { return m_sessionId; }
    QString errorString() const { return m_error; }
    qint64 leaseDurationMs() const;

    //! The client's state as JSON ({"session":…,"elections":[…],…}); {} without a client.
    Q_INVOKABLE QVariantMap snapshot();
    //! Closes the client (every element's term ends, STOPPED) and waits.
    Q_INVOKABLE void close();

    void classBegin() override;
    void componentComplete() override;

Q_SIGNALS:
    void backendChanged();
    void configChanged();
    void schedulingEnabledChanged(bool enabled);
    void statusChanged();
    //! The client is about to close: leader work stops first (the seeds' shutdown order).
    void closing();
    //! Every event of the client, in order, as the seeds' JSON ({"type":"Elected",…}).
    void eventPublished(const QVariantMap &event);

private:
    void setConfigValue(QVariant &field, const QVariant &value, const char *name);
    void build();
    void fail(const QString &message);
    void onEvent(const QSimbaEvent &event);
    void refresh();

    QString m_backend;
    QVariant m_leaseDuration, m_renewInterval, m_margin, m_retryJitter, m_minBackoff, m_drift;
    bool m_schedulingEnabled = true;
    bool m_fromSettings = false;
    bool m_complete = false;
    bool m_built = false;
    Status m_status = Status::Opening;
    QString m_sessionId;
    QString m_error;
    std::unique_ptr<QSimba> m_client;
};
