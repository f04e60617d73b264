// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "chartmodel.h"
#include "connectionmodel.h"
#include "eventmodel.h"
#include "groupmodel.h"
#include "leasemodel.h"
#include "monitorformat.h"

#include <QtCore/QObject>
#include <QtCore/QPointer>
#include <QtCore/QTranslator>

#include <memory>

#include <QtQml/QQmlEngine>
class QSettings;

/*
 * The monitor's root, "Monitor" in QML: the connections (remembered in QSettings, with
 * their URLs redacted: a password is never stored, it is asked again after a restart),
 * the models every view reads, and the language (the system's, or one chosen at runtime).
 */
class MonitorController : public QObject
{
    Q_OBJECT
    Q_PROPERTY(ConnectionModel *connections READ connections CONSTANT)
    Q_PROPERTY(LeaseModel *leaseModel READ leaseModel CONSTANT)
    Q_PROPERTY(LeaseFilterModel *leases READ leases CONSTANT)
    Q_PROPERTY(GroupModel *groups READ groups CONSTANT)
    Q_PROPERTY(EventModel *eventModel READ eventModel CONSTANT)
    Q_PROPERTY(EventFilterModel *events READ events CONSTANT)
    Q_PROPERTY(QStringList eventTypes READ eventTypes NOTIFY eventTypesChanged)
    Q_PROPERTY(ChartModel *chart READ chart CONSTANT)
    Q_PROPERTY(MonitorFormat *format READ format CONSTANT)
    Q_PROPERTY(QString language READ language WRITE setLanguage NOTIFY languageChanged)
    Q_PROPERTY(QString localeName READ localeName NOTIFY languageChanged)
public:
    //! \a settings (not owned) remembers connections and the language; null: nothing remembered.
    explicit MonitorController(QSettings *settings, QObject *parent = nullptr);
    ~MonitorController() override;

    ConnectionModel *connections() { return &m_connections; }
    LeaseModel *leaseModel() { return &m_leaseModel; }
    LeaseFilterModel *leases() { return &m_leases; }
    GroupModel *groups() { return &m_groups; }
    EventModel *eventModel() { return &m_eventModel; }
    EventFilterModel *events() { return &m_events; }
    ChartModel *chart() { return &m_chart; }
    MonitorFormat *format() { return &m_format; }
    QStringList eventTypes() const { return m_eventModel.types(); }

    //! Adds and remembers a connection; \a password (optional) goes into the URL and is
    //! neither shown nor stored. Answers an error in words, or an empty string.
    Q_INVOKABLE QString addConnection(const QString &url, const QString &password = {});
    Q_INVOKABLE void removeConnection(int row);
    Q_INVOKABLE void supplyPassword(int row, const QString &password);
    //! Starts the connections remembered in the settings.
    void restore();

    //! "" follows the system locale; "en" or "zh_CN".
    QString language() const { return m_language; }
    void setLanguage(const QString &language);
    QString localeName() const;
    //! Where QML is: retranslated on a language switch.
    void setEngine(QQmlEngine *engine) { m_engine = engine; }

Q_SIGNALS:
    void languageChanged();
    void eventTypesChanged();

private:
    void wire(MonitorConnection *connection);
    void save();

    QSettings *m_settings;
    QPointer<QQmlEngine> m_engine;
    ConnectionModel m_connections;
    LeaseModel m_leaseModel;
    LeaseFilterModel m_leases;
    GroupModel m_groups;
    EventModel m_eventModel;
    EventFilterModel m_events;
    ChartModel m_chart;
    MonitorFormat m_format;
    std::unique_ptr<QTranslator> m_translator;
    QString m_language = QStringLiteral("-");
};
