// SPDX-License-Identifier: Apache-2.0
// Handover through QSimba on SQLite, PostgreSQL and MariaDB: a released lock reaches a
// waiting client by its hint, long before its poll; a lost hint still hands over, by the
// poll; a killed holder process is taken over at its lease end.
#include "mariadbserver.h"
#include "postgresserver.h"
#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbaconfig.h"
#include "qsimbalock.h"
#include "qsimbalockterm.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QDir>
#include <QtCore/QElapsedTimer>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Call = QSimbaBackendMetrics::Call;

class tst_SqlHandover : public QObject
{
    Q_OBJECT

    PostgresServer m_postgres;
    MariaDbServer m_mariadb;
    QTemporaryDir m_dir;
    int m_prefixes = 0;

    // A new prefix (SQLite: a new file) of \a database, as \a user when given (MariaDB).
    QUrl newUrl(const QString &database, const QString &user = {})
    {
        const QString prefix = QStringLiteral("h%1_").arg(++m_prefixes);
        if (database == QLatin1String("sqlite"))
            return QUrl(QStringLiteral("sqlite://") + m_dir.filePath(prefix + QStringLiteral(".db")));
        QUrl url = database == QLatin1String("postgresql") ? m_postgres.url(QStringLiteral("prefix=") + prefix)
                                                          : m_mariadb.url(QStringLiteral("prefix=") + prefix);
        if (!user.isEmpty())
            url.setUserName(user);
        return url;
    }

    static std::unique_ptr<QSimba> client(const QUrl &url, std::chrono::milliseconds lease, std::chrono::milliseconds poll)
    {
        return QSimba::builder()
            .backend(QSimbaSqlLeaseBackend::fromUrl(url))
            .config(QSimbaConfig::builder().leaseDuration(lease).renewInterval(poll).build())
            .build();
    }

    static void databases()
    {
        QTest::addColumn<QString>("database");
        for (const char *name : {"sqlite", "postgresql", "mariadb"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    // \a waiter waits for the lock "x" that another client holds: its acquire was answered,
    // so only a hint, the poll or the holder's lease end can make it try again.
    static QFuture<QSimbaLockTerm> waitFor(QSimba &waiter)
    {
        auto future = waiter.lock(QStringLiteral("x"))->acquireAsync(60s);
        const auto metrics = waiter.backendMetrics();
        if (!QTest::qWaitFor([&] { return metrics->stats(Call::Acquire).count >= 1; }, 10000))
            qWarning("the waiter's acquire was not answered");
        return future;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_dir.isValid(), qPrintable(m_dir.errorString()));
        QVERIFY2(m_postgres.start(), qPrintable(m_postgres.errorString()));
        QVERIFY2(m_mariadb.start(), qPrintable(m_mariadb.errorString()));
    }

    void hintHandsOverBeforeThePoll_data() { databases(); }
    void hintHandsOverBeforeThePoll()
    {
        // Polls every 30 s: the test's 10 s bound is met only by the Released hint.
        QFETCH(QString, database);
        const QUrl url = newUrl(database);
        auto holder = client(url, 90s, 30s), waiter = client(url, 90s, 30s);
        auto held = holder->lock(QStringLiteral("x"))->tryAcquire();
        QVERIFY(held.has_value());
        const qint64 heldToken = held->token();
        auto future = waitFor(*waiter);
        QVERIFY2(!future.isFinished(), "granted while another client held the lock");
        QElapsedTimer timer;
        timer.start();
        held->close(); // releases and waits for the release
        QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000);
        qInfo("%s: handed over within %lld ms of the release (seen in 50 ms steps; qsimba_sqlbench measures it)",
              qPrintable(database), timer.elapsed());
        QVERIFY(waiter->backendMetrics()->releasedHints() >= 1);
        QVERIFY(future.takeResult().token() > heldToken);
    }

    void releaseWhileNotListeningIsCaughtUp()
    {
        // PostgreSQL: a NOTIFY sent while the waiter's LISTEN connection is down (or not yet
        // up) reaches nobody. Once it listens again, the backend publishes a hint for what it
        // waits for, so the waiter takes the lock then, not at its poll (30 s).
        const QUrl url = newUrl(QStringLiteral("postgresql"));
        const QString role = QStringLiteral("w%1").arg(m_prefixes);
        QCOMPARE(m_postgres.psql(QStringLiteral("CREATE ROLE %1 LOGIN PASSWORD '%2' IN ROLE %3")
                                     .arg(role, m_postgres.password(), m_postgres.user())),
                 0);
        QUrl waiterUrl = url;
        waiterUrl.setUserName(role);
        auto holder = client(url, 90s, 30s);
        auto held = holder->lock(QStringLiteral("x"))->tryAcquire();
        QVERIFY(held.has_value());
        const qint64 heldToken = held->token();
        // Only now: the holder's role made the tables (the waiter's may use them, not the
        // other way round).
        auto waiter = client(waiterUrl, 90s, 30s);
        auto future = waitFor(*waiter);
        QVERIFY2(!future.isFinished(), "granted while another client held the lock");
        // The waiter's connections ended, and none allowed again: its listener is down.
        QCOMPARE(m_postgres.psql(QStringLiteral("ALTER ROLE %1 NOLOGIN; SELECT pg_terminate_backend(pid) FROM "
                                                "pg_stat_activity WHERE usename = '%1'")
                                     .arg(role)),
                 0);
        const auto connections = [&] {
            QString count;
            m_postgres.psql(QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE usename = '%1'").arg(role), &count);
            return count.trimmed();
        };
        QTRY_COMPARE_WITH_TIMEOUT(connections(), QStringLiteral("0"), 10000);
        held->close(); // notified to nobody of the waiter's
        QCOMPARE(m_postgres.psql(QStringLiteral("ALTER ROLE %1 LOGIN").arg(role)), 0);
        // The listener connects again at its next probe (every second).
        QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000);
        QVERIFY(waiter->backendMetrics()->releasedHints() >= 1);
        QVERIFY(future.takeResult().token() > heldToken);
    }

    void lostHintHandsOverByThePoll_data()
    {
        QTest::addColumn<QString>("database");
        QTest::newRow("sqlite: the side file cannot be written") << QStringLiteral("sqlite");
        QTest::newRow("mariadb: the waiter cannot read the rows") << QStringLiteral("mariadb");
    }
    void lostHintHandsOverByThePoll()
    {
        QFETCH(QString, database);
        QUrl waiterUrl, url = newUrl(database);
        if (database == QLatin1String("sqlite")) {
            // A directory where the side file belongs: every hint written is lost.
            QVERIFY(QDir().mkpath(url.path() + QStringLiteral("-simba_hints")));
            waiterUrl = url;
        } else {
            // The waiter's user may hold one connection: the backend's. Its subscription's
            // reads of the waited rows are refused, so no hint reaches it.
            QVERIFY(m_mariadb.sql(QStringLiteral("CREATE USER IF NOT EXISTS 'w'@'localhost' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 1; "
                                                 "CREATE USER IF NOT EXISTS 'w'@'127.0.0.1' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 1; "
                                                 "GRANT ALL ON %1.* TO 'w'@'localhost'; GRANT ALL ON %1.* TO 'w'@'127.0.0.1';")
                                      .arg(m_mariadb.database()))
                    == 0);
            waiterUrl = url;
            waiterUrl.setUserName(QStringLiteral("w"));
        }
        auto holder = client(url, 3s, 1s), waiter = client(waiterUrl, 3s, 1s);
        auto held = holder->lock(QStringLiteral("x"))->tryAcquire();
        QVERIFY(held.has_value());
        auto future = waitFor(*waiter);
        QVERIFY2(!future.isFinished(), "granted while another client held the lock");
        held->close();
        QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000);
        // It was the poll: no hint ever reached the waiter.
        QCOMPARE(waiter->backendMetrics()->releasedHints(), quint64(0));
        QVERIFY(future.takeResult().token() > held->token());
    }

    void killedHolderIsTakenOver_data() { databases(); }
    void killedHolderIsTakenOver()
    {
        // The holder is a process with a 2 s lease, killed; the waiter polls every 30 s, so
        // only the holder's lease end (on the database's clock) brings it in in time.
        QFETCH(QString, database);
        const QUrl url = newUrl(database);
        QProcess child;
        child.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        child.start(QStringLiteral(QSIMBA_SQL_CONTENDER),
                    {QStringLiteral("hold"), url.toString(), QStringLiteral("x"), QStringLiteral("2000")});
        QVERIFY2(child.waitForStarted(10000), qPrintable(child.errorString()));
        QTRY_VERIFY_WITH_TIMEOUT(child.canReadLine() || child.state() != QProcess::Running, 20000);
        const QByteArray line = child.readLine().trimmed();
        QVERIFY2(line.startsWith("HELD "), line.constData());
        const qint64 childToken = line.mid(5).toLongLong();
        auto waiter = client(url, 90s, 30s);
        auto future = waitFor(*waiter);
        QVERIFY2(!future.isFinished(), "granted while the child held the lock");
        QElapsedTimer timer;
        timer.start();
        child.kill();
        QVERIFY(child.waitForFinished(10000));
        QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 15000);
        qInfo("%s: taken over %lld ms after the holder was killed (its lease: 2000 ms)", qPrintable(database),
              timer.elapsed());
        QVERIFY(future.takeResult().token() > childToken);
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_SqlHandover)
#include "tst_sqlhandover.moc"
