// SPDX-License-Identifier: Apache-2.0
#include "sqlservertest.h"

#include "qsimbaerror.h"
#include "testserver.h"

#include <QtCore/QElapsedTimer>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;

namespace {
// A connection of the test user outside the backend, e.g. to hold a lock.
class RawConnection
{
public:
    explicit RawConnection(const Backend::Options &o) : m_name(QStringLiteral("raw-%1").arg(quintptr(this)))
    {
        auto db = QSqlDatabase::addDatabase(o.driver == Backend::Driver::Postgres ? QStringLiteral("QPSQL")
                                                                                   : QStringLiteral("QMYSQL"),
                                            m_name);
        db.setHostName(o.host);
        db.setPort(o.port);
        db.setDatabaseName(o.database);
        db.setUserName(o.user);
        db.setPassword(o.password);
        db.open();
    }
    ~RawConnection()
    {
        QSqlDatabase::database(m_name).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    bool exec(const QString &sql) { return QSqlQuery(QSqlDatabase::database(m_name)).exec(sql); }

private:
    QString m_name;
};

QString backendError(const std::function<void()> &call)
{
    try {
        call();
    } catch (const QSimbaBackendError &e) {
        return e.message();
    }
    return {};
}
} // namespace

QString SqlServerTest::newPrefix()
{
    return QStringLiteral("t%1_%2_").arg(QCoreApplication::applicationPid()).arg(++m_prefixes);
}

QUrl SqlServerTest::withPassword(const QString &password, const QString &query) const
{
    QUrl u = url(query);
    u.setPassword(password);
    return u;
}

void SqlServerTest::wrongPasswordIsABackendError()
{
    const auto b = Backend::fromUrl(withPassword(QStringLiteral("wrong-pw")));
    const QString message = backendError([&] { b->openSession(1s); });
    QVERIFY2(message.contains(b->describe()), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("u:***@")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("cannot connect")) && message.contains(authFailure()), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1String("wrong-pw")), qPrintable(message));
}

void SqlServerTest::unreachableServerFailsInBoundedTime()
{
    QUrl closed = url(QStringLiteral("connectTimeout=1s"));
    closed.setPort(TestServer::freePort()); // nobody listens there
    const auto b = Backend::fromUrl(closed);
    QElapsedTimer timer;
    timer.start();
    const QString message = backendError([&] { b->openSession(1s); });
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QStringLiteral("took %1ms").arg(timer.elapsed())));
    QVERIFY2(message.contains(QStringLiteral("127.0.0.1:%1").arg(closed.port())), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("cannot connect")), qPrintable(message));
}

void SqlServerTest::newerSchemaIsAnError()
{
    const QString prefix = newPrefix();
    const auto running = Backend::fromUrl(url(QStringLiteral("prefix=") + prefix));
    const auto s = running->openSession(10s).id;
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = 9").arg(prefix)));
    const auto fresh = Backend::fromUrl(url(QStringLiteral("prefix=") + prefix));
    for (Backend *b : {running.get(), fresh.get()}) {
        const QString message = backendError([&] { b->keepAlive(s, 10s, {}); });
        QVERIFY2(message.contains(QLatin1String("version 9, newer than version 1")), qPrintable(message));
        QVERIFY2(message.contains(b->describe()), qPrintable(message));
    }
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = 1").arg(prefix)));
    QVERIFY(running->keepAlive(s, 10s, {}).isLive);
}

void SqlServerTest::lostConnectionIsReopened()
{
    const auto b = Backend::fromUrl(url());
    const auto s = b->openSession(10s).id;
    QVERIFY(b->acquire(s, {a}).value(a).isGranted);
    QVERIFY(killClients());
    // The next call finds the connection gone at its start, reconnects and succeeds.
    const auto k = b->keepAlive(s, 10s, {});
    QVERIFY(k.isLive);
    QCOMPARE(k.owned, QSet<QSimbaLeaseName>{a});
    b->closeSession(s);
}

void SqlServerTest::lockWaitIsBounded()
{
    const QString prefix = newPrefix();
    const QString query = QStringLiteral("prefix=%1&statementTimeout=300ms").arg(prefix);
    const auto b = Backend::fromUrl(url(query));
    const auto s = b->openSession(10s).id;
    RawConnection raw(Backend::optionsFromUrl(url(query)));
    QVERIFY(raw.exec(QStringLiteral("BEGIN")));
    QVERIFY(raw.exec(QStringLiteral("SELECT version FROM %1schema_version WHERE id = 1 FOR UPDATE").arg(prefix)));
    QElapsedTimer timer;
    timer.start();
    const QString message = backendError([&] { b->acquire(s, {a}); });
    QVERIFY2(!message.isEmpty(), "a call waited for a lock held elsewhere without bound");
    QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2500, qPrintable(QStringLiteral("took %1ms").arg(timer.elapsed())));
    QVERIFY(raw.exec(QStringLiteral("ROLLBACK")));
    QVERIFY(b->acquire(s, {a}).value(a).isGranted);
}
