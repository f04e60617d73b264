// SPDX-License-Identifier: Apache-2.0
// The monitor's models (with QAbstractItemModelTester), its parsers, and its connections
// against real backends: SQLite files and a redis-server the test starts.
#include "chartmodel.h"
#include "connectionmodel.h"
#include "eventmodel.h"
#include "groupmodel.h"
#include "leasemodel.h"
#include "metricsparser.h"
#include "monitorcontroller.h"
#include "monitorformat.h"
#include "monitorworkers.h"
#include "redisserver.h"
#include "sseparser.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QSettings>
#include <QtCore/QTimer>
#include <QtCore/QTemporaryDir>
#include <QtTest/QAbstractItemModelTester>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {

MonitorSnapshot snapshot(const QList<MonitorLease> &leases)
{
    MonitorSnapshot s;
    s.sessions = {{QStringLiteral("s1"), 9000, {{QStringLiteral("host"), QStringLiteral("alpha")}, {QStringLiteral("pid"), QStringLiteral("11")}}},
                  {QStringLiteral("s2"), 9000, {{QStringLiteral("host"), QStringLiteral("beta")}, {QStringLiteral("pid"), QStringLiteral("22")}}}};
    s.leases = leases;
    return s;
}

int rowOf(const QAbstractItemModel &model, const QString &name, int column = LeaseModel::NameColumn)
{
    for (int r = 0; r < model.rowCount(); ++r) {
        if (model.index(r, column).data().toString() == name)
            return r;
    }
    return -1;
}

} // namespace

class tst_MonitorModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sseParserHandlesChunksCommentsAndGaps()
    {
        const QByteArray stream = "retry: 2000\n\nid: 41\nevent: ELECTED\ndata: {\"type\":\"Elected\",\"name\":\"billing\"}\n\n"
                                  ": keep-alive\n\nevent: GAP\ndata: {\"from\": 3,\ndata: \"oldest\": 9}\n\nid: 42\r\nevent: REVOKED\r\ndata: {}\r\n\r\n";
        // Byte by byte: every split point must give the same events.
        SseParser parser;
        QList<SseParser::Event> events;
        for (char c : stream)
            events += parser.feed(QByteArray(1, c));
        QCOMPARE(events.size(), 3);
        QCOMPARE(events.at(0).id, QStringLiteral("41"));
        QCOMPARE(events.at(0).type, QStringLiteral("ELECTED"));
        QCOMPARE(events.at(0).data, QStringLiteral("{\"type\":\"Elected\",\"name\":\"billing\"}"));
        QCOMPARE(events.at(1).type, QStringLiteral("GAP"));
        QCOMPARE(events.at(1).data, QStringLiteral("{\"from\": 3,\n\"oldest\": 9}"));
        QCOMPARE(events.at(2).type, QStringLiteral("REVOKED"));
        QCOMPARE(parser.lastId(), QStringLiteral("42"));
    }

    void metricsParserSumsTheChartedSeries()
    {
        const QByteArray text = "# HELP simba_elected_total Terms begun.\n# TYPE simba_elected_total counter\n"
                                "simba_elected_total{kind=\"ELECTION\"} 3\nsimba_elected_total{kind=\"LOCK\"} 2\n"
                                "simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"0.001\"} 118\n"
                                "simba_backend_call_duration_seconds_sum{call=\"keep_alive\"} 0.25\n"
                                "simba_backend_call_duration_seconds_count{call=\"keep_alive\"} 100\n"
                                "simba_backend_call_duration_seconds_sum{call=\"acquire\"} 0.75\n"
                                "simba_backend_call_duration_seconds_count{call=\"acquire\"} 100\n"
                                "simba_session_healthy 1\n";
        const MetricsFigures m = MetricsFigures::parse(text);
        QVERIFY(m.valid);
        QCOMPARE(m.elected, 5.0);
        QCOMPARE(m.calls, 200.0);
        QCOMPARE(m.callSeconds, 1.0);
        QVERIFY(!MetricsFigures::parse("# nothing\nother_metric 1\n").valid);
    }

    void formatFollowsTheLocale()
    {
        QLocale::setDefault(QLocale(QLocale::German));
        QCOMPARE(MonitorFormat::number(1234567), QStringLiteral("1.234.567"));
        QCOMPARE(MonitorFormat::duration(4200), QStringLiteral("4,2 s"));
        QLocale::setDefault(QLocale(QLocale::English));
        QCOMPARE(MonitorFormat::duration(4200), QStringLiteral("4.2 s"));
        QCOMPARE(MonitorFormat::duration(185'000), QStringLiteral("3 min 5 s"));
        QCOMPARE(MonitorFormat::duration(0), QStringLiteral("expired"));
        QCOMPARE(MonitorFormat::canonicalType(QStringLiteral("SessionLeaseShortened")), QStringLiteral("SESSION_LEASE_SHORTENED"));
        QCOMPARE(MonitorFormat::canonicalType(QStringLiteral("ELECTED")), QStringLiteral("ELECTED"));
    }

    void leaseModelUpdatesByRowsNeverResets()
    {
        LeaseModel model;
        LeaseFilterModel proxy;
        proxy.setSourceModel(&model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        const QString c = QStringLiteral("sqlite:///a.db");
        model.apply(c, snapshot({{QStringLiteral("a"), QStringLiteral("s1"), 1, 5000, {}},
                                 {QStringLiteral("b"), QStringLiteral("s1"), 2, 5000, {}},
                                 {QStringLiteral("c"), QStringLiteral("s2"), 3, 5000, {}}}), model.now());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(inserted.size(), 1);
        const int a = rowOf(model, QStringLiteral("a"));
        QCOMPARE(model.index(a, LeaseModel::HolderColumn).data().toString(), QStringLiteral("alpha"));
        QCOMPARE(model.index(a, LeaseModel::PidColumn).data().toString(), QStringLiteral("11"));
        QCOMPARE(model.index(a, LeaseModel::SessionColumn).data().toString(), QStringLiteral("s1"));

        // b changes holder, c is gone, d is new; a only counts down.
        changed.clear();
        model.apply(c, snapshot({{QStringLiteral("a"), QStringLiteral("s1"), 1, 4900, {}},
                                 {QStringLiteral("b"), QStringLiteral("s2"), 7, 9000, {}},
                                 {QStringLiteral("d"), QStringLiteral("s2"), 8, 9000, {}}}), model.now());
        QCOMPARE(resets.size(), 0);
        QCOMPARE(removed.size(), 1);
        QCOMPARE(inserted.size(), 2);
        QCOMPARE(changed.size(), 1); // b's row; a moved less than the jitter
        const QModelIndex topLeft = changed.first().at(0).value<QModelIndex>();
        QCOMPARE(topLeft.row(), rowOf(model, QStringLiteral("b")));
        QCOMPARE(rowOf(model, QStringLiteral("c")), -1);
        const int b = rowOf(model, QStringLiteral("b"));
        QCOMPARE(model.index(b, LeaseModel::HolderColumn).data().toString(), QStringLiteral("beta"));
        QCOMPARE(model.index(b, LeaseModel::TokenColumn).data(LeaseModel::SortRole).toLongLong(), 7);

        // The countdown is live: the remaining lease shrinks between ticks.
        const qint64 before = model.index(b, 0).data(LeaseModel::RemainingMsRole).toLongLong();
        QVERIFY(before > 0 && before <= 9000);
        QSignalSpy ticked(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(ticked.wait(2000));
        QTRY_VERIFY(model.index(b, 0).data(LeaseModel::RemainingMsRole).toLongLong() < before);

        // Sorting by token (by value) and filtering by host.
        proxy.sortBy(LeaseModel::TokenColumn);
        QCOMPARE(proxy.index(0, LeaseModel::NameColumn).data().toString(), QStringLiteral("a"));
        proxy.sortBy(LeaseModel::TokenColumn);
        QCOMPARE(proxy.index(0, LeaseModel::NameColumn).data().toString(), QStringLiteral("d"));
        proxy.setFilterText(QStringLiteral("BETA"));
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setFilterText(QString());
        QCOMPARE(proxy.rowCount(), 3);

        // Another connection's rows are untouched by this one's refresh; removal removes them.
        model.apply(QStringLiteral("redis://x"), snapshot({{QStringLiteral("a"), QStringLiteral("s1"), 1, 5000, {}}}), model.now());
        QCOMPARE(model.rowCount(), 4);
        model.removeConnection(c);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, LeaseModel::ConnectionColumn).data().toString(), QStringLiteral("redis://x"));
        QCOMPARE(resets.size(), 0);
    }

    void groupModelHighlightsMovedPartitions()
    {
        GroupModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        MonitorSnapshot s = snapshot({});
        s.groups = {{QStringLiteral("jobs"), {QStringLiteral("s1"), QStringLiteral("s2")}, 4,
                     {{0, QStringLiteral("s1")}, {1, QStringLiteral("s2")}, {2, QStringLiteral("s1")}}}};
        model.apply(QStringLiteral("c"), s);
        QCOMPARE(model.rowCount(), 1);
        const QModelIndex row = model.index(0);
        QCOMPARE(row.data(GroupModel::UnownedRole).toInt(), 1);
        QVariantList parts = row.data(GroupModel::PartitionsRole).toList();
        QCOMPARE(parts.size(), 4);
        QCOMPARE(parts.at(1).toMap().value(QStringLiteral("ownerLabel")).toString(), QStringLiteral("beta:22"));
        QCOMPARE(parts.at(1).toMap().value(QStringLiteral("colorIndex")).toInt(), 1);
        QCOMPARE(parts.at(3).toMap().value(QStringLiteral("colorIndex")).toInt(), -1);
        QVERIFY(!parts.at(1).toMap().value(QStringLiteral("moved")).toBool());

        s.groups[0].owners[1] = QStringLiteral("s1");
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.apply(QStringLiteral("c"), s);
        QCOMPARE(changed.size(), 1);
        parts = model.index(0).data(GroupModel::PartitionsRole).toList();
        QVERIFY(parts.at(1).toMap().value(QStringLiteral("moved")).toBool());
        QVERIFY(!parts.at(0).toMap().value(QStringLiteral("moved")).toBool());
        // The highlight fades by itself, with a dataChanged for the view.
        QVERIFY(changed.wait(GroupModel::HighlightMs + 2000));
        QVERIFY(!model.index(0).data(GroupModel::PartitionsRole).toList().at(1).toMap().value(QStringLiteral("moved")).toBool());
        model.removeConnection(QStringLiteral("c"));
        QCOMPARE(model.rowCount(), 0);
    }

    void eventModelBatchesPausesAndFilters()
    {
        EventModel model;
        model.setCapacity(10);
        EventFilterModel filter;
        filter.setSourceModel(&model);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
        auto event = [](int i) {
            MonitorEvent e;
            e.sequence = i;
            e.time = QDateTime::currentDateTimeUtc();
            e.connection = i % 2 ? QStringLiteral("http://a") : QStringLiteral("http://b");
            e.type = i % 3 ? QStringLiteral("ELECTED") : QStringLiteral("REVOKED");
            e.name = QStringLiteral("name-%1").arg(i);
            e.token = i;
            e.fields = QJsonObject{{QStringLiteral("reason"), QStringLiteral("TAKEN_OVER")}, {QStringLiteral("token"), i}};
            return e;
        };
        for (int i = 1; i <= 6; ++i)
            model.add(event(i));
        model.flush();
        QCOMPARE(inserted.size(), 1); // one batch
        QCOMPARE(model.rowCount(), 6);
        model.setPaused(true);
        for (int i = 7; i <= 14; ++i)
            model.add(event(i));
        model.flush();
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.queued(), 8);
        model.setPaused(false);
        QCOMPARE(model.rowCount(), 10); // capacity: the oldest went
        QCOMPARE(model.index(0).data(EventModel::TokenRole).toLongLong(), 5);
        QCOMPARE(model.index(9).data(EventModel::TokenRole).toLongLong(), 14);

        filter.setType(QStringLiteral("REVOKED"));
        QCOMPARE(filter.rowCount(), 3); // 6, 9, 12
        filter.setConnection(QStringLiteral("http://b"));
        QCOMPARE(filter.rowCount(), 2); // 6, 12
        filter.setName(QStringLiteral("name-12"));
        QCOMPARE(filter.rowCount(), 1);
        const QVariantList fields = filter.fields(0);
        QCOMPARE(fields.size(), 2);
        QCOMPARE(fields.at(0).toMap().value(QStringLiteral("key")).toString(), QStringLiteral("reason"));
        QCOMPARE(fields.at(1).toMap().value(QStringLiteral("value")).toString(), QStringLiteral("12"));
        QVERIFY(filter.index(0, 0).data(EventModel::SummaryRole).toString().contains(QStringLiteral("taken over")));
    }

    void chartModelKeepsBuckets()
    {
        ChartModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.addChanges(2);
        model.addLatency(4);
        model.addLatency(8);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, ChartModel::ChangesColumn).data().toDouble(), 2.0);
        QCOMPARE(model.index(0, ChartModel::LatencyColumn).data().toDouble(), 6.0);
        model.advance();
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(1, ChartModel::ChangesColumn).data().toDouble(), 0.0);
        for (int i = 0; i < ChartModel::MaxRows; ++i)
            model.advance();
        QCOMPARE(model.rowCount(), ChartModel::MaxRows);
    }

    // A real SQLite file with two workers: sessions with metadata, leases with holder and
    // token, a group's partitions; a takeover becomes an event; the chart gets latency.
    void sqliteBackendShowsTheWholePicture()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString url = QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("simba.db"));
        auto first = std::make_unique<MonitorTestWorker>(url, QStringLiteral("host-a"), 101,
                                                         QStringList{QStringLiteral("billing")}, QStringLiteral("jobs"), 4);
        QTRY_VERIFY_WITH_TIMEOUT(first->simba->election(QStringLiteral("billing"))->currentTerm().isValid(), 10000);
        MonitorTestWorker second(url, QStringLiteral("host-b"), 202, {QStringLiteral("billing")}, QStringLiteral("jobs"), 4);

        MonitorController controller(nullptr);
        QAbstractItemModelTester connectionsTester(controller.connections(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester leasesTester(controller.leaseModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester groupsTester(controller.groups(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(controller.addConnection(url), QString());
        ConnectionModel *connections = controller.connections();
        QTRY_VERIFY_WITH_TIMEOUT(connections->index(0).data(ConnectionModel::HealthyRole).toBool(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(connections->index(0).data(ConnectionModel::SessionsRole).toInt(), 2, 10000);
        QVERIFY(connections->index(0).data(ConnectionModel::RefreshRole).toString().contains(QStringLiteral("2.0 s")));

        LeaseModel *leases = controller.leaseModel();
        QTRY_VERIFY_WITH_TIMEOUT(rowOf(*leases, QStringLiteral("billing")) >= 0, 10000);
        const int billing = rowOf(*leases, QStringLiteral("billing"));
        QCOMPARE(leases->index(billing, LeaseModel::HolderColumn).data().toString(), QStringLiteral("host-a"));
        QCOMPARE(leases->index(billing, LeaseModel::PidColumn).data().toString(), QStringLiteral("101"));
        const qint64 token = leases->index(billing, LeaseModel::TokenColumn).data(LeaseModel::SortRole).toLongLong();
        QVERIFY(token > 0);
        QVERIFY(leases->index(billing, 0).data(LeaseModel::RemainingMsRole).toLongLong() > 0);

        // Both workers share the group's 4 partitions, listed by their host and pid.
        GroupModel *groups = controller.groups();
        QTRY_VERIFY_WITH_TIMEOUT(groups->rowCount() == 1
                                     && groups->index(0).data(GroupModel::MembersRole).toList().size() == 2
                                     && groups->index(0).data(GroupModel::UnownedRole).toInt() == 0
                                     && groups->index(0).data(GroupModel::PartitionCountRole).toInt() == 4, 20000);
        QStringList labels;
        for (const auto &m : groups->index(0).data(GroupModel::MembersRole).toList())
            labels << m.toMap().value(QStringLiteral("label")).toString();
        labels.sort();
        QCOMPARE(labels, (QStringList{QStringLiteral("host-a:101"), QStringLiteral("host-b:202")}));

        // The first worker goes: host-b takes billing over with a higher token; the monitor
        // saw the holder change.
        first.reset();
        QTRY_VERIFY_WITH_TIMEOUT(leases->index(rowOf(*leases, QStringLiteral("billing")), LeaseModel::HolderColumn).data().toString()
                                     == QStringLiteral("host-b"), 20000);
        QVERIFY(leases->index(rowOf(*leases, QStringLiteral("billing")), LeaseModel::TokenColumn).data(LeaseModel::SortRole).toLongLong() > token);
        EventModel *events = controller.eventModel();
        auto sawBilling = [events] {
            for (int r = 0; r < events->rowCount(); ++r) {
                if (events->index(r).data(EventModel::NameRole).toString() == u"billing"
                    && events->index(r).data(EventModel::TypeRole).toString() == u"HOLDER_CHANGED")
                    return true;
            }
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(sawBilling(), 5000);
        QVERIFY(controller.chart()->index(controller.chart()->rowCount() - 1, ChartModel::LatencyColumn).data().toDouble() > 0
                || controller.chart()->rowCount() > 1);
    }

    // Redis with a password: shown and stored redacted, asked again after a restart.
    void redisPasswordIsNeverShownNorStored()
    {
        RedisServer redis;
        redis.setExtraArguments({QStringLiteral("--requirepass"), QStringLiteral("s3cret-pw")});
        QVERIFY2(redis.start(), qPrintable(redis.errorString()));
        const QString plain = redis.url().toString();
        // A fresh Redis grants nothing for maxLease (data-loss safety): keep it short.
        MonitorTestWorker worker(QStringLiteral("redis://:s3cret-pw@127.0.0.1:%1/0?maxLease=4s").arg(redis.port()), QStringLiteral("host-r"), 303,
                                 {QStringLiteral("reports")});
        QTRY_VERIFY_WITH_TIMEOUT(worker.simba->election(QStringLiteral("reports"))->currentTerm().isValid(), 15000);

        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("monitor.ini"));
        {
            QSettings settings(ini, QSettings::IniFormat);
            MonitorController controller(&settings);
            QCOMPARE(controller.addConnection(plain, QStringLiteral("s3cret-pw")), QString());
            const QModelIndex row = controller.connections()->index(0);
            QVERIFY(!row.data(ConnectionModel::UrlRole).toString().contains(QStringLiteral("s3cret")));
            QVERIFY(row.data(ConnectionModel::UrlRole).toString().contains(QStringLiteral("***")));
            QTRY_VERIFY_WITH_TIMEOUT(rowOf(*controller.leaseModel(), QStringLiteral("reports")) >= 0, 10000);
            QCOMPARE(controller.leaseModel()->index(rowOf(*controller.leaseModel(), QStringLiteral("reports")), LeaseModel::HolderColumn).data().toString(),
                     QStringLiteral("host-r"));
            QVERIFY(row.data(ConnectionModel::HealthyRole).toBool());
        }
        QFile file(ini);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray stored = file.readAll();
        QVERIFY2(!stored.contains("s3cret"), stored.constData());
        QVERIFY(stored.contains("***"));

        // After a restart the connection waits for the password, then connects.
        QSettings settings(ini, QSettings::IniFormat);
        MonitorController controller(&settings);
        controller.restore();
        QCOMPARE(controller.connections()->count(), 1);
        QVERIFY(controller.connections()->index(0).data(ConnectionModel::NeedsPasswordRole).toBool());
        controller.supplyPassword(0, QStringLiteral("s3cret-pw"));
        QTRY_VERIFY_WITH_TIMEOUT(controller.connections()->index(0).data(ConnectionModel::HealthyRole).toBool(), 10000);
        QVERIFY(!controller.connections()->index(0).data(ConnectionModel::UrlRole).toString().contains(QStringLiteral("s3cret")));
    }

    // Nothing listens: the connection says why in words and keeps retrying; once a server
    // is there, it connects by itself.
    void failingConnectionSaysWhyAndRetries()
    {
        RedisServer redis;
        QVERIFY2(redis.start(), qPrintable(redis.errorString()));
        const QString url = redis.url().toString();
        redis.stop();

        MonitorController controller(nullptr);
        QCOMPARE(controller.addConnection(url), QString());
        const QModelIndex row = controller.connections()->index(0);
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::StateRole).toInt() == int(MonitorConnection::State::Failing), 10000);
        const QString problem = row.data(ConnectionModel::ProblemRole).toString();
        QVERIFY2(problem.contains(QString::number(redis.port())), qPrintable(problem));
        QVERIFY(!row.data(ConnectionModel::HealthyRole).toBool());
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::FailuresRole).toInt() >= 2, 10000); // it retried

        QVERIFY2(redis.start(), qPrintable(redis.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::StateRole).toInt() == int(MonitorConnection::State::Up), 40000);
        QVERIFY(row.data(ConnectionModel::ProblemRole).toString().isEmpty());
    }

    // A frozen server (SIGSTOP: it accepts connections, answers nothing) keeps an inspection
    // waiting for the backend's 2 s command timeout; the GUI thread must not wait with it.
    void inspectionNeverBlocksTheGuiThread()
    {
        RedisServer redis;
        QVERIFY2(redis.start(), qPrintable(redis.errorString()));
        QVERIFY(redis.pause());
        MonitorController controller(nullptr);
        QElapsedTimer clock;
        qint64 last = 0;
        qint64 maxGap = 0;
        QTimer ticker;
        ticker.setInterval(20);
        connect(&ticker, &QTimer::timeout, this, [&] {
            const qint64 now = clock.elapsed();
            maxGap = std::max(maxGap, now - last);
            last = now;
        });
        clock.start();
        ticker.start();
        QCOMPARE(controller.addConnection(redis.url().toString()), QString());
        const QModelIndex row = controller.connections()->index(0);
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::StateRole).toInt() == int(MonitorConnection::State::Failing), 20000);
        const qint64 waited = clock.elapsed();
        QVERIFY2(waited >= 1900, qPrintable(QString::number(waited))); // the inspection did wait
        // While it waited, the GUI thread kept turning (a blocked one would show a 2 s gap).
        QVERIFY2(maxGap < 1000, qPrintable(QString::number(maxGap)));
        QVERIFY(redis.resume());
        QTRY_VERIFY_WITH_TIMEOUT(row.data(ConnectionModel::StateRole).toInt() == int(MonitorConnection::State::Up), 40000);
    }

    void badInputIsRefusedInWords()
    {
        MonitorController controller(nullptr);
        QVERIFY(controller.addConnection(QString()).contains(QStringLiteral("Enter")));
        const QString bad = controller.addConnection(QStringLiteral("nosuch://x"));
        QVERIFY2(bad.contains(QStringLiteral("nosuch")), qPrintable(bad));
        QVERIFY(controller.addConnection(QStringLiteral("http://")).contains(QStringLiteral("not an endpoint")));
        QCOMPARE(controller.connections()->count(), 0);
        const QString refused = controller.addConnection(QStringLiteral("http://127.0.0.1:%1").arg(TestServer::freePort()));
        QCOMPARE(refused, QString());
        QTRY_VERIFY_WITH_TIMEOUT(controller.connections()->index(0).data(ConnectionModel::ProblemRole).toString().contains(QStringLiteral("refused")), 10000);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_MonitorModels)
#include "tst_monitormodels.moc"
