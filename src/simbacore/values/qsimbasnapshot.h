// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaelection.h"
#include "qsimbasessionid.h"

#include <QtCore/QJsonObject>
#include <QtCore/QList>
#include <QtCore/QMap>

#include <chrono>

class QSIMBACORE_EXPORT QSimbaSessionSnapshot
{
    Q_GADGET
public:
    enum class Status { Opening, Live, Suspended, Closed };
    Q_ENUM(Status)

    QSimbaSessionId id;                       //!< null while the first session opens
    Status status = Status::Opening;
    std::chrono::nanoseconds validFor{0};     //!< time left before the local deadline
    std::chrono::nanoseconds notLiveFor{0};   //!< time since the session was last live (0 when live)
    QMap<QString, QString> metadata;          //!< QSimba::Builder::metadata(), as the backend keeps it

    QJsonObject toJson() const;
    QJsonObject metadataJson() const;         //!< the metadata as a JSON object
    static QString statusName(Status status); //!< "OPENING", …
    friend bool operator==(const QSimbaSessionSnapshot &, const QSimbaSessionSnapshot &) = default;
};

class QSIMBACORE_EXPORT QSimbaElectionSnapshot
{
    Q_GADGET
public:
    QSimbaLeaseName name;
    QSimbaElection::Status status = QSimbaElection::Status::Candidate;
    qint64 token = 0;                         //!< the current term's, 0 without one
    std::chrono::nanoseconds remaining{0};    //!< the current term's time left
    QSimbaElection::Kind kind = QSimbaElection::Kind::Election;

    QJsonObject toJson() const;
    friend bool operator==(const QSimbaElectionSnapshot &, const QSimbaElectionSnapshot &) = default;
};

class QSIMBACORE_EXPORT QSimbaGroupSnapshot
{
    Q_GADGET
public:
    QString name;
    int partitions = 0;
    QList<QSimbaSessionId> members;           //!< as last read from the backend, sorted
    QList<int> owned;                         //!< assigned to this client, ascending

    //! {"name":…,"partitions":…,"members":[…],"owned":[…]}
    QJsonObject toJson() const;
    friend bool operator==(const QSimbaGroupSnapshot &, const QSimbaGroupSnapshot &) = default;
};

class QSIMBACORE_EXPORT QSimbaSnapshot
{
    Q_GADGET
public:
    QSimbaSessionSnapshot session;
    QList<QSimbaElectionSnapshot> elections;  //!< sorted by name
    std::chrono::nanoseconds leaseDuration{0};
    bool healthy = false;                     //!< the session is live
    QList<QSimbaGroupSnapshot> groups;        //!< sorted by name

    //! {"session":{…},"elections":[…],"leaseDurationMs":…,"healthy":…,"groups":[…]}
    QJsonObject toJson() const;
    friend bool operator==(const QSimbaSnapshot &, const QSimbaSnapshot &) = default;
};

Q_DECLARE_METATYPE(QSimbaSnapshot)
