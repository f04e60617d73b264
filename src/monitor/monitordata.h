// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbaleasebackend.h"

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>
#include <QtCore/QMetaType>
#include <QtCore/QString>
#include <QtCore/QStringList>

/*
 * What one connection shows, whichever its source: a backend's inspection (the whole
 * picture) or a service endpoint's snapshot (one client's view). Plain values.
 */
struct MonitorSession
{
    QString id;
    qint64 remainingMs = 0;
    QMap<QString, QString> metadata;
};

struct MonitorLease
{
    QString name;
    QString holder;       //!< session id; empty when nobody holds it
    qint64 token = 0;
    qint64 remainingMs = 0;
    QString kind;         //!< ELECTION or LOCK when the endpoint says; empty from inspection
};

struct MonitorGroup
{
    QString name;
    QStringList members;      //!< session ids
    int partitions = 0;
    QMap<int, QString> owners; //!< partition → session id
};

struct MonitorSnapshot
{
    QList<MonitorSession> sessions;
    QList<MonitorLease> leases;
    QList<MonitorGroup> groups;
    //! One client's view (an endpoint): what it does not hold may be held by others.
    bool partial = false;

    //! From a backend's inspection; a group's partitions are its leases "{group}.{p}".
    static MonitorSnapshot fromInspection(const QSimbaLeaseBackend::Inspection &in);
    //! From GET /simba of a service endpoint (docs/endpoint.md).
    static MonitorSnapshot fromEndpoint(const QJsonObject &simba);
    const MonitorSession *session(const QString &id) const;
    //! How an operator names a session: "host:pid" from its metadata, else its "node" or
    //! "name", else the start of its id.
    static QString label(const MonitorSession &session);
};

struct MonitorEvent
{
    qint64 sequence = 0;
    QDateTime time;
    QString connection;   //!< the connection's display name
    QString type;         //!< canonical: ELECTED, SESSION_SUSPENDED, HOLDER_CHANGED, …
    QString name;         //!< lease or group, when the type has one
    QString session;
    qint64 token = 0;
    QJsonObject fields;   //!< everything the source said
};

Q_DECLARE_METATYPE(MonitorSnapshot)
Q_DECLARE_METATYPE(MonitorEvent)
