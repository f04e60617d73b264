// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlconnection_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaredact.h"
#include "qsimbasessionid.h"
#include "qsimbasqloptions_p.h"
#include "qsimbasqlwatchdog_p.h"

#include <QtCore/QThread>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>
#include <QtSql/QSqlRecord>

using namespace std::chrono;
using Clock = steady_clock;

namespace {
// Whether \a error says the connection itself is gone (rather than the statement failed).
bool connectionLost(QSimbaSqlLeaseBackend::Driver driver, const QSqlError &error)
{
    const QString code = error.nativeErrorCode();
    if (driver == QSimbaSqlLeaseBackend::Driver::Postgres)
        // No SQLSTATE: libpq's own "server closed the connection"; class 08: connection
        // exception; 57P01-03: the server is shutting down or terminated this backend.
        return code.isEmpty() || code.startsWith(QLatin1String("08")) || code.startsWith(QLatin1String("57P0"));
    if (driver == QSimbaSqlLeaseBackend::Driver::MySql)
        // 2006 server gone away, 2013 lost connection, 4031 MySQL 8's inactivity
        // disconnect, 1927 MariaDB's "connection was killed".
        return code == QLatin1String("2006") || code == QLatin1String("2013") || code == QLatin1String("4031")
               || code == QLatin1String("1927");
    return false;
}
} // namespace

QSimbaSqlConnection::QSimbaSqlConnection(const Options &options)
    : m_options(options), m_dialect(options), m_description(QSimbaSqlOptions::describe(options)),
      m_connectionName(QStringLiteral("qsimba-sql-") + QSimbaSessionId::generate().toString())
{
}

QSimbaSqlConnection::~QSimbaSqlConnection()
{
    if (m_thread && m_thread != QThread::currentThread())
        qCDebug(lcSimbaSql, "%s: destroyed off its connection's thread", qPrintable(m_description));
    m_prepared.clear();
    if (m_db.isValid())
        m_db.close();
    const bool added = m_db.isValid();
    m_db = QSqlDatabase();
    if (added)
        QSqlDatabase::removeDatabase(m_connectionName);
}

void QSimbaSqlConnection::checkThread()
{
    const auto named = [](QThread *t) {
        return t->objectName().isEmpty() ? QStringLiteral("0x%1").arg(quintptr(t), 0, 16) : t->objectName();
    };
    QThread *current = QThread::currentThread();
    if (!m_thread)
        m_thread = current;
    else if (m_thread != current)
        throw QSimbaIllegalStateError(
            QStringLiteral("%1: called from thread %2, but its connection belongs to thread %3 (a QSqlDatabase "
                           "connection is used only on the thread that opened it)")
                .arg(m_description, named(current), named(m_thread)));
}

// The one choke point where a database error becomes a QSimbaBackendError.
void QSimbaSqlConnection::fail(const QString &what, const QSqlError &error)
{
    m_lost = connectionLost(m_options.driver, error);
    QString cause = error.databaseText().trimmed();
    const QString driverText = error.driverText().trimmed();
    if (cause.isEmpty())
        cause = driverText;
    else if (!driverText.isEmpty())
        cause += QStringLiteral(" (") + driverText + QLatin1Char(')');
    if (m_options.driver == Driver::Sqlite && error.nativeErrorCode() == QLatin1String("5"))
        cause += QStringLiteral(": another connection held the database's write lock for the whole busy timeout "
                                "(statementTimeout %1); a process stopped inside a call holds it until it "
                                "continues or ends")
                     .arg(QSimbaDuration::format(m_options.statementTimeout));
    cause = QSimbaRedact::text(cause); // the log too (a driver message could quote a URL)
    qCWarning(lcSimbaSql, "%s: %s: %s", qPrintable(m_description), qPrintable(what), qPrintable(cause));
    throw QSimbaBackendError(QStringLiteral("%1: %2: %3").arg(m_description, what, cause));
}

QSimbaBackendError QSimbaSqlConnection::newerSchema(int found) const
{
    return QSimbaBackendError(QStringLiteral("%1: the schema in table %2 is version %3, newer than version %4 that "
                                             "this QSimba understands: upgrade QSimba or use another table prefix")
                                  .arg(m_description, m_dialect.versionTable())
                                  .arg(found)
                                  .arg(QSimbaSqlLeaseBackend::SchemaVersion));
}

QSimbaSqlConnection::Rows QSimbaSqlConnection::exec(const QString &sql, const QVariantList &binds, int *affected)
{
    return execAll(sql, binds, affected).value(0);
}

QList<QSimbaSqlConnection::Rows> QSimbaSqlConnection::execAll(const QString &sql, const QVariantList &binds, int *affected)
{
    const auto remaining = std::max(1ms, duration_cast<milliseconds>(m_deadline - Clock::now()));
    QSimbaSqlWatchdog::Guard guard(m_db, remaining);
    QSqlQuery plain(m_db);
    QSqlQuery *query = &plain;
    bool ok = false;
    if (binds.isEmpty()) {
        // Transaction control and settings go unprepared (MySQL cannot prepare all of them).
        ok = plain.exec(sql);
    } else {
        auto &slot = m_prepared[sql];
        if (!slot) {
            auto q = std::make_unique<QSqlQuery>(m_db);
            if (!q->prepare(sql)) {
                const QSqlError error = q->lastError();
                m_prepared.erase(sql);
                fail(QStringLiteral("preparing \"%1\"").arg(sql), error);
            }
            slot = std::move(q);
        }
        query = slot.get();
        for (int i = 0; i < binds.size(); ++i)
            query->bindValue(i, binds.at(i));
        ok = query->exec();
    }
    QList<Rows> sets; // the rows of each result set that has columns
    const auto readRows = [&] {
        Rows &rows = sets.emplace_back();
        const int columns = query->record().count();
        while (query->next()) {
            QVariantList row;
            row.reserve(columns);
            for (int c = 0; c < columns; ++c)
                row.append(query->value(c));
            rows.append(row);
        }
    };
    if (ok && query->isSelect())
        readRows();
    if (ok && binds.isEmpty() && m_options.driver == Driver::MySql) {
        // A multi-statement script: every result set, in order; an error of a later
        // statement ends it.
        while (query->nextResult())
            if (query->isSelect())
                readRows();
    }
    if (ok)
        ok = !query->lastError().isValid();
    if (guard.fired()) {
        m_lost = m_aborted = true;
        const QString message =
            QStringLiteral("%1: \"%2\": no answer within the call's %3 (statementTimeout %4 + %5): the server or the "
                           "network is not responding; the connection was aborted")
                .arg(m_description, sql, QSimbaDuration::format(m_options.statementTimeout + CallSlack),
                     QSimbaDuration::format(m_options.statementTimeout), QSimbaDuration::format(CallSlack));
        qCWarning(lcSimbaSql, "%s", qPrintable(message));
        throw QSimbaBackendError(message);
    }
    if (!ok) {
        const QSqlError error = query->lastError();
        query->finish();
        fail(QStringLiteral("\"%1\"").arg(sql), error);
    }
    if (affected)
        *affected = query->numRowsAffected();
    query->finish(); // SQLite cannot commit while a statement is still stepping
    return sets;
}

void QSimbaSqlConnection::closeConnection()
{
    m_prepared.clear();
    if (m_db.isOpen())
        m_db.close();
}

void QSimbaSqlConnection::rollback()
{
    try {
        exec(QStringLiteral("ROLLBACK"));
    } catch (const QSimbaBackendError &) {
        closeConnection(); // the transaction ends with the connection
    }
}

void QSimbaSqlConnection::startCall()
{
    m_deadline = Clock::now() + m_options.statementTimeout + CallSlack;
    m_lost = m_aborted = false;
}

// Opens the connection if needed; true when it was open already (it may have been lost).
bool QSimbaSqlConnection::ensureOpen()
{
    startCall();
    if (m_db.isOpen())
        return true;
    if (!m_db.isValid()) {
        const QString missing = QSimbaSqlOptions::missingDriver(m_options.driver);
        if (!missing.isEmpty())
            throw QSimbaBackendError(m_description + QStringLiteral(": ") + missing);
        m_db = QSqlDatabase::addDatabase(QSimbaSqlDialect::driverName(m_options.driver), m_connectionName);
        m_dialect.configure(m_db);
    }
    if (!QSimbaSqlWatchdog::open(m_db, m_dialect.statementBound())) {
        const QSqlError error = m_db.lastError();
        m_db.close();
        fail(QStringLiteral("cannot connect"), error);
    }
    startCall(); // the open had its own bound
    try {
        bool mariaDb = false;
        if (m_options.driver == Driver::MySql) {
            const Rows version = exec(QStringLiteral("SELECT VERSION()"));
            mariaDb = !version.isEmpty() && version.first().value(0).toString().contains(QLatin1String("MariaDB"));
        }
        setUp(mariaDb);
        const auto version = readVersion();
        if (version && *version > QSimbaSqlLeaseBackend::SchemaVersion)
            throw newerSchema(*version);
        // Only a missing or older schema takes the schema lock and runs DDL, so a role with
        // only SELECT/INSERT/UPDATE/DELETE works on tables created beforehand.
        if (!version || *version < QSimbaSqlLeaseBackend::SchemaVersion)
            createOrMigrate();
    } catch (...) {
        closeConnection();
        throw;
    }
    return false;
}

void QSimbaSqlConnection::setUp(bool mariaDb)
{
    for (const QString &statement : m_dialect.connectionSetup(mariaDb))
        exec(statement);
    if (m_options.driver == Driver::MySql && !m_options.sslMode.isEmpty()
        && m_options.sslMode != QLatin1String("disable")) {
        // Connector/C falls back to no TLS in some versions: check the session really uses it.
        const Rows cipher = exec(QStringLiteral("SHOW SESSION STATUS LIKE 'Ssl_cipher'"));
        if (cipher.isEmpty() || cipher.first().value(1).toString().isEmpty())
            throw QSimbaBackendError(QStringLiteral("%1: the connection does not use TLS although sslmode is %2")
                                         .arg(m_description, m_options.sslMode));
    }
    if (m_options.driver == Driver::Sqlite) {
        // WAL lets readers run beside the writer; without shared memory (e.g. a network file
        // system) SQLite silently keeps its rollback journal.
        const Rows mode = exec(QStringLiteral("PRAGMA journal_mode"));
        if (mode.isEmpty() || mode.first().value(0).toString().compare(QLatin1String("wal"), Qt::CaseInsensitive) != 0)
            throw QSimbaBackendError(QStringLiteral("%1: SQLite did not switch the database to WAL mode (journal "
                                                    "mode is %2): keep the file on a local file system")
                                         .arg(m_description, mode.isEmpty() ? QStringLiteral("unknown")
                                                                            : mode.first().value(0).toString()));
    }
}

// The schema version, 0 when the table has no row; nullopt when the table does not exist.
std::optional<int> QSimbaSqlConnection::readVersion()
{
    if (exec(m_dialect.tableExists(), {m_dialect.versionTable()}).isEmpty())
        return std::nullopt;
    const Rows rows = exec(QStringLiteral("SELECT version FROM %1 WHERE id = 1").arg(m_dialect.versionTable()));
    return rows.isEmpty() ? 0 : rows.first().value(0).toInt();
}

// Creates or migrates the schema, serialized with every other client doing the same.
void QSimbaSqlConnection::createOrMigrate()
{
    const QStringList lockBegin = m_dialect.schemaLockBegin();
    for (qsizetype i = 0; i < lockBegin.size(); ++i) {
        const Rows rows = exec(lockBegin.at(i));
        // MySQL's GET_LOCK answers 1 when taken, 0 on timeout and NULL on error, without an SQL error.
        if (m_options.driver == Driver::MySql && (rows.isEmpty() || rows.first().value(0).toInt() != 1))
            throw QSimbaBackendError(QStringLiteral("%1: another client held the schema creation lock (%2) for "
                                                    "the whole statementTimeout %3")
                                         .arg(m_description, lockBegin.at(i),
                                              QSimbaDuration::format(m_options.statementTimeout)));
    }
    try {
        exec(m_dialect.createVersionTable());
        const Rows rows = exec(QStringLiteral("SELECT version FROM %1 WHERE id = 1").arg(m_dialect.versionTable()));
        const int found = rows.isEmpty() ? 0 : rows.first().value(0).toInt();
        if (found > QSimbaSqlLeaseBackend::SchemaVersion)
            throw newerSchema(found);
        for (int version = found; version < QSimbaSqlLeaseBackend::SchemaVersion; ++version) {
            qCInfo(lcSimbaSql, "%s: migrating the schema from version %d", qPrintable(m_description), version);
            for (const QString &statement : m_dialect.migration(version))
                exec(statement);
        }
        if (found == 0)
            exec(QStringLiteral("INSERT INTO %1 (id, version) VALUES (1, ?)").arg(m_dialect.versionTable()),
                 {QSimbaSqlLeaseBackend::SchemaVersion});
        else if (found < QSimbaSqlLeaseBackend::SchemaVersion)
            exec(QStringLiteral("UPDATE %1 SET version = ? WHERE id = 1").arg(m_dialect.versionTable()),
                 {QSimbaSqlLeaseBackend::SchemaVersion});
        for (const QString &statement : m_dialect.schemaLockEnd())
            exec(statement);
    } catch (...) {
        if (m_options.driver == Driver::MySql) {
            try {
                for (const QString &statement : m_dialect.schemaLockEnd())
                    exec(statement);
            } catch (const QSimbaBackendError &) {
            }
        } else {
            rollback();
        }
        throw;
    }
}

template<typename Statement>
auto QSimbaSqlConnection::autocommit(Statement &&statement) -> decltype(statement())
{
    checkThread();
    for (int attempt = 0;; ++attempt) {
        const bool reused = ensureOpen();
        try {
            return statement();
        } catch (const QSimbaBackendError &e) {
            // Lost before the statement ran, or with it: an autocommit statement either
            // committed or not, and every single statement here is safe to run again.
            if (reopenAfter(e, reused, attempt))
                continue;
            throw;
        }
    }
}

QSimbaSqlConnection::Rows QSimbaSqlConnection::single(const QString &sql, const QVariantList &binds, int *affected)
{
    // MySQL: inlined, as Qt 6.4's QMYSQL resets a prepared statement (COM_STMT_RESET, a round
    // trip of its own) before every execution; a text query is one round trip.
    if (m_options.driver == Driver::MySql)
        return autocommit([&] { return exec(inlined(sql, binds), {}, affected); });
    return autocommit([&] { return exec(sql, binds, affected); });
}

QSimbaSqlConnection::Rows QSimbaSqlConnection::routine(const QString &sql, const QVariantList &binds)
{
    // MySQL: a CALL answers a result set per SELECT the procedure ran, which Qt 6.4's QMYSQL
    // reads only from a statement it did not prepare: the values go inlined as literals
    // (names, session ids and numbers only). PostgreSQL: prepared once per connection.
    const QList<Rows> sets = autocommit([&] {
        return m_options.driver == Driver::MySql ? execAll(inlined(sql, binds)) : QList<Rows>{exec(sql, binds)};
    });
    Rows rows;
    for (const Rows &set : sets) {
        for (const QVariantList &row : set) {
            if (row.value(1).isNull()) { // the version found, not the expected one
                checkVersion(row.value(0).toInt());
                continue;
            }
            rows.append(row.mid(1));
        }
    }
    return rows;
}

bool QSimbaSqlConnection::reopenAfter(const QSimbaBackendError &e, bool reused, int attempt)
{
    const bool retry = reused && attempt == 0 && m_lost && !m_aborted;
    closeConnection();
    if (retry)
        qCInfo(lcSimbaSql, "%s: reconnecting after: %s", qPrintable(m_description), e.what());
    return retry;
}

QString QSimbaSqlConnection::inlined(const QString &sql, const QVariantList &binds) const
{
    QString out;
    out.reserve(sql.size() + binds.size() * 24);
    qsizetype next = 0;
    for (const QChar c : sql) {
        if (c != QLatin1Char('?') || next >= binds.size()) {
            out += c;
            continue;
        }
        const QVariant &v = binds.at(next++);
        if (v.isNull()) {
            out += QStringLiteral("NULL");
        } else if (v.typeId() == QMetaType::QString) {
            // Only names and session ids are bound as text ([A-Za-z0-9._:-]); escaped anyway.
            QString text = v.toString();
            text.replace(QLatin1Char('\''), QLatin1String("''"));
            if (m_options.driver == Driver::MySql)
                text.replace(QLatin1Char('\\'), QLatin1String("\\\\"));
            out += QLatin1Char('\'') + text + QLatin1Char('\'');
        } else {
            out += QString::number(v.toLongLong());
        }
    }
    return out;
}

void QSimbaSqlConnection::beginLocked()
{
    Rows rows;
    for (const QString &statement : m_dialect.beginLocked())
        rows = exec(statement);
    checkVersion(rows.isEmpty() ? 0 : rows.first().value(0).toInt());
}

void QSimbaSqlConnection::checkVersion(int version) const
{
    if (version > QSimbaSqlLeaseBackend::SchemaVersion)
        throw newerSchema(version);
    if (version != QSimbaSqlLeaseBackend::SchemaVersion)
        throw QSimbaBackendError(QStringLiteral("%1: table %2 says schema version %3, expected %4")
                                     .arg(m_description, m_dialect.versionTable())
                                     .arg(version)
                                     .arg(QSimbaSqlLeaseBackend::SchemaVersion));
}
