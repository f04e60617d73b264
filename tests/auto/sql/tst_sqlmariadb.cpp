// SPDX-License-Identifier: Apache-2.0
// The SQL backend on a real MariaDB server: errors, bounded calls, reconnection, schema version.
#include "mariadbserver.h"
#include "qsimbaerror.h"
#include "sqlservertest.h"
#include "sqltestsupport.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QScopeGuard>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

class tst_SqlMariaDb : public SqlServerTest
{
    Q_OBJECT
public:
    explicit tst_SqlMariaDb(MariaDbServer &server) : m_server(server) {}

protected:
    QUrl url(const QString &query) const override { return m_server.url(query); }
    bool admin(const QString &sql) const override
    {
        return m_server.sql(QStringLiteral("USE %1; ").arg(m_server.database()) + sql) == 0;
    }
    bool killClients() const override
    {
        QString ids;
        if (m_server.sql(QStringLiteral("SELECT id FROM information_schema.processlist WHERE user = '%1'")
                             .arg(m_server.user()),
                         &ids)
            != 0)
            return false;
        QString kills;
        for (const QString &id : ids.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            kills += QStringLiteral("KILL %1;").arg(id.trimmed());
        return !kills.isEmpty() && m_server.sql(kills) == 0;
    }
    QString authFailure() const override { return QStringLiteral("Access denied"); }
    qint64 serverPid() const override { return m_server.pid(); }
    quint16 serverPort() const override { return m_server.port(); }
    QString lockWaitersQuery() const override
    {
        // Statements running (here: waiting for a row) inside a call's transaction, plus the
        // transactions InnoDB reports waiting for a lock (the acquire routine's, inside its CALL).
        return QStringLiteral("SELECT (SELECT count(*) FROM information_schema.processlist WHERE info LIKE 'INSERT "
                              "IGNORE INTO %' OR info LIKE 'UPDATE %') + (SELECT count(*) FROM "
                              "information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT')");
    }
    QString adminValue(const QString &sql) const override
    {
        QString output;
        const int code = m_server.sql(sql, &output);
        return code == 0 ? output.trimmed() : QStringLiteral("exit code %1: %2").arg(code).arg(output);
    }
    QString ddlName() const override { return QStringLiteral("mysql"); }
    QUrl prepareLeastPrivilege(const QString &ddl) const override
    {
        QString output;
        if (m_server.sql(QStringLiteral("CREATE DATABASE lp; CREATE USER 'simba_app'@'%' IDENTIFIED BY 'app-pw'; "
                                        "USE lp; ")
                             + ddl,
                         &output)
            != 0) {
            qWarning("%s", qPrintable(output));
            return {};
        }
        return QUrl(QStringLiteral("mysql://simba_app:app-pw@127.0.0.1:%1/lp").arg(m_server.port()));
    }

private:
    MariaDbServer &m_server;

private Q_SLOTS:
    void schemaCreationLockIsChecked()
    {
        // Another client holds the schema creation lock of a new prefix: a first-time client
        // must not create the tables without it (GET_LOCK answers 0 on timeout, no SQL error).
        using namespace std::chrono_literals;
        const QString prefix = newPrefix();
        const auto options = QSimbaSqlLeaseBackend::optionsFromUrl(url(QString()));
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QMYSQL"), QStringLiteral("lock-holder"));
        db.setHostName(options.host);
        db.setPort(options.port);
        db.setDatabaseName(options.database);
        db.setUserName(options.user);
        db.setPassword(options.password);
        QVERIFY2(db.open(), qPrintable(db.lastError().text()));
        const auto cleanup = qScopeGuard([&] {
            db.close();
            db = QSqlDatabase();
            QSqlDatabase::removeDatabase(QStringLiteral("lock-holder"));
        });
        QSqlQuery hold(db);
        QVERIFY(hold.exec(QStringLiteral("SELECT GET_LOCK(CONCAT(DATABASE(), '.%1schema'), 10)").arg(prefix)) && hold.next());
        QCOMPARE(hold.value(0).toInt(), 1);
        const auto b = QSimbaSqlLeaseBackend::fromUrl(url(QStringLiteral("prefix=%1&statementTimeout=1s").arg(prefix)));
        try {
            b->openSession(10s);
            QFAIL("created the schema without its lock");
        } catch (const QSimbaBackendError &e) {
            QVERIFY2(e.message().contains(QLatin1String("schema creation lock")), qPrintable(e.message()));
        }
        QVERIFY(admin(QStringLiteral("SELECT 1 FROM %1schema_version").arg(prefix)) == false); // nothing was created
        QVERIFY(hold.exec(QStringLiteral("SELECT RELEASE_LOCK(CONCAT(DATABASE(), '.%1schema'))").arg(prefix)));
        b->closeSession(b->openSession(10s).id);
    }

    // Schema version 4: the take of a free name is one UPDATE whose answer carries the new
    // token (LAST_INSERT_ID(expr) and the rows found), no procedure and no second statement to
    // read it; a release is one UPDATE. Counted by the server's statement counters over 20
    // lock cycles, less what reading them costs (the admin client's own statements).
    void lockCycleIsTwoUpdates()
    {
        using namespace std::chrono_literals;
        const auto b = QSimbaSqlLeaseBackend::fromUrl(url(QStringLiteral("prefix=") + newPrefix()));
        const auto s = b->openSession(10s).id;
        const auto n = QSimbaLeaseName::of(QStringLiteral("two-updates"));
        b->release(s, {{n, b->acquire(s, {n}).value(n).token}}); // the name's row exists
        const auto counters = [&] {
            QMap<QString, qint64> values;
            const QString out = adminValue(QStringLiteral(
                "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_select', 'Com_update', 'Com_call_procedure')"));
            for (const QString &line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
                const QStringList f = line.split(QLatin1Char('\t'));
                if (f.size() == 2)
                    values.insert(f.at(0).trimmed(), f.at(1).trimmed().toLongLong());
            }
            return values;
        };
        const auto idle0 = counters(), idle1 = counters(); // what reading costs
        qint64 token = 0;
        for (int cycle = 0; cycle < 20; ++cycle) {
            const auto granted = b->acquire(s, {n}).value(n);
            QVERIFY(granted.isGranted);
            QVERIFY(granted.token > token);
            token = granted.token;
            b->release(s, {{n, token}});
        }
        const auto after = counters();
        QCOMPARE(idle0.size(), 3);
        for (const char *name : {"Com_select", "Com_update", "Com_call_procedure"}) {
            const QString key = QLatin1String(name);
            const qint64 reading = idle1.value(key) - idle0.value(key);
            const qint64 cycles = after.value(key) - idle1.value(key) - reading;
            QCOMPARE(cycles, key == QLatin1String("Com_update") ? 40 : 0);
        }
    }

    void namesAreCaseSensitive()
    {
        // MySQL compares strings case-insensitively by default: the schema must not.
        using namespace std::chrono_literals;
        const auto b = QSimbaSqlLeaseBackend::fromUrl(url(QStringLiteral("prefix=") + newPrefix()));
        const auto s1 = b->openSession(10s).id, s2 = b->openSession(10s).id;
        const auto lower = QSimbaLeaseName::of(QStringLiteral("job")), upper = QSimbaLeaseName::of(QStringLiteral("JOB"));
        QVERIFY(b->acquire(s1, {lower}).value(lower).isGranted);
        QVERIFY(b->acquire(s2, {upper}).value(upper).isGranted);
    }
};

QSIMBA_TEST_ENTRY(tst_sqlmariadb)
{
    QCoreApplication app(argc, argv);
    MariaDbServer server;
    tst_SqlMariaDb test(server);
    return SqlTest::runWithServer(server, test, argc, argv);
}

#include "tst_sqlmariadb.moc"
