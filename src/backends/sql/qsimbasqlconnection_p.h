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
    //! that answers columns); \a affected is the first statement's count.
    QList<Rows> execAll(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);
    //! Runs \a body as one transaction that holds the version row. A connection found lost
    //! at the start of the call is reopened and the call retried once; nothing was done before.
    template<typename Body>
    auto call(Body &&body) -> decltype(body());
    //! Runs \a sql alone, in autocommit (one round trip: the statement is its own
    //! transaction, without the version row's lock), with the reconnect-once rule of call().
    //! On MySQL the binds are inlined as literals: only names, session ids and numbers.
    Rows single(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);
    //! Runs \a sql, one autocommit statement that calls a server-side routine answering rows
    //! led by the schema version (QSimbaSqlDialect::acquireCall()), like single(); answers
    //! the rows of every result set without that column, and throws when the routine found
    //! another schema version.
    Rows routine(const QString &sql, const QVariantList &binds);
    //! MySQL: the insert id that the last statement's answer carried (for an UPDATE, the
    //! value it gave LAST_INSERT_ID(expr)), 0 when none; 0 on the other databases.
    qint64 lastInsertId() const { return m_lastInsertId; }

private:
    //! Runs \a statement (one autocommit statement) on the open connection, reconnecting and
    //! running it once more when a kept connection turns out to be lost.
    template<typename Statement>
    auto autocommit(Statement &&statement) -> decltype(statement());
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
    //! \a sql with each ? replaced by the literal of its bind.
    QString inlined(const QString &sql, const QVariantList &binds) const;
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
    qint64 m_lastInsertId = 0;
};

template<typename Body>
auto QSimbaSqlConnection::call(Body &&body) -> decltype(body())
{
    checkThread();
    for (int attempt = 0;; ++attempt) {
        const bool reused = ensureOpen();
        try {
            beginLocked();
        } catch (const QSimbaBackendError &e) {
            if (reopenAfter(e, reused, attempt))
                continue;
            throw;
        }
        try {
            if constexpr (std::is_void_v<decltype(body())>) {
                body();
                exec(QStringLiteral("COMMIT"));
                return;
            } else {
                auto result = body();
                exec(QStringLiteral("COMMIT"));
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
