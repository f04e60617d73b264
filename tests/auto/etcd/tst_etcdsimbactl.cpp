// SPDX-License-Identifier: Apache-2.0
// simbactl on etcd: the etcd:// URL through the tool's --backend, against a real etcd started
// here (the URL parser and the factory's schemes are in tst_etcdurl).
#include "etcdserver.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

namespace {
// A running simbactl with its output.
struct Ctl
{
    explicit Ctl(const QStringList &args) { process.start(QStringLiteral(SIMBACTL_PATH), args); }
    ~Ctl()
    {
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
        }
    }
    //! Waits until stdout contains \a text (false when the process ended without it).
    bool waitFor(const QString &text, int ms = 30000)
    {
        QDeadlineTimer deadline(ms);
        while (!(out += QString::fromUtf8(process.readAllStandardOutput())).contains(text)) {
            if (deadline.hasExpired() || process.state() == QProcess::NotRunning)
                return false;
            process.waitForReadyRead(100);
        }
        return true;
    }
    //! The exit code; -1 when it did not end within \a ms.
    int finish(int ms = 30000)
    {
        if (!process.waitForFinished(ms))
            return -1;
        out += QString::fromUtf8(process.readAllStandardOutput());
        err += QString::fromUtf8(process.readAllStandardError());
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
    }
    QProcess process;
    QString out, err;
};
} // namespace

class tst_EtcdSimbactl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A lock held through simbactl on etcd is what simbactl status shows, token and holder.
    void lockAndStatus()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        const QString url = server.url(QStringLiteral("/ctl"));
        Ctl lock({QStringLiteral("lock"), QStringLiteral("--backend"), url, QStringLiteral("report"), QStringLiteral("--"),
                  QStringLiteral("sh"), QStringLiteral("-c"),
                  QStringLiteral("echo held $SIMBA_TOKEN; while :; do sleep 0.05; done")});
        QVERIFY2(lock.waitFor(QStringLiteral("held")), qPrintable(lock.out + QString::fromUtf8(lock.process.readAllStandardError())));
        const auto held = QRegularExpression(QStringLiteral("held (\\d+)")).match(lock.out);
        QVERIFY(held.hasMatch());
        const qint64 token = held.captured(1).toLongLong();
        QVERIFY(token > 0);

        Ctl status({QStringLiteral("status"), QStringLiteral("--json"), QStringLiteral("--backend"), url});
        QCOMPARE(status.finish(), 0);
        bool found = false;
        const QJsonObject json = QJsonDocument::fromJson(status.out.toUtf8()).object();
        for (const auto &v : json.value(QStringLiteral("leases")).toArray()) {
            const QJsonObject l = v.toObject();
            if (l.value(QStringLiteral("name")).toString() == QLatin1String("report")) {
                found = true;
                QCOMPARE(l.value(QStringLiteral("token")).toInteger(), token);
                QVERIFY(!l.value(QStringLiteral("holder")).toString().isEmpty());
            }
        }
        QVERIFY2(found, qPrintable(status.out + status.err));
    }

    // A bad etcd URL is refused with the parser's message, the password masked.
    void badUrlIsRefused()
    {
        Ctl status({QStringLiteral("status"), QStringLiteral("--backend"),
                    QStringLiteral("etcd://alice:s3cret@h:0/simba")});
        const int code = status.finish();
        QVERIFY2(code != 0 && code != -1, qPrintable(status.err));
        QVERIFY2(status.err.contains(QLatin1String("invalid port")), qPrintable(status.err));
        QVERIFY2(!status.err.contains(QLatin1String("s3cret")), qPrintable(status.err));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_EtcdSimbactl)
#include "tst_etcdsimbactl.moc"
