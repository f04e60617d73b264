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

    //! A table prefix no other test uses.
    QString newPrefix();
    //! \a query with \a url's password replaced by \a password.
    QUrl withPassword(const QString &password, const QString &query = {}) const;

    const QSimbaLeaseName a = QSimbaLeaseName::of(QStringLiteral("a"));

private Q_SLOTS:
    void wrongPasswordIsABackendError();
    void unreachableServerFailsInBoundedTime();
    void newerSchemaIsAnError();
    void lostConnectionIsReopened();
    void lockWaitIsBounded();

private:
    int m_prefixes = 0;
};
