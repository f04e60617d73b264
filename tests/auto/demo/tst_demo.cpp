// SPDX-License-Identifier: Apache-2.0
// The failover demo as CI runs it: it must end by itself, exit 0, and report both
// failovers within the bounds a 2 s lease allows and tokens that only increased.
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

class tst_Demo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void demoPasses()
    {
        QProcess demo;
        demo.setProcessChannelMode(QProcess::MergedChannels);
        demo.start(QStringLiteral(FAILOVER_DEMO_PATH), {QStringLiteral("--simbactl"), QStringLiteral(SIMBACTL_PATH)});
        QVERIFY(demo.waitForFinished(100000));
        const QString out = QString::fromUtf8(demo.readAll());
        qInfo().noquote() << out.section(QLatin1Char('\n'), -6);
        QCOMPARE(demo.exitStatus(), QProcess::NormalExit);
        QVERIFY2(demo.exitCode() == 0, qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("only increased")), qPrintable(out));
        const auto kill = QRegularExpression(QStringLiteral("SIGKILL failover: +(\\d+) ms")).match(out);
        const auto stop = QRegularExpression(QStringLiteral("graceful failover: +(\\d+) ms")).match(out);
        QVERIFY2(kill.hasMatch() && stop.hasMatch(), qPrintable(out));
        // A killed leader's lease (2 s) must run out first; a stopped one releases at once.
        QVERIFY2(kill.captured(1).toInt() < 6000, qPrintable(out));
        QVERIFY2(stop.captured(1).toInt() < 3000, qPrintable(out));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_Demo)
#include "tst_demo.moc"
