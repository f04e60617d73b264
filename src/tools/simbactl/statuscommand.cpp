// SPDX-License-Identifier: Apache-2.0
#include "statuscommand.h"

#include "commandline.h"
#include "console.h"
#include "exitcode.h"

#include "qsimbabackendfactory.h"
#include "qsimbaduration_p.h"
#include "qsimbaerror.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QMap>

#include <algorithm>

namespace {

// The partitions of \a group: leases named "{group}.{p}", p a number, by p.
QMap<int, const QSimbaLeaseBackend::Inspection::Lease *> partitionsOf(const QString &group,
                                                                       const QSimbaLeaseBackend::Inspection &in)
{
    QMap<int, const QSimbaLeaseBackend::Inspection::Lease *> out;
    const QString prefix = group + QLatin1Char('.');
    for (const auto &lease : in.leases) {
        const QString name = lease.name.toString();
        if (!name.startsWith(prefix))
            continue;
        bool ok = false;
        const int p = name.mid(prefix.size()).toInt(&ok);
        if (ok && p >= 0)
            out.insert(p, &lease);
    }
    return out;
}

QString orDash(const QString &text)
{
    return text.isEmpty() ? QStringLiteral("-") : text;
}

// Columns padded to their widest cell.
QString table(const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const auto &row : rows) {
        for (qsizetype i = 0; i < row.size(); ++i) {
            if (widths.size() <= i)
                widths.append(0);
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    QString out;
    for (const auto &row : rows) {
        QString line;
        for (qsizetype i = 0; i < row.size(); ++i)
            line += i + 1 < row.size() ? row[i].leftJustified(widths[i] + 2) : row[i];
        out += line + QLatin1Char('\n');
    }
    return out;
}

} // namespace

/*! Runs \c{simbactl status} with \a args; answers the exit code. */
int StatusCommand::run(const QStringList &args)
{
    CommandLine line(QStringLiteral("status"), QStringLiteral("status [--json]"),
                     QStringLiteral("Shows the backend's live sessions (with their metadata), the leases with "
                                    "holder, token and remaining time, and the groups with their members and "
                                    "partition owners. Reads the backend once; starts no session."));
    const QString json = QStringLiteral("json");
    line.addOption(QCommandLineOption(json, QStringLiteral("One JSON object instead of tables.")));
    if (const auto exit = line.parse(args))
        return *exit;
    if (!line.positional().isEmpty())
        throw QSimbaInvalidArgumentError(QStringLiteral("status: unexpected argument %1").arg(line.positional().first()));
    auto backend = QSimbaBackendFactory::create(line.backendUrl());
    if (!backend->capabilities().inspection)
        throw QSimbaBackendError(QStringLiteral("%1 cannot be inspected").arg(backend->describe()));
    const auto inspection = backend->inspect();
    if (line.parser().isSet(json))
        Console::out(QString::fromUtf8(QJsonDocument(toJson(backend->describe(), inspection)).toJson(QJsonDocument::Compact)));
    else
        Console::print(toText(backend->describe(), inspection));
    return ExitCode::Ok;
}

/*!
    {"backend":…, "sessions":[{"id","remainingMs","metadata"}], "leases":[{"name","holder",
    "token","remainingMs"}], "groups":[{"name","members":[…],"partitions":{"0":holder,…}}]}
*/
QJsonObject StatusCommand::toJson(const QString &backend, const QSimbaLeaseBackend::Inspection &in)
{
    QJsonArray sessions;
    for (const auto &s : in.sessions) {
        QJsonObject metadata;
        for (auto it = s.metadata.cbegin(); it != s.metadata.cend(); ++it)
            metadata.insert(it.key(), it.value());
        sessions.append(QJsonObject{{QStringLiteral("id"), s.id.toString()},
                                    {QStringLiteral("remainingMs"), qint64(s.remaining.count())},
                                    {QStringLiteral("metadata"), metadata}});
    }
    QJsonArray leases;
    for (const auto &l : in.leases) {
        leases.append(QJsonObject{{QStringLiteral("name"), l.name.toString()},
                                  {QStringLiteral("holder"), l.holder.isNull() ? QJsonValue() : QJsonValue(l.holder.toString())},
                                  {QStringLiteral("token"), l.token},
                                  {QStringLiteral("remainingMs"), qint64(l.remaining.count())}});
    }
    QJsonArray groups;
    for (const auto &g : in.groups) {
        QJsonArray members;
        for (const auto &m : g.members)
            members.append(m.toString());
        QJsonObject partitions;
        const auto owned = partitionsOf(g.name, in);
        for (auto it = owned.cbegin(); it != owned.cend(); ++it)
            partitions.insert(QString::number(it.key()), it.value()->holder.isNull() ? QJsonValue()
                                                                                     : QJsonValue(it.value()->holder.toString()));
        groups.append(QJsonObject{{QStringLiteral("name"), g.name},
                                  {QStringLiteral("members"), members},
                                  {QStringLiteral("partitions"), partitions}});
    }
    return QJsonObject{{QStringLiteral("backend"), backend},
                       {QStringLiteral("sessions"), sessions},
                       {QStringLiteral("leases"), leases},
                       {QStringLiteral("groups"), groups}};
}

/*! Three tables: sessions, leases, groups. */
QString StatusCommand::toText(const QString &backend, const QSimbaLeaseBackend::Inspection &in)
{
    QString out = QStringLiteral("backend %1\n\n").arg(backend);
    QList<QStringList> sessions{{QStringLiteral("SESSION"), QStringLiteral("REMAINING"), QStringLiteral("METADATA")}};
    for (const auto &s : in.sessions) {
        QStringList metadata;
        for (auto it = s.metadata.cbegin(); it != s.metadata.cend(); ++it)
            metadata << it.key() + QLatin1Char('=') + it.value();
        sessions.append({s.id.toString(), QSimbaDuration::format(s.remaining), orDash(metadata.join(QLatin1Char(' ')))});
    }
    out += table(sessions) + QLatin1Char('\n');
    QList<QStringList> leases{{QStringLiteral("LEASE"), QStringLiteral("HOLDER"), QStringLiteral("TOKEN"),
                               QStringLiteral("REMAINING")}};
    for (const auto &l : in.leases) {
        leases.append({l.name.toString(), orDash(l.holder.toString()), QString::number(l.token),
                       l.holder.isNull() ? QStringLiteral("-") : QSimbaDuration::format(l.remaining)});
    }
    out += table(leases) + QLatin1Char('\n');
    QList<QStringList> groups{{QStringLiteral("GROUP"), QStringLiteral("MEMBERS"), QStringLiteral("PARTITIONS")}};
    for (const auto &g : in.groups) {
        QStringList members;
        for (const auto &m : g.members)
            members << m.toString();
        QStringList partitions;
        const auto owned = partitionsOf(g.name, in);
        for (auto it = owned.cbegin(); it != owned.cend(); ++it)
            partitions << QString::number(it.key()) + QLatin1Char('=') + orDash(it.value()->holder.toString());
        groups.append({g.name, orDash(members.join(QLatin1Char(','))), orDash(partitions.join(QLatin1Char(' ')))});
    }
    out += table(groups);
    return out;
}
