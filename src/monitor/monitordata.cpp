// SPDX-License-Identifier: Apache-2.0
#include "monitordata.h"

#include <QtCore/QJsonArray>

MonitorSnapshot MonitorSnapshot::fromInspection(const QSimbaLeaseBackend::Inspection &in)
{
    MonitorSnapshot out;
    out.sessions.reserve(in.sessions.size());
    for (const auto &s : in.sessions)
        out.sessions.append({s.id.toString(), qint64(s.remaining.count()), s.metadata});
    out.leases.reserve(in.leases.size());
    for (const auto &l : in.leases)
        out.leases.append({l.name.toString(), l.holder.toString(), l.token, qint64(l.remaining.count()), {}});
    for (const auto &g : in.groups) {
        MonitorGroup group{g.name, {}, 0, {}};
        for (const auto &m : g.members)
            group.members.append(m.toString());
        out.groups.append(group);
    }
    if (out.groups.isEmpty())
        return out;
    QHash<QString, int> byName;
    for (int i = 0; i < out.groups.size(); ++i)
        byName.insert(out.groups.at(i).name, i);
    for (const auto &l : out.leases) {
        const qsizetype dot = l.name.lastIndexOf(QLatin1Char('.'));
        if (dot <= 0)
            continue;
        const auto it = byName.constFind(l.name.left(dot));
        if (it == byName.cend())
            continue;
        bool ok = false;
        const int p = l.name.mid(dot + 1).toInt(&ok);
        if (!ok || p < 0)
            continue;
        auto &group = out.groups[*it];
        group.partitions = std::max(group.partitions, p + 1);
        if (!l.holder.isEmpty() && l.remainingMs > 0)
            group.owners.insert(p, l.holder);
    }
    return out;
}

MonitorSnapshot MonitorSnapshot::fromEndpoint(const QJsonObject &simba)
{
    MonitorSnapshot out;
    out.partial = true;
    const QJsonObject client = simba.value(u"client").toObject();
    const QJsonObject session = simba.value(u"session").toObject();
    const QString id = session.value(u"id").toString();
    MonitorSession s{id, session.value(u"validForMs").toInteger(), {}};
    for (auto it = client.begin(); it != client.end(); ++it) {
        if (it.value().isString())
            s.metadata.insert(it.key(), it.value().toString());
        else if (it.value().isDouble())
            s.metadata.insert(it.key(), QString::number(it.value().toInteger()));
    }
    // What the client was built with (its instance name, …) is what the backend lists too.
    const QJsonObject metadata = session.value(u"metadata").toObject();
    for (auto it = metadata.begin(); it != metadata.end(); ++it)
        s.metadata.insert(it.key(), it.value().toString());
    if (!id.isEmpty())
        out.sessions.append(s);
    for (const QString &key : {QStringLiteral("elections"), QStringLiteral("locks")}) {
        for (const auto &v : simba.value(key).toArray()) {
            const QJsonObject o = v.toObject();
            const bool leader = o.value(u"status").toString() == u"LEADER";
            out.leases.append({o.value(u"name").toString(), leader ? id : QString(), o.value(u"token").toInteger(),
                               leader ? o.value(u"remainingMs").toInteger() : 0,
                               o.value(u"kind").toString(key == u"locks" ? QStringLiteral("LOCK") : QStringLiteral("ELECTION"))});
        }
    }
    for (const auto &v : simba.value(u"groups").toArray()) {
        const QJsonObject o = v.toObject();
        MonitorGroup g{o.value(u"name").toString(), {}, o.value(u"partitions").toInt(), {}};
        for (const auto &m : o.value(u"members").toArray())
            g.members.append(m.toString());
        // "held": the partitions whose term the client holds now; older endpoints say "owned".
        const QJsonArray held = o.value(o.contains(u"held") ? u"held" : u"owned").toArray();
        for (const auto &p : held)
            g.owners.insert(p.toInt(), id);
        out.groups.append(g);
    }
    return out;
}

const MonitorSession *MonitorSnapshot::session(const QString &id) const
{
    for (const auto &s : sessions) {
        if (s.id == id)
            return &s;
    }
    return nullptr;
}

QString MonitorSnapshot::label(const MonitorSession &session)
{
    const QString host = session.metadata.value(QStringLiteral("host"));
    if (!host.isEmpty()) {
        const QString pid = session.metadata.value(QStringLiteral("pid"));
        return pid.isEmpty() ? host : host + QLatin1Char(':') + pid;
    }
    for (const QString &key : {QStringLiteral("node"), QStringLiteral("name")}) {
        const QString value = session.metadata.value(key);
        if (!value.isEmpty())
            return value;
    }
    return session.id.left(8);
}
