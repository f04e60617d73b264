// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlleasebackend.h"

#include "qsimbaerror.h"
#include "qsimbasqldialect_p.h"
#include "qsimbasqlhintlistener_p.h"
#include "qsimbasqllogging_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QRegularExpression>
#include <QtCore/QThread>
#include <QtCore/QUrlQuery>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>
#include <QtSql/QSqlRecord>

#include <map>
#include <type_traits>

/*!
    \class QSimbaSqlLeaseBackend
    \brief Leases in SQLite, PostgreSQL or MySQL/MariaDB through QSqlDatabase.

    Each SPI call is one short transaction. It starts by locking the row of the schema
    version table (SQLite: \c{BEGIN IMMEDIATE}, the database's write lock), which both
    checks that the schema is the version this code knows and serializes every call of
    every client on the database: a decision read in the transaction cannot be invalidated
    before it commits, so two clients never both hold a lease. Every expiry and remaining
    duration is computed by the database's clock inside the statements; the client's clock
    is never written or compared.

    The connection is opened lazily on the first call and used only on that call's thread.
    A failed call closes it; the next call reopens it (and retries once, when a connection
    that was open before turns out to be lost).

    Every SPI call runs on the calling thread and blocks until the database answered: each
    statement at most the statement timeout, connecting at most the connect timeout. Failures
    of the database throw QSimbaBackendError naming describe() and the cause; bad input
    throws QSimbaInvalidArgumentError; a call from another thread throws
    QSimbaIllegalStateError.
*/

using namespace std::chrono;
using Millis = QSimbaLeaseBackend::Millis;
using Driver = QSimbaSqlLeaseBackend::Driver;
using Options = QSimbaSqlLeaseBackend::Options;

namespace {
// "://user:password@" → "://user:***@", for messages that quote a URL.
QString redactPassword(QString text)
{
    static const QRegularExpression userInfo(QStringLiteral("(://[^:/@\\s]*:)[^@/\\s]*@"));
    return text.replace(userInfo, QStringLiteral("\\1***@"));
}

QString shownUrl(const QUrl &url)
{
    return redactPassword(url.toString());
}

QString describeOptions(const Options &o)
{
    QString text = QSimbaSqlDialect::scheme(o.driver) + QStringLiteral("://");
    if (o.driver == Driver::Sqlite) {
        text += o.database;
    } else {
        if (!o.user.isEmpty())
            text += o.user + (o.password.isEmpty() ? QString() : QStringLiteral(":***")) + QLatin1Char('@');
        text += (o.host.contains(QLatin1Char(':')) ? QLatin1Char('[') + o.host + QLatin1Char(']') : o.host)
                + QLatin1Char(':')
                + QString::number(o.port > 0 ? o.port : QSimbaSqlDialect::defaultPort(o.driver)) + QLatin1Char('/')
                + o.database;
    }
    if (o.tablePrefix != Options().tablePrefix)
        text += QStringLiteral("?prefix=") + o.tablePrefix;
    return text;
}

// Throws QSimbaInvalidArgumentError naming the first bad option; \a where names the source.
void validateOptions(const Options &o, const QString &where)
{
    const auto bad = [&](const QString &why) {
        return QSimbaInvalidArgumentError(QStringLiteral("invalid SQL backend options (%1): %2").arg(where, why));
    };
    static const QRegularExpression prefixRule(QStringLiteral("^[a-z_][a-z0-9_]{0,31}$"));
    if (!prefixRule.match(o.tablePrefix).hasMatch())
        throw bad(QStringLiteral("table prefix '%1' (option prefix) must be 1–32 characters of [a-z0-9_], "
                                 "not starting with a digit")
                      .arg(o.tablePrefix));
    if (o.connectTimeout < 1ms)
        throw bad(QStringLiteral("connectTimeout must be at least 1ms, got %1ms").arg(o.connectTimeout.count()));
    if (o.statementTimeout < 1ms)
        throw bad(QStringLiteral("statementTimeout must be at least 1ms, got %1ms").arg(o.statementTimeout.count()));
    if (o.database.isEmpty())
        throw bad(o.driver == Driver::Sqlite ? QStringLiteral("no database file path")
                                             : QStringLiteral("no database name"));
    if (o.driver != Driver::Sqlite && o.host.isEmpty())
        throw bad(QStringLiteral("no host"));
    if (o.port < 0 || o.port > 65535)
        throw bad(QStringLiteral("port %1 is out of range").arg(o.port));
}

milliseconds parseTimeout(const QString &key, const QString &value, const std::function<QSimbaInvalidArgumentError(const QString &)> &bad)
{
    // A number and a unit: 500ms, 2s, 1.5s, 1m. (Parsed here rather than with Core's private
    // duration helpers, so this library depends only on Core's public API.)
    static const QRegularExpression form(QStringLiteral("^([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)$"));
    const auto match = form.match(value);
    std::optional<milliseconds> parsed;
    if (match.hasMatch()) {
        const double number = match.captured(1).toDouble();
        const QString unit = match.captured(2);
        const double factor = unit == QLatin1String("ms") ? 1 : unit == QLatin1String("s") ? 1e3 : unit == QLatin1String("m") ? 6e4 : 3.6e6;
        if (number * factor < 1e12)
            parsed = milliseconds(qint64(number * factor));
    }
    if (!parsed)
        throw bad(QStringLiteral("option %1 has a malformed value '%2': expected a duration such as 2s or 500ms")
                      .arg(key, value));
    const milliseconds ms = *parsed;
    if (ms < 1ms)
        throw bad(QStringLiteral("option %1 must be at least 1ms, got '%2'").arg(key, value));
    return ms;
}
} // namespace

class QSimbaSqlLeaseBackendPrivate
{
public:
    using Rows = QList<QVariantList>;
    using Hint = QSimbaLeaseBackend::Hint;

    explicit QSimbaSqlLeaseBackendPrivate(const Options &o)
        : options(o), dialect(o), description(describeOptions(o)),
          connectionName(QStringLiteral("qsimba-sql-") + QSimbaSessionId::generate().toString())
    {
    }
    ~QSimbaSqlLeaseBackendPrivate();

    Options options;
    QSimbaSqlDialect dialect;
    QString description;
    QString connectionName;
    QThread *thread = nullptr; // the thread of the first call: the connection's thread
    QSqlDatabase db;
    std::map<QString, std::unique_ptr<QSqlQuery>> prepared; // statements prepared on the open connection

    void checkThread();
    bool ensureOpen();
    void ensureSchema();
    void closeConnection();
    [[noreturn]] void fail(const QString &what, const QSqlError &error) const;
    QSimbaBackendError newerSchema(int found) const;
    Rows exec(const QString &sql, const QVariantList &binds = {}, int *affected = nullptr);
    void rollback();
    template<typename Body>
    auto call(Body &&body) -> decltype(body());

    // Inside a call's transaction.
    std::optional<qint64> liveRemaining(const QSimbaSessionId &session);
    void endSession(const QSimbaSessionId &session);
    void sweep();
    void notify(Hint::Kind kind, const QString &name);
    [[noreturn]] void sessionExpired(const QSimbaSessionId &session) const;
    QString liveJoin(const QString &alias) const;
};

QSimbaSqlLeaseBackendPrivate::~QSimbaSqlLeaseBackendPrivate()
{
    if (thread && thread != QThread::currentThread())
        qCDebug(lcSimbaSql, "%s: destroyed off its connection's thread", qPrintable(description));
    prepared.clear();
    if (db.isValid())
        db.close();
    const bool added = db.isValid();
    db = QSqlDatabase();
    if (added)
        QSqlDatabase::removeDatabase(connectionName);
}

void QSimbaSqlLeaseBackendPrivate::checkThread()
{
    const auto named = [](QThread *t) {
        return t->objectName().isEmpty() ? QStringLiteral("0x%1").arg(quintptr(t), 0, 16) : t->objectName();
    };
    QThread *current = QThread::currentThread();
    if (!thread)
        thread = current;
    else if (thread != current)
        throw QSimbaIllegalStateError(
            QStringLiteral("%1: called from thread %2, but its connection belongs to thread %3 (a QSqlDatabase "
                           "connection is used only on the thread that opened it)")
                .arg(description, named(current), named(thread)));
}

// The one choke point where a database error becomes a QSimbaBackendError.
void QSimbaSqlLeaseBackendPrivate::fail(const QString &what, const QSqlError &error) const
{
    QString cause = error.databaseText().trimmed();
    const QString driverText = error.driverText().trimmed();
    if (cause.isEmpty())
        cause = driverText;
    else if (!driverText.isEmpty())
        cause += QStringLiteral(" (") + driverText + QLatin1Char(')');
    qCWarning(lcSimbaSql, "%s: %s: %s", qPrintable(description), qPrintable(what), qPrintable(cause));
    throw QSimbaBackendError(QStringLiteral("%1: %2: %3").arg(description, what, redactPassword(cause)));
}

QSimbaBackendError QSimbaSqlLeaseBackendPrivate::newerSchema(int found) const
{
    return QSimbaBackendError(QStringLiteral("%1: the schema in table %2 is version %3, newer than version %4 that "
                                             "this QSimba understands: upgrade QSimba or use another table prefix")
                                  .arg(description, dialect.versionTable())
                                  .arg(found)
                                  .arg(QSimbaSqlLeaseBackend::SchemaVersion));
}

QSimbaSqlLeaseBackendPrivate::Rows QSimbaSqlLeaseBackendPrivate::exec(const QString &sql, const QVariantList &binds,
                                                                      int *affected)
{
    QSqlQuery plain(db);
    QSqlQuery *query = &plain;
    bool ok = false;
    if (binds.isEmpty()) {
        // Transaction control and settings go unprepared (MySQL cannot prepare all of them).
        ok = plain.exec(sql);
    } else {
        auto &slot = prepared[sql];
        if (!slot) {
            auto q = std::make_unique<QSqlQuery>(db);
            if (!q->prepare(sql)) {
                const QSqlError error = q->lastError();
                prepared.erase(sql);
                fail(QStringLiteral("preparing \"%1\"").arg(sql), error);
            }
            slot = std::move(q);
        }
        query = slot.get();
        for (int i = 0; i < binds.size(); ++i)
            query->bindValue(i, binds.at(i));
        ok = query->exec();
    }
    if (!ok) {
        const QSqlError error = query->lastError();
        query->finish();
        fail(QStringLiteral("\"%1\"").arg(sql), error);
    }
    Rows rows;
    if (query->isSelect()) {
        const int columns = query->record().count();
        while (query->next()) {
            QVariantList row;
            row.reserve(columns);
            for (int c = 0; c < columns; ++c)
                row.append(query->value(c));
            rows.append(row);
        }
    }
    if (affected)
        *affected = query->numRowsAffected();
    query->finish(); // SQLite cannot commit while a statement is still stepping
    return rows;
}

void QSimbaSqlLeaseBackendPrivate::closeConnection()
{
    prepared.clear();
    if (db.isOpen())
        db.close();
}

void QSimbaSqlLeaseBackendPrivate::rollback()
{
    try {
        exec(QStringLiteral("ROLLBACK"));
    } catch (const QSimbaBackendError &) {
        closeConnection(); // the transaction ends with the connection
    }
}

// Opens the connection if needed; true when it was open already (it may have been lost).
bool QSimbaSqlLeaseBackendPrivate::ensureOpen()
{
    if (db.isOpen())
        return true;
    if (!db.isValid()) {
        const QString driver = QSimbaSqlDialect::driverName(options.driver);
        if (!QSqlDatabase::isDriverAvailable(driver))
            throw QSimbaBackendError(QStringLiteral("%1: the Qt SQL driver %2 is not installed (available: %3)")
                                         .arg(description, driver, QSqlDatabase::drivers().join(QStringLiteral(", "))));
        db = QSqlDatabase::addDatabase(driver, connectionName);
        dialect.configure(db);
    }
    if (!db.open()) {
        const QSqlError error = db.lastError();
        db.close();
        fail(QStringLiteral("cannot connect"), error);
    }
    try {
        bool mariaDb = false;
        if (options.driver == Driver::MySql) {
            const Rows version = exec(QStringLiteral("SELECT VERSION()"));
            mariaDb = !version.isEmpty() && version.first().value(0).toString().contains(QLatin1String("MariaDB"));
        }
        for (const QString &statement : dialect.connectionSetup(mariaDb))
            exec(statement);
        ensureSchema();
    } catch (...) {
        closeConnection();
        throw;
    }
    return false;
}

// Creates or migrates the schema, serialized with every other client doing the same.
void QSimbaSqlLeaseBackendPrivate::ensureSchema()
{
    for (const QString &statement : dialect.schemaLockBegin())
        exec(statement);
    try {
        exec(dialect.createVersionTable());
        const Rows rows = exec(QStringLiteral("SELECT version FROM %1 WHERE id = ?").arg(dialect.versionTable()), {1});
        const int found = rows.isEmpty() ? 0 : rows.first().value(0).toInt();
        if (found > QSimbaSqlLeaseBackend::SchemaVersion)
            throw newerSchema(found);
        for (int version = found; version < QSimbaSqlLeaseBackend::SchemaVersion; ++version) {
            qCInfo(lcSimbaSql, "%s: migrating the schema from version %d", qPrintable(description), version);
            for (const QString &statement : dialect.migration(version))
                exec(statement);
        }
        if (found == 0)
            exec(QStringLiteral("INSERT INTO %1 (id, version) VALUES (1, ?)").arg(dialect.versionTable()),
                 {QSimbaSqlLeaseBackend::SchemaVersion});
        else if (found < QSimbaSqlLeaseBackend::SchemaVersion)
            exec(QStringLiteral("UPDATE %1 SET version = ? WHERE id = 1").arg(dialect.versionTable()),
                 {QSimbaSqlLeaseBackend::SchemaVersion});
        for (const QString &statement : dialect.schemaLockEnd())
            exec(statement);
    } catch (...) {
        if (options.driver == Driver::MySql) {
            try {
                for (const QString &statement : dialect.schemaLockEnd())
                    exec(statement);
            } catch (const QSimbaBackendError &) {
            }
        } else {
            rollback();
        }
        throw;
    }
}

// Runs \a body as one transaction that holds the version row. A connection found lost at
// the start of the call is reopened and the call retried once; nothing was done before.
template<typename Body>
auto QSimbaSqlLeaseBackendPrivate::call(Body &&body) -> decltype(body())
{
    checkThread();
    for (int attempt = 0;; ++attempt) {
        const bool reused = ensureOpen();
        try {
            exec(dialect.begin());
        } catch (const QSimbaBackendError &e) {
            closeConnection();
            // On a server, BEGIN fails at once only when the connection is gone; SQLite's
            // BEGIN IMMEDIATE fails after waiting its busy timeout, which a retry would double.
            if (reused && attempt == 0 && options.driver != Driver::Sqlite) {
                qCInfo(lcSimbaSql, "%s: reconnecting after: %s", qPrintable(description), e.what());
                continue;
            }
            throw;
        }
        try {
            const Rows rows = exec(dialect.lockVersion());
            const int version = rows.isEmpty() ? 0 : rows.first().value(0).toInt();
            if (version > QSimbaSqlLeaseBackend::SchemaVersion)
                throw newerSchema(version);
            if (version != QSimbaSqlLeaseBackend::SchemaVersion)
                throw QSimbaBackendError(QStringLiteral("%1: table %2 says schema version %3, expected %4")
                                             .arg(description, dialect.versionTable())
                                             .arg(version)
                                             .arg(QSimbaSqlLeaseBackend::SchemaVersion));
        } catch (const QSimbaBackendError &) {
            closeConnection();
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

void QSimbaSqlLeaseBackendPrivate::notify(Hint::Kind kind, const QString &name)
{
    if (options.driver != Driver::Postgres)
        return;
    // Sent inside the transaction: PostgreSQL delivers it on commit, never on rollback.
    exec(QStringLiteral("SELECT pg_notify(?, ?)"),
         {dialect.channel(), QSimbaSqlHintListener::encode({kind, name})});
}

void QSimbaSqlLeaseBackendPrivate::sessionExpired(const QSimbaSessionId &session) const
{
    throw QSimbaSessionExpiredError(QStringLiteral("%1: session %2 has expired").arg(description, session.toString()));
}

// Frees the session's leases and memberships and forgets it: it is never revived.
void QSimbaSqlLeaseBackendPrivate::endSession(const QSimbaSessionId &session)
{
    const QVariantList id{session.toString()};
    const Rows owned = exec(QStringLiteral("SELECT name FROM %1 WHERE holder = ?").arg(dialect.leases()), id);
    if (!owned.isEmpty())
        exec(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder = ?").arg(dialect.leases()), id);
    for (const auto &row : owned)
        notify(Hint::Kind::Released, row.value(0).toString());
    const Rows groups = exec(QStringLiteral("SELECT grp FROM %1 WHERE session = ?").arg(dialect.members()), id);
    if (!groups.isEmpty())
        exec(QStringLiteral("DELETE FROM %1 WHERE session = ?").arg(dialect.members()), id);
    for (const auto &row : groups)
        notify(Hint::Kind::MembersChanged, row.value(0).toString());
    exec(QStringLiteral("DELETE FROM %1 WHERE id = ?").arg(dialect.sessions()), id);
}

// Forgets every expired session (their leases stay free, their counters stay), so the
// tables hold only live sessions plus the ones expired since the last sweep.
void QSimbaSqlLeaseBackendPrivate::sweep()
{
    // One cutoff read from the database's clock, so every statement agrees on the set.
    const Rows now = exec(QStringLiteral("SELECT ") + dialect.now());
    const QVariantList cutoff{now.first().value(0)};
    const QString expired = QStringLiteral("(SELECT id FROM %1 WHERE expires_at <= ?)").arg(dialect.sessions());
    if (exec(QStringLiteral("SELECT id FROM %1 WHERE expires_at <= ? LIMIT 1").arg(dialect.sessions()), cutoff).isEmpty())
        return;
    const Rows freed = exec(QStringLiteral("SELECT name FROM %1 WHERE holder IN ").arg(dialect.leases()) + expired, cutoff);
    exec(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder IN ").arg(dialect.leases()) + expired, cutoff);
    const Rows groups = exec(QStringLiteral("SELECT DISTINCT grp FROM %1 WHERE session IN ").arg(dialect.members()) + expired, cutoff);
    exec(QStringLiteral("DELETE FROM %1 WHERE session IN ").arg(dialect.members()) + expired, cutoff);
    exec(QStringLiteral("DELETE FROM %1 WHERE expires_at <= ?").arg(dialect.sessions()), cutoff);
    for (const auto &row : freed)
        notify(Hint::Kind::Released, row.value(0).toString());
    for (const auto &row : groups)
        notify(Hint::Kind::MembersChanged, row.value(0).toString());
}

/*!
    Builds a backend from \a options; throws QSimbaInvalidArgumentError naming a bad option.
    Does not connect: the first call does, on its thread.
*/
QSimbaSqlLeaseBackend::QSimbaSqlLeaseBackend(const Options &options)
    : d_ptr((validateOptions(options, describeOptions(options)), std::make_unique<QSimbaSqlLeaseBackendPrivate>(options)))
{
}

/*!
    Closes and removes the connection. Call it on the thread that made the calls, or after
    that thread finished.
*/
QSimbaSqlLeaseBackend::~QSimbaSqlLeaseBackend() = default;

/*!
    Reads \a url: \c{sqlite:///path/file.db}, \c{postgresql://user:pw@host:port/db}
    (also \c{postgres://}), \c{mysql://user:pw@host:port/db} (also \c{mariadb://}), with the
    query options \c prefix, \c connectTimeout and \c statementTimeout (durations such as
    \c 2s or \c 500ms). Throws QSimbaInvalidArgumentError naming the scheme, option or value
    that is wrong, quoting the URL with its password redacted.
*/
Options QSimbaSqlLeaseBackend::optionsFromUrl(const QUrl &url)
{
    const QString shown = url.isValid() ? shownUrl(url) : QString();
    const std::function<QSimbaInvalidArgumentError(const QString &)> bad = [&](const QString &why) {
        return QSimbaInvalidArgumentError(shown.isEmpty() ? QStringLiteral("invalid SQL backend URL: %1").arg(why)
                                                          : QStringLiteral("invalid SQL backend URL %1: %2").arg(shown, why));
    };
    if (url.isEmpty())
        throw bad(QStringLiteral("the URL is empty (no scheme): expected sqlite:///path/file.db, "
                                 "postgresql://user:pw@host:port/db or mysql://user:pw@host:port/db"));
    if (!url.isValid()) {
        // QUrl's message quotes the URL, then lists its parts (the password among them).
        QString error = url.errorString();
        error.truncate(error.indexOf(QLatin1String("; scheme =")) >= 0 ? error.indexOf(QLatin1String("; scheme =")) : error.size());
        throw bad(redactPassword(error));
    }
    Options o;
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("sqlite")) {
        o.driver = Driver::Sqlite;
        if (!url.host().isEmpty() || url.port() != -1)
            throw bad(QStringLiteral("an sqlite URL has no host or port: sqlite:///path/file.db"));
        if (!url.userInfo().isEmpty())
            throw bad(QStringLiteral("an sqlite URL has no user or password"));
        o.database = url.path();
        if (o.database.isEmpty())
            throw bad(QStringLiteral("no database file path: sqlite:///path/file.db"));
    } else if (scheme == QLatin1String("postgresql") || scheme == QLatin1String("postgres")
               || scheme == QLatin1String("mysql") || scheme == QLatin1String("mariadb")) {
        o.driver = scheme.startsWith(QLatin1String("postgres")) ? Driver::Postgres : Driver::MySql;
        o.host = url.host();
        if (o.host.isEmpty())
            throw bad(QStringLiteral("no host"));
        o.port = url.port(0);
        const QString path = url.path();
        o.database = path.startsWith(QLatin1Char('/')) ? path.mid(1) : path;
        if (o.database.isEmpty() || o.database.contains(QLatin1Char('/')))
            throw bad(QStringLiteral("expected one database name as the path, e.g. /mydb"));
        o.user = url.userName();
        o.password = url.password();
    } else {
        throw bad(scheme.isEmpty()
                      ? QStringLiteral("no scheme: expected sqlite, postgresql or mysql")
                      : QStringLiteral("unknown scheme '%1': expected sqlite, postgresql (postgres) or mysql (mariadb)")
                            .arg(url.scheme()));
    }
    QSet<QString> seen;
    const auto items = QUrlQuery(url).queryItems(QUrl::FullyDecoded);
    for (const auto &[key, value] : items) {
        if (seen.contains(key))
            throw bad(QStringLiteral("option %1 is given twice").arg(key));
        seen.insert(key);
        if (key == QLatin1String("prefix"))
            o.tablePrefix = value;
        else if (key == QLatin1String("connectTimeout"))
            o.connectTimeout = parseTimeout(key, value, bad);
        else if (key == QLatin1String("statementTimeout"))
            o.statementTimeout = parseTimeout(key, value, bad);
        else
            throw bad(QStringLiteral("unknown option '%1': known options are prefix, connectTimeout and "
                                     "statementTimeout")
                          .arg(key));
    }
    validateOptions(o, shown);
    return o;
}

/*!
    Builds a backend from \a url (see optionsFromUrl()). Does not connect.
*/
std::unique_ptr<QSimbaSqlLeaseBackend> QSimbaSqlLeaseBackend::fromUrl(const QUrl &url)
{
    return std::make_unique<QSimbaSqlLeaseBackend>(optionsFromUrl(url));
}

/*!
    The options this backend was built with.
*/
Options QSimbaSqlLeaseBackend::options() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    return d->options;
}

/*!
    Inspection everywhere; Released and MembersChanged hints on PostgreSQL (LISTEN/NOTIFY).
*/
QSimbaLeaseBackend::Capabilities QSimbaSqlLeaseBackend::capabilities() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    const bool hints = d->options.driver == Driver::Postgres;
    return {hints, hints, true};
}

/*!
    The backend's URL with the password redacted, e.g. \c{postgresql://u:***@db:5432/app}.
*/
QString QSimbaSqlLeaseBackend::describe() const
{
    Q_D(const QSimbaSqlLeaseBackend);
    return d->description;
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
        const qint64 remaining = d->liveRemaining(id).value_or(0);
        return SessionGrant{id, Millis(std::min<qint64>(remaining, lease.count()))};
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
        if (!d->liveRemaining(session)) {
            d->endSession(session);
            return KeepAliveResult::expired();
        }
        d->exec(QStringLiteral("UPDATE %1 SET expires_at = %2 + ?, lease_ms = ? WHERE id = ?")
                    .arg(d->dialect.sessions(), d->dialect.now()),
                {qint64(lease.count()), qint64(lease.count()), session.toString()});
        const qint64 remaining = d->liveRemaining(session).value_or(0);
        QSet<QSimbaLeaseName> owned;
        const auto rows = d->exec(QStringLiteral("SELECT name FROM %1 WHERE holder = ?").arg(d->dialect.leases()),
                                  {session.toString()});
        for (const auto &row : rows)
            owned.insert(QSimbaLeaseName::of(row.value(0).toString()));
        return KeepAliveResult::live(Millis(std::min<qint64>(remaining, lease.count())), owned);
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
    return d->call([&] {
        if (!d->liveRemaining(session))
            d->sessionExpired(session);
        QHash<QSimbaLeaseName, AcquireResult> results;
        if (names.isEmpty())
            return results;
        QVariantList nameBinds;
        for (const auto &name : names)
            nameBinds.append(name.toString());
        const QString in = QSimbaSqlDialect::placeholders(int(names.size()));
        // A row per name that ever existed: its token counter survives every release.
        d->exec(d->dialect.insertIgnore(d->dialect.leases(), QStringLiteral("name, holder, token"),
                                        QStringLiteral("?, NULL, 0"), int(names.size())),
                nameBinds);
        const auto rows = d->exec(QStringLiteral("SELECT l.name, l.holder, l.token, s.expires_at - %1 FROM %2 l "
                                                 "LEFT JOIN %3 s ON s.id = l.holder WHERE l.name IN (%4)")
                                      .arg(d->dialect.now(), d->dialect.leases(), d->dialect.sessions(), in),
                                  nameBinds);
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
            d->exec(QStringLiteral("UPDATE %1 SET holder = ?, token = token + 1 WHERE name IN (%2)")
                        .arg(d->dialect.leases(), QSimbaSqlDialect::placeholders(int(taken.size()) - 1)),
                    taken);
        return results;
    });
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
    d->call([&] {
        QVariantList binds{session.toString()};
        for (auto it = leases.cbegin(); it != leases.cend(); ++it)
            binds.append(it.key().toString());
        const auto rows = d->exec(QStringLiteral("SELECT name, token FROM %1 WHERE holder = ? AND name IN (%2)")
                                      .arg(d->dialect.leases(), QSimbaSqlDialect::placeholders(int(leases.size()))),
                                  binds);
        QVariantList freed{session.toString()};
        for (const auto &row : rows) {
            const QString name = row.value(0).toString();
            if (leases.value(QSimbaLeaseName::of(name), -1) == row.value(1).toLongLong())
                freed.append(name);
        }
        if (freed.size() == 1)
            return;
        d->exec(QStringLiteral("UPDATE %1 SET holder = NULL WHERE holder = ? AND name IN (%2)")
                    .arg(d->dialect.leases(), QSimbaSqlDialect::placeholders(int(freed.size()) - 1)),
                freed);
        for (qsizetype i = 1; i < freed.size(); ++i)
            d->notify(Hint::Kind::Released, freed.at(i).toString());
    });
}

/*!
    Ends \a session: frees its leases and memberships. Closing twice is harmless.
*/
void QSimbaSqlLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    Q_D(QSimbaSqlLeaseBackend);
    d->call([&] { d->endSession(session); });
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
        int inserted = 0;
        d->exec(d->dialect.insertIgnore(d->dialect.members(), QStringLiteral("grp, session"), QStringLiteral("?, ?"), 1),
                {group, session.toString()}, &inserted);
        if (inserted > 0)
            d->notify(Hint::Kind::MembersChanged, group);
    });
}

/*!
    Removes \a session from \a group; a no-op when it is not a member.
*/
void QSimbaSqlLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    Q_D(QSimbaSqlLeaseBackend);
    validateGroup(group);
    d->call([&] {
        int removed = 0;
        d->exec(QStringLiteral("DELETE FROM %1 WHERE grp = ? AND session = ?").arg(d->dialect.members()),
                {group, session.toString()}, &removed);
        if (removed > 0)
            d->notify(Hint::Kind::MembersChanged, group);
    });
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
    On PostgreSQL, a subscription with its own thread and connection that LISTENs to this
    table prefix's channel; elsewhere, one that publishes nothing.
*/
std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaSqlLeaseBackend::subscribe(HintListener listener)
{
    Q_D(QSimbaSqlLeaseBackend);
    if (d->options.driver != Driver::Postgres)
        return QSimbaLeaseBackend::subscribe(std::move(listener));
    return std::make_unique<QSimbaSqlHintListener>(d->dialect, d->description, std::move(listener));
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
