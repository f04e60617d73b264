// SPDX-License-Identifier: Apache-2.0
#include "connectionmodel.h"

#include "monitorformat.h"

ConnectionModel::ConnectionModel(QObject *parent) : QAbstractListModel(parent) {}

ConnectionModel::~ConnectionModel() = default;

int ConnectionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

QHash<int, QByteArray> ConnectionModel::roleNames() const
{
    return {{UrlRole, "url"},
            {KindRole, "kind"},
            {KindTextRole, "kindText"},
            {StateRole, "state"},
            {StateTextRole, "stateText"},
            {ProblemRole, "problem"},
            {HealthyRole, "healthy"},
            {HealthTextRole, "healthText"},
            {SessionsRole, "sessions"},
            {LeasesRole, "leases"},
            {HeldRole, "held"},
            {GroupsRole, "groups"},
            {LeaderlessRole, "leaderless"},
            {ExpiringRole, "expiring"},
            {LastSuccessRole, "lastSuccess"},
            {RefreshRole, "refresh"},
            {NeedsPasswordRole, "needsPassword"},
            {FailuresRole, "failures"}};
}

QVariant ConnectionModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    const MonitorConnection *c = r.connection.get();
    const bool backend = c->kind() == MonitorConnection::Kind::Backend;
    switch (role) {
    case Qt::DisplayRole:
    case UrlRole:
        return c->displayUrl();
    case KindRole:
        return backend ? QStringLiteral("backend") : QStringLiteral("endpoint");
    case KindTextRole:
        return backend ? tr("Backend") : tr("Service endpoint");
    case StateRole:
        return int(c->state());
    case StateTextRole:
        switch (c->state()) {
        case MonitorConnection::State::Connecting: return tr("Connecting…");
        case MonitorConnection::State::Up: return tr("Connected");
        case MonitorConnection::State::Failing:
            return tr("Failing (%n attempt(s)), retrying", nullptr, c->failures());
        case MonitorConnection::State::NeedsPassword: return tr("Password needed");
        }
        return {};
    case ProblemRole:
        return c->problem();
    case HealthyRole:
        return c->healthy();
    case HealthTextRole:
        if (c->state() != MonitorConnection::State::Up)
            return tr("Unknown");
        if (!c->healthy())
            return c->healthReason().isEmpty() ? tr("Unhealthy") : tr("Unhealthy: %1").arg(c->healthReason());
        return tr("Healthy");
    case SessionsRole:
        return int(c->snapshot().sessions.size());
    case LeasesRole:
        return int(c->snapshot().leases.size());
    case HeldRole:
        return r.held;
    case GroupsRole:
        return int(c->snapshot().groups.size());
    case LeaderlessRole:
        return r.leaderless;
    case ExpiringRole:
        return r.expiring;
    case LastSuccessRole:
        return MonitorFormat::time(c->lastSuccess());
    case RefreshRole:
        if (!backend)
            return tr("Live events; snapshot every %1").arg(MonitorFormat::duration(c->pollInterval()));
        return c->hasHints() ? tr("Inspected every %1, sooner on hints").arg(MonitorFormat::duration(c->pollInterval()))
                             : tr("Inspected every %1").arg(MonitorFormat::duration(c->pollInterval()));
    case NeedsPasswordRole:
        return c->state() == MonitorConnection::State::NeedsPassword;
    case FailuresRole:
        return c->failures();
    default:
        return {};
    }
}

void ConnectionModel::add(std::unique_ptr<MonitorConnection> connection)
{
    MonitorConnection *c = connection.get();
    c->setParent(nullptr);
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.push_back(Row{std::move(connection), {}, {}, {}, 0});
    endInsertRows();
    connect(c, &MonitorConnection::changed, this, [this, c] { update(c, false); });
    connect(c, &MonitorConnection::snapshotUpdated, this, [this, c] { update(c, true); });
    Q_EMIT countChanged();
    c->start();
}

void ConnectionModel::remove(int row)
{
    if (row < 0 || row >= count())
        return;
    beginRemoveRows({}, row, row);
    auto taken = std::move(m_rows[size_t(row)].connection);
    m_rows.erase(m_rows.begin() + row);
    endRemoveRows();
    Q_EMIT countChanged();
    taken.reset();
}

QStringList ConnectionModel::urls() const
{
    QStringList out;
    for (const auto &r : m_rows)
        out << r.connection->displayUrl();
    return out;
}

int ConnectionModel::indexOf(const MonitorConnection *connection) const
{
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].connection.get() == connection)
            return int(i);
    }
    return -1;
}

void ConnectionModel::update(MonitorConnection *connection, bool snapshot)
{
    const int row = indexOf(connection);
    if (row < 0)
        return;
    Row &r = m_rows[size_t(row)];
    if (snapshot) {
        const MonitorSnapshot &s = connection->snapshot();
        r.leaderless.clear();
        r.expiring.clear();
        r.held = 0;
        const bool backend = connection->kind() == MonitorConnection::Kind::Backend;
        for (const auto &l : s.leases) {
            const bool held = !l.holder.isEmpty() && l.remainingMs > 0;
            r.held += held ? 1 : 0;
            // An endpoint knows only its own client: another may lead what it does not.
            if (!held && backend)
                r.leaderless.append(l.name);
        }
        for (const auto &g : s.groups) {
            const int unowned = g.partitions - int(g.owners.size());
            if (unowned > 0 && backend)
                r.leaderless.append(tr("%1 (%n partition(s) without owner)", nullptr, unowned).arg(g.name));
        }
        QHash<QString, qint64> seen;
        for (const auto &session : s.sessions) {
            const qint64 most = std::max(r.maxRemaining.value(session.id), session.remainingMs);
            seen.insert(session.id, most);
            if (session.remainingMs < most * ExpiringShare) {
                r.expiring.append(tr("%1 (%2 left)").arg(MonitorSnapshot::label(session), MonitorFormat::duration(session.remainingMs)));
            }
        }
        r.maxRemaining = std::move(seen);
    }
    Q_EMIT dataChanged(index(row), index(row));
}

void ConnectionModel::retranslate()
{
    for (size_t i = 0; i < m_rows.size(); ++i)
        update(m_rows[i].connection.get(), true);
}

#include "moc_connectionmodel.cpp"
