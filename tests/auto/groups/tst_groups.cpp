// SPDX-License-Identifier: Apache-2.0
// Partition groups (seeds 001): every partition on exactly one node at a time, assigned by
// rendezvous hashing over the live members; joining and leaving move only what it says.
#include "qsimba.h"
#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"
#include "qsimbapartitionassignment.h"

#include <QtCore/QMutex>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

class tst_Groups : public QObject
{
    Q_OBJECT

    static constexpr int Partitions = 8;
    QString store;
    QSimbaConfig config = QSimbaConfig::builder().leaseDuration(300ms).build();

    // Where each partition's work runs now (client index), and any overlap seen.
    QMutex mutex;
    QHash<int, int> running;
    QHash<int, qint64> lastToken;
    bool overlap = false;
    bool tokenWentBack = false;

    struct Node
    {
        std::unique_ptr<QSimba> simba;
        std::unique_ptr<QSimbaGroupTask> task;
    };

    Node node(int index)
    {
        Node n;
        n.simba = QSimba::builder().backend(std::make_unique<QSimbaMemoryLeaseBackend>(store)).config(config).build();
        n.task = n.simba->group(QStringLiteral("billing"), Partitions)->runWhileLeader([this, index](const QSimbaTerm &term, int p) {
            {
                QMutexLocker lock(&mutex);
                if (running.contains(p))
                    overlap = true;
                if (term.token() <= lastToken.value(p))
                    tokenWentBack = true;
                lastToken[p] = term.token();
                running[p] = index;
            }
            term.revoked().waitForFinished();
            QMutexLocker lock(&mutex);
            running.remove(p);
        });
        return n;
    }

    QHash<int, int> placement()
    {
        QMutexLocker lock(&mutex);
        // A deep copy: a shared one dropped after the lock would let a work thread change
        // the table in place (QHash checks its reference count with a relaxed load) with
        // nothing ordering that after this thread's reads (seen by ThreadSanitizer).
        QHash<int, int> copy;
        for (auto it = running.cbegin(); it != running.cend(); ++it)
            copy.insert(it.key(), it.value());
        return copy;
    }

    //! The placement rendezvous hashing gives for the nodes' sessions.
    static QHash<int, int> expected(const QList<Node *> &nodes, const QList<int> &indexes)
    {
        QList<QSimbaSessionId> members;
        for (auto *n : nodes)
            members.append(n->simba->snapshot().session.id);
        QHash<int, int> out;
        for (int p = 0; p < Partitions; ++p)
            out[p] = indexes[members.indexOf(QSimbaPartitionAssignment::ownerOf(p, members))];
        return out;
    }

private Q_SLOTS:
    void init()
    {
        store = QSimbaSessionId::generate().toString();
        running.clear();
        lastToken.clear();
        overlap = tokenWentBack = false;
    }

    void namesAreValidated()
    {
        auto simba = QSimba::builder().backend(std::make_unique<QSimbaMemoryLeaseBackend>(store)).config(config).build();
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, simba->group(QStringLiteral("bad group"), 4));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, simba->group(QStringLiteral("g"), 0));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, simba->group(QString(126, QLatin1Char('g')), 100));
        auto *g = simba->group(QStringLiteral("g"), 4);
        QCOMPARE(simba->group(QStringLiteral("g"), 4), g);
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, simba->group(QStringLiteral("g"), 5));
        auto task = g->runWhileLeader([](const QSimbaTerm &, int) {});
        QVERIFY_THROWS_EXCEPTION(QSimbaIllegalStateError, (void)g->runWhileLeader([](const QSimbaTerm &, int) {}));
    }

    void nodesJoinAndLeaveMovingOnlyWhatHashingSays()
    {
        Node a = node(0), b = node(1), c = node(2);
        QList<Node *> nodes{&a, &b, &c};
        QList<int> indexes{0, 1, 2};
        QTRY_COMPARE_WITH_TIMEOUT(placement(), expected(nodes, indexes), 10000);
        // partitions() tells each node's share.
        for (int i = 0; i < 3; ++i) {
            QSet<int> mine;
            const auto want = expected(nodes, indexes);
            for (auto it = want.cbegin(); it != want.cend(); ++it)
                if (it.value() == i)
                    mine.insert(it.key());
            QTRY_COMPARE(nodes[i]->task->partitions(), mine);
        }
        // A fourth node joins: it takes only the partitions hashing gives it.
        const auto before = placement();
        Node d = node(3);
        QTRY_VERIFY(!d.simba->snapshot().session.id.isNull());
        nodes.append(&d);
        indexes.append(3);
        const auto withD = expected(nodes, indexes);
        for (int p = 0; p < Partitions; ++p)
            if (withD[p] != 3)
                QCOMPARE(withD[p], before[p]);
        QTRY_COMPARE_WITH_TIMEOUT(placement(), withD, 10000);
        // A node stops: its partitions move, the others stay.
        b.task->close();
        b.simba->close();
        nodes.removeAt(1);
        indexes.removeAt(1);
        const auto withoutB = expected(nodes, indexes);
        for (int p = 0; p < Partitions; ++p)
            if (withD[p] != 1)
                QCOMPARE(withoutB[p], withD[p]);
        QTRY_COMPARE_WITH_TIMEOUT(placement(), withoutB, 10000);
        QMutexLocker lock(&mutex);
        QVERIFY2(!overlap, "a partition ran on two nodes at once");
        QVERIFY(!tokenWentBack);
    }
};

QSIMBA_TEST_MAIN(tst_Groups)
#include "tst_groups.moc"
