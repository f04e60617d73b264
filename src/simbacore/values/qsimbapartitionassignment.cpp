// SPDX-License-Identifier: Apache-2.0
#include "qsimbapartitionassignment.h"

/*!
    \class QSimbaPartitionAssignment
    \brief Which member owns which partition of a group (DESIGN.md §5).

    Rendezvous hashing of partitions over members, identical across versions and languages:
      weight(p, m) = splitmix64(fnv1a64(utf8(m)) XOR p)
      ownerOf(p)   = the member of highest weight, ties to the bytewise smaller session id.
    The README lists test vectors. Pure functions; reentrant.
*/

quint64 QSimbaPartitionAssignment::fnv1a64(QByteArrayView bytes)
{
    quint64 h = 0xcbf29ce484222325ULL;
    for (char c : bytes) {
        h ^= quint64(quint8(c));
        h *= 0x100000001b3ULL;
    }
    return h;
}

quint64 QSimbaPartitionAssignment::splitmix64(quint64 x)
{
    x += 0x9e3779b97f4a7c15ULL;
    quint64 z = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

quint64 QSimbaPartitionAssignment::weight(int partition, const QSimbaSessionId &member)
{
    return splitmix64(fnv1a64(member.toString().toUtf8()) ^ quint64(qint64(partition)));
}

QSimbaSessionId QSimbaPartitionAssignment::ownerOf(int partition, const QList<QSimbaSessionId> &members)
{
    QSimbaSessionId best;
    quint64 bestWeight = 0;
    for (const auto &m : members) {
        const quint64 w = weight(partition, m);
        if (best.isNull() || w > bestWeight
            || (w == bestWeight && m.toString().toUtf8() < best.toString().toUtf8())) {
            best = m;
            bestWeight = w;
        }
    }
    return best;
}

QSet<int> QSimbaPartitionAssignment::partitionsOf(const QSimbaSessionId &member, int partitions,
                                                  const QList<QSimbaSessionId> &members)
{
    QSet<int> result;
    for (int p = 0; p < partitions; ++p)
        if (ownerOf(p, members) == member)
            result.insert(p);
    return result;
}
