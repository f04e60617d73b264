// SPDX-License-Identifier: Apache-2.0
#include "groupmodel.h"

#include <QtCore/QVariantMap>

#include <algorithm>

GroupModel::GroupModel(QObject *parent) : QAbstractListModel(parent)
{
    m_clock.start();
    m_fade.setSingleShot(true);
    // A coarse timer may fire up to 5 % early: the highlight would then outlive its time by a
    // whole period.
    m_fade.setTimerType(Qt::PreciseTimer);
    connect(&m_fade, &QTimer::timeout, this, &GroupModel::fade);
}

int GroupModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QHash<int, QByteArray> GroupModel::roleNames() const
{
    return {{ConnectionRole, "connection"}, {NameRole, "name"},           {MembersRole, "members"},
            {PartitionCountRole, "partitionCount"}, {PartitionsRole, "partitions"}, {UnownedRole, "unowned"},
            {PartialRole, "partial"}};
}

QVariant GroupModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
    case NameRole:
        return r.name;
    case ConnectionRole:
        return r.connection;
    case MembersRole: {
        QVariantList out;
        for (int i = 0; i < r.members.size(); ++i)
            out.append(QVariantMap{{QStringLiteral("session"), r.members.at(i).session},
                                   {QStringLiteral("label"), r.members.at(i).label},
                                   {QStringLiteral("colorIndex"), i}});
        return out;
    }
    case PartitionCountRole:
        return r.partitions;
    case UnownedRole:
        // An endpoint knows only its own partitions: the others may well have owners.
        return r.partial ? 0 : r.partitions - int(r.owners.size());
    case PartialRole:
        return r.partial;
    case PartitionsRole: {
        QVariantList out;
        const qint64 now = m_clock.elapsed();
        for (int p = 0; p < r.partitions; ++p) {
            const QString owner = r.owners.value(p);
            int color = -1;
            QString label;
            for (int i = 0; i < r.members.size(); ++i) {
                if (r.members.at(i).session == owner) {
                    color = i;
                    label = r.members.at(i).label;
                    break;
                }
            }
            if (label.isEmpty())
                label = owner;
            const auto moved = r.movedAt.constFind(p);
            out.append(QVariantMap{{QStringLiteral("partition"), p},
                                   {QStringLiteral("owner"), owner},
                                   {QStringLiteral("ownerLabel"), label},
                                   {QStringLiteral("colorIndex"), color},
                                   {QStringLiteral("moved"), moved != r.movedAt.cend() && now - *moved < HighlightMs}});
        }
        return out;
    }
    default:
        return {};
    }
}

void GroupModel::apply(const QString &connection, const MonitorSnapshot &snapshot)
{
    QHash<QString, const MonitorSession *> sessions;
    for (const auto &s : snapshot.sessions)
        sessions.insert(s.id, &s);
    const qint64 now = m_clock.elapsed();
    QSet<QString> seen;
    bool anyMoved = false;
    for (const auto &g : snapshot.groups) {
        seen.insert(g.name);
        Row r{connection, g.name, {}, g.partitions, g.owners, {}, snapshot.partial};
        for (const auto &m : g.members) {
            const auto *s = sessions.value(m);
            const QString label = s ? MonitorSnapshot::label(*s) : m.left(8);
            r.members.append({m, label});
        }
        int row = -1;
        for (int i = 0; i < m_rows.size(); ++i) {
            if (m_rows.at(i).connection == connection && m_rows.at(i).name == g.name) {
                row = i;
                break;
            }
        }
        if (row < 0) {
            beginInsertRows({}, int(m_rows.size()), int(m_rows.size()));
            m_rows.append(std::move(r));
            endInsertRows();
            continue;
        }
        Row &old = m_rows[row];
        r.movedAt = old.movedAt;
        for (auto it = r.owners.cbegin(); it != r.owners.cend(); ++it) {
            const auto before = old.owners.constFind(it.key());
            if (before != old.owners.cend() && *before != it.value()) {
                r.movedAt.insert(it.key(), now);
                anyMoved = true;
            } else if (before == old.owners.cend() && !old.owners.isEmpty()) {
                r.movedAt.insert(it.key(), now);
                anyMoved = true;
            }
        }
        bool sameMembers = old.members.size() == r.members.size();
        for (int i = 0; sameMembers && i < r.members.size(); ++i)
            sameMembers = old.members.at(i).session == r.members.at(i).session && old.members.at(i).label == r.members.at(i).label;
        const bool same = sameMembers && old.owners == r.owners && old.partitions == r.partitions && old.partial == r.partial;
        old = std::move(r);
        if (!same)
            Q_EMIT dataChanged(index(row), index(row));
    }
    for (int i = int(m_rows.size()) - 1; i >= 0; --i) {
        if (m_rows.at(i).connection == connection && !seen.contains(m_rows.at(i).name)) {
            beginRemoveRows({}, i, i);
            m_rows.removeAt(i);
            endRemoveRows();
        }
    }
    if (anyMoved)
        m_fade.start(HighlightMs + 50);
}

void GroupModel::fade()
{
    const qint64 now = m_clock.elapsed();
    qint64 next = -1; // ms until the earliest remaining highlight ends
    for (int i = 0; i < m_rows.size(); ++i) {
        auto &moved = m_rows[i].movedAt;
        bool changed = false;
        for (auto it = moved.begin(); it != moved.end();) {
            const qint64 left = HighlightMs - (now - *it);
            if (left <= 0) {
                it = moved.erase(it);
                changed = true;
            } else {
                next = next < 0 ? left : std::min(next, left);
                ++it;
            }
        }
        if (changed)
            Q_EMIT dataChanged(index(i), index(i), {PartitionsRole});
    }
    if (next >= 0)
        m_fade.start(int(next) + 1);
}

void GroupModel::removeConnection(const QString &connection)
{
    apply(connection, {});
}

void GroupModel::retranslate()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0), index(int(m_rows.size()) - 1));
}

#include "moc_groupmodel.cpp"
