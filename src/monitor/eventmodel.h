// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "monitordata.h"

#include <QtCore/QAbstractListModel>
#include <QtCore/QSortFilterProxyModel>
#include <QtCore/QTimer>

/*
 * The event timeline: the last capacity() events of every connection, oldest first.
 * Events are batched: add() queues, and every 100 ms one insert (and, past the capacity,
 * one remove at the front) brings the queue in. Paused, the queue keeps filling (up to
 * the capacity) and the rows stay still until resumed.
 */
class EventModel : public QAbstractListModel
{
    Q_OBJECT
    Q_PROPERTY(bool paused READ paused WRITE setPaused NOTIFY pausedChanged)
    Q_PROPERTY(int queued READ queued NOTIFY queuedChanged)
    Q_PROPERTY(int count READ count NOTIFY countChanged)
public:
    enum Role { TimeRole = Qt::UserRole + 1, ConnectionRole, TypeRole, TypeTextRole, NameRole, SessionRole,
                TokenRole, SummaryRole, FieldsRole };

    explicit EventModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    void add(const MonitorEvent &event);
    //! Brings the queued events in now (the timer does it every 100 ms).
    void flush();
    bool paused() const { return m_paused; }
    void setPaused(bool paused);
    int queued() const { return int(m_queue.size()); }
    int count() const { return int(m_rows.size()); }
    int capacity() const { return m_capacity; }
    void setCapacity(int capacity) { m_capacity = capacity; }
    const MonitorEvent &event(int row) const { return m_rows.at(row); }
    void retranslate();
    //! The distinct canonical types seen so far, for the filter.
    QStringList types() const { return m_types; }

Q_SIGNALS:
    void pausedChanged();
    void queuedChanged();
    void countChanged();
    void typesChanged();

private:
    QList<MonitorEvent> m_rows;
    QList<MonitorEvent> m_queue;
    QStringList m_types;
    QTimer m_flush;
    int m_capacity = 5000;
    bool m_paused = false;
};

/*! The timeline filtered by type, by a text in the name and by connection. */
class EventFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
    Q_PROPERTY(QString type READ type WRITE setType NOTIFY changed)
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY changed)
    Q_PROPERTY(QString connection READ connection WRITE setConnection NOTIFY changed)
public:
    using QSortFilterProxyModel::QSortFilterProxyModel;
    QString type() const { return m_type; }
    void setType(const QString &type) { setField(m_type, type); }
    QString name() const { return m_name; }
    void setName(const QString &name) { setField(m_name, name); }
    QString connection() const { return m_connection; }
    void setConnection(const QString &connection) { setField(m_connection, connection); }
    //! The fields of the event in proxy row \a row, as [{key, value}] for the details pane.
    Q_INVOKABLE QVariantList fields(int row) const;

Q_SIGNALS:
    void changed();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void setField(QString &field, const QString &value);
    QString m_type;
    QString m_name;
    QString m_connection;
};
