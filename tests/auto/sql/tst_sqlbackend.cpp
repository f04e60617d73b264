// SPDX-License-Identifier: Apache-2.0
// What the SQL backend adds to the SPI, without a server: URLs and options, the schema and
// its version, the connection's thread, table prefixes, SQLite's locking.
#include "qsimbaerror.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;

class tst_SqlBackend : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    int m_files = 0;
    const QSimbaLeaseName a = QSimbaLeaseName::of(QStringLiteral("a"));

    QString newFile() { return m_dir.filePath(QStringLiteral("db%1.sqlite").arg(++m_files)); }
    static QUrl sqliteUrl(const QString &file, const QString &query = {})
    {
        return QUrl(QStringLiteral("sqlite://") + file + (query.isEmpty() ? QString() : QLatin1Char('?') + query));
    }

    // A raw connection to \a file, for what the backend does not offer.
    struct Raw
    {
        explicit Raw(const QString &file)
            : name(QStringLiteral("raw-") + QString::number(quintptr(this)))
        {
            auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            db.setDatabaseName(file);
            db.open();
        }
        ~Raw()
        {
            QSqlDatabase::database(name).close();
            QSqlDatabase::removeDatabase(name);
        }
        bool exec(const QString &sql, QVariant *first = nullptr)
        {
            QSqlQuery q(QSqlDatabase::database(name));
            if (!q.exec(sql))
                return false;
            if (first && q.next())
                *first = q.value(0);
            return true;
        }
        QString name;
    };

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_dir.isValid(), qPrintable(m_dir.errorString())); }

    void urlErrors_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("named"); // what the message must name
        QTest::newRow("no scheme") << QString() << QStringLiteral("no scheme");
        QTest::newRow("unknown scheme") << QStringLiteral("redis://h/0") << QStringLiteral("unknown scheme 'redis'");
        QTest::newRow("unknown option") << QStringLiteral("postgresql://u:secret@h/db?fast=1") << QStringLiteral("unknown option 'fast'");
        QTest::newRow("option twice") << QStringLiteral("mysql://u:secret@h/db?prefix=a_&prefix=b_") << QStringLiteral("prefix is given twice");
        QTest::newRow("malformed connectTimeout") << QStringLiteral("postgresql://u:secret@h/db?connectTimeout=soon")
                                                  << QStringLiteral("connectTimeout has a malformed value 'soon'");
        QTest::newRow("unitless statementTimeout") << QStringLiteral("postgresql://h/db?statementTimeout=5")
                                                   << QStringLiteral("statementTimeout has a malformed value '5'");
        QTest::newRow("zero statementTimeout") << QStringLiteral("sqlite:///x.db?statementTimeout=0ms")
                                               << QStringLiteral("statementTimeout must be at least 1ms");
        QTest::newRow("long hintInterval") << QStringLiteral("mysql://h/db?hintInterval=2s")
                                           << QStringLiteral("hintInterval must be from 1ms to 1s, got 2000ms");
        QTest::newRow("bad prefix") << QStringLiteral("postgresql://u:secret@h/db?prefix=My-App")
                                    << QStringLiteral("prefix 'My-App'");
        QTest::newRow("empty prefix") << QStringLiteral("sqlite:///x.db?prefix=") << QStringLiteral("prefix ''");
        QTest::newRow("long prefix") << QStringLiteral("sqlite:///x.db?prefix=") + QString(33, QLatin1Char('p'))
                                     << QStringLiteral("1–32 characters");
        QTest::newRow("no host") << QStringLiteral("postgresql:///db") << QStringLiteral("no host");
        QTest::newRow("no database") << QStringLiteral("mysql://u:secret@h:3306") << QStringLiteral("database name");
        QTest::newRow("nested database") << QStringLiteral("postgres://h/a/b") << QStringLiteral("database name");
        QTest::newRow("sqlite with host") << QStringLiteral("sqlite://host/x.db") << QStringLiteral("no host or port");
        QTest::newRow("sqlite with user") << QStringLiteral("sqlite://u:secret@/x.db") << QStringLiteral("no user or password");
        QTest::newRow("sqlite without path") << QStringLiteral("sqlite://") << QStringLiteral("no database file path");
        QTest::newRow("bad port") << QStringLiteral("postgresql://u:secret@h:99999/db") << QStringLiteral("port");
        QTest::newRow("port zero") << QStringLiteral("postgresql://u:secret@h:0/db") << QStringLiteral("port 0 is not a port");
        // QUrl reads host "app" and port "ab": its own message would quote the whole URL.
        QTest::newRow("password with a slash") << QStringLiteral("postgresql://app:ab/secret==@db:5432/app")
                                               << QStringLiteral("invalid SQL backend URL");
        QTest::newRow("unknown sslmode") << QStringLiteral("postgresql://u:secret@h/db?sslmode=maybe")
                                         << QStringLiteral("sslmode 'maybe' is not one of disable, allow, prefer");
        QTest::newRow("verify-full on MySQL") << QStringLiteral("mysql://u:secret@h/db?sslmode=verify-full&sslrootcert=/x")
                                              << QStringLiteral("cannot check the server's host name");
        QTest::newRow("verify-ca without CA on MySQL") << QStringLiteral("mysql://u:secret@h/db?sslmode=verify-ca")
                                                       << QStringLiteral("verify-ca needs sslrootcert");
        QTest::newRow("missing CA file") << QStringLiteral("postgresql://u:secret@h/db?sslrootcert=/nonexistent/ca.crt")
                                         << QStringLiteral("sslrootcert file '/nonexistent/ca.crt' does not exist");
        QTest::newRow("client certificate without key") << QStringLiteral("postgresql://h/db?sslcert=/etc/hostname")
                                                         << QStringLiteral("sslcert and sslkey go together");
        QTest::newRow("TLS on SQLite") << QStringLiteral("sqlite:///x.db?sslmode=require")
                                       << QStringLiteral("SQLite has no network connection");
        QTest::newRow("sub-millisecond timeout") << QStringLiteral("sqlite:///x.db?connectTimeout=500us")
                                                 << QStringLiteral("connectTimeout must be at least 1ms");
    }

    void urlErrors()
    {
        QFETCH(QString, url);
        QFETCH(QString, named);
        try {
            Backend::fromUrl(QUrl(url));
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(named), qPrintable(e.message()));
            QVERIFY2(!e.message().contains(QLatin1String("secret")), qPrintable(e.message()));
            if (url.contains(QLatin1String("secret")) && e.message().contains(QLatin1String("://")))
                QVERIFY2(e.message().contains(QLatin1String("u:***@")), qPrintable(e.message()));
        }
    }

    void urlOptions()
    {
        const auto o = Backend::optionsFromUrl(QUrl(QStringLiteral(
            "postgresql://app:p%40ss@db.example:5433/leases?prefix=myapp_&connectTimeout=1500ms&statementTimeout=1s")));
        QCOMPARE(o.driver, Backend::Driver::Postgres);
        QCOMPARE(o.host, QStringLiteral("db.example"));
        QCOMPARE(o.port, 5433);
        QCOMPARE(o.database, QStringLiteral("leases"));
        QCOMPARE(o.user, QStringLiteral("app"));
        QCOMPARE(o.password, QStringLiteral("p@ss"));
        QCOMPARE(o.tablePrefix, QStringLiteral("myapp_"));
        QCOMPARE(o.connectTimeout, 1500ms);
        QCOMPARE(o.statementTimeout, 1000ms);

        const auto defaults = Backend::optionsFromUrl(QUrl(QStringLiteral("mariadb://h/db")));
        QCOMPARE(defaults.driver, Backend::Driver::MySql);
        QCOMPARE(defaults.port, 0);
        QCOMPARE(defaults.tablePrefix, QStringLiteral("simba_"));
        QCOMPARE(defaults.connectTimeout, 2000ms);
        QCOMPARE(defaults.statementTimeout, 2000ms);
        QCOMPARE(defaults.hintInterval, 5ms);
        QCOMPARE(Backend::optionsFromUrl(QUrl(QStringLiteral("mysql://h/db?hintInterval=20ms"))).hintInterval, 20ms);

        const auto sqlite = Backend::optionsFromUrl(QUrl(QStringLiteral("sqlite:///var/lib/app/simba.db")));
        QCOMPARE(sqlite.driver, Backend::Driver::Sqlite);
        QCOMPARE(sqlite.database, QStringLiteral("/var/lib/app/simba.db"));

        // Durations as everywhere in QSimba (Core's parser), and the TLS options.
        const QString ca = m_dir.filePath(QStringLiteral("ca.crt"));
        QFile(ca).open(QIODevice::WriteOnly);
        const auto tls = Backend::optionsFromUrl(QUrl(QStringLiteral(
            "postgresql://h/db?statementTimeout=1500000us&connectTimeout=0.5m&sslmode=verify-full&sslrootcert=") + ca));
        QCOMPARE(tls.statementTimeout, 1500ms);
        QCOMPARE(tls.connectTimeout, 30000ms);
        QCOMPARE(tls.sslMode, QStringLiteral("verify-full"));
        QCOMPARE(tls.sslRootCert, ca);
        QCOMPARE(Backend(tls).describe(), QStringLiteral("postgresql://h:5432/db?sslmode=verify-full"));
    }

    void describeRedactsPassword()
    {
        QCOMPARE(Backend::fromUrl(QUrl(QStringLiteral("postgresql://app:hunter2@db:5433/leases")))->describe(),
                 QStringLiteral("postgresql://app:***@db:5433/leases"));
        QCOMPARE(Backend::fromUrl(QUrl(QStringLiteral("mysql://h/db?prefix=x_")))->describe(),
                 QStringLiteral("mysql://h:3306/db?prefix=x_"));
        QCOMPARE(Backend::fromUrl(QUrl(QStringLiteral("sqlite:///tmp/s.db")))->describe(), QStringLiteral("sqlite:///tmp/s.db"));
    }

    void optionErrors()
    {
        Backend::Options o;
        o.database = newFile();
        o.tablePrefix = QStringLiteral("1abc");
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o.tablePrefix = QStringLiteral("ok_");
        o.connectTimeout = 0ms;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o.connectTimeout = 1s;
        o.driver = Backend::Driver::Postgres;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o}); // no host
        o.host = QStringLiteral("h");
        o.database.clear();
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
    }

    void capabilitiesPerDatabase()
    {
        const auto sqlite = Backend::fromUrl(QUrl(QStringLiteral("sqlite:///x.db")))->capabilities();
        QVERIFY(sqlite.releaseHints && sqlite.membershipHints && sqlite.inspection);
        const auto mysql = Backend::fromUrl(QUrl(QStringLiteral("mysql://h/db")))->capabilities();
        QVERIFY(mysql.releaseHints && mysql.membershipHints && mysql.inspection);
        const auto pg = Backend::fromUrl(QUrl(QStringLiteral("postgresql://h/db")))->capabilities();
        QVERIFY(pg.releaseHints && pg.membershipHints && pg.inspection);
        // Any thread may call (each on its own connection), within a bound the options give:
        // SQLite statementTimeout + 1 s; a server a lost call, a connect (whole seconds,
        // libpq at least 2) and the call again.
        QVERIFY(sqlite.anyThread && mysql.anyThread && pg.anyThread);
        QCOMPARE(sqlite.callBound, 3s);
        QCOMPARE(mysql.callBound, 3s + 2s + 3s);
        const auto short_ = Backend::fromUrl(
            QUrl(QStringLiteral("postgresql://h/db?connectTimeout=500ms&statementTimeout=300ms")))->capabilities();
        QCOMPARE(short_.callBound, 1300ms + 2s + 1300ms);
        const auto mysqlShort = Backend::fromUrl(
            QUrl(QStringLiteral("mysql://h/db?connectTimeout=1500ms&statementTimeout=300ms")))->capabilities();
        QCOMPARE(mysqlShort.callBound, 1300ms + 2s + 1300ms);
    }

    void createsVersionedSchemaWithWal()
    {
        const QString file = newFile();
        Backend b(Backend::optionsFromUrl(sqliteUrl(file)));
        b.openSession(1s);
        Raw raw(file);
        QVariant version, mode;
        QVERIFY(raw.exec(QStringLiteral("SELECT version FROM simba_schema_version WHERE id = 1"), &version));
        QCOMPARE(version.toInt(), Backend::SchemaVersion);
        QVERIFY(raw.exec(QStringLiteral("PRAGMA journal_mode"), &mode));
        QCOMPARE(mode.toString(), QStringLiteral("wal"));
    }

    void newerSchemaIsAnError()
    {
        const QString file = newFile();
        Backend running(Backend::optionsFromUrl(sqliteUrl(file)));
        const auto s = running.openSession(10s).id;
        Raw raw(file);
        QVERIFY(raw.exec(QStringLiteral("UPDATE simba_schema_version SET version = 7")));
        for (Backend *b : {&running, Backend::fromUrl(sqliteUrl(file)).release()}) {
            std::unique_ptr<Backend> owner(b == &running ? nullptr : b);
            try {
                b->keepAlive(s, 10s, {});
                QFAIL("a newer schema was used");
            } catch (const QSimbaBackendError &e) {
                QVERIFY2(e.message().contains(QStringLiteral("version 7, newer than version %1").arg(Backend::SchemaVersion)), qPrintable(e.message()));
                QVERIFY2(e.message().contains(file), qPrintable(e.message()));
            }
        }
        // Nothing was changed by the refused calls.
        QVERIFY(raw.exec(QStringLiteral("UPDATE simba_schema_version SET version = %1").arg(Backend::SchemaVersion)));
        QVERIFY(running.keepAlive(s, 10s, {}).isLive);
    }

    void prefixesShareOneDatabase()
    {
        const QString file = newFile();
        const auto one = Backend::fromUrl(sqliteUrl(file, QStringLiteral("prefix=one_")));
        const auto two = Backend::fromUrl(sqliteUrl(file, QStringLiteral("prefix=two_")));
        const auto s1 = one->openSession(10s).id, s2 = two->openSession(10s).id;
        QVERIFY(one->acquire(s1, {a}).value(a).isGranted);
        QVERIFY(two->acquire(s2, {a}).value(a).isGranted); // another application's lease of the same name
        QVERIFY(!two->keepAlive(s1, 10s, {}).isLive);       // and another application's sessions
        Raw raw(file);
        QVariant holder;
        QVERIFY(raw.exec(QStringLiteral("SELECT holder FROM two_leases WHERE name = 'a'"), &holder));
        QCOMPARE(holder.toString(), s2.toString());
    }

    void inspectionShowsMetadataAndRemaining()
    {
        const auto b = Backend::fromUrl(sqliteUrl(newFile()));
        const auto s = b->openSession(10s, {{QStringLiteral("host"), QStringLiteral("node-1")}}).id;
        const auto token = b->acquire(s, {a}).value(a).token;
        b->join(s, QStringLiteral("workers"));
        const auto view = b->inspect();
        QCOMPARE(view.sessions.size(), 1);
        QCOMPARE(view.sessions.first().metadata.value(QStringLiteral("host")), QStringLiteral("node-1"));
        QVERIFY(view.sessions.first().remaining > 9s && view.sessions.first().remaining <= 10s);
        QCOMPARE(view.leases.size(), 1);
        QCOMPARE(view.leases.first().token, token);
        QVERIFY(view.leases.first().remaining > 9s);
        QCOMPARE(view.groups.size(), 1);
        QCOMPARE(view.groups.first().members, QList<QSimbaSessionId>{s});
    }

    void eachCallingThreadHasItsOwnConnection()
    {
        const QString file = newFile();
        const auto b = Backend::fromUrl(sqliteUrl(file));
        // The first calling thread's connection (as the engine's backend thread's).
        QSimbaSessionId s;
        qint64 token = 0;
        std::unique_ptr<QThread> first(QThread::create([&] {
            s = b->openSession(10s).id;
            token = b->acquire(s, {a}).value(a).token;
        }));
        first->setObjectName(QStringLiteral("simba-backend"));
        first->start();
        QVERIFY(first->wait(10000));
        QVERIFY(token > 0);
        // Another thread (a caller running its own call) uses a connection of its own: it sees
        // what the first committed, and its own writes are seen by the next thread.
        const auto held = b->acquire(s, {a}).value(a);
        QVERIFY(held.isGranted);
        QCOMPARE(held.token, token);
        b->release(s, {{a, token}});
        QSimbaLeaseBackend::AcquireResult again;
        std::unique_ptr<QThread> third(QThread::create([&] { again = b->acquire(s, {a}).value(a); }));
        third->start();
        QVERIFY(third->wait(10000));
        QVERIFY(again.isGranted);
        QCOMPARE(again.token, token + 1);
    }

    void lockWaitIsBounded()
    {
        const QString file = newFile();
        const auto b = Backend::fromUrl(sqliteUrl(file, QStringLiteral("statementTimeout=300ms")));
        const auto s = b->openSession(10s).id;
        Raw raw(file);
        QVERIFY(raw.exec(QStringLiteral("BEGIN IMMEDIATE"))); // another process writing
        QElapsedTimer timer;
        timer.start();
        QVERIFY_THROWS_EXCEPTION(QSimbaBackendError, b->acquire(s, {a}));
        QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
        QVERIFY(raw.exec(QStringLiteral("ROLLBACK")));
        // The next call reconnects and succeeds.
        QVERIFY(b->acquire(s, {a}).value(a).isGranted);
    }

    void writerHoldingTheLockFailsEveryCallInBoundedTime()
    {
        // Another connection (as another process would) holds the write lock: every call, on a
        // kept connection or a new one, fails after one busy timeout and says why.
        const QString file = newFile();
        const auto kept = Backend::fromUrl(sqliteUrl(file, QStringLiteral("statementTimeout=300ms")));
        const auto s = kept->openSession(10s).id;
        Raw raw(file);
        QVERIFY(raw.exec(QStringLiteral("BEGIN IMMEDIATE")));
        const auto fresh = Backend::fromUrl(sqliteUrl(file, QStringLiteral("statementTimeout=300ms")));
        for (Backend *b : {kept.get(), fresh.get(), kept.get()}) {
            const QList<std::function<void()>> calls{
                [&] { b->keepAlive(s, 10s, {}); }, [&] { b->acquire(s, {a}); }, [&] { b->release(s, {{a, 1}}); },
                [&] { b->join(s, QStringLiteral("g")); }, [&] { b->members(QStringLiteral("g")); },
                [&] { b->inspect(); }, [&] { b->openSession(10s); }, [&] { b->closeSession(s); }};
            for (const auto &call : calls) {
                QElapsedTimer timer;
                timer.start();
                try {
                    call();
                    QFAIL("a call succeeded while another connection held the write lock");
                } catch (const QSimbaBackendError &e) {
                    QVERIFY2(e.message().contains(QLatin1String("write lock")) && e.message().contains(QLatin1String("300ms")),
                             qPrintable(e.message()));
                }
                QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 1300, qPrintable(QString::number(timer.elapsed())));
            }
        }
        QVERIFY(raw.exec(QStringLiteral("ROLLBACK")));
        QVERIFY(kept->keepAlive(s, 10s, {}).isLive);
    }

    void unopenableFileIsABackendError()
    {
        const QString file = m_dir.filePath(QStringLiteral("missing/dir/simba.db"));
        const auto b = Backend::fromUrl(sqliteUrl(file));
        try {
            b->openSession(1s);
            QFAIL("opened a file in a missing directory");
        } catch (const QSimbaBackendError &e) {
            QVERIFY2(e.message().contains(file) && e.message().contains(QLatin1String("cannot connect")),
                     qPrintable(e.message()));
        }
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_SqlBackend)
#include "tst_sqlbackend.moc"
