// SPDX-License-Identifier: Apache-2.0
// The monitor against a real operator endpoint (QSimbaHttpEndpoint) of a real client on an
// SQLite file: snapshot, health, metrics and the live event stream, with and without a token.
#include "monitorcontroller.h"
#include "monitorworkers.h"

#include "qsimbahttpendpoint.h"

#include <QtCore/QSysInfo>
#include <QtCore/QTemporaryDir>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {
int rowNamed(const QAbstractItemModel &model, const QString &name)
{
    for (int r = 0; r < model.rowCount(); ++r) {
        if (model.index(r, LeaseModel::NameColumn).data().toString() == name)
            return r;
    }
    return -1;
}
} // namespace

class tst_MonitorEndpoint : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void endpointShowsSnapshotEventsAndLatency()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString url = QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("simba.db"));
        MonitorTestWorker worker(url, QStringLiteral("svc-host"), 777, {QStringLiteral("billing")}, QStringLiteral("jobs"), 4);
        auto endpoint = std::make_unique<QSimbaHttpEndpoint>(worker.simba.get());
        QVERIFY(endpoint->port() > 0);

        MonitorController controller(nullptr);
        QAbstractItemModelTester leasesTester(controller.leaseModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester eventsTester(controller.eventModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester groupsTester(controller.groups(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // As an operator copies it from the documentation: with the /simba path.
        QCOMPARE(controller.addConnection(endpoint->url().toString()), QString());
        const QModelIndex row = controller.connections()->index(0);
        QCOMPARE(row.data(ConnectionModel::KindRole).toString(), QStringLiteral("endpoint"));
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::HealthyRole).toBool(), 15000);

        // The snapshot: the client's election with its token, its session, its group.
        LeaseModel *leases = controller.leaseModel();
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(*leases, QStringLiteral("billing")) >= 0
                                     && leases->index(rowNamed(*leases, QStringLiteral("billing")), 0).data(LeaseModel::HeldRole).toBool(),
                                 15000);
        const int billing = rowNamed(*leases, QStringLiteral("billing"));
        // The holder as the client names itself (its session's metadata), as a backend
        // connection shows it too, not the process serving the endpoint.
        QCOMPARE(leases->index(billing, LeaseModel::HolderColumn).data().toString(), QStringLiteral("svc-host"));
        QCOMPARE(leases->index(billing, LeaseModel::PidColumn).data().toString(), QStringLiteral("777"));
        QCOMPARE(leases->index(billing, LeaseModel::TokenColumn).data(LeaseModel::SortRole).toLongLong(),
                 worker.simba->election(QStringLiteral("billing"))->currentTerm().token());
        QTRY_VERIFY_WITH_TIMEOUT(controller.groups()->rowCount() == 1
                                     && controller.groups()->index(0).data(GroupModel::UnownedRole).toInt() == 0, 15000);
        QCOMPARE(controller.groups()->index(0).data(GroupModel::PartitionCountRole).toInt(), 4);

        // The event stream: the ELECTED that already happened is replayed... or not (the
        // stream starts live); a new term certainly arrives live.
        worker.simba->election(QStringLiteral("reports"))->start();
        EventModel *events = controller.eventModel();
        auto saw = [events](const QString &type, const QString &name) {
            for (int r = 0; r < events->rowCount(); ++r) {
                if (events->index(r).data(EventModel::TypeRole).toString() == type
                    && events->index(r).data(EventModel::NameRole).toString() == name)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(saw(QStringLiteral("ELECTED"), QStringLiteral("reports")), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(rowNamed(*leases, QStringLiteral("reports")) >= 0, 15000);

        // Metrics: two scrapes 5 s apart give a mean backend call latency for the chart.
        ChartModel *chart = controller.chart();
        auto latency = [chart] {
            for (int r = 0; r < chart->rowCount(); ++r) {
                if (chart->index(r, ChartModel::LatencyColumn).data().toDouble() > 0)
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(latency(), 20000);

        // The endpoint goes away: the connection says so in words.
        endpoint.reset();
        QTRY_VERIFY_WITH_TIMEOUT(!row.data(ConnectionModel::HealthyRole).toBool(), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::ProblemRole).toString().contains(QStringLiteral("refused")), 15000);
    }

    void endpointTokenIsTheUrlPassword()
    {
        QTemporaryDir dir;
        const QString url = QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("simba.db"));
        MonitorTestWorker worker(url, QStringLiteral("svc-host"), 778, {QStringLiteral("billing")});
        QSimbaHttpEndpoint::Options options;
        options.token = "op-token-42";
        QSimbaHttpEndpoint endpoint(worker.simba.get(), options);
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(endpoint.port());

        MonitorController controller(nullptr);
        QCOMPARE(controller.addConnection(base), QString());
        const QModelIndex without = controller.connections()->index(0);
        QTRY_VERIFY_WITH_TIMEOUT(without.data(ConnectionModel::ProblemRole).toString().contains(QStringLiteral("401")), 15000);

        QCOMPARE(controller.addConnection(base + QStringLiteral("/simba"), QStringLiteral("op-token-42")), QString());
        const QModelIndex with = controller.connections()->index(1);
        QVERIFY(!with.data(ConnectionModel::UrlRole).toString().contains(QStringLiteral("op-token")));
        QTRY_VERIFY_WITH_TIMEOUT(with.data(ConnectionModel::HealthyRole).toBool(), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(with.data(ConnectionModel::LeasesRole).toInt() == 1, 15000);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_MonitorEndpoint)
#include "tst_monitorendpoint.moc"
