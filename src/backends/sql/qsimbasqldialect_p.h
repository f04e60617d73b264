// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbasqlleasebackend.h"

#include <QtCore/QStringList>

class QSqlDatabase;

/*
 * What differs between the databases: the driver, the SQL of the clock, locking and
 * "insert unless present", the DDL of the schema, and the per-connection settings that
 * bound every call. Plain value; reentrant.
 */
class QSimbaSqlDialect
{
public:
    using Driver = QSimbaSqlLeaseBackend::Driver;
    using Options = QSimbaSqlLeaseBackend::Options;

    explicit QSimbaSqlDialect(const Options &options);

    Driver driver() const { return m_options.driver; }
    std::chrono::milliseconds statementTimeout() const { return m_options.statementTimeout; }
    std::chrono::milliseconds hintInterval() const { return m_options.hintInterval; }
    //! The client-side bound of a statement outside a call (the driver's setup after a
    //! connect, the hint connections' statements): statementTimeout and a second's slack,
    //! so the server's own timeouts fire first.
    std::chrono::milliseconds statementBound() const { return m_options.statementTimeout + std::chrono::seconds(1); }
    static QString driverName(Driver driver);
    static QString scheme(Driver driver);
    static int defaultPort(Driver driver);

    //! An SQL expression: the database's clock, in whole milliseconds since the epoch.
    QString now() const;
    //! Tables of this prefix.
    QString versionTable() const { return m_options.tablePrefix + QStringLiteral("schema_version"); }
    QString sessions() const { return m_options.tablePrefix + QStringLiteral("sessions"); }
    QString leases() const { return m_options.tablePrefix + QStringLiteral("leases"); }
    QString members() const { return m_options.tablePrefix + QStringLiteral("members"); }
    //! The PostgreSQL channel of this prefix's hints.
    QString channel() const { return m_options.tablePrefix + QStringLiteral("hints"); }

    //! Starts a call's transaction, reads the schema version and, on servers, locks its row
    //! (SQLite: BEGIN IMMEDIATE, the database's write lock); the last statement answers the
    //! version. Every call holds the lock, so calls are serialized and the clock read after
    //! it is monotonic in commit order.
    QStringList beginLocked() const;
    //! A query with one bind, a table name: one row when the table exists.
    QString tableExists() const;
    //! INSERT of \a rows rows of \a columns (placeholders \a row each) that skips rows whose
    //! key is present.
    QString insertIgnore(const QString &table, const QString &columns, const QString &row, int rows) const;
    //! "?, ?, ?" for \a n values.
    static QString placeholders(int n, const QString &each = QStringLiteral("?"));

    //! Serializes schema creation between clients (before / after the DDL).
    QStringList schemaLockBegin() const;
    QStringList schemaLockEnd() const;
    QString createVersionTable() const;
    //! The DDL of migration step \a from → \a from + 1 (0 → 1 creates the tables, 1 → 2
    //! nothing any more (it created version 2's routines), 2 → 3 the server-side routines of
    //! this version and, on the servers, drops the index on the leases' holder).
    QStringList migration(int from) const;
    //! PostgreSQL, MySQL/MariaDB: the DDL that creates (or replaces) the routines of this
    //! prefix; SQLite has none.
    QStringList routines() const;
    //! Whether acquire() is one statement that calls the prefix's routine (not SQLite).
    bool hasRoutines() const { return m_options.driver != Driver::Sqlite; }
    //! The statement that calls the acquire routine, with three binds: the schema version
    //! this code expects, the session, the names joined by commas. Each row answered:
    //! version, name, holder, token, holder's remaining, caller's remaining (after the
    //! routine took what was free); one row of the version found and NULLs when it is not
    //! the expected one, nothing when the caller's session is not live (MySQL) or no name
    //! exists.
    QString acquireCall() const;

    //! Applies the connection parameters and timeouts to \a db (before open()).
    void configure(QSqlDatabase &db) const;
    //! Statements run once per connection, after open().
    QStringList connectionSetup(bool mariaDb) const;

private:
    Options m_options;
};
