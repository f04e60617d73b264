// SPDX-License-Identifier: Apache-2.0
// simbactl status; not installed.
#pragma once

#include "qsimbaleasebackend.h"

#include <QtCore/QJsonObject>
#include <QtCore/QStringList>

/*
 * `simbactl status [--json]`: the backend's sessions, leases and groups (with the partition
 * owners of "{group}.{p}" leases), read once through QSimbaLeaseBackend::inspect().
 */
class StatusCommand
{
public:
    static int run(const QStringList &args);

    static QJsonObject toJson(const QString &backend, const QSimbaLeaseBackend::Inspection &inspection);
    static QString toText(const QString &backend, const QSimbaLeaseBackend::Inspection &inspection);
};
