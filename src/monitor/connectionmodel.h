// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "monitorconnection.h"

#include <QtCore/QAbstractListModel>

#include <memory>
#include <vector>

/*
 * The connections, one row each, with what the overview shows: state and the problem in
 * words, health, counts, names without a leader and sessions close to expiry. Owns the
 * connections; a connection's change updates its row only.
 */
class ConnectionModel : public QAbstractListModel
{
    Q_OBJECT
    Q_PROPERTY(int count READ count NOTIFY countChanged)
    Q_PROPERTY(QStringList urls READ urls NOTIFY countChanged)
public:
    enum Role { UrlRole = Qt::UserRole + 1, KindRole, KindTextRole, StateRole, StateTextRole, ProblemRole,
                HealthyRole, HealthTextRole, SessionsRole, LeasesRole, HeldRole, GroupsRole, LeaderlessRole,
                ExpiringRole, LastSuccessRole, RefreshRole, NeedsPasswordRole, FailuresRole };

    explicit ConnectionModel(QObject *parent = nullptr);
    ~ConnectionModel() override;

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QHash<int, QByteArray> roleNames() const override;

    //! Takes \a connection and starts it.
    void add(std::unique_ptr<MonitorConnection> connection);
    void remove(int row);
    MonitorConnection *at(int row) const { return m_rows.at(row).connection.get(); }
    int count() const { return int(m_rows.size()); }
    QStringList urls() const;
    int indexOf(const MonitorConnection *connection) const;
    void retranslate();
    //! A session whose remaining lease fell below this share of the most it was seen with
    //! is "close to expiry" (a healthy one is renewed at about two thirds).
    static constexpr double ExpiringShare = 0.4;

Q_SIGNALS:
    void countChanged();

private:
    struct Row
    {
        std::unique_ptr<MonitorConnection> connection;
        QHash<QString, qint64> maxRemaining; //!< per session, the most remaining lease seen
        QStringList leaderless;
        QStringList expiring;
        int held = 0;
    };
    void update(MonitorConnection *connection, bool snapshot);

    std::vector<Row> m_rows;
};
