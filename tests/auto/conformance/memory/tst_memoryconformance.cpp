// SPDX-License-Identifier: Apache-2.0
// The conformance suite against the in-memory backend, on a fake ticker.
#include "qsimbaconformancetest.h"
#include "qsimbamemoryleasebackend.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

QSIMBA_TEST_ENTRY(tst_memoryconformance)
{
    QCoreApplication app(argc, argv);
    const auto ticker = std::make_shared<QSimbaManualTicker>();
    const QString store = QStringLiteral("conformance-") + QSimbaSessionId::generate().toString();
    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [=] { return std::make_unique<QSimbaMemoryLeaseBackend>(store, ticker); };
    fixture.elapse = [=](std::chrono::milliseconds d) { ticker->advance(d); };
    fixture.lease = std::chrono::milliseconds(500);
    fixture.tolerance = std::chrono::milliseconds(1);
    QSimbaConformanceTest test(fixture);
    return QTest::qExec(&test, argc, argv);
}
