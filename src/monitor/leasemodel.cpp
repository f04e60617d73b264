// SPDX-License-Identifier: Apache-2.0
#include "leasemodel.h"

#include "monitorformat.h"

#include <QtCore/QSet>

LeaseModel::LeaseModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_clock.start();
    m_ticker.setInterval(500);
    connect(&m_ticker, &QTimer::timeout, this, &LeaseModel::tick);
    m_ticker.start();
}

int LeaseModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int LeaseModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QHash<int, QByteArray> LeaseModel::roleNames() const
{
    auto names = QAbstractTableModel::roleNames();
    names.insert(RemainingMsRole, "remainingMs");
    names.insert(HeldRole, "held");
    names.insert(ExpiringRole, "expiring");
    return names;
}

QVariant LeaseModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    const qint64 remaining = r.held ? r.deadline - m_clock.elapsed() : 0;
    switch (role) {
    case RemainingMsRole:
        return remaining;
    case HeldRole:
        return r.held;
    case ExpiringRole:
        return r.held && remaining < 2000;
    case SortRole:
        switch (index.column()) {
        case TokenColumn: return r.token;
        case RemainingColumn: return r.held ? r.deadline : -1;
        case PidColumn: return r.pid.toLongLong();
        default: break;
        }
        [[fallthrough]];
    case Qt::DisplayRole:
        switch (index.column()) {
        case ConnectionColumn: return r.connection;
        case NameColumn: return r.name;
        case HolderColumn: return r.held ? (r.host.isEmpty() ? tr("unknown host") : r.host) : tr("nobody");
        case PidColumn: return r.held ? r.pid : QString();
        case TokenColumn: return r.token > 0 ? QString::number(r.token) : QString(); // an identifier: no digit grouping
        case RemainingColumn: return r.held ? MonitorFormat::duration(remaining) : QString();
        case SessionColumn: return r.holder;
        default: break;
        }
        break;
    case Qt::ToolTipRole:
        return r.command;
    default:
        break;
    }
    return {};
}

QVariant LeaseModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ConnectionColumn: return tr("Connection");
    case NameColumn: return tr("Lease");
    case HolderColumn: return tr("Holder host");
    case PidColumn: return tr("PID");
    case TokenColumn: return tr("Token");
    case RemainingColumn: return tr("Remaining");
    case SessionColumn: return tr("Session");
    default: return {};
    }
}

void LeaseModel::apply(const QString &connection, const MonitorSnapshot &snapshot, qint64 takenAt)
{
    // Sessions by id, for the holder's host and pid.
    QHash<QString, const MonitorSession *> sessions;
    sessions.reserve(snapshot.sessions.size());
    for (const auto &s : snapshot.sessions)
        sessions.insert(s.id, &s);

    QSet<int> seen;
    seen.reserve(snapshot.leases.size());
    QList<Row> added;
    int changedFirst = -1;
    int changedLast = -1;
    int renewedFirst = -1;
    int renewedLast = -1;
    auto flushChanged = [&] {
        if (changedFirst >= 0)
            Q_EMIT dataChanged(index(changedFirst, 0), index(changedLast, ColumnCount - 1));
        changedFirst = changedLast = -1;
    };
    // Rows of one connection are contiguous runs mostly in the same order as the backend
    // lists them: changed rows are reported as runs.
    for (const auto &lease : snapshot.leases) {
        Row r;
        r.connection = connection;
        r.name = lease.name;
        r.holder = lease.holder;
        r.token = lease.token;
        r.held = !lease.holder.isEmpty() && lease.remainingMs > 0;
        r.deadline = r.held ? takenAt + lease.remainingMs : 0;
        if (const auto *s = sessions.value(lease.holder)) {
            r.host = s->metadata.value(QStringLiteral("host"));
            if (r.host.isEmpty())
                r.host = MonitorSnapshot::label(*s);
            r.pid = s->metadata.value(QStringLiteral("pid"));
            r.command = s->metadata.value(QStringLiteral("command"));
        }
        const auto it = m_index.constFind(key(connection, lease.name));
        if (it == m_index.cend()) {
            added.append(std::move(r));
            continue;
        }
        const int i = *it;
        seen.insert(i);
        Row &old = m_rows[i];
        const bool sameTerm = old.holder == r.holder && old.token == r.token && old.held == r.held
                              && old.host == r.host && old.pid == r.pid;
        if (sameTerm) {
            // A renewal: only the countdown moves. A deadline that moved by less than the
            // poll jitter is not worth a repaint; the others are one range at the end.
            if (std::abs(old.deadline - r.deadline) >= 250) {
                old.deadline = r.deadline;
                renewedFirst = renewedFirst < 0 ? i : std::min(renewedFirst, i);
                renewedLast = std::max(renewedLast, i);
            }
            continue;
        }
        old = std::move(r);
        if (changedFirst >= 0 && i == changedLast + 1) {
            changedLast = i;
        } else {
            flushChanged();
            changedFirst = changedLast = i;
        }
    }
    flushChanged();
    if (renewedFirst >= 0)
        Q_EMIT dataChanged(index(renewedFirst, RemainingColumn), index(renewedLast, RemainingColumn),
                           {Qt::DisplayRole, SortRole, RemainingMsRole, ExpiringRole});

    // Remove the connection's rows that are gone, as runs from the end.
    int runEnd = -1;
    bool removed = false;
    for (int i = int(m_rows.size()) - 1; i >= -1; --i) {
        const bool gone = i >= 0 && m_rows.at(i).connection == connection && !seen.contains(i);
        if (gone) {
            if (runEnd < 0)
                runEnd = i;
            continue;
        }
        if (runEnd >= 0) {
            beginRemoveRows({}, i + 1, runEnd);
            m_rows.remove(i + 1, runEnd - i);
            endRemoveRows();
            removed = true;
            runEnd = -1;
        }
    }
    if (removed)
        reindex();
    const int before = int(m_rows.size());

    if (!added.isEmpty()) {
        const int first = int(m_rows.size());
        beginInsertRows({}, first, first + int(added.size()) - 1);
        for (auto &r : added) {
            m_index.insert(key(r.connection, r.name), int(m_rows.size()));
            m_rows.append(std::move(r));
        }
        endInsertRows();
    }
    if (removed || !added.isEmpty() || before != m_rows.size())
        Q_EMIT countChanged();
}

void LeaseModel::reindex()
{
    m_index.clear();
    m_index.reserve(m_rows.size());
    for (int i = 0; i < m_rows.size(); ++i)
        m_index.insert(key(m_rows.at(i).connection, m_rows.at(i).name), i);
}

void LeaseModel::removeConnection(const QString &connection)
{
    apply(connection, {}, 0);
}

void LeaseModel::tick()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, RemainingColumn), index(int(m_rows.size()) - 1, RemainingColumn),
                           {Qt::DisplayRole, RemainingMsRole, ExpiringRole});
}

void LeaseModel::retranslate()
{
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(int(m_rows.size()) - 1, ColumnCount - 1), {Qt::DisplayRole});
    Q_EMIT headerDataChanged(Qt::Horizontal, 0, ColumnCount - 1);
}

// ---------------------------------------------------------------------------------------

LeaseFilterModel::LeaseFilterModel(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(LeaseModel::SortRole);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setDynamicSortFilter(true);
    // By name: the same lease seen by a backend and by its holder's endpoint side by side.
    sort(LeaseModel::NameColumn);
}

void LeaseFilterModel::setFilterText(const QString &text)
{
    if (text == m_filter)
        return;
    m_filter = text;
    invalidateFilter();
    Q_EMIT filterTextChanged();
}

void LeaseFilterModel::sortBy(int column)
{
    const Qt::SortOrder order =
        column == sortColumn() && sortOrder() == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder;
    sort(column, order);
    Q_EMIT sortChanged();
}

bool LeaseFilterModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    if (m_filter.isEmpty())
        return true;
    const auto *model = static_cast<const LeaseModel *>(sourceModel());
    Q_UNUSED(sourceParent);
    const LeaseModel::Row &r = model->row(sourceRow);
    for (const QString *field : {&r.name, &r.holder, &r.host, &r.pid, &r.connection}) {
        if (field->contains(m_filter, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

#include "moc_leasemodel.cpp"
