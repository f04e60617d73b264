// SPDX-License-Identifier: Apache-2.0
// The published test vectors of PartitionAssignment (README "Partition assignment"), computed
// by an independent implementation, and the minimal-movement property of rendezvous hashing.
#include "qsimbapartitionassignment.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

class tst_PartitionAssignment : public QObject
{
    Q_OBJECT

    static QSimbaSessionId id(const char *s) { return QSimbaSessionId::of(QString::fromLatin1(s)); }

private Q_SLOTS:
    void primitives()
    {
        QCOMPARE(QSimbaPartitionAssignment::fnv1a64(""), 0xcbf29ce484222325ULL);
        QCOMPARE(QSimbaPartitionAssignment::fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
        QCOMPARE(QSimbaPartitionAssignment::splitmix64(0), 0xe220a8397b1dcdafULL);
        QCOMPARE(QSimbaPartitionAssignment::splitmix64(1), 0x910a2dec89025cc1ULL);
    }

    void weights_data()
    {
        QTest::addColumn<QString>("member");
        QTest::addColumn<int>("partition");
        QTest::addColumn<quint64>("weight");
        const struct { const char *m; int p; quint64 w; } rows[] = {
            {"node-a", 0, 0x40a36dc372dab80aULL}, {"node-a", 1, 0x3b97c654591974b7ULL},
            {"node-a", 2, 0x2d4f53426736d0ffULL}, {"node-a", 3, 0x36e1d6e84aea5f4dULL},
            {"node-b", 0, 0x071e8516d31106eeULL}, {"node-b", 1, 0xb2521cc99e670978ULL},
            {"node-b", 2, 0xa5e8a7284d8eed6eULL}, {"node-b", 3, 0x9ffaa2d65bb55889ULL},
            {"node-c", 0, 0xe00b067356f6fbe2ULL}, {"node-c", 1, 0xe0b947489b3870ebULL},
            {"node-c", 2, 0xa46b658d54bd99fdULL}, {"node-c", 3, 0x8a9a517a64a29bb6ULL},
        };
        for (const auto &r : rows)
            QTest::addRow("%s/%d", r.m, r.p) << QString::fromLatin1(r.m) << r.p << r.w;
    }

    void weights()
    {
        QFETCH(QString, member);
        QFETCH(int, partition);
        QFETCH(quint64, weight);
        QCOMPARE(QSimbaPartitionAssignment::weight(partition, QSimbaSessionId::of(member)), weight);
    }

    void owners()
    {
        const QList<QSimbaSessionId> three{id("node-a"), id("node-b"), id("node-c")};
        const char *expected3[] = {"node-c", "node-c", "node-b", "node-b", "node-c", "node-c", "node-c", "node-b"};
        const char *expected2[] = {"node-a", "node-b", "node-b", "node-b", "node-a", "node-b", "node-b", "node-b"};
        for (int p = 0; p < 8; ++p) {
            QCOMPARE(QSimbaPartitionAssignment::ownerOf(p, three), id(expected3[p]));
            QCOMPARE(QSimbaPartitionAssignment::ownerOf(p, three.mid(0, 2)), id(expected2[p]));
        }
        QCOMPARE(QSimbaPartitionAssignment::partitionsOf(id("node-b"), 8, three), (QSet<int>{2, 3, 7}));
        QCOMPARE(QSimbaPartitionAssignment::partitionsOf(id("node-a"), 8, three), QSet<int>{});
        QVERIFY(QSimbaPartitionAssignment::ownerOf(0, {}).isNull());
    }

    void orderOfMembersDoesNotMatter()
    {
        QList<QSimbaSessionId> members;
        for (int i = 0; i < 7; ++i)
            members.append(QSimbaSessionId::generate());
        QList<QSimbaSessionId> reversed(members.crbegin(), members.crend());
        for (int p = 0; p < 64; ++p)
            QCOMPARE(QSimbaPartitionAssignment::ownerOf(p, members), QSimbaPartitionAssignment::ownerOf(p, reversed));
    }

    void joiningOrLeavingMovesOnlyThatMembersPartitions()
    {
        const int partitions = 256;
        QList<QSimbaSessionId> members;
        for (int i = 0; i < 5; ++i)
            members.append(QSimbaSessionId::generate());
        const auto newcomer = QSimbaSessionId::generate();
        QList<QSimbaSessionId> grown = members;
        grown.append(newcomer);
        int moved = 0;
        for (int p = 0; p < partitions; ++p) {
            const auto before = QSimbaPartitionAssignment::ownerOf(p, members);
            const auto after = QSimbaPartitionAssignment::ownerOf(p, grown);
            if (before != after) {
                QCOMPARE(after, newcomer); // a join only takes partitions for itself
                ++moved;
            }
        }
        QCOMPARE(moved, QSimbaPartitionAssignment::partitionsOf(newcomer, partitions, grown).size());
        // Leaving: only the leaver's partitions move, and they spread over the others.
        const auto leaver = members.takeFirst();
        QList<QSimbaSessionId> shrunk = members;
        members.prepend(leaver);
        for (int p = 0; p < partitions; ++p) {
            const auto before = QSimbaPartitionAssignment::ownerOf(p, members);
            const auto after = QSimbaPartitionAssignment::ownerOf(p, shrunk);
            if (before != leaver)
                QCOMPARE(after, before);
            else
                QVERIFY(after != leaver);
        }
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_PartitionAssignment)
#include "tst_partitionassignment.moc"
