// SPDX-License-Identifier: Apache-2.0
// The conformance suite against a real standalone ZooKeeper started for this run.
#include "qsimbaconformancetest.h"
#include "qsimbazookeeperleasebackend.h"
#include "zookeeperserver.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

namespace {
QSimbaConformanceTest::Fixture fixtureFor(ZookeeperServer &server)
{
    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [&server] {
        QSimbaZookeeperLeaseBackend::Options options;
        options.hosts = server.hostPort();
        options.basePath = QStringLiteral("/conformance");
        return std::make_unique<QSimbaZookeeperLeaseBackend>(options);
    };
    fixture.elapse = QSimbaConformanceTest::wallClock();
    fixture.lease = std::chrono::milliseconds(500);
    // mtimes have 1 ms resolution; the rest is loopback round trips.
    fixture.tolerance = std::chrono::milliseconds(150);
    fixture.hintTimeout = std::chrono::milliseconds(3000);
    return fixture;
}
} // namespace

// The suite, with the server started once for all its functions.
class tst_ZookeeperConformance : public QSimbaConformanceTest
{
    Q_OBJECT
public:
    explicit tst_ZookeeperConformance(ZookeeperServer &server)
        : QSimbaConformanceTest(fixtureFor(server)), m_server(server) {}

private Q_SLOTS:
    void initTestCase()
    {
        if (!m_server.start())
            QFAIL(qPrintable(m_server.errorString()));
    }
    void cleanupTestCase() { m_server.stop(); }

private:
    ZookeeperServer &m_server;
};

QSIMBA_TEST_ENTRY(tst_zookeeperconformance)
{
    QCoreApplication app(argc, argv);
    ZookeeperServer server;
    tst_ZookeeperConformance test(server);
    return QTest::qExec(&test, argc, argv);
}

#include "tst_zookeeperconformance.moc"
