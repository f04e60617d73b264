// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqldialect_p.h"

#include <QtSql/QSqlDatabase>

/*!
    \class QSimbaSqlDialect
    \internal
    \brief The SQL that differs between SQLite, PostgreSQL and MySQL/MariaDB.
*/

using namespace std::chrono;

namespace {
qint64 ceilSeconds(milliseconds d)
{
    return std::max<qint64>(1, (d.count() + 999) / 1000);
}
} // namespace

QSimbaSqlDialect::QSimbaSqlDialect(const Options &options) : m_options(options) {}

namespace {
struct DriverInfo
{
    const char *qtDriver;
    const char *scheme;
    int defaultPort;
};
// Indexed by QSimbaSqlLeaseBackend::Driver.
constexpr DriverInfo drivers[] = {{"QSQLITE", "sqlite", 0}, {"QPSQL", "postgresql", 5432}, {"QMYSQL", "mysql", 3306}};
} // namespace

QString QSimbaSqlDialect::driverName(Driver driver)
{
    return QLatin1String(drivers[int(driver)].qtDriver);
}

QString QSimbaSqlDialect::scheme(Driver driver)
{
    return QLatin1String(drivers[int(driver)].scheme);
}

int QSimbaSqlDialect::defaultPort(Driver driver)
{
    return drivers[int(driver)].defaultPort;
}

QString QSimbaSqlDialect::now() const
{
    switch (m_options.driver) {
    case Driver::Sqlite:
        // 'now' is fixed for one statement step, with millisecond resolution.
        return QStringLiteral("CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)");
    case Driver::Postgres:
        // clock_timestamp(), not now(): the time of the statement, not of the transaction's start.
        return QStringLiteral("CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)");
    case Driver::MySql:
        // The session's time zone is UTC (connectionSetup), so no DST ambiguity.
        return QStringLiteral("CAST(FLOOR(UNIX_TIMESTAMP(NOW(6)) * 1000) AS SIGNED)");
    }
    return {};
}

QStringList QSimbaSqlDialect::beginLocked() const
{
    const QString select = QStringLiteral("SELECT version FROM ") + versionTable() + QStringLiteral(" WHERE id = 1");
    switch (m_options.driver) {
    case Driver::Sqlite: return {QStringLiteral("BEGIN IMMEDIATE"), select};
    case Driver::Postgres: return {QStringLiteral("BEGIN"), select + QStringLiteral(" FOR UPDATE")};
    case Driver::MySql: return {QStringLiteral("START TRANSACTION"), select + QStringLiteral(" FOR UPDATE")};
    }
    return {};
}

QString QSimbaSqlDialect::tableExists() const
{
    switch (m_options.driver) {
    case Driver::Sqlite: return QStringLiteral("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    case Driver::Postgres:
        // Resolved like the unqualified names of every statement: through the search path.
        return QStringLiteral("SELECT 1 WHERE to_regclass(?) IS NOT NULL");
    case Driver::MySql:
        return QStringLiteral("SELECT 1 FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?");
    }
    return {};
}

QString QSimbaSqlDialect::insertIgnore(const QString &table, const QString &columns, const QString &row,
                                       int rows) const
{
    const QString values = QStringLiteral(" (") + columns + QStringLiteral(") VALUES ")
                           + placeholders(rows, QStringLiteral("(") + row + QStringLiteral(")"));
    switch (m_options.driver) {
    case Driver::Sqlite: return QStringLiteral("INSERT OR IGNORE INTO ") + table + values;
    case Driver::Postgres: return QStringLiteral("INSERT INTO ") + table + values + QStringLiteral(" ON CONFLICT DO NOTHING");
    case Driver::MySql: return QStringLiteral("INSERT IGNORE INTO ") + table + values;
    }
    return {};
}

QString QSimbaSqlDialect::placeholders(int n, const QString &each)
{
    QStringList list;
    list.reserve(n);
    for (int i = 0; i < n; ++i)
        list.append(each);
    return list.join(QStringLiteral(", "));
}

QStringList QSimbaSqlDialect::schemaLockBegin() const
{
    const QString key = m_options.tablePrefix + QStringLiteral("schema");
    switch (m_options.driver) {
    case Driver::Sqlite: return {QStringLiteral("BEGIN IMMEDIATE")};
    case Driver::Postgres:
        return {QStringLiteral("BEGIN"), QStringLiteral("SELECT pg_advisory_xact_lock(hashtext('%1'))").arg(key)};
    case Driver::MySql:
        // MySQL commits each DDL statement: a named lock serializes creation instead. Lock
        // names are server-wide: the database's name keeps other databases out of it.
        return {QStringLiteral("SELECT GET_LOCK(CONCAT(DATABASE(), '.%1'), %2)")
                    .arg(key)
                    .arg(ceilSeconds(m_options.statementTimeout))};
    }
    return {};
}

QStringList QSimbaSqlDialect::schemaLockEnd() const
{
    if (m_options.driver == Driver::MySql)
        return {QStringLiteral("SELECT RELEASE_LOCK(CONCAT(DATABASE(), '.%1'))")
                    .arg(m_options.tablePrefix + QStringLiteral("schema"))};
    return {QStringLiteral("COMMIT")};
}

QString QSimbaSqlDialect::createVersionTable() const
{
    return QStringLiteral("CREATE TABLE IF NOT EXISTS ") + versionTable()
           + QStringLiteral(" (id INTEGER PRIMARY KEY, version INTEGER NOT NULL)")
           + (m_options.driver == Driver::MySql ? QStringLiteral(" ENGINE=InnoDB") : QString());
}

QStringList QSimbaSqlDialect::migration(int from) const
{
    if (from != 0)
        return {};
    const bool mysql = m_options.driver == Driver::MySql;
    // Names are case-sensitive ASCII: MySQL needs a binary collation to compare them so.
    const QString key = mysql ? QStringLiteral("VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin")
                              : QStringLiteral("VARCHAR(128)");
    const QString engine = mysql ? QStringLiteral(" ENGINE=InnoDB") : QString();
    const QString sessionsIndex = sessions() + QStringLiteral("_expires");
    const QString holderIndex = leases() + QStringLiteral("_holder");
    const QString memberIndex = members() + QStringLiteral("_session");
    QStringList ddl{
        QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (id %2 NOT NULL PRIMARY KEY, expires_at BIGINT NOT NULL, "
                       "lease_ms BIGINT NOT NULL, metadata TEXT NOT NULL%3)%4")
            .arg(sessions(), key,
                 mysql ? QStringLiteral(", INDEX %1 (expires_at)").arg(sessionsIndex) : QString(), engine),
        QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (name %2 NOT NULL PRIMARY KEY, holder %2 NULL, "
                       "token BIGINT NOT NULL%3)%4")
            .arg(leases(), key, mysql ? QStringLiteral(", INDEX %1 (holder)").arg(holderIndex) : QString(), engine),
        QStringLiteral("CREATE TABLE IF NOT EXISTS %1 (grp %2 NOT NULL, session %2 NOT NULL, "
                       "PRIMARY KEY (grp, session)%3)%4")
            .arg(members(), key, mysql ? QStringLiteral(", INDEX %1 (session)").arg(memberIndex) : QString(), engine),
    };
    if (!mysql) {
        ddl.append(QStringLiteral("CREATE INDEX IF NOT EXISTS %1 ON %2 (expires_at)").arg(sessionsIndex, sessions()));
        ddl.append(QStringLiteral("CREATE INDEX IF NOT EXISTS %1 ON %2 (holder)").arg(holderIndex, leases()));
        ddl.append(QStringLiteral("CREATE INDEX IF NOT EXISTS %1 ON %2 (session)").arg(memberIndex, members()));
    }
    return ddl;
}

void QSimbaSqlDialect::configure(QSqlDatabase &db) const
{
    db.setDatabaseName(m_options.database);
    const qint64 statementMs = m_options.statementTimeout.count();
    switch (m_options.driver) {
    case Driver::Sqlite:
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(statementMs));
        return;
    case Driver::Postgres:
        // tcp_user_timeout bounds a call to a server that vanished mid-call; keepalives
        // notice a dead idle connection.
    {
        // connect_timeout bounds connecting (libpq: whole seconds, at least 2); tcp_user_timeout
        // a server that vanished mid-call; keepalives a dead idle connection. A frozen server
        // or a black-holed proxy trips none of them: the watchdog bounds those.
        QString options = QStringLiteral("connect_timeout=%1;tcp_user_timeout=%2;keepalives=1;"
                                         "keepalives_idle=5;keepalives_interval=2;keepalives_count=2")
                              .arg(ceilSeconds(m_options.connectTimeout))
                              .arg(statementMs + m_options.connectTimeout.count());
        const std::pair<const char *, QString> tls[] = {{"sslmode", m_options.sslMode},
                                                        {"sslrootcert", m_options.sslRootCert},
                                                        {"sslcert", m_options.sslCert},
                                                        {"sslkey", m_options.sslKey}};
        for (const auto &[key, value] : tls)
            if (!value.isEmpty())
                options += QLatin1Char(';') + QLatin1String(key) + QLatin1Char('=') + value;
        db.setConnectOptions(options);
        break;
    }
    case Driver::MySql: {
        // Connector/C's read and write timeouts bound each network wait; the watchdog bounds the call.
        // Qt's QMYSQL always connects with CLIENT_MULTI_STATEMENTS: a call's BEGIN, lock and
        // first read go as one script.
        QString options = QStringLiteral("MYSQL_OPT_CONNECT_TIMEOUT=%1;MYSQL_OPT_READ_TIMEOUT=%2;"
                                         "MYSQL_OPT_WRITE_TIMEOUT=%2;CLIENT_FOUND_ROWS")
                              .arg(ceilSeconds(m_options.connectTimeout))
                              .arg(ceilSeconds(m_options.statementTimeout) + 1);
        // Any SSL_* option makes Qt call mysql_ssl_set(), which makes Connector/C require TLS;
        // with a CA it also verifies the server's certificate chain.
        if (!m_options.sslRootCert.isEmpty())
            options += QStringLiteral(";SSL_CA=") + m_options.sslRootCert;
        if (!m_options.sslCert.isEmpty())
            options += QStringLiteral(";SSL_CERT=") + m_options.sslCert + QStringLiteral(";SSL_KEY=") + m_options.sslKey;
        if (m_options.sslMode == QLatin1String("require") && m_options.sslRootCert.isEmpty() && m_options.sslCert.isEmpty())
            options += QStringLiteral(";SSL_CIPHER=DEFAULT");
        db.setConnectOptions(options);
        break;
    }
    }
    db.setHostName(m_options.host);
    db.setPort(m_options.port > 0 ? m_options.port : defaultPort(m_options.driver));
    db.setUserName(m_options.user);
    db.setPassword(m_options.password);
}

QStringList QSimbaSqlDialect::connectionSetup(bool mariaDb) const
{
    const qint64 ms = m_options.statementTimeout.count();
    switch (m_options.driver) {
    case Driver::Sqlite:
        // WAL: readers never block the writer; several processes of one host share the file.
        return {QStringLiteral("PRAGMA journal_mode=WAL")};
    case Driver::Postgres:
        // A client stopped inside a call must not hold the version row for long.
        return {QStringLiteral("SET client_min_messages = warning"), // no NOTICE for IF NOT EXISTS
                QStringLiteral("SET statement_timeout = %1").arg(ms), QStringLiteral("SET lock_timeout = %1").arg(ms),
                QStringLiteral("SET idle_in_transaction_session_timeout = %1").arg(ms)};
    case Driver::MySql: {
        QStringList setup{QStringLiteral("SET time_zone = '+00:00'"),
                          QStringLiteral("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
                          QStringLiteral("SET SESSION innodb_lock_wait_timeout = %1").arg(ceilSeconds(m_options.statementTimeout))};
        if (mariaDb) {
            setup.append(QStringLiteral("SET SESSION max_statement_time = %1").arg(double(ms) / 1000.0));
            // A client stopped inside a call loses its transaction (and the version row) after this.
            setup.append(QStringLiteral("SET SESSION idle_transaction_timeout = %1").arg(ceilSeconds(m_options.statementTimeout)));
        } else {
            // MySQL 8 has no idle-transaction bound: wait_timeout (any idle session) stands in
            // for it, so a stopped client holds the version row at most this long; an idle
            // connection is then closed between calls and reopened by the next one. Untested
            // here (Debian ships MariaDB only).
            setup.append(QStringLiteral("SET SESSION max_execution_time = %1").arg(ms));
            setup.append(QStringLiteral("SET SESSION wait_timeout = %1").arg(ceilSeconds(m_options.statementTimeout) + 1));
        }
        return setup;
    }
    }
    return {};
}
