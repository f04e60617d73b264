// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "monitordata.h"

#include <QtCore/QAbstractTableModel>
#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QSortFilterProxyModel>
#include <QtCore/QTimer>

/*
 * Every lease of every connection, one row each. A refresh of a connection updates its rows
 * in place (dataChanged over runs of changed rows), appends the new ones and removes the
 * gone ones: never a reset. The remaining lease counts down live: one dataChanged over the
 * Remaining column per tick (DisplayRole only, so a proxy sorted by SortRole keeps its order).
 */
class LeaseModel : public QAbstractTableModel
{
    Q_OBJECT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    enum Column { ConnectionColumn, NameColumn, HolderColumn, PidColumn, TokenColumn, RemainingColumn,
                  SessionColumn, ColumnCount };
    Q_ENUM(Column)
    enum Role { SortRole = Qt::UserRole + 1, RemainingMsRole, HeldRole, ExpiringRole };

    struct Row
    {
        QString connection;
        QString name;
        QString holder;   //!< session id
        QString host;
        QString pid;
        QString command;
        qint64 token = 0;
        qint64 deadline = 0; //!< monotonic ms at which the remaining lease reaches zero
        bool held = false;
    };

    explicit LeaseModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    //! Replaces the rows of \a connection by the leases of \a snapshot taken at \a takenAt
    //! (monotonic ms of clock()).
    void apply(const QString &connection, const MonitorSnapshot &snapshot, qint64 takenAt);
    void removeConnection(const QString &connection);
    //! The countdown tick: one dataChanged over the Remaining column.
    void tick();
    //! After a language switch: every text may have changed.
    void retranslate();
    //! The monotonic clock the deadlines are on.
    qint64 now() const { return m_clock.elapsed(); }
    const Row &row(int i) const { return m_rows.at(i); }
    int count() const { return int(m_rows.size()); }

Q_SIGNALS:
    void countChanged();

private:
    static QString key(const QString &connection, const QString &name)
    {
        return connection + QChar(0x1f) + name;
    }
    void reindex();

    QList<Row> m_rows;
    QHash<QString, int> m_index;
    QElapsedTimer m_clock;
    QTimer m_ticker;
};

/*
 * The leases table as the view shows it: sorted by any column (by value, not by text) and
 * filtered by a text matched against name, holder, host, session and connection.
 */
class LeaseFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_PROPERTY(QString filterText READ filterText WRITE setFilterText NOTIFY filterTextChanged)
    Q_PROPERTY(int sortColumn READ sortColumn NOTIFY sortChanged)
    Q_PROPERTY(bool descending READ descending NOTIFY sortChanged)
public:
    explicit LeaseFilterModel(QObject *parent = nullptr);
    QString filterText() const { return m_filter; }
    void setFilterText(const QString &text);
    bool descending() const { return sortOrder() == Qt::DescendingOrder; }
    //! Sorts by \a column; the same column again reverses the order.
    Q_INVOKABLE void sortBy(int column);

Q_SIGNALS:
    void filterTextChanged();
    void sortChanged();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_filter;
};
