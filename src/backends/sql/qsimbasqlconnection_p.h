// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaerror.h"
#include "qsimbasqldialect_p.h"
#include "qsimbasqllogging_p.h"

#include <QtCore/QVariantList>
#include <QtSql/QSqlDatabase>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <type_traits>

class QSqlError;
class QSqlQuery;
class QThread;

/*
 * The backend's one QSqlDatabase connection: opened lazily on the first call's thread, set
 * up (timeouts, TLS check), the schema checked and created or migrated when needed, and
 * every statement bounded. call() runs one SPI call as one transaction holding the
 * schema_version row. Used only on the thread of the first call (checked).
 *
 * Bounds: opening takes at most the connect timeout (libpq and Connector/C count it in whole
 * seconds, libpq at least 2 s); after that, every statement of a call (and of the setup
 * after a connect) must finish by statementTimeout + CallSlack from the call's start, or
 * the watchdog aborts the connection (see QSimbaSqlWatchdog) and the call throws.
 */
class QSimbaSqlConnection
{
public:
    using Rows = QList<QVariantList>;
    using Options = QSimbaSqlLeaseBackend::Options;
    using Driver = QSimbaSqlLeaseBackend::Driver;

    //! Added to statementTimeout for a call's client-side deadline: the server's own
    //! statement and lock timeouts fire first, with their clearer messages.
    static constexpr std::chrono::milliseconds CallSlack{1000};

    explicit QSimbaSqlConnection(const Options &options);
    ~QSimbaSqlConnection();

    const Options &options() const { return m_options; }
    const QSimbaSqlDialect &dialect() const { return m_dialect; }
    const QString &description() const { return m_description; }

    //! Runs \a sql (prepared once per connection when it has binds). Throws QSimbaBackendError.
    Rows exec(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);
    //! exec(), answering the rows of every result set of a MySQL script (one per statement
    //! that answers columns).
    QList<Rows> execAll(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);
    //! Runs \a body as one transaction that holds the version row. A connection found lost
    //! at the start of the call is reopened and the call retried once; nothing was done before.
    template<typename Body>
    auto call(Body &&body) -> decltype(body());
    //! Like call(), with the transaction's first read and last write known: on MySQL/MariaDB
    //! BEGIN, the version row's lock and \a read go as one multi-statement round trip, and the
    //! write that \a body leaves in its \a write argument goes with the COMMIT (values inlined
    //! as literals: only names, session ids and numbers). \a body gets the read's rows.
    template<typename Body>
    auto callFused(const QString &read, const QVariantList &binds, Body &&body)
        -> decltype(body(Rows(), static_cast<QString *>(nullptr), static_cast<QVariantList *>(nullptr)));
    //! Runs \a sql alone, in autocommit (one round trip: the statement is its own
    //! transaction, without the version row's lock), with the reconnect-once rule of call().
    Rows single(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);

private:
    void checkThread();
    bool ensureOpen();
    void setUp(bool mariaDb);
    std::optional<int> readVersion();
    void createOrMigrate();
    void closeConnection();
    void rollback();
    void startCall();
    //! Begins the transaction and locks the version row; checks the version.
    void beginLocked();
    //! After \a e at the start of a call: closes the connection; true when the call should
    //! run once more on a new one (a kept connection found lost, not aborted).
    bool reopenAfter(const QSimbaBackendError &e, bool reused, int attempt);
    void checkVersion(int version) const;
    //! Whether a script of several statements goes as one round trip with its last result
    //! and every error answered: MySQL/MariaDB (Qt's QMYSQL sets CLIENT_MULTI_STATEMENTS). Not PostgreSQL:
    //! Qt 6.4's QPSQL answers a script's first result only. Not SQLite: no round trips.
    bool fuses() const { return m_options.driver == Driver::MySql; }
    //! \a sql with each ? replaced by the literal of its bind.
    QString inlined(const QString &sql, const QVariantList &binds) const;
    Rows beginLockedReading(const QString &read, const QVariantList &binds);
    Rows beginLockedReadingPostgres(const QString &read, const QVariantList &binds);

public:
    //! PostgreSQL: a callFused() read that starts with this (\c{WITH qsimba_version AS (SELECT
    //! version FROM <version table> WHERE id = 1), …}) answers the version as its first column
    //! and a non-NULL marker as its second on every row, and one row with a NULL marker when
    //! it read nothing; it may then write (a data-modifying WITH), within the call's lock.
    static constexpr QLatin1String VersionLedRead{"WITH qsimba_version AS "};

private:
    void commitWith(const QString &write, const QVariantList &binds);
    [[noreturn]] void fail(const QString &what, const QSqlError &error);
    QSimbaBackendError newerSchema(int found) const;

    Options m_options;
    QSimbaSqlDialect m_dialect;
    QString m_description;
    QString m_connectionName;
    QThread *m_thread = nullptr; // the thread of the first call: the connection's thread
    QSqlDatabase m_db;
    std::map<QString, std::unique_ptr<QSqlQuery>> m_prepared; // statements prepared on the open connection
    std::chrono::steady_clock::time_point m_deadline;            // of the running call
    bool m_lost = false; // the last failure was the connection's (lost, refused, aborted)
    bool m_aborted = false; // the last failure was the watchdog's
};

template<typename Body>
auto QSimbaSqlConnection::call(Body &&body) -> decltype(body())
{
    return callFused(QString(), {}, [&](Rows, QString *, QVariantList *) { return body(); });
}

template<typename Body>
auto QSimbaSqlConnection::callFused(const QString &read, const QVariantList &binds, Body &&body)
    -> decltype(body(Rows(), static_cast<QString *>(nullptr), static_cast<QVariantList *>(nullptr)))
{
    checkThread();
    for (int attempt = 0;; ++attempt) {
        const bool reused = ensureOpen();
        Rows rows;
        try {
            rows = beginLockedReading(read, binds);
        } catch (const QSimbaBackendError &e) {
            if (reopenAfter(e, reused, attempt))
                continue;
            throw;
        }
        try {
            QString write;
            QVariantList writeBinds;
            if constexpr (std::is_void_v<decltype(body(std::move(rows), &write, &writeBinds))>) {
                body(std::move(rows), &write, &writeBinds);
                commitWith(write, writeBinds);
                return;
            } else {
                auto result = body(std::move(rows), &write, &writeBinds);
                commitWith(write, writeBinds);
                return result;
            }
        } catch (const QSimbaBackendError &) {
            closeConnection(); // also ends the transaction; the next call reconnects
            throw;
        } catch (...) {
            rollback();
            throw;
        }
    }
}
