// SPDX-License-Identifier: Apache-2.0
#include "sqltestsupport.h"

#include "qsimbaerror.h"
#include "testserver.h"

#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>

namespace {
class ServerDidNotStart : public QObject
{
    Q_OBJECT
public:
    explicit ServerDidNotStart(const QString &error) : m_error(error) {}

private Q_SLOTS:
    void serverStarts() { QFAIL(qPrintable(m_error)); }

private:
    QString m_error;
};
} // namespace

int SqlTest::runWithServer(TestServer &server, QObject &test, int argc, char **argv)
{
    if (!server.start())
        return runFailure(server.errorString(), argc, argv);
    return QTest::qExec(&test, argc, argv);
}

int SqlTest::runFailure(const QString &error, int argc, char **argv)
{
    ServerDidNotStart failure(error);
    return QTest::qExec(&failure, argc, argv);
}

QString SqlTest::backendError(const std::function<void()> &call)
{
    try {
        call();
    } catch (const QSimbaBackendError &e) {
        return e.message();
    }
    return {};
}

SqlTest::RawConnection::RawConnection(const QSimbaSqlLeaseBackend::Options &o)
    : m_name(QStringLiteral("raw-%1").arg(quintptr(this)))
{
    auto db = QSqlDatabase::addDatabase(o.driver == QSimbaSqlLeaseBackend::Driver::Postgres ? QStringLiteral("QPSQL")
                                                                                           : QStringLiteral("QMYSQL"),
                                        m_name);
    db.setHostName(o.host);
    db.setPort(o.port);
    db.setDatabaseName(o.database);
    db.setUserName(o.user);
    db.setPassword(o.password);
    db.open();
}

SqlTest::RawConnection::~RawConnection()
{
    QSqlDatabase::database(m_name).close();
    QSqlDatabase::removeDatabase(m_name);
}

bool SqlTest::RawConnection::exec(const QString &sql)
{
    return QSqlQuery(QSqlDatabase::database(m_name)).exec(sql);
}

int SqlTest::run(QObject &test, int argc, char **argv)
{
    return QTest::qExec(&test, argc, argv);
}

#include "sqltestsupport.moc"
