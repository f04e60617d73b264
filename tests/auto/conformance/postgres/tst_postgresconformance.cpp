// SPDX-License-Identifier: Apache-2.0
// The conformance suite against the SQL backend on a real PostgreSQL server.
#include "postgresserver.h"
#include "qsimbaconformancetest.h"
#include "qsimbasqlleasebackend.h"
#include "sqltestsupport.h"

#include <QtCore/QCoreApplication>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

QSIMBA_TEST_ENTRY(tst_postgresconformance)
{
    QCoreApplication app(argc, argv);
    PostgresServer server;
    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [&] { return QSimbaSqlLeaseBackend::fromUrl(server.url()); };
    fixture.elapse = QSimbaConformanceTest::wallClock();
    fixture.lease = 500ms;
    fixture.tolerance = 200ms;
    fixture.hintTimeout = 3000ms;
    QSimbaConformanceTest test(fixture);
    return SqlTest::runWithServer(server, test, argc, argv);
}
