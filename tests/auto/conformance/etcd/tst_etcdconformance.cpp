// SPDX-License-Identifier: Apache-2.0
// The conformance suite against a real etcd started for this run on loopback.
#include "etcdserver.h"
#include "qsimbaconformancetest.h"
#include "qsimbaetcdleasebackend.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {
QSimbaConformanceTest::Fixture fixtureFor(EtcdServer &server)
{
    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [&server] {
        QSimbaEtcdLeaseBackend::Options options;
        options.endpoints = {server.endpoint()};
        options.prefix = QStringLiteral("/conformance");
        return std::make_unique<QSimbaEtcdLeaseBackend>(options);
    };
    fixture.elapse = QSimbaConformanceTest::wallClock();
    // etcd counts leases in whole seconds and reports the TTL left truncated to a second:
    // a remaining time is up to 1 s below the truth, whence the tolerance.
    fixture.lease = 3s;
    fixture.tolerance = 1s;
    fixture.hintTimeout = 3s;
    return fixture;
}
} // namespace

class tst_EtcdConformance : public QSimbaConformanceTest
{
    Q_OBJECT
public:
    explicit tst_EtcdConformance(EtcdServer &server)
        : QSimbaConformanceTest(fixtureFor(server)), m_server(server) {}

private Q_SLOTS:
    void initTestCase()
    {
        if (!m_server.start())
            QFAIL(qPrintable(m_server.errorString()));
    }
    void cleanupTestCase() { m_server.stop(); }

private:
    EtcdServer &m_server;
};

QSIMBA_TEST_ENTRY(tst_etcdconformance)
{
    QCoreApplication app(argc, argv);
    EtcdServer server;
    tst_EtcdConformance test(server);
    return QTest::qExec(&test, argc, argv);
}

#include "tst_etcdconformance.moc"
