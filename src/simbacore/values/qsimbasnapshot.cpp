// SPDX-License-Identifier: Apache-2.0
#include "qsimbasnapshot.h"

#include "qsimbaseedname_p.h"

#include <QtCore/QJsonArray>

/*!
    \class QSimbaGroupSnapshot
    \brief A partition group of the client: its members and the partitions assigned to this client.
*/

/*!
    \class QSimbaSessionSnapshot
    \brief The session part of a QSimbaSnapshot: its id, status and time left. A plain value;
    reentrant.
*/

/*!
    \class QSimbaElectionSnapshot
    \brief One started election, lock or partition of a QSimbaSnapshot. A plain value; reentrant.
*/

/*!
    \class QSimbaSnapshot
    \brief A client's session and elections at one moment (QSimba::snapshot()).

    Read without calling the backend. A plain value; reentrant.
*/

static qint64 toMs(std::chrono::nanoseconds d)
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

QString QSimbaSessionSnapshot::statusName(Status status)
{
    return qsimbaSeedName(status);
}

QJsonObject QSimbaSessionSnapshot::toJson() const
{
    return {{QStringLiteral("id"), id.toString()},
            {QStringLiteral("status"), statusName(status)},
            {QStringLiteral("validForMs"), toMs(validFor)},
            {QStringLiteral("notLiveForMs"), toMs(notLiveFor)},
            {QStringLiteral("metadata"), metadataJson()}};
}

QJsonObject QSimbaSessionSnapshot::metadataJson() const
{
    QJsonObject o;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonObject QSimbaElectionSnapshot::toJson() const
{
    return {{QStringLiteral("name"), name.toString()},
            {QStringLiteral("status"), QSimbaElection::statusName(status)},
            {QStringLiteral("token"), token},
            {QStringLiteral("remainingMs"), toMs(remaining)},
            {QStringLiteral("kind"), QSimbaElection::kindName(kind)}};
}

QJsonObject QSimbaGroupSnapshot::toJson() const
{
    QJsonArray memberList;
    for (const auto &m : members)
        memberList.append(m.toString());
    QJsonArray ownedList;
    for (int p : owned)
        ownedList.append(p);
    return {{QStringLiteral("name"), name},
            {QStringLiteral("partitions"), partitions},
            {QStringLiteral("members"), memberList},
            {QStringLiteral("owned"), ownedList}};
}

QJsonObject QSimbaSnapshot::toJson() const
{
    QJsonArray list;
    for (const auto &e : elections)
        list.append(e.toJson());
    QJsonArray groupList;
    for (const auto &g : groups)
        groupList.append(g.toJson());
    return {{QStringLiteral("session"), session.toJson()},
            {QStringLiteral("elections"), list},
            {QStringLiteral("leaseDurationMs"), toMs(leaseDuration)},
            {QStringLiteral("healthy"), healthy},
            {QStringLiteral("groups"), groupList}};
}

#include "moc_qsimbasnapshot.cpp"
