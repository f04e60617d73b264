// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "monitordata.h"

#include <QtCore/QAbstractListModel>
#include <QtCore/QElapsedTimer>
#include <QtCore/QHash>
#include <QtCore/QTimer>

/*
 * The partition groups of every connection, one row each, for the partition map: members
 * (with host and pid from their sessions) and each partition's owner, a colour index per
 * member, and the partitions whose owner changed in the last highlightMs() flagged "moved".
 * Updated by rows, never reset.
 */
class GroupModel : public QAbstractListModel
{
    Q_OBJECT
public:
    enum Role { ConnectionRole = Qt::UserRole + 1, NameRole, MembersRole, PartitionCountRole, PartitionsRole,
                UnownedRole, PartialRole };
    static constexpr int HighlightMs = 2500;

    explicit GroupModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    void apply(const QString &connection, const MonitorSnapshot &snapshot);
    void removeConnection(const QString &connection);
    void retranslate();

private:
    struct Member { QString session; QString label; };
    struct Row
    {
        QString connection;
        QString name;
        QList<Member> members;
        int partitions = 0;
        QMap<int, QString> owners;
        QHash<int, qint64> movedAt;
        bool partial = false;
    };
    void fade();

    QList<Row> m_rows;
    QElapsedTimer m_clock;
    QTimer m_fade;
};
