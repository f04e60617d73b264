// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlleasebackend.h"

#include "qsimbaerror.h"
#include "qsimbasqlconnection_p.h"
#include "qsimbasqlconnections_p.h"
#include "qsimbasqlhintlistener_p.h"
#include "qsimbasqlhints_p.h"
#include "qsimbasqloptions_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

#include <map>

/*!
    \class QSimbaSqlLeaseBackend
    \brief Leases in SQLite, PostgreSQL or MySQL/MariaDB through QSqlDatabase.

    Each SPI call is one short transaction. It starts by locking the row of the schema
    version table (SQLite: \c{BEGIN IMMEDIATE}, the database's write lock), which both
    checks that the schema is the version this code knows and serializes every call of
    every client on the database: a decision read in the transaction cannot be invalidated
    before it commits, so two clients never both hold a lease. A release is the exception:
    one autocommit statement that frees only what the session holds with the given token,
    which no locked call's decision depends on (see release()). Every expiry and remaining
    duration is computed by the database's clock inside the statements; the client's clock
    is never written or compared.

    Each calling thread has a connection of its own (QSimbaSqlConnections; a QSqlDatabase
    connection is used only on the thread that opened it): the first calling thread's (the
    engine's backend thread) is kept for the backend's life; another thread's (a caller that
    runs its own acquire or release, docs/engine.md "Caller runs") until that thread ends, the
    backend is destroyed, or it is the least recently used of more than
    QSimbaSqlConnections::MaxCallerConnections. Each is opened lazily by its thread's first
    call (QSimbaSqlConnection). A failed call closes it; the next call reopens it (and retries
    once, when a connection that was open before turns out to be lost).

    Every SPI call runs on the calling thread and blocks until the database answered or the
    call's deadline passed: connecting at most the connect timeout, then the whole call at
    most statementTimeout + QSimbaSqlConnection::CallSlack (see docs/backend-sql.md for what
    enforces it on each database). Failures of the database throw QSimbaBackendError naming
    describe() and the cause; bad input throws QSimbaInvalidArgumentError.

    Leases in an SQL database through QSqlDatabase: SQLite (QSQLITE, one file shared by the
    processes of one host), PostgreSQL (QPSQL) and MySQL/MariaDB (QMYSQL). The backend reads
    the schema version first and creates or migrates its tables only when they are missing or
    older (so a role with only SELECT/INSERT/UPDATE/DELETE works on tables created
    beforehand); every time is the database's clock. docs/backend-sql.md has the schema, the
    URLs, TLS, the timeouts and what bounds each call, and what each database needs.

    Callable from any thread, one call at a time (Capabilities::anyThread). Destroy the
    backend on the thread of its first call, or after that thread has finished; the other
    threads' connections are closed then (they are idle: calls come one at a time).
*/

using Millis = QSimbaLeaseBackend::Millis;
using Driver = QSimbaSqlLeaseBackend::Driver;
using Options = QSimbaSqlLeaseBackend::Options;
using Rows = QSimbaSqlConnection::Rows;

class QSimbaSqlLeaseBackendPrivate
{
public:
    using Rows = QSimbaSqlConnection::Rows;
    using Hint = QSimbaLeaseBackend::Hint;

    explicit QSimbaSqlLeaseBackendPrivate(const Options &o)
        : connections(o), dialect(connections.home().dialect()),
          hintFile(o.driver == Driver::Sqlite ? QSimbaSqlHints::sideFile(o) : QString())
    {
    }

    QSimbaSqlConnections connections;
    const QSimbaSqlDialect &dialect;
    //! The calling thread's connection.
    QSimbaSqlConnection &connection() { return connections.current(); }
    const QString &description() const { return connections.home().description(); }
    // SQLite: the hints of the running call, appended to hintFile once it committed.
    const QString hintFile;
    QList<Hint> pending;
    // MySQL/MariaDB: what this client waits for, read by its subscription.
    const std::shared_ptr<QSimbaSqlInterest> interest = std::make_shared<QSimbaSqlInterest>();

    Rows exec(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr)
    {
        return connection().exec(sql, binds, affected);
    }
    // One SPI call as one locked transaction; its SQLite hints go out once it committed.
    template<typename Body>
    auto call(Body &&body) -> decltype(body())
    {
        pending.clear();
        if constexpr (std::is_void_v<decltype(body())>) {
            connection().call(std::forward<Body>(body));
            publish();
        } else {
            auto result = connection().call(std::forward<Body>(body));
            publish();
            return result;
        }
    }
    void publish()
    {
        QSimbaSqlHints::append(hintFile, std::exchange(pending, {}));
    }
    struct Change
    {
        QString sql;
        QVariantList binds;
    };
    //! \a change (an UPDATE, DELETE or INSERT), made to publish a hint of \a kind for the
    //! \a column of each row it changes: on PostgreSQL a NOTIFY in the same statement (sent on
    //! commit), on SQLite the rows returned (for the side file); MySQL's waiters read the rows.
    Change withHints(const QString &change, const QString &column, QVariantList binds, Hint::Kind kind) const;
    //! The number of rows \a change changed, given its result; notes SQLite's hints.
    int changed(const Rows &rows, int affected, Hint::Kind kind);

    using Acquired = QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>;
    //! PostgreSQL, MySQL/MariaDB: one autocommit statement calling the prefix's routine.
    Acquired acquireByRoutine(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names);
    //! SQLite: the same steps from the client, in one locked transaction.
    Acquired acquireLocked(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names);

    // Inside a call's transaction.
    std::optional<qint64> liveRemaining(const QSimbaSessionId &session);
    int changeAndNotify(const QString &change, const QString &column, QVariantList binds, Hint::Kind kind);
    void endSession(const QSimbaSessionId &session);
    void sweep();
    [[noreturn]] void sessionExpired(const QSimbaSessionId &session) const;
    QString liveJoin(const QString &alias) const;
};

QString QSimbaSqlLeaseBackendPrivate::liveJoin(const QString &alias) const
{
    return QStringLiteral(" JOIN %1 s ON s.id = %2 WHERE s.expires_at > %3").arg(dialect.sessions(), alias, dialect.now());
}

std::optional<qint64> QSimbaSqlLeaseBackendPrivate::liveRemaining(const QSimbaSessionId &session)
{
    const Rows rows = exec(QStringLiteral("SELECT expires_at - %1 FROM %2 WHERE id = ?").arg(dialect.now(), dialect.sessions()),
                           {session.toString()});
    if (rows.isEmpty())
        return std::nullopt;
    const qint64 remaining = rows.first().value(0).toLongLong();
    return remaining > 0 ? std::optional<qint64>(remaining) : std::nullopt;
}

QSimbaSqlLeaseBackendPrivate::Change QSimbaSqlLeaseBackendPrivate::withHints(const QString &change,
                                                                           const QString &column, QVariantList binds,
                                                                           Hint::Kind kind) const
{
    switch (dialect.driver()) {
    case Driver::Postgres:
        binds << dialect.channel() << QSimbaSqlHintListener::encode({kind, QString()});
        return {QStringLiteral("WITH changed AS (%1 RETURNING %2) "
                               "SELECT pg_notify(CAST(? AS text), CAST(? AS text) || %2) FROM changed")
                    .arg(change, column),
                binds};
    case Driver::Sqlite: return {change + QStringLiteral(" RETURNING ") + column, binds};
    case Driver::MySql: break;
    }
    return {change, binds};
}

int QSimbaSqlLeaseBackendPrivate::changed(const Rows &rows, int affected, Hint::Kind kind)
{
    switch (dialect.driver()) {
    case Driver::Postgres: return int(rows.size());
    case Driver::Sqlite:
        for (const auto &row : rows)
            pending.append({kind, row.value(0).toString()});
        return int(rows.size());
    case Driver::MySql: break;
    }
    return affected;
}

// Runs \a change (an UPDATE, DELETE or INSERT with \a binds) in the call's transaction and
// answers the rows it changed, publishing a hint of \a kind for the \a column of each (see
// withHints(); never on rollback).
int QSimbaSqlLeaseBackendPrivate::changeAndNotify(const QString &change, const QString &column, QVariantList binds,
                                                  Hint::Kind kind)
{
    const Change c = withHints(change, column, std::move(binds), kind);
    int affected = 0;
    const Rows rows = exec(c.sql, c.binds, &affected);
    return changed(rows, affected, kind);
}

// The rows of acquire, as they are after it took what was free (name, holder, token,
// holder's remaining, caller's remaining), become its answer.
QSimbaSqlLeaseBackendPrivate::Acquired
QSimbaSqlLeaseBackendPrivate::acquireByRoutine(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    using AcquireResult = QSimbaLeaseBackend::AcquireResult;
    const QString free = dialect.acquireFree();
    if (names.size() == 1 && !free.isEmpty()) {
        // A free name is taken by one plain statement, without the prefix lock
        // (QSimbaSqlDialect::acquireFree()); whatever else it finds, the routine decides.
        int affected = 0;
        const Rows taken =
            connection().single(free, {session.toString(), session.toString(), names.cbegin()->toString()}, &affected);
        if (!taken.isEmpty() && taken.first().value(0).toLongLong() == 1)
            return {{*names.cbegin(), AcquireResult::granted(taken.first().value(1).toLongLong())}};
        if (dialect.driver() == Driver::MySql && affected == 1 && connection().lastInsertId() > 0)
            return {{*names.cbegin(), AcquireResult::granted(connection().lastInsertId())}};
    }
    QStringList list; // names are [A-Za-z0-9._:-]: no comma
    for (const auto &name : names)
        list.append(name.toString());
    // One round trip: the routine locks, reads and writes inside the server, and commits.
    const Rows rows = connection().routine(dialect.acquireCall(),
                                         {QSimbaSqlLeaseBackend::SchemaVersion, session.toString(),
                                          list.join(QLatin1Char(','))});
    if (rows.isEmpty() || rows.first().value(4).isNull() || rows.first().value(4).toLongLong() <= 0)
        sessionExpired(session);
    Acquired results;
    for (const auto &row : rows) {
        const auto name = QSimbaLeaseName::of(row.value(0).toString());
        const QString holder = row.value(1).toString();
        const qint64 token = row.value(2).toLongLong();
        const qint64 holderRemaining = row.value(3).isNull() ? 0 : row.value(3).toLongLong();
        if (holder == session.toString())
            results.insert(name, AcquireResult::granted(token));
        else if (!holder.isEmpty() && holderRemaining > 0)
            results.insert(name, AcquireResult::heldBy(QSimbaSessionId::of(holder), token, Millis(holderRemaining)));
        else // free, yet not taken by the routine that read it free: never granted
            throw QSimbaBackendError(QStringLiteral("%1: acquire read \"%2\" as free but did not take it")
                                         .arg(description(), name.toString()));
    }
    if (results.size() != names.size())
        throw QSimbaBackendError(QStringLiteral("%1: acquire of %2 names answered %3 of them")
                                     .arg(description())
                                     .arg(names.size())
                                     .arg(results.size()));
    return results;
}

QSimbaSqlLeaseBackendPrivate::Acquired
QSimbaSqlLeaseBackendPrivate::acquireLocked(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    using AcquireResult = QSimbaLeaseBackend::AcquireResult;
    QVariantList nameBinds;
    for (const auto &name : names)
        nameBinds.append(name.toString());
    // Every row with the caller's remaining lease. Every call holds the version row, so the
    // rows read cannot change before this call commits.
    const QString read = QStringLiteral("SELECT l.name AS name, l.holder AS holder, l.token AS token, "
                                        "s.expires_at - %1 AS holder_remaining, "
                                        "(SELECT c.expires_at - %1 FROM %3 c WHERE c.id = ?) AS caller_remaining "
                                        "FROM %2 l LEFT JOIN %3 s ON s.id = l.holder WHERE l.name IN (%4)")
                             .arg(dialect.now(), dialect.leases(), dialect.sessions(),
                                  QSimbaSqlDialect::placeholders(int(names.size())));
    const QVariantList readBinds = QVariantList{session.toString()} + nameBinds;
    return call([&] {
        Rows rows = exec(read, readBinds);
        if (rows.size() < names.size()) {
            // A row per name that ever existed: its token counter survives every release.
            // Created on first use only; not live: the insert is rolled back.
            exec(dialect.insertIgnore(dialect.leases(), QStringLiteral("name, holder, token"), QStringLiteral("?, NULL, 0"),
                                      int(names.size())),
                 nameBinds);
            rows = exec(read, readBinds);
        }
        if (rows.isEmpty() || rows.first().value(4).isNull() || rows.first().value(4).toLongLong() <= 0)
            sessionExpired(session);
        Acquired results;
        QVariantList taken{session.toString()};
        for (const auto &row : rows) {
            const auto name = QSimbaLeaseName::of(row.value(0).toString());
            const QString holder = row.value(1).toString();
            const qint64 token = row.value(2).toLongLong();
            const qint64 holderRemaining = row.value(3).isNull() ? 0 : row.value(3).toLongLong();
            if (holder == session.toString()) {
                results.insert(name, AcquireResult::granted(token));
            } else if (!holder.isEmpty() && holderRemaining > 0) {
                results.insert(name, AcquireResult::heldBy(QSimbaSessionId::of(holder), token, Millis(holderRemaining)));
            } else {
                taken.append(name.toString());
                results.insert(name, AcquireResult::granted(token + 1));
            }
        }
        if (taken.size() > 1)
            exec(QStringLiteral("UPDATE %1 SET holder = ?, token = token + 1 WHERE name IN (%2)")
                     .arg(dialect.leases(), QSimbaSqlDialect::placeholders(int(taken.size()) - 1)),
                 taken);
        return results;
    });
}

void QSimbaSqlLeaseBackendPrivate::sessionExpired(const QSimbaSessionId &session) const
{
    throw QSimbaSessionExpiredError(
        QStringLiteral("%1: session %2 has expired").arg(description(), session.toString()));
}

// Frees the session's leases and memberships and forgets it: it is never revived.
void QSimbaSqlLeaseBackendPrivate::endSession(const QSimbaSessionId &session)
{
    const QVariantList id{session.toString()};
    changeAndNotify(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder = ?").arg(dialect.leases()),
                    QStringLiteral("name"), id, Hint::Kind::Released);
    changeAndNotify(QStringLiteral("DELETE FROM %1 WHERE session = ?").arg(dialect.members()), QStringLiteral("grp"), id,
                    Hint::Kind::MembersChanged);
    exec(QStringLiteral("DELETE FROM %1 WHERE id = ?").arg(dialect.sessions()), id);
}

// Forgets every expired session (their leases stay free, their counters stay), so the
// tables hold only live sessions plus the ones expired since the last sweep.
void QSimbaSqlLeaseBackendPrivate::sweep()
{
    // One cutoff read from the database's clock (at or after the expiry of the session
    // found), so every statement agrees on the set.
    const Rows found = exec(QStringLiteral("SELECT id, %1 FROM %2 WHERE expires_at <= %1 LIMIT 1")
                                .arg(dialect.now(), dialect.sessions()));
    if (found.isEmpty())
        return;
    const QVariantList cutoff{found.first().value(1)};
    const QString expired = QStringLiteral("(SELECT id FROM %1 WHERE expires_at <= ?)").arg(dialect.sessions());
    changeAndNotify(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder IN ").arg(dialect.leases()) + expired,
                    QStringLiteral("name"), cutoff, Hint::Kind::Released);
    changeAndNotify(QStringLiteral("DELETE FROM %1 WHERE session IN ").arg(dialect.members()) + expired,
                    QStringLiteral("grp"), cutoff, Hint::Kind::MembersChanged);
    exec(QStringLiteral("DELETE FROM %1 WHERE expires_at <= ?").arg(dialect.sessions()), cutoff);
}

/*!
    Builds a backend from \a options; throws QSimbaInvalidArgumentError naming a bad option.
    Does not connect: the first call does, on its thread.
*/
QSimbaSqlLeaseBackend::QSimbaSqlLeaseBackend(const Options &options)
    : d_ptr((QSimbaSqlOptions::validate(options, QSimbaSqlOptions::describe(options)),
             std::make_unique<QSimbaSqlLeaseBackendPrivate>(options)))
{
}

/*!
    Closes and removes the connections. Call it on the thread that made the first call, or
    after that thread finished, and not while a call runs.
*/
QSimbaSqlLeaseBackend::~QSimbaSqlLeaseBackend() = default;

/*!
    Reads \a url: \c{sqlite:///path/file.db}, \c{postgresql://user:pw@host:port/db}
    (also \c{postgres://}), \c{mysql://user:pw@host:port/db} (also \c{mariadb://}), with the
    query options \c prefix, \c connectTimeout and \c statementTimeout (durations such as
    \c 2s or \c 500ms, as everywhere in QSimba) and the TLS options \c sslmode,
    \c sslrootcert, \c sslcert and \c sslkey. Throws QSimbaInvalidArgumentError naming the scheme, option or value
    that is wrong, quoting the URL with its password redacted.
*/
Options QSimbaSqlLeaseBackend::optionsFromUrl(const QUrl &url)
{
    return QSimbaSqlOptions::fromUrl(url);
}

/*!
    Builds a backend from \a url (see optionsFromUrl()). Does not connect.
*/
std::unique_ptr<QSimbaSqlLeaseBackend> QSimbaSqlLeaseBackend::fromUrl(const QUrl &url)
{
    Options options = optionsFromUrl(url);
    const QString missing = QSimbaSqlOptions::missingDriver(options.driver);
    if (!missing.isEmpty())
        throw QSimbaInvalidArgumentError(
            QStringLiteral("invalid SQL backend URL %1: %2").arg(QSimbaSqlOptions::describe(options), missing));
    return std::make_unique<QSimbaSqlLeaseBackend>(options);
}

/*!
    The options this backend was built with.
*/
Options QSimbaSqlLeaseBackend::options() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    return d->connections.home().options();
}

/*!
    Inspection, Released and MembersChanged hints everywhere: PostgreSQL LISTEN/NOTIFY, an
    SQLite side file watched by the other processes, MySQL/MariaDB reads of the waited rows.
    Calls from any thread, one at a time, each thread on a connection of its own
    (QSimbaSqlConnections), bounded by QSimbaSqlConnections::callBound().
*/
QSimbaLeaseBackend::Capabilities QSimbaSqlLeaseBackend::capabilities() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    Capabilities caps{true, true, true};
    caps.anyThread = true;
    caps.callBound = d->connections.callBound();
    return caps;
}

/*!
    The backend's URL with the password redacted, e.g. \c{postgresql://u:***@db:5432/app}.
*/
QString QSimbaSqlLeaseBackend::describe() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    return d->description();
}

/*!
    Inserts a session expiring \a lease after the database's now, after forgetting expired
    sessions. Blocks; throws QSimbaBackendError.
*/
QSimbaLeaseBackend::SessionGrant QSimbaSqlLeaseBackend::openSession(Millis lease, const QMap<QString, QString> &metadata)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateLease(lease);
    QJsonObject json;
    for (auto it = metadata.cbegin(); it != metadata.cend(); ++it)
        json.insert(it.key(), it.value());
    const QString metadataText = QString::fromUtf8(QJsonDocument(json).toJson(QJsonDocument::Compact));
    return d->call([&] {
        d->sweep();
        const auto id = QSimbaSessionId::generate();
        d->exec(QStringLiteral("INSERT INTO %1 (id, expires_at, lease_ms, metadata) VALUES (?, %2 + ?, ?, ?)")
                    .arg(d->dialect.sessions(), d->dialect.now()),
                {id.toString(), qint64(lease.count()), qint64(lease.count()), metadataText});
        // It expires \a lease after the insert's now, which is after the call was sent.
        return SessionGrant{id, lease};
    });
}

/*!
    Extends a live session to \a lease from the database's now and reports every lease it
    owns; an expired session is forgotten (its leases freed) and answers Expired.
*/
QSimbaLeaseBackend::KeepAliveResult QSimbaSqlLeaseBackend::keepAlive(const QSimbaSessionId &session, Millis lease,
                                                                     const QSet<QSimbaLeaseName> &)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateLease(lease);
    return d->call([&] {
        // Extends the session only while it is live: 0 rows means expired (or unknown).
        int extended = 0;
        d->exec(QStringLiteral("UPDATE %1 SET expires_at = %2 + ?, lease_ms = ? WHERE id = ? AND expires_at > %2")
                    .arg(d->dialect.sessions(), d->dialect.now()),
                {qint64(lease.count()), qint64(lease.count()), session.toString()}, &extended);
        if (extended == 0) {
            d->endSession(session);
            d->interest->ended(session.toString());
            return KeepAliveResult::expired();
        }
        QSet<QSimbaLeaseName> owned;
        const auto rows = d->exec(QStringLiteral("SELECT name FROM %1 WHERE holder = ?").arg(d->dialect.leases()),
                                  {session.toString()});
        for (const auto &row : rows)
            owned.insert(QSimbaLeaseName::of(row.value(0).toString()));
        return KeepAliveResult::live(lease, owned);
    });
}

/*!
    Grants each free name (a new token: the name's counter plus one) and answers HeldBy with
    the holder's remaining lease for the others. Throws QSimbaSessionExpiredError when
    \a session is not live.
*/
QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaSqlLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateBatch(names);
    if (names.isEmpty()) {
        d->call([&] {
            if (!d->liveRemaining(session))
                d->sessionExpired(session);
        });
        return {};
    }
    const auto answer = d->dialect.hasRoutines() ? d->acquireByRoutine(session, names) : d->acquireLocked(session, names);
    if (d->dialect.driver() != Driver::Sqlite) {
        // What this client now waits for, and no longer: MySQL/MariaDB's subscription reads
        // those rows; PostgreSQL's publishes a hint for each once its LISTEN is (again) up.
        for (auto it = answer.cbegin(); it != answer.cend(); ++it) {
            if (it->isGranted)
                d->interest->granted(it.key().toString());
            else
                d->interest->waitFor(it.key().toString(), it->holder.toString(), it->token,
                                     it->holderRemaining.value_or(Millis(0)));
        }
    }
    return answer;
}

/*!
    Frees each of \a leases that \a session still owns with exactly the given token; any
    other entry is a stale release and a no-op.
*/
void QSimbaSqlLeaseBackend::release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases)
{
    Q_D(QSimbaSqlLeaseBackend);
    if (leases.isEmpty())
        return;
    // One autocommit statement, one round trip, without the version row's lock: each name is
    // freed only if this session holds it with that token, and a call that holds the lock
    // either read the row before (and its own write of it waits for this one, then finds the
    // holder changed) or after this change. The version guard keeps an older QSimba from
    // writing into a newer schema (the release is then a no-op, and the next locked call
    // reports the version).
    QVariantList binds{session.toString()};
    QStringList each;
    for (auto it = leases.cbegin(); it != leases.cend(); ++it) {
        binds << it.key().toString() << it.value();
        each.append(QStringLiteral("(name = ? AND token = ?)"));
    }
    binds << SchemaVersion;
    // PostgreSQL notifies only for a name someone waits for: an acquire answered "held by"
    // set its row's flag in the same locked transaction, so a release either sees it (and
    // notifies on commit) or committed before that acquire locked the row (which then found
    // the name free and took it). An uncontended cycle sends no notification, which every
    // listening client's server process and thread would have woken for. Since schema version
    // 4 the version checked is the row's own (QSimbaSqlDialect::migration(3)) and the
    // notification is sent from the statement's condition, last, so for a row that is freed
    // (a concurrent writer can make the server re-check a row, which may then not be freed: a
    // spurious hint, which changes nothing but when a waiter retries): no subquery, no CTE,
    // no result rows.
    QSimbaSqlLeaseBackendPrivate::Change change;
    if (d->dialect.driver() == Driver::Postgres) {
        binds << d->dialect.channel() << QSimbaSqlHintListener::encode({Hint::Kind::Released, QString()});
        change = {QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder = ? AND (%2) AND version = ? AND (NOT "
                                 "waited OR pg_notify(CAST(? AS text), CAST(? AS text) || name) IS NOT NULL)")
                      .arg(d->dialect.leases(), each.join(QStringLiteral(" OR "))),
                  binds};
    } else {
        change = d->withHints(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder = ? AND (%2) "
                                             "AND (SELECT version FROM %3 WHERE id = 1) = ?")
                                  .arg(d->dialect.leases(), each.join(QStringLiteral(" OR ")),
                                       d->dialect.versionTable()),
                              QStringLiteral("name"), binds, Hint::Kind::Released);
    }
    d->pending.clear();
    int affected = 0;
    const auto rows = d->connection().single(change.sql, change.binds, &affected);
    d->changed(rows, affected, Hint::Kind::Released);
    d->publish();
}

/*!
    Ends \a session: frees its leases and memberships. Closing twice is harmless.
*/
void QSimbaSqlLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    Q_D(QSimbaSqlLeaseBackend);
    d->call([&] { d->endSession(session); });
    d->interest->ended(session.toString());
}

/*!
    Adds the live \a session to \a group (joining twice is harmless); throws
    QSimbaSessionExpiredError when it is not live.
*/
void QSimbaSqlLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateGroup(group);
    d->call([&] {
        if (!d->liveRemaining(session))
            d->sessionExpired(session);
        d->changeAndNotify(
            d->dialect.insertIgnore(d->dialect.members(), QStringLiteral("grp, session"), QStringLiteral("?, ?"), 1),
            QStringLiteral("grp"), {group, session.toString()}, Hint::Kind::MembersChanged);
    });
    d->interest->joined(session.toString(), group);
}

/*!
    Removes \a session from \a group; a no-op when it is not a member.
*/
void QSimbaSqlLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateGroup(group);
    d->call([&] {
        d->changeAndNotify(QStringLiteral("DELETE FROM %1 WHERE grp = ? AND session = ?").arg(d->dialect.members()),
                           QStringLiteral("grp"), {group, session.toString()}, Hint::Kind::MembersChanged);
    });
    d->interest->left(session.toString(), group);
}

/*!
    The live sessions of \a group, sorted by QSimbaSessionId's order (bytewise, whatever the
    database's collation).
*/
QList<QSimbaSessionId> QSimbaSqlLeaseBackend::members(const QString &group)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateGroup(group);
    return d->call([&] {
        QList<QSimbaSessionId> result;
        const auto rows = d->exec(QStringLiteral("SELECT m.session FROM %1 m").arg(d->dialect.members())
                                      + d->liveJoin(QStringLiteral("m.session")) + QStringLiteral(" AND m.grp = ?"),
                                  {group});
        for (const auto &row : rows)
            result.append(QSimbaSessionId::of(row.value(0).toString()));
        std::sort(result.begin(), result.end());
        return result;
    });
}

/*!
    A subscription with a thread of its own: on PostgreSQL its connection LISTENs to this
    table prefix's channel; on SQLite it watches the side file beside the database; on
    MySQL/MariaDB its connection reads the rows this backend waits for, while it waits.
*/
std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaSqlLeaseBackend::subscribe(HintListener listener)
{
    Q_D(QSimbaSqlLeaseBackend);
    switch (d->dialect.driver()) {
    case Driver::Postgres:
        return std::make_unique<QSimbaSqlHintListener>(d->dialect, d->description(), d->interest, std::move(listener));
    case Driver::Sqlite: return std::make_unique<QSimbaSqlHintWatcher>(d->hintFile, std::move(listener));
    case Driver::MySql: break;
    }
    return std::make_unique<QSimbaSqlHintPoller>(d->dialect, d->description(), d->interest,
                                                 std::move(listener));
}

/*!
    The live sessions with their remaining lease and metadata, the held leases with holder,
    token and the holder's remaining lease, and the groups' live members.
*/
QSimbaLeaseBackend::Inspection QSimbaSqlLeaseBackend::inspect()
{
    Q_D(QSimbaSqlLeaseBackend);
    return d->call([&] {
        Inspection view;
        const auto sessions = d->exec(QStringLiteral("SELECT s.id, s.expires_at - %1, s.metadata FROM %2 s WHERE s.expires_at > %1")
                                          .arg(d->dialect.now(), d->dialect.sessions()));
        for (const auto &row : sessions) {
            QMap<QString, QString> metadata;
            const QJsonObject json = QJsonDocument::fromJson(row.value(2).toString().toUtf8()).object();
            for (auto it = json.constBegin(); it != json.constEnd(); ++it)
                metadata.insert(it.key(), it.value().toString());
            view.sessions.append({QSimbaSessionId::of(row.value(0).toString()),
                                  Millis(std::max<qint64>(0, row.value(1).toLongLong())), metadata});
        }
        const auto leases = d->exec(QStringLiteral("SELECT l.name, l.holder, l.token, s.expires_at - %1 FROM %2 l")
                                        .arg(d->dialect.now(), d->dialect.leases())
                                    + d->liveJoin(QStringLiteral("l.holder")));
        for (const auto &row : leases)
            view.leases.append({QSimbaLeaseName::of(row.value(0).toString()), QSimbaSessionId::of(row.value(1).toString()),
                                row.value(2).toLongLong(), Millis(std::max<qint64>(0, row.value(3).toLongLong()))});
        const auto members = d->exec(QStringLiteral("SELECT m.grp, m.session FROM %1 m").arg(d->dialect.members())
                                     + d->liveJoin(QStringLiteral("m.session")));
        std::map<QString, QList<QSimbaSessionId>> groups;
        for (const auto &row : members)
            groups[row.value(0).toString()].append(QSimbaSessionId::of(row.value(1).toString()));
        for (auto &[name, list] : groups) {
            std::sort(list.begin(), list.end());
            view.groups.append({name, list});
        }
        std::sort(view.sessions.begin(), view.sessions.end(), [](auto &a, auto &b) { return a.id < b.id; });
        std::sort(view.leases.begin(), view.leases.end(), [](auto &a, auto &b) { return a.name < b.name; });
        return view;
    });
}
