// SPDX-License-Identifier: Apache-2.0
// Two QSimba clients electing a leader through a real redis-server: a released lease
// reaches the waiting client through its hint, and a restart of Redis without persistence
// never leaves two valid terms, with tokens still increasing.
#include "qsimba.h"
#include "qsimbaerror.h"
#include "qsimbaredisleasebackend.h"
#include "redisserver.h"
#include "termwatch.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QTimer>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

class tst_RedisClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void handoverAndRestartKeepOneValidTerm();
    void closeReturnsWhileTheServerIsFrozen();

private:
    std::unique_ptr<QSimba> client();

    RedisServer m_server;
    // Leases of 600 ms (renew 200 ms): the Redis store waits one maxLease after a restart.
    QSimbaConfig m_config = QSimbaConfig::builder().leaseDuration(600ms).build();
    TermWatch m_watch;
};

void tst_RedisClient::initTestCase()
{
    if (!m_server.start())
        QFAIL(qPrintable(m_server.errorString()));
}

std::unique_ptr<QSimba> tst_RedisClient::client()
{
    QSimbaRedisLeaseBackend::Options o;
    o.port = m_server.port();
    o.maxLease = 600ms;
    o.connectTimeout = o.commandTimeout = 150ms;
    return QSimba::builder().backend(std::make_unique<QSimbaRedisLeaseBackend>(o)).config(m_config).build();
}

void tst_RedisClient::handoverAndRestartKeepOneValidTerm()
{
    auto a = client(), b = client();
    auto *ea = a->election(QStringLiteral("leader"));
    auto *eb = b->election(QStringLiteral("leader"));
    m_watch.watch(ea, QStringLiteral("a"));
    m_watch.watch(eb, QStringLiteral("b"));
    m_watch.startMonitor(); // checks every 2 ms that at most one term is valid

    ea->start();
    QTRY_COMPARE_WITH_TIMEOUT(ea->status(), QSimbaElection::Status::Leader, 5000);
    eb->start();
    QTRY_COMPARE(eb->status(), QSimbaElection::Status::Candidate);
    const qint64 ta = ea->currentTerm().token();

    // Handover: b is told by the Released hint, long before its next poll.
    QElapsedTimer timer;
    qint64 handover = -1;
    connect(eb, &QSimbaElection::elected, this, [&] {
        if (handover < 0)
            handover = timer.elapsed();
    });
    timer.start();
    auto stopped = ea->stop();
    QTRY_VERIFY_WITH_TIMEOUT(handover >= 0, 2000);
    QCOMPARE(eb->status(), QSimbaElection::Status::Leader);
    qInfo("stop() -> other client elected: %lld ms (renew interval 200 ms)", handover);
    QVERIFY2(handover < 200, "the Released hint should beat the next poll");
    QTRY_VERIFY(stopped.isFinished());
    const qint64 tb = eb->currentTerm().token();
    QVERIFY2(tb > ta, qPrintable(QStringLiteral("%1 after %2").arg(tb).arg(ta)));

    // Redis restarts without persistence: b's term must end before anyone is granted again,
    // however soon a candidate asks (a new client contends right after the restart).
    const int termsBefore = int(m_watch.terms().size());
    if (!m_server.restart())
        QFAIL(qPrintable(m_server.errorString()));
    auto c = client();
    auto *ec = c->election(QStringLiteral("leader"));
    m_watch.watch(ec, QStringLiteral("c"));
    ec->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_watch.terms().size() > termsBefore && m_watch.terms().constLast().second.isValid(), 10000);
    const qint64 tc = m_watch.terms().constLast().second.token();
    QVERIFY2(tc > tb, qPrintable(QStringLiteral("%1 after %2").arg(tc).arg(tb)));
    QCOMPARE(m_watch.overlaps(), 0);

    m_watch.stopMonitor();
    auto stopB = eb->stop(), stopC = ec->stop();
    QTRY_VERIFY(stopB.isFinished() && stopC.isFinished());
    QCOMPARE(m_watch.overlaps(), 0);
}

// A leader whose Redis freezes (SIGSTOP) closes in bounded time: the call in flight and the
// closing calls each end within connectTimeout + commandTimeout (150 + 150 ms here).
void tst_RedisClient::closeReturnsWhileTheServerIsFrozen()
{
    RedisServer frozen;
    if (!frozen.start())
        QFAIL(qPrintable(frozen.errorString()));
    QSimbaRedisLeaseBackend::Options o;
    o.port = frozen.port();
    o.maxLease = 600ms;
    o.connectTimeout = o.commandTimeout = 150ms;
    auto a = QSimba::builder().backend(std::make_unique<QSimbaRedisLeaseBackend>(o)).config(m_config).build();
    auto *ea = a->election(QStringLiteral("frozen"));
    ea->start();
    QTRY_COMPARE_WITH_TIMEOUT(ea->status(), QSimbaElection::Status::Leader, 5000);
    QVERIFY(frozen.pause());
    QElapsedTimer timer;
    timer.start();
    a->close();
    a.reset();
    qInfo("close() and destruction on a frozen server: %lld ms", timer.elapsed());
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

QSIMBA_TEST_GUILESS_MAIN(tst_RedisClient)
#include "tst_redisclient.moc"
