// SPDX-License-Identifier: Apache-2.0
// Test support for the SQL backend's tests: not installed.
#pragma once

#include "qsimbasqlleasebackend.h"

#include <QtCore/QObject>
#include <QtCore/QUrl>

/*
 * The tests every server database (PostgreSQL, MariaDB) passes beyond the conformance suite:
 * errors that name the database and cause, bounded calls, reconnection, the schema version.
 * A subclass per database says how to reach it and adds its own tests.
 */
class SqlServerTest : public QObject
{
    Q_OBJECT
protected:
    //! The backend URL of the test user, plus \a query.
    virtual QUrl url(const QString &query = {}) const = 0;
    //! Runs \a sql as the server's superuser in the test database.
    virtual bool admin(const QString &sql) const = 0;
    //! Ends every connection of the test user, as a server restart would.
    virtual bool killClients() const = 0;
    //! What the server says when the password is wrong.
    virtual QString authFailure() const = 0;
    //! The server's process id (its postmaster, for PostgreSQL).
    virtual qint64 serverPid() const = 0;
    //! 127.0.0.1 and the port the server listens on.
    virtual quint16 serverPort() const = 0;
    //! A query that counts the sessions waiting for a row lock (acquire's first statement).
    virtual QString lockWaitersQuery() const = 0;
    //! Runs \a sql as the superuser and answers its first value.
    virtual QString adminValue(const QString &sql) const = 0;

    //! Which DDL block of docs/backend-sql.md applies: "postgresql" or "mysql".
    virtual QString ddlName() const = 0;
    //! As the superuser: creates a new database, runs \a ddl in it (which grants DML to
    //! simba_app), creates the login simba_app; answers simba_app's URL of that database.
    virtual QUrl prepareLeastPrivilege(const QString &ddl) const = 0;
    //! The SQL block of docs/backend-sql.md marked \a name.
    static QString documentedDdl(const QString &name);

    //! \a u with its port replaced by \a port (e.g. a proxy's).
    static QUrl viaPort(QUrl u, quint16 port);

    //! A table prefix no other test uses.
    QString newPrefix();
    //! A new prefix whose tables an instance with the default statement timeout made. A
    //! test's short statementTimeout is also the server's idle-in-transaction timeout, and the
    //! schema's creation, one transaction of many statements, was ended by it under ASan
    //! beside five other tests (PostgreSQL: "terminating connection due to
    //! idle-in-transaction timeout", which left the test function).
    QString newPrefixWithSchema();
    //! \a query with \a url's password replaced by \a password.
    QUrl withPassword(const QString &password, const QString &query = {}) const;

    const QSimbaLeaseName a = QSimbaLeaseName::of(QStringLiteral("a"));

    //! The body of routineReadsAfterTheLock(), for a subclass to run under other settings.
    void checkRoutineReadsAfterTheLock();

private Q_SLOTS:
    void wrongPasswordIsABackendError();
    void unreachableServerFailsInBoundedTime();
    void newerSchemaIsAnError();
    void lostConnectionIsReopened();
    void lockWaitIsBounded();
    void leastPrivilegeRoleRunsEveryCall();
    void routineReadsAfterTheLock();
    void documentedRoutineIsTheBackendsOwn();
    void olderSchemaIsMigrated();
    void versionTwoIsMigrated();
    void versionThreeIsMigrated();
    void freeNameIsTakenWithoutThePrefixLock();
    void frozenServerFailsEveryCallInBoundedTime();
    void blackHoledServerFailsEveryCallInBoundedTime();
    void resetConnectionsFailFastAndRecover();
    void closeReturnsWhileTheServerIsFrozen();
    void subscriptionEndsWhileTheServerIsFrozen();
    void pausedClientCannotStallThePrefix();
    void callingThreadsHaveConnectionsOfTheirOwn();
    void blockingLockCycleRunsOnTheCallingThread();
    void statementsDoNotWakeTheWatchdog();

private:
    //! The server connections of the test user now.
    int userConnections() const;

    int m_prefixes = 0;
};
