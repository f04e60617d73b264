// SPDX-License-Identifier: Apache-2.0
#include "monitorcontroller.h"

#include "monitorlogging_p.h"

#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QSettings>
#include <QtQml/QQmlEngine>

MonitorController::MonitorController(QSettings *settings, QObject *parent)
    : QObject(parent), m_settings(settings)
{
    m_leases.setSourceModel(&m_leaseModel);
    m_events.setSourceModel(&m_eventModel);
    connect(&m_eventModel, &EventModel::typesChanged, this, &MonitorController::eventTypesChanged);
    setLanguage(m_settings ? m_settings->value(QStringLiteral("language")).toString() : QString());
}

MonitorController::~MonitorController()
{
    // Connections first: their last signals reach models still alive.
    while (m_connections.count() > 0)
        m_connections.remove(m_connections.count() - 1);
    if (m_translator)
        QCoreApplication::removeTranslator(m_translator.get());
}

QString MonitorController::addConnection(const QString &rawUrl, const QString &password)
{
    QString url = rawUrl.trimmed();
    if (url.isEmpty())
        return tr("Enter a backend URL (such as sqlite:///var/lib/app/simba.db) or an endpoint (http://host:port).");
    if (!password.isEmpty()) {
        QUrl parsed(url, QUrl::StrictMode);
        if (!parsed.isValid() || parsed.host().isEmpty())
            return tr("Put the password into this URL yourself: it names no single host.");
        parsed.setPassword(password);
        url = parsed.toString();
    }
    const QString shown = MonitorConnection::redact(url);
    if (MonitorConnection::kindOf(url) == MonitorConnection::Kind::Endpoint) {
        const QUrl parsed(url, QUrl::StrictMode);
        if (!parsed.isValid() || parsed.host().isEmpty())
            return tr("\"%1\" is not an endpoint URL such as http://127.0.0.1:8080.").arg(shown);
    } else {
        try {
            // Builds the backend without connecting: checks the URL.
            QSimbaBackendFactory::create(url);
        } catch (const QSimbaError &e) {
            return tr("\"%1\" is not a backend URL: %2").arg(shown, e.message());
        }
    }
    if (m_connections.urls().contains(shown))
        return tr("\"%1\" is already watched.").arg(shown);
    auto connection = MonitorConnection::create(url);
    wire(connection.get());
    m_connections.add(std::move(connection));
    save();
    return {};
}

void MonitorController::wire(MonitorConnection *c)
{
    connect(c, &MonitorConnection::snapshotUpdated, this, [this, c] {
        m_leaseModel.apply(c->displayUrl(), c->snapshot(), m_leaseModel.now());
        m_groups.apply(c->displayUrl(), c->snapshot());
    });
    connect(c, &MonitorConnection::eventReceived, this, [this](const MonitorEvent &e) { m_eventModel.add(e); });
    connect(c, &MonitorConnection::latencySample, this, [this](double ms) { m_chart.addLatency(ms); });
    connect(c, &MonitorConnection::leadershipChanges, this, [this](int n) { m_chart.addChanges(n); });
}

void MonitorController::removeConnection(int row)
{
    if (row < 0 || row >= m_connections.count())
        return;
    const QString url = m_connections.at(row)->displayUrl();
    m_connections.remove(row);
    m_leaseModel.removeConnection(url);
    m_groups.removeConnection(url);
    save();
}

void MonitorController::supplyPassword(int row, const QString &password)
{
    if (row >= 0 && row < m_connections.count())
        m_connections.at(row)->supplyPassword(password);
}

void MonitorController::restore()
{
    if (!m_settings)
        return;
    const int n = m_settings->beginReadArray(QStringLiteral("connections"));
    QStringList urls;
    for (int i = 0; i < n; ++i) {
        m_settings->setArrayIndex(i);
        urls << m_settings->value(QStringLiteral("url")).toString();
    }
    m_settings->endArray();
    for (const QString &url : std::as_const(urls)) {
        if (url.isEmpty() || m_connections.urls().contains(url))
            continue;
        auto connection = MonitorConnection::create(url);
        wire(connection.get());
        m_connections.add(std::move(connection));
    }
}

void MonitorController::save()
{
    if (!m_settings)
        return;
    const QStringList urls = m_connections.urls(); // redacted: never a password
    m_settings->beginWriteArray(QStringLiteral("connections"), int(urls.size()));
    for (int i = 0; i < urls.size(); ++i) {
        m_settings->setArrayIndex(i);
        m_settings->setValue(QStringLiteral("url"), urls.at(i));
    }
    m_settings->endArray();
    m_settings->sync();
}

QString MonitorController::localeName() const
{
    return QLocale().name();
}

void MonitorController::setLanguage(const QString &language)
{
    if (language == m_language)
        return;
    m_language = language;
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    QLocale::setDefault(locale);
    if (m_translator) {
        QCoreApplication::removeTranslator(m_translator.get());
        m_translator.reset();
    }
    auto translator = std::make_unique<QTranslator>();
    // English is the source language: its catalogue only exists for completeness.
    if (translator->load(locale, QStringLiteral("simba-monitor"), QStringLiteral("_"), QStringLiteral(":/i18n"))) {
        QCoreApplication::installTranslator(translator.get());
        m_translator = std::move(translator);
    }
    qCDebug(lcMonitor) << "language" << (language.isEmpty() ? QStringLiteral("system") : language) << "locale"
                       << locale.name() << "translator" << bool(m_translator);
    if (m_settings) {
        m_settings->setValue(QStringLiteral("language"), language);
        m_settings->sync();
    }
    if (m_engine)
        m_engine->retranslate();
    m_leaseModel.retranslate();
    m_groups.retranslate();
    m_eventModel.retranslate();
    m_connections.retranslate();
    Q_EMIT languageChanged();
}

#include "moc_monitorcontroller.cpp"
