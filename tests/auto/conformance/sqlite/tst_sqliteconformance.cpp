// SPDX-License-Identifier: Apache-2.0
// The conformance suite against the SQL backend on an SQLite file in a temporary directory.
#include "qsimbaconformancetest.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

QSIMBA_TEST_ENTRY(tst_sqliteconformance)
{
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    if (!dir.isValid())
        qFatal("cannot create a temporary directory: %s", qPrintable(dir.errorString()));
    const QUrl url(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("simba.db")));
    QSimbaConformanceTest::Fixture fixture;
    fixture.factory = [=] { return QSimbaSqlLeaseBackend::fromUrl(url); };
    fixture.elapse = QSimbaConformanceTest::wallClock();
    fixture.lease = 500ms;
    fixture.tolerance = 200ms;
    QSimbaConformanceTest test(fixture);
    return QTest::qExec(&test, argc, argv);
}
