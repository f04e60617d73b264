// SPDX-License-Identifier: Apache-2.0
// The monitor watching etcd directly: an etcd:// URL (and a multi-endpoint one) added as a
// connection shows the sessions and leases a real etcd started here holds.
#include "connectionmodel.h"
#include "etcdserver.h"
#include "leasemodel.h"
#include "monitorcontroller.h"
#include "qsimbaetcdleasebackend.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {
// The row of lease \a name in \a model; -1 when it is not there.
int rowWithName(const QAbstractItemModel &model, const QString &name)
{
    const auto hits = model.match(model.index(0, LeaseModel::NameColumn), Qt::DisplayRole, name, 1, Qt::MatchExactly);
    return hits.isEmpty() ? -1 : hits.first().row();
}
} // namespace

class tst_EtcdMonitor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsLeasesHeldInEtcd()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        QSimbaEtcdLeaseBackend::Options o;
        o.endpoints = {server.endpoint()};
        o.prefix = QStringLiteral("/mon");
        QSimbaEtcdLeaseBackend backend(o);
        const auto session = backend.openSession(10s, {{QStringLiteral("host"), QStringLiteral("etcd-host")}}).id;
        const auto name = QSimbaLeaseName::of(QStringLiteral("billing"));
        const qint64 token = backend.acquire(session, {name}).value(name).token;
        QVERIFY(token > 0);

        MonitorController controller(nullptr);
        // Two endpoints, the second one unused: the form a cluster's URL has.
        const QString url = QStringLiteral("etcd://%1,127.0.0.1:%2/mon").arg(server.endpoint()).arg(TestServer::freePort());
        QCOMPARE(controller.addConnection(url), QString());
        QCOMPARE(controller.addConnection(QStringLiteral("etcd://h:0/mon")).contains(QLatin1String("invalid port")), true);
        ConnectionModel *connections = controller.connections();
        QTRY_VERIFY_WITH_TIMEOUT(connections->index(0).data(ConnectionModel::HealthyRole).toBool(), 15000);
        QTRY_COMPARE_WITH_TIMEOUT(connections->index(0).data(ConnectionModel::SessionsRole).toInt(), 1, 15000);
        LeaseModel *leases = controller.leaseModel();
        QTRY_VERIFY_WITH_TIMEOUT(rowWithName(*leases, QStringLiteral("billing")) >= 0, 15000);
        const int row = rowWithName(*leases, QStringLiteral("billing"));
        QCOMPARE(leases->index(row, LeaseModel::TokenColumn).data(LeaseModel::SortRole).toLongLong(), token);
        QVERIFY(leases->index(row, 0).data(LeaseModel::RemainingMsRole).toLongLong() > 0);
        backend.closeSession(session);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_EtcdMonitor)
#include "tst_etcdmonitor.moc"
