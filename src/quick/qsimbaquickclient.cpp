// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquickclient.h"
#include "qsimbaquickutil_p.h"

#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"
#include "qsimbasettings.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QSettings>
#include <QtCore/QSysInfo>
#include <QtQml/QQmlEngine>
#include <QtQml/QQmlInfo>

namespace {
const char defaultClientName[] = "QSimbaDefaultClient";
}

/*!
    \qmltype SimbaClient
    \inqmlmodule QSimba
    \brief One QSimba client: a backend session shared by the elements that name it.

    Properties \c backend (a URL: \c{memory://name}, \c{sqlite:///path.db}, \c{redis://…},
    …; empty: the one of the settings, as the default client) and the timing (\c leaseDuration, \c renewInterval, \c margin, \c retryJitter,
    \c minBackoff as \c{"10s"}, \c{"500ms"}, \c{"PT1M"} or a number of milliseconds;
    \c drift as a number) are read once, when the first element needs the client. A bad value
    gives a warning naming the property and the rule, \c status becomes \c Error and the
    elements using it stay inactive.
*/
QSimbaQuickClient::QSimbaQuickClient(QObject *parent) : QObject(parent) {}

QSimbaQuickClient::~QSimbaQuickClient()
{
    // Shutdown order: the elements' leader work stops, then ~QSimba closes the session.
    if (m_client)
        Q_EMIT closing();
    m_client.reset();
}

QSimbaQuickClient *QSimbaQuickClient::defaultClient(QQmlEngine *engine)
{
    if (!engine)
        return nullptr;
    if (auto *existing = engine->findChild<QSimbaQuickClient *>(QLatin1String(defaultClientName),
                                                                Qt::FindDirectChildrenOnly))
        return existing;
    auto *client = new QSimbaQuickClient(engine);
    client->setObjectName(QLatin1String(defaultClientName));
    client->m_fromSettings = true;
    client->m_complete = true;
    return client;
}

QSimbaQuickClient *QSimbaQuickClient::resolve(QSimbaQuickClient *explicitClient, QObject *element)
{
    if (explicitClient)
        return explicitClient;
    return defaultClient(qmlEngine(element));
}

void QSimbaQuickClient::setBackend(const QString &backend)
{
    if (backend == m_backend)
        return;
    if (m_built) {
        qmlWarning(this) << "backend: the client is already built; a SimbaClient's backend cannot change";
        return;
    }
    m_backend = backend;
    Q_EMIT backendChanged();
}

void QSimbaQuickClient::setConfigValue(QVariant &field, const QVariant &value, const char *name)
{
    if (field == value)
        return;
    if (m_built) {
        qmlWarning(this) << name << ": the client is already built; its timing cannot change";
        return;
    }
    field = value;
    Q_EMIT configChanged();
}

void QSimbaQuickClient::setSchedulingEnabled(bool enabled)
{
    if (enabled == m_schedulingEnabled)
        return;
    m_schedulingEnabled = enabled;
    Q_EMIT schedulingEnabledChanged(enabled);
}

qint64 QSimbaQuickClient::leaseDurationMs() const
{
    return m_client ? m_client->config().leaseDurationMs() : 0;
}

void QSimbaQuickClient::classBegin() {}

void QSimbaQuickClient::componentComplete()
{
    m_complete = true;
}

QSimba *QSimbaQuickClient::client()
{
    if (!m_built)
        build();
    return m_client.get();
}

void QSimbaQuickClient::fail(const QString &message)
{
    m_error = message;
    m_status = Status::Error;
    qmlWarning(this) << message;
    Q_EMIT statusChanged();
}

void QSimbaQuickClient::build()
{
    m_built = true;
    // Without a backend (and always for the default client) the settings give the backend,
    // the timing and the scheduling switch; timing set in QML applies on top.
    const bool fromSettings = m_fromSettings || m_backend.trimmed().isEmpty();
    const QString origin = m_fromSettings ? QStringLiteral("default client from settings: ")
                           : fromSettings ? QStringLiteral("settings: ")
                                          : QString();
    QString url = m_backend;
    QSimbaConfig base;
    try {
        if (fromSettings) {
            QSettings settings;
            url = QSimbaSettings::backendUrl(settings);
            base = QSimbaSettings::config(settings);
            setSchedulingEnabled(m_schedulingEnabled && QSimbaSettings::schedulingEnabled(settings));
        }
    } catch (const QSimbaError &e) {
        return fail(origin + e.message());
    }
    auto config = base.toBuilder();
    QString error;
    const auto apply = [&](const QVariant &value, const char *name, auto setter) {
        if (!error.isEmpty())
            return;
        const auto d = QSimbaQuick::durationOf(value, QLatin1String(name), &error);
        if (d)
            (config.*setter)(*d);
    };
    apply(m_leaseDuration, "leaseDuration", &QSimbaConfig::Builder::leaseDuration);
    apply(m_renewInterval, "renewInterval", &QSimbaConfig::Builder::renewInterval);
    apply(m_margin, "margin", &QSimbaConfig::Builder::margin);
    apply(m_retryJitter, "retryJitter", &QSimbaConfig::Builder::retryJitter);
    apply(m_minBackoff, "minBackoff", &QSimbaConfig::Builder::minBackoff);
    if (error.isEmpty() && QSimbaQuick::isSet(m_drift)) {
        bool ok = false;
        const double drift = m_drift.toDouble(&ok);
        if (!ok)
            error = QStringLiteral("drift: \"%1\" is not a number such as 0.01").arg(m_drift.toString());
        else
            config.drift(drift);
    }
    if (!error.isEmpty())
        return fail(error);
    QSimba::Builder builder;
    try {
        builder.config(config.build());
    } catch (const QSimbaError &e) {
        return fail(QStringLiteral("timing: %1").arg(e.message()));
    }
    try {
        builder.backend(QSimbaBackendFactory::create(url));
    } catch (const QSimbaError &e) {
        return fail(origin + QStringLiteral("backend: %1").arg(e.message()));
    }
    builder.metadata(QStringLiteral("host"), QSysInfo::machineHostName())
        .metadata(QStringLiteral("pid"), QString::number(QCoreApplication::applicationPid()))
        .metadata(QStringLiteral("command"), QCoreApplication::applicationName());
    try {
        m_client = builder.build();
    } catch (const QSimbaError &e) {
        return fail(origin + e.message());
    }
    connect(m_client.get(), &QSimba::event, this, &QSimbaQuickClient::onEvent);
    refresh();
}

void QSimbaQuickClient::onEvent(const QSimbaEvent &event)
{
    refresh();
    Q_EMIT eventPublished(event.toJson().toVariantMap());
}

void QSimbaQuickClient::refresh()
{
    if (!m_client)
        return;
    const QSimbaSnapshot snap = m_client->snapshot();
    Status status = Status::Opening;
    switch (snap.session.status) {
    case QSimbaSessionSnapshot::Status::Opening: status = Status::Opening; break;
    case QSimbaSessionSnapshot::Status::Live: status = Status::Live; break;
    case QSimbaSessionSnapshot::Status::Suspended: status = Status::Suspended; break;
    case QSimbaSessionSnapshot::Status::Closed: status = Status::Closed; break;
    }
    if (m_client->isClosed())
        status = Status::Closed;
    const QString id = snap.session.id.toString();
    if (status == m_status && id == m_sessionId)
        return;
    m_status = status;
    m_sessionId = id;
    Q_EMIT statusChanged();
}

QVariantMap QSimbaQuickClient::snapshot()
{
    if (!client())
        return {};
    return m_client->snapshot().toJson().toVariantMap();
}

void QSimbaQuickClient::close()
{
    if (!client())
        return;
    Q_EMIT closing();
    m_client->close();
    refresh();
}

#include "moc_qsimbaquickclient.cpp"
