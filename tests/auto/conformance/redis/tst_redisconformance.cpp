// SPDX-License-Identifier: Apache-2.0
// The conformance suite against a real redis-server started on loopback.
#include "qsimbaconformancetest.h"
#include "qsimbaerror.h"
#include "qsimbaredisleasebackend.h"
#include "redisserver.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {
// The server must start, and grant once its store's recovery period (maxLease) is over.
class RedisServerCheck : public QObject
{
    Q_OBJECT
public:
    RedisServerCheck(RedisServer &server, QSimbaRedisLeaseBackend::Options options)
        : m_server(server), m_options(std::move(options)) {}

private Q_SLOTS:
    void serverStarts()
    {
        if (!m_server.start())
            QFAIL(qPrintable(m_server.errorString()));
    }
    void storeGrantsAfterRecoveryPeriod()
    {
        QSimbaRedisLeaseBackend backend(m_options);
        const auto session = backend.openSession(m_options.maxLease).id;
        const auto probe = QSimbaLeaseName::of(QStringLiteral("conformance.probe"));
        const auto granted = [&] {
            return backend.keepAlive(session, m_options.maxLease, {}).isLive
                && backend.acquire(session, {probe}).value(probe).isGranted;
        };
        QTRY_VERIFY_WITH_TIMEOUT(granted(), 5000);
        backend.closeSession(session);
    }

private:
    RedisServer &m_server;
    QSimbaRedisLeaseBackend::Options m_options;
};
} // namespace

QSIMBA_TEST_ENTRY(tst_redisconformance)
{
    QCoreApplication app(argc, argv);
    RedisServer server;
    QSimbaRedisLeaseBackend::Options options;
    options.port = server.port();
    options.prefix = QStringLiteral("conformance");
    options.maxLease = 1s;
    options.connectTimeout = options.commandTimeout = 1s;

    RedisServerCheck check(server, options);
    if (const int failed = QTest::qExec(&check, argc, argv))
        return failed;

    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [=] { return std::make_unique<QSimbaRedisLeaseBackend>(options); };
    fixture.elapse = QSimbaConformanceTest::wallClock();
    fixture.lease = 500ms;
    fixture.tolerance = 200ms;
    QSimbaConformanceTest test(fixture);
    return QTest::qExec(&test, argc, argv);
}

#include "tst_redisconformance.moc"
