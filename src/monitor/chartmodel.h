// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <QtCore/QAbstractTableModel>
#include <QtCore/QDateTime>
#include <QtCore/QTimer>

/*
 * Leadership changes and backend call latency over time, for the chart: one row per
 * bucketMs() (5 s) of wall-clock time, the last maxRows() (30 minutes) of them. Columns:
 * time (ms since the epoch), terms started in the bucket (all connections), mean latency
 * of the backend calls seen in the bucket (ms; a bucket without calls repeats the last
 * mean). The current bucket updates in place.
 */
class ChartModel : public QAbstractTableModel
{
    Q_OBJECT
    Q_PROPERTY(QDateTime first READ first NOTIFY rangeChanged)
    Q_PROPERTY(QDateTime last READ last NOTIFY rangeChanged)
    Q_PROPERTY(double maxChanges READ maxChanges NOTIFY rangeChanged)
    Q_PROPERTY(double maxLatency READ maxLatency NOTIFY rangeChanged)
public:
    enum Column { TimeColumn, ChangesColumn, LatencyColumn, ColumnCount };
    static constexpr int BucketMs = 5000;
    static constexpr int MaxRows = 360;

    explicit ChartModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    void addChanges(int count);
    void addLatency(double ms);
    //! Closes the current bucket and opens the next (the timer does it every bucketMs()).
    void advance();

    QDateTime first() const;
    QDateTime last() const;
    double maxChanges() const;
    double maxLatency() const;

Q_SIGNALS:
    void rangeChanged();

private:
    struct Bucket { qint64 time; int changes; double latencySum; int latencyCount; };
    void touchLast();
    double latencyAt(int row) const;
    QList<Bucket> m_rows;
    QTimer m_timer;
};
