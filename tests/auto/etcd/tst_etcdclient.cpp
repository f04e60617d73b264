// SPDX-License-Identifier: Apache-2.0
// QSimba clients electing a leader through real etcd: a released lease reaches the waiting
// client through its watch hint, and in a 3-member cluster whose member the leader talks
// to is killed, no two terms are ever valid at once and tokens keep increasing.
#include "etcdserver.h"
#include "qsimba.h"
#include "qsimbaerror.h"
#include "qsimbaetcdleasebackend.h"
#include "termwatch.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QTimer>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

class tst_EtcdClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void handoverThroughTheHint();
    void memberLossKeepsOneValidTerm();

private:
    std::unique_ptr<QSimba> client(const QStringList &endpoints);
    //! a's and b's elections of "leader", watched: a leads, b is a candidate.
    std::pair<QSimbaElection *, QSimbaElection *> contend(QSimba &a, QSimba &b);

    // etcd's lease unit is a second; the test servers' minimum TTL is 1 s.
    QSimbaConfig m_config = QSimbaConfig::builder().leaseDuration(1s).build();
    TermWatch m_watch;
};

void tst_EtcdClient::init()
{
    m_watch.clear();
}

std::unique_ptr<QSimba> tst_EtcdClient::client(const QStringList &endpoints)
{
    QSimbaEtcdLeaseBackend::Options o;
    o.endpoints = endpoints;
    o.prefix = QStringLiteral("/client");
    o.connectTimeout = 150ms;
    o.requestTimeout = 300ms;
    return QSimba::builder().backend(std::make_unique<QSimbaEtcdLeaseBackend>(o)).config(m_config).build();
}

std::pair<QSimbaElection *, QSimbaElection *> tst_EtcdClient::contend(QSimba &a, QSimba &b)
{
    auto *ea = a.election(QStringLiteral("leader"));
    auto *eb = b.election(QStringLiteral("leader"));
    m_watch.watch(ea, QStringLiteral("a"));
    m_watch.watch(eb, QStringLiteral("b"));
    m_watch.startMonitor(); // checks every 2 ms that at most one term is valid
    ea->start();
    // The status (Leader) arrives before the term (elected): wait for both.
    if (!QTest::qWaitFor([&] { return ea->status() == QSimbaElection::Status::Leader && ea->currentTerm().isValid(); },
                         5000))
        QTest::qFail("a did not lead within 5 s", __FILE__, __LINE__);
    eb->start();
    if (!QTest::qWaitFor([&] { return eb->status() == QSimbaElection::Status::Candidate; }, 5000))
        QTest::qFail("b did not become a candidate within 5 s", __FILE__, __LINE__);
    return {ea, eb};
}

void tst_EtcdClient::handoverThroughTheHint()
{
    EtcdServer server;
    if (!server.start())
        QFAIL(qPrintable(server.errorString()));
    auto a = client({server.endpoint()}), b = client({server.endpoint()});
    auto [ea, eb] = contend(*a, *b);
    if (QTest::currentTestFailed())
        return;
    const qint64 ta = ea->currentTerm().token();

    QElapsedTimer timer;
    qint64 handover = -1;
    connect(eb, &QSimbaElection::elected, this, [&] {
        if (handover < 0)
            handover = timer.elapsed();
    });
    timer.start();
    auto stopped = ea->stop();
    QTRY_VERIFY_WITH_TIMEOUT(handover >= 0, 5000);
    QCOMPARE(eb->status(), QSimbaElection::Status::Leader);
    qInfo("stop() -> other client elected: %lld ms", handover);
    QTRY_VERIFY(stopped.isFinished());
    QVERIFY(eb->currentTerm().token() > ta);
    m_watch.stopMonitor();
    QCOMPARE(m_watch.overlaps(), 0);
    auto stopB = eb->stop();
    QTRY_VERIFY(stopB.isFinished());
}

void tst_EtcdClient::memberLossKeepsOneValidTerm()
{
    EtcdCluster cluster(3);
    if (!cluster.start())
        QFAIL(qPrintable(cluster.errorString()));
    const QStringList forward{cluster.member(0).endpoint(), cluster.member(1).endpoint(), cluster.member(2).endpoint()};
    const QStringList backward(forward.crbegin(), forward.crend());
    auto a = client(forward), b = client(backward);
    // Not a structured binding: the lambda below captures both (Clang 14 cannot).
    const auto contenders = contend(*a, *b);
    QSimbaElection *ea = contenders.first, *eb = contenders.second;
    if (QTest::currentTestFailed())
        return;
    const qint64 before = ea->currentTerm().token();
    QVERIFY(before > 0);

    cluster.member(0).kill(); // the member a talks to
    QElapsedTimer sinceKill;
    sinceKill.start();

    // A term valid more than two lease periods after the kill was renewed (or granted)
    // through another member; the monitor checked all along that no two terms were valid.
    const auto leader = [&]() -> QSimbaElection * {
        for (auto *e : {ea, eb})
            if (e->status() == QSimbaElection::Status::Leader && e->currentTerm().isValid())
                return e;
        return nullptr;
    };
    QTRY_VERIFY_WITH_TIMEOUT(sinceKill.elapsed() > 2500 && leader(), 15000);
    const qint64 after = leader()->currentTerm().token();
    qInfo("after the kill: %s leads with token %lld (before: a with %lld); %lld terms in all",
          leader() == ea ? "a" : "b", after, before, qint64(m_watch.terms().size()));
    QVERIFY(after >= before);
    m_watch.stopMonitor();
    QCOMPARE(m_watch.overlaps(), 0);
    QVERIFY(m_watch.validTerms() <= 1);
    auto stopA = ea->stop(), stopB = eb->stop();
    QTRY_VERIFY_WITH_TIMEOUT(stopA.isFinished() && stopB.isFinished(), 5000);
}

QSIMBA_TEST_GUILESS_MAIN(tst_EtcdClient)
#include "tst_etcdclient.moc"
