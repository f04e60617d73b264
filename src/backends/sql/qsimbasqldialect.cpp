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
    if (from == 1)
        return {}; // the routines of version 2 are replaced by the next step's
    if (from == 2) {
        // Version 3: the acquire routine of fewer statements, and no index on the leases'
        // holder on the servers, so a lease's row is rewritten in place on every acquire and
        // release (PostgreSQL: a HOT update; InnoDB: no secondary index entry to move) at the
        // price of keepAlive, closeSession and the sweep reading the leases table whole.
        // PostgreSQL: a flag per lease set by an acquire answered "held by", so a release
        // notifies only when someone waits (see QSimbaSqlLeaseBackend::release()).
        const QString holderIndex = leases() + QStringLiteral("_holder");
        switch (m_options.driver) {
        case Driver::Sqlite: return {};
        case Driver::Postgres:
            return QStringList{QStringLiteral("ALTER TABLE %1 ADD COLUMN IF NOT EXISTS waited BOOLEAN NOT NULL DEFAULT false")
                                   .arg(leases()),
                               QStringLiteral("DROP INDEX IF EXISTS %1").arg(holderIndex)}
                   + routines();
        case Driver::MySql:
            // DROP INDEX needs the INDEX privilege only (ALTER TABLE would need ALTER).
            return routines() + QStringList{QStringLiteral("DROP INDEX IF EXISTS %1 ON %2").arg(holderIndex, leases())};
        }
        return {};
    }
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

/*
 * acquire as one routine (schema version 3): the version row's lock (the prefix lock every
 * locked call takes) and the version check, then per name: one UPDATE that takes the name
 * when it is free (no holder, or a holder whose session is not live) and the caller's
 * session is live. Only when it took nothing does the routine read the row (held by the
 * caller or by a live session: the answer; freed since the UPDATE's snapshot by a release,
 * which takes no prefix lock: take it now; missing: a name never used, inserted as taken
 * with token 1). All inside the server and one transaction, answering the state it decided
 * on. PostgreSQL: a free name costs two statements (lock, UPDATE), not four, and the routine
 * sets no options per call: its statements are simple enough that the plan cache keeps their
 * generic plans (version 2's forced them with SET clauses, saved and restored on every call;
 * setting them for the whole connection instead slowed the fault suite's recoveries by
 * 300–600 ms). MySQL locks each name's row (FOR UPDATE) before it reads and takes
 * it, so a release waits for the commit; the holder's session is read in that statement.
 * READ COMMITTED: each statement after the lock takes a snapshot of its own (PL/pgSQL runs
 * a VOLATILE function's statements each with a new one; InnoDB reads each with a new read
 * view), so it sees every call that held the lock before (tst_sqlpostgres, tst_sqlmariadb:
 * routineReadsAfterTheLock).
 */
QStringList QSimbaSqlDialect::routines() const
{
    const QString prefix = m_options.tablePrefix;
    switch (m_options.driver) {
    case Driver::Sqlite: return {};
    case Driver::Postgres:
        return {QStringLiteral(
                    "CREATE OR REPLACE FUNCTION %1acquire(p_version INTEGER, p_session VARCHAR, p_names VARCHAR) "
                    "RETURNS TABLE (o_version INTEGER, o_name VARCHAR, o_holder VARCHAR, o_token BIGINT, "
                    "o_holder_remaining BIGINT, o_caller_remaining BIGINT) "
                    "LANGUAGE plpgsql VOLATILE AS $qsimba$\n"
                    "DECLARE\n"
                    "  found_version INTEGER;\n"
                    "  wanted VARCHAR;\n"
                    "  held VARCHAR;\n"
                    "  counter BIGINT;\n"
                    "  remaining BIGINT;\n"
                    "  caller BIGINT;\n"
                    "BEGIN\n"
                    "  SELECT v.version INTO found_version FROM %1schema_version v WHERE v.id = 1 FOR UPDATE;\n"
                    "  IF found_version IS DISTINCT FROM p_version THEN\n"
                    "    o_version := COALESCE(found_version, 0);\n"
                    "    RETURN NEXT;\n"
                    "    RETURN;\n"
                    "  END IF;\n"
                    "  o_version := p_version;\n"
                    "  FOREACH wanted IN ARRAY string_to_array(p_names, ',') LOOP\n"
                    "    o_name := wanted;\n"
                    "    UPDATE %1leases l SET holder = p_session, token = l.token + 1, waited = false FROM (SELECT c.expires_at - %2 AS remaining FROM %1sessions c WHERE c.id = p_session) c WHERE l.name = wanted AND c.remaining > 0 AND (l.holder IS NULL OR (l.holder <> p_session AND COALESCE((SELECT s.expires_at FROM %1sessions s WHERE s.id = l.holder) - %2, 0) <= 0)) RETURNING l.token, c.remaining INTO counter, caller;\n"
                    "    IF NOT FOUND THEN\n"
                    "      UPDATE %1leases l SET waited = true WHERE l.name = wanted AND NOT l.waited AND l.holder <> p_session RETURNING l.holder, l.token, (SELECT s.expires_at FROM %1sessions s WHERE s.id = l.holder) - %2, (SELECT c.expires_at FROM %1sessions c WHERE c.id = p_session) - %2 INTO held, counter, remaining, caller;\n"
                    "      IF NOT FOUND THEN\n"
                    "        SELECT l.holder, l.token, (SELECT s.expires_at FROM %1sessions s WHERE s.id = l.holder) - %2, (SELECT c.expires_at FROM %1sessions c WHERE c.id = p_session) - %2 INTO held, counter, remaining, caller FROM %1leases l WHERE l.name = wanted;\n"
                    "        IF NOT FOUND THEN\n"
                    "          SELECT c.expires_at - %2 INTO caller FROM %1sessions c WHERE c.id = p_session;\n"
                    "          IF COALESCE(caller, 0) <= 0 THEN\n"
                    "            RETURN;\n"
                    "          END IF;\n"
                    "          INSERT INTO %1leases (name, holder, token) VALUES (wanted, p_session, 1);\n"
                    "          held := p_session;\n"
                    "          counter := 1;\n"
                    "        END IF;\n"
                    "      END IF;\n"
                    "      IF held IS DISTINCT FROM p_session THEN\n"
                    "        IF COALESCE(caller, 0) <= 0 OR (held IS NOT NULL AND remaining > 0) THEN\n"
                    "          o_holder := held;\n"
                    "          o_token := counter;\n"
                    "          o_holder_remaining := remaining;\n"
                    "          o_caller_remaining := caller;\n"
                    "          RETURN NEXT;\n"
                    "          CONTINUE;\n"
                    "        END IF;\n"
                    "        UPDATE %1leases l SET holder = p_session, token = l.token + 1, waited = false WHERE l.name = wanted RETURNING l.token INTO counter;\n"
                    "      END IF;\n"
                    "    END IF;\n"
                    "    o_holder := p_session;\n"
                    "    o_token := counter;\n"
                    "    o_holder_remaining := caller;\n"
                    "    o_caller_remaining := caller;\n"
                    "    RETURN NEXT;\n"
                    "  END LOOP;\n"
                    "END\n"
                    "$qsimba$")
                    .arg(prefix, now())};
    case Driver::MySql: {
        const QString ascii = QStringLiteral("CHARACTER SET ascii COLLATE ascii_bin");
        return {QStringLiteral("DROP PROCEDURE IF EXISTS %1acquire").arg(prefix),
                QStringLiteral(
                    "CREATE PROCEDURE %1acquire(IN p_version INT, IN p_session VARCHAR(128) %3, IN p_names TEXT %3) "
                    "MODIFIES SQL DATA SQL SECURITY INVOKER\n"
                    "BEGIN\n"
                    "  DECLARE found_version INT DEFAULT NULL;\n"
                    "  DECLARE caller BIGINT DEFAULT NULL;\n"
                    "  DECLARE rest TEXT %3 DEFAULT p_names;\n"
                    "  DECLARE wanted VARCHAR(128) %3;\n"
                    "  DECLARE found INT DEFAULT NULL;\n"
                    "  DECLARE held VARCHAR(128) %3 DEFAULT NULL;\n"
                    "  DECLARE counter BIGINT DEFAULT NULL;\n"
                    "  DECLARE remaining BIGINT DEFAULT NULL;\n"
                    "  DECLARE CONTINUE HANDLER FOR NOT FOUND SET found = NULL;\n"
                    "  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;\n"
                    "  START TRANSACTION;\n"
                    "  SELECT version INTO found_version FROM %1schema_version WHERE id = 1 FOR UPDATE;\n"
                    "  IF found_version IS NULL OR found_version <> p_version THEN\n"
                    "    ROLLBACK;\n"
                    "    SELECT COALESCE(found_version, 0), NULL, NULL, NULL, NULL, NULL;\n"
                    "  ELSE\n"
                    "    SET caller = (SELECT expires_at - %2 FROM %1sessions WHERE id = p_session);\n"
                    "    IF caller > 0 THEN\n"
                    "      REPEAT\n"
                    "        SET wanted = SUBSTRING_INDEX(rest, ',', 1);\n"
                    "        SET rest = SUBSTRING(rest, CHAR_LENGTH(wanted) + 2);\n"
                    "        SET found = NULL, held = NULL, counter = NULL, remaining = NULL;\n"
                    "        SELECT 1, l.holder, l.token, (SELECT s.expires_at - %2 FROM %1sessions s WHERE s.id = l.holder) INTO found, held, counter, remaining FROM %1leases l WHERE l.name = wanted FOR UPDATE;\n"
                    "        IF found IS NULL THEN\n"
                    "          INSERT INTO %1leases (name, holder, token) VALUES (wanted, p_session, 1);\n"
                    "          SET held = p_session, counter = 1, remaining = caller;\n"
                    "        ELSEIF held IS NULL OR (held <> p_session AND COALESCE(remaining, 0) <= 0) THEN\n"
                    "          UPDATE %1leases SET holder = p_session, token = token + 1 WHERE name = wanted;\n"
                    "          SET held = p_session, counter = counter + 1, remaining = caller;\n"
                    "        END IF;\n"
                    "        SELECT p_version, wanted, held, counter, remaining, caller;\n"
                    "      UNTIL rest = '' END REPEAT;\n"
                    "    END IF;\n"
                    "    COMMIT;\n"
                    "  END IF;\n"
                    "END")
                    .arg(prefix, now(), ascii)};
    }
    }
    return {};
}

QString QSimbaSqlDialect::acquireCall() const
{
    if (m_options.driver == Driver::MySql)
        return QStringLiteral("CALL %1acquire(?, ?, ?)").arg(m_options.tablePrefix);
    return QStringLiteral("SELECT * FROM %1acquire(?, ?, ?)").arg(m_options.tablePrefix);
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
        // Qt's QMYSQL always connects with CLIENT_MULTI_STATEMENTS (and so multiple results):
        // the acquire procedure's CALL answers a result set per name.
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
        // READ COMMITTED whatever the server's or role's default: the acquire routine's reads
        // must each see what committed before its lock was granted.
        return {QStringLiteral("SET client_min_messages = warning"), // no NOTICE for IF NOT EXISTS
                QStringLiteral("SET default_transaction_isolation = 'read committed'"),
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
