// SPDX-License-Identifier: Apache-2.0
#include "chartmodel.h"

#include <algorithm>

ChartModel::ChartModel(QObject *parent) : QAbstractTableModel(parent)
{
    m_rows.append({QDateTime::currentMSecsSinceEpoch(), 0, 0, 0});
    m_timer.setInterval(BucketMs);
    connect(&m_timer, &QTimer::timeout, this, &ChartModel::advance);
    m_timer.start();
}

int ChartModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ChartModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ChartModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)
        || (role != Qt::DisplayRole && role != Qt::EditRole))
        return {};
    const Bucket &b = m_rows.at(index.row());
    switch (index.column()) {
    case TimeColumn: return double(b.time);
    case ChangesColumn: return double(b.changes);
    case LatencyColumn: return latencyAt(index.row());
    default: return {};
    }
}

double ChartModel::latencyAt(int row) const
{
    // A bucket without a call carries the last mean: no measurement is not a latency of 0.
    for (int r = row; r >= 0; --r) {
        const Bucket &b = m_rows.at(r);
        if (b.latencyCount)
            return b.latencySum / b.latencyCount;
    }
    return 0.0;
}

void ChartModel::touchLast()
{
    const int row = int(m_rows.size()) - 1;
    Q_EMIT dataChanged(index(row, ChangesColumn), index(row, LatencyColumn));
    Q_EMIT rangeChanged();
}

void ChartModel::addChanges(int count)
{
    m_rows.last().changes += count;
    touchLast();
}

void ChartModel::addLatency(double ms)
{
    m_rows.last().latencySum += ms;
    ++m_rows.last().latencyCount;
    touchLast();
}

void ChartModel::advance()
{
    if (m_rows.size() >= MaxRows) {
        beginRemoveRows({}, 0, 0);
        m_rows.removeFirst();
        endRemoveRows();
    }
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append({QDateTime::currentMSecsSinceEpoch(), 0, 0, 0});
    endInsertRows();
    Q_EMIT rangeChanged();
}

QDateTime ChartModel::first() const
{
    return QDateTime::fromMSecsSinceEpoch(m_rows.first().time);
}

QDateTime ChartModel::last() const
{
    // At least a minute on the axis, so a fresh chart is not one squeezed point.
    return QDateTime::fromMSecsSinceEpoch(std::max(m_rows.last().time + BucketMs, m_rows.first().time + 60'000));
}

double ChartModel::maxChanges() const
{
    int m = 0;
    for (const auto &b : m_rows)
        m = std::max(m, b.changes);
    return std::max(4, m + 1);
}

double ChartModel::maxLatency() const
{
    double m = 0;
    for (int r = 0; r < m_rows.size(); ++r)
        m = std::max(m, latencyAt(r));
    return std::max(10.0, m * 1.2);
}

#include "moc_chartmodel.cpp"
