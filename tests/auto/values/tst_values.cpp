// SPDX-License-Identifier: Apache-2.0
// Value types: lease names, session ids, tickers, the config and its rules, errors.
#include "qsimbaconfig.h"
#include "qsimbaerror.h"
#include "qsimbaleasename.h"
#include "qsimbasessionid.h"
#include "qsimbaticker.h"

#include <QtCore/QFuture>
#include <QtCore/QPromise>
#include <QtTest/QTest>

#include <ctime>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

class tst_Values : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validLeaseNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("simple") << QStringLiteral("ingest");
        QTest::newRow("all classes") << QStringLiteral("Az09._:-");
        QTest::newRow("one char") << QStringLiteral("x");
        QTest::newRow("three dots") << QStringLiteral("...");
        QTest::newRow("128 chars") << QString(128, QLatin1Char('a'));
    }
    void validLeaseNames()
    {
        QFETCH(QString, name);
        QCOMPARE(QSimbaLeaseName::of(name).toString(), name);
    }

    void invalidLeaseNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected"); // a part of the message: the rule broken
        QTest::newRow("empty") << QString() << QStringLiteral("is empty");
        QTest::newRow("129 chars") << QString(129, QLatin1Char('a')) << QStringLiteral("at most 128");
        QTest::newRow("dot") << QStringLiteral(".") << QStringLiteral("reserved");
        QTest::newRow("dotdot") << QStringLiteral("..") << QStringLiteral("reserved");
        QTest::newRow("space") << QStringLiteral("a b") << QStringLiteral("'a b' has the character ' ' at position 1");
        QTest::newRow("slash") << QStringLiteral("a/b") << QStringLiteral("'/'");
        QTest::newRow("unicode") << QStringLiteral("tâche") << QStringLiteral("'â'");
    }
    void invalidLeaseNames()
    {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        expected.replace(QLatin1Char('\''), QString()); // the message quotes the name with "
        try {
            QSimbaLeaseName::of(name);
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            const QString message = e.message();
            QVERIFY2(message.contains(QStringLiteral("lease name")), qPrintable(message));
            const QString rule = expected.startsWith(QLatin1String("a b")) ? QStringLiteral("has the character ' ' at position 1")
                                                                          : expected;
            QVERIFY2(message.contains(rule), qPrintable(message));
            if (!name.isEmpty()) // every name error quotes the name, a long one too
                QVERIFY2(message.contains(QLatin1Char('"') + name + QLatin1Char('"')), qPrintable(message));
        }
    }

    void groupRules()
    {
        QSimbaLeaseName::validateGroup(QStringLiteral("billing"), 16);
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaLeaseName::validateGroup(QStringLiteral("bad group"), 4));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaLeaseName::validateGroup(QStringLiteral("g"), 0));
        // "{group}.{partitions-1}" must fit in 128 characters.
        const QString g125(125, QLatin1Char('g'));
        QSimbaLeaseName::validateGroup(g125, 100);      // "ggg….99": 128
        try {
            QSimbaLeaseName::validateGroup(g125, 1000); // "ggg….999": 129
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("exceeds 128")), qPrintable(e.message()));
        }
    }

    void leaseNameValueSemantics()
    {
        const auto a = QSimbaLeaseName::of(QStringLiteral("a")), a2 = QSimbaLeaseName::of(QStringLiteral("a"));
        const auto b = QSimbaLeaseName::of(QStringLiteral("b"));
        QCOMPARE(a, a2);
        QVERIFY(a != b);
        QVERIFY(a < b);
        QCOMPARE(qHash(a), qHash(a2));
        QCOMPARE((QSet<QSimbaLeaseName>{a, a2, b}).size(), 2);
    }

    void sessionIds()
    {
        QSet<QSimbaSessionId> ids;
        for (int i = 0; i < 1000; ++i) {
            const auto id = QSimbaSessionId::generate();
            QCOMPARE(id.toString().size(), 32);
            QVERIFY(!ids.contains(id));
            ids.insert(id);
        }
        QCOMPARE(QSimbaSessionId::of(QStringLiteral("zk:42")).toString(), QStringLiteral("zk:42"));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaSessionId::of(QString()));
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaSessionId::of(QStringLiteral("a b")));
        QVERIFY(QSimbaSessionId().isNull());
    }

    void tickers()
    {
        const auto system = QSimbaTicker::system();
        const auto t0 = system->now();
        QVERIFY(system->now() >= t0);
        QSimbaManualTicker manual(5s);
        QCOMPARE(manual.now(), std::chrono::nanoseconds(5s));
        manual.advance(250ms);
        QCOMPARE(manual.now(), std::chrono::nanoseconds(5250ms));
        manual.set(1s); // never backwards
        QCOMPARE(manual.now(), std::chrono::nanoseconds(5250ms));
        manual.set(6s);
        QCOMPARE(manual.now(), std::chrono::nanoseconds(6s));
    }

    void configDefaults()
    {
        const QSimbaConfig c;
        QCOMPARE(c.leaseDuration(), std::chrono::nanoseconds(15s));
        QCOMPARE(c.renewInterval(), std::chrono::nanoseconds(5s));
        QCOMPARE(c.drift(), 0.01);
        QCOMPARE(c.margin(), std::chrono::nanoseconds(50ms));
        QCOMPARE(c.retryJitter(), std::chrono::nanoseconds(2500ms));
        QCOMPARE(c.minBackoff(), std::chrono::nanoseconds(100ms));
        QCOMPARE(QSimbaConfig::builder().build(), c);
    }

    void configDerivedValuesFollow()
    {
        const auto c = QSimbaConfig::builder().leaseDuration(3s).build();
        QCOMPARE(c.renewInterval(), std::chrono::nanoseconds(1s));
        QCOMPARE(c.retryJitter(), std::chrono::nanoseconds(500ms));
        const auto d = QSimbaConfig::builder().leaseDuration(3s).renewInterval(600ms).build();
        QCOMPARE(d.retryJitter(), std::chrono::nanoseconds(300ms));
        // toBuilder keeps what was set, so derived values follow a new lease.
        const auto e = c.toBuilder().leaseDuration(30s).build();
        QCOMPARE(e.renewInterval(), std::chrono::nanoseconds(10s));
        const auto f = d.toBuilder().leaseDuration(30s).build();
        QCOMPARE(f.renewInterval(), std::chrono::nanoseconds(600ms)); // set explicitly: kept
        QVERIFY(c != e);
        QCOMPARE(c.toBuilder().build(), c);
        QCOMPARE(c.leaseDurationMs(), 3000);
    }

    void configRules_data()
    {
        QTest::addColumn<QSimbaConfig::Builder>("builder");
        QTest::addColumn<QString>("rule");
        const auto b = [] { return QSimbaConfig::builder(); };
        QTest::newRow("lease zero") << b().leaseDuration(0s).renewInterval(1s) << QStringLiteral("leaseDuration must be positive");
        QTest::newRow("renew negative") << b().renewInterval(-1s) << QStringLiteral("renewInterval must be positive");
        QTest::newRow("margin negative") << b().margin(-1ms) << QStringLiteral("margin must not be negative");
        QTest::newRow("jitter negative") << b().retryJitter(-1ms) << QStringLiteral("retryJitter must not be negative");
        QTest::newRow("backoff zero") << b().minBackoff(0ms) << QStringLiteral("minBackoff must be positive");
        QTest::newRow("drift one") << b().drift(1.0) << QStringLiteral("drift must be in [0, 1)");
        QTest::newRow("drift negative") << b().drift(-0.1) << QStringLiteral("drift must be in [0, 1)");
        QTest::newRow("renew too long") << b().leaseDuration(10s).renewInterval(6s) << QStringLiteral("renewInterval × 2 must not exceed leaseDuration");
        QTest::newRow("no room") << b().leaseDuration(1s).renewInterval(500ms).margin(500ms)
                                 << QStringLiteral("leaseDuration × (1 − drift) − margin must exceed renewInterval");
    }
    void configRules()
    {
        QFETCH(QSimbaConfig::Builder, builder);
        QFETCH(QString, rule);
        try {
            builder.build();
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(rule), qPrintable(e.message()));
        }
    }

    void errorsTravelThroughFutures()
    {
        QPromise<int> promise;
        QFuture<int> future = promise.future();
        promise.start();
        promise.setException(QSimbaLockTimeoutError(QStringLiteral("invoice-42"), 5s));
        promise.finish();
        try {
            future.waitForFinished();
            QFAIL("no error");
        } catch (const QSimbaLockTimeoutError &e) {
            QCOMPARE(e.name(), QStringLiteral("invoice-42"));
            QCOMPARE(e.timeout(), std::chrono::nanoseconds(5s));
            QCOMPARE(e.message(), QStringLiteral("lock \"invoice-42\" not acquired within 5s"));
        }
    }

    void nameErrorsQuoteTheNameAndCountRight()
    {
        const QString long129(129, QLatin1Char('x'));
        try {
            (void)QSimbaLeaseName::of(long129);
            QFAIL("a 129-character name was accepted");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(QLatin1Char('"') + long129 + QLatin1Char('"')), qPrintable(e.message()));
            QVERIFY2(e.message().contains(QStringLiteral("129 characters")), qPrintable(e.message()));
        }
        try {
            QSimbaLeaseName::validateGroup(QString(127, QLatin1Char('g')), 1);
            QFAIL("a group whose partition name is 129 characters was accepted");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("with 1 partition:")), qPrintable(e.message()));
        }
    }

    void systemTickerIsTheBootTimeClock()
    {
        // CLOCK_BOOTTIME counts time the host was suspended; the steady clock does not.
#if defined(Q_OS_LINUX)
        const auto boot = [] {
            timespec ts{};
            clock_gettime(CLOCK_BOOTTIME, &ts);
            return std::chrono::nanoseconds(std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec));
        };
        const auto before = boot();
        const auto ticker = QSimbaTicker::system()->now();
        const auto after = boot();
        QVERIFY(before <= ticker && ticker <= after);
#else
        QSKIP("CLOCK_BOOTTIME is Linux only; elsewhere the system ticker is the steady clock");
#endif
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_Values)
#include "tst_values.moc"
