// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbasessionid.h"

#include <QtCore/QByteArrayView>
#include <QtCore/QList>
#include <QtCore/QSet>

class QSIMBACORE_EXPORT QSimbaPartitionAssignment
{
public:
    static quint64 fnv1a64(QByteArrayView bytes);
    static quint64 splitmix64(quint64 x);
    static quint64 weight(int partition, const QSimbaSessionId &member);
    //! A null id when \a members is empty.
    static QSimbaSessionId ownerOf(int partition, const QList<QSimbaSessionId> &members);
    //! Every p in [0, partitions) owned by \a member.
    static QSet<int> partitionsOf(const QSimbaSessionId &member, int partitions,
                                  const QList<QSimbaSessionId> &members);
};
