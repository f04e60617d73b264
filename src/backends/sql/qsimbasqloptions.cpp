// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqloptions_p.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredact.h"
#include "qsimbasqldialect_p.h"

#include <QtCore/QFileInfo>
#include <QtCore/QRegularExpression>
#include <QtCore/QSet>
#include <QtCore/QUrlQuery>
#include <QtSql/QSqlDatabase>

#include <functional>

using namespace std::chrono;

namespace {
using Driver = QSimbaSqlOptions::Driver;
using Options = QSimbaSqlOptions::Options;

const QStringList postgresSslModes{QStringLiteral("disable"), QStringLiteral("allow"), QStringLiteral("prefer"),
                                   QStringLiteral("require"), QStringLiteral("verify-ca"),
                                   QStringLiteral("verify-full")};
// Qt 6.4's QMYSQL passes only SSL_CA/SSL_CERT/SSL_KEY/SSL_CIPHER (mysql_ssl_set): it has no
// way to ask MariaDB Connector/C for a host name check, so verify-full is not offered.
const QStringList mysqlSslModes{QStringLiteral("disable"), QStringLiteral("require"), QStringLiteral("verify-ca")};

milliseconds parseTimeout(const QString &key, const QString &value,
                          const std::function<QSimbaInvalidArgumentError(const QString &)> &bad)
{
    const auto parsed = QSimbaDuration::parse(value);
    if (!parsed)
        throw bad(QStringLiteral("option %1 has a malformed value '%2': expected a duration such as 2s or 500ms "
                                 "(a number and one of the units ns, us, ms, s, m, h)")
                      .arg(key, value));
    const auto ms = duration_cast<milliseconds>(*parsed);
    if (ms < 1ms)
        throw bad(QStringLiteral("option %1 must be at least 1ms, got '%2'").arg(key, value));
    return ms;
}
} // namespace

QString QSimbaSqlOptions::qtDriver(Driver driver)
{
    return QSimbaSqlDialect::driverName(driver);
}

QString QSimbaSqlOptions::debianPackage(Driver driver)
{
    switch (driver) {
    case Driver::Sqlite: return QStringLiteral("libqt6sql6-sqlite");
    case Driver::Postgres: return QStringLiteral("libqt6sql6-psql");
    case Driver::MySql: return QStringLiteral("libqt6sql6-mysql");
    }
    return {};
}

QString QSimbaSqlOptions::missingDriver(Driver driver)
{
    const QString name = qtDriver(driver);
    if (QSqlDatabase::isDriverAvailable(name))
        return {};
    return QStringLiteral("the Qt SQL driver %1 is not installed (Debian: %2; available drivers: %3)")
        .arg(name, debianPackage(driver), QSqlDatabase::drivers().join(QStringLiteral(", ")));
}

QString QSimbaSqlOptions::describe(const Options &o)
{
    QString text = QSimbaSqlDialect::scheme(o.driver) + QStringLiteral("://");
    if (o.driver == Driver::Sqlite) {
        text += o.database;
    } else {
        if (!o.user.isEmpty())
            text += o.user + (o.password.isEmpty() ? QString() : QLatin1Char(':') + QSimbaRedact::Mask) + QLatin1Char('@');
        text += QSimbaRedact::hostPort(o.host, o.port > 0 ? o.port : QSimbaSqlDialect::defaultPort(o.driver))
                + QLatin1Char('/') + o.database;
    }
    QStringList query;
    if (o.tablePrefix != Options().tablePrefix)
        query.append(QStringLiteral("prefix=") + o.tablePrefix);
    if (!o.sslMode.isEmpty())
        query.append(QStringLiteral("sslmode=") + o.sslMode);
    if (!query.isEmpty())
        text += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return text;
}

void QSimbaSqlOptions::validate(const Options &o, const QString &where)
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
    if (o.hintInterval < 1ms || o.hintInterval > 1s)
        throw bad(QStringLiteral("hintInterval must be from 1ms to 1s, got %1ms").arg(o.hintInterval.count()));
    if (o.database.isEmpty())
        throw bad(o.driver == Driver::Sqlite ? QStringLiteral("no database file path")
                                             : QStringLiteral("no database name"));
    if (o.driver != Driver::Sqlite && o.host.isEmpty())
        throw bad(QStringLiteral("no host"));
    if (o.port < 0 || o.port > 65535)
        throw bad(QStringLiteral("port %1 is out of range 1–65535 (0: the default port)").arg(o.port));

    // TLS.
    const bool anyTls = !o.sslMode.isEmpty() || !o.sslRootCert.isEmpty() || !o.sslCert.isEmpty() || !o.sslKey.isEmpty();
    if (o.driver == Driver::Sqlite) {
        if (anyTls)
            throw bad(QStringLiteral("SQLite has no network connection: sslmode, sslrootcert, sslcert and sslkey "
                                     "apply to PostgreSQL and MySQL/MariaDB only"));
        return;
    }
    const QStringList &modes = o.driver == Driver::Postgres ? postgresSslModes : mysqlSslModes;
    if (!o.sslMode.isEmpty() && !modes.contains(o.sslMode))
        throw bad(QStringLiteral("sslmode '%1' is not one of %2%3")
                      .arg(o.sslMode, modes.join(QStringLiteral(", ")),
                           o.driver == Driver::MySql && o.sslMode == QLatin1String("verify-full")
                               ? QStringLiteral(" (Qt 6.4's MySQL driver cannot check the server's host name: "
                                                "use verify-ca with a CA that signs only this server)")
                               : QString()));
    if (o.driver == Driver::MySql && o.sslMode == QLatin1String("verify-ca") && o.sslRootCert.isEmpty())
        throw bad(QStringLiteral("sslmode verify-ca needs sslrootcert, the CA certificate file"));
    if (o.sslCert.isEmpty() != o.sslKey.isEmpty())
        throw bad(QStringLiteral("sslcert and sslkey go together (a client certificate and its key)"));
    if (o.sslMode == QLatin1String("disable") && anyTls && (!o.sslRootCert.isEmpty() || !o.sslCert.isEmpty()))
        throw bad(QStringLiteral("sslmode disable contradicts sslrootcert/sslcert"));
    const std::pair<const char *, QString> files[] = {
        {"sslrootcert", o.sslRootCert}, {"sslcert", o.sslCert}, {"sslkey", o.sslKey}};
    for (const auto &[key, path] : files) {
        if (path.isEmpty())
            continue;
        // The drivers take their options as one "k=v;k=v" string, without quoting.
        static const QRegularExpression unsafe(QStringLiteral("[\\s;'\\\\]"));
        if (unsafe.match(path).hasMatch())
            throw bad(QStringLiteral("%1 file '%2' has a space, ';', quote or backslash, which the Qt SQL driver "
                                     "cannot pass on: use another path")
                          .arg(QLatin1String(key), path));
        if (!QFileInfo(path).isFile())
            throw bad(QStringLiteral("%1 file '%2' does not exist or is not a file").arg(QLatin1String(key), path));
    }
}

Options QSimbaSqlOptions::fromUrl(const QUrl &url)
{
    const QString where = url.isValid() ? QSimbaRedact::url(url) : QString();
    const std::function<QSimbaInvalidArgumentError(const QString &)> bad = [&](const QString &why) {
        return QSimbaInvalidArgumentError(where.isEmpty() ? QStringLiteral("invalid SQL backend URL: %1").arg(why)
                                                          : QStringLiteral("invalid SQL backend URL %1: %2").arg(where, why));
    };
    if (url.isEmpty())
        throw bad(QStringLiteral("the URL is empty (no scheme): expected sqlite:///path/file.db, "
                                 "postgresql://user:pw@host:port/db or mysql://user:pw@host:port/db"));
    if (!url.isValid()) {
        // QUrl's message then quotes the source URL and lists its parts, the password among
        // them: keep only the reason.
        QString error = url.errorString();
        const qsizetype source = error.indexOf(QLatin1String("; source was"));
        if (source >= 0)
            error.truncate(source);
        throw bad(QSimbaRedact::text(error));
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
        if (url.port() == 0)
            throw bad(QStringLiteral("port 0 is not a port: give 1–65535, or no port for the default %1")
                          .arg(QSimbaSqlDialect::defaultPort(o.driver)));
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
        else if (key == QLatin1String("hintInterval"))
            o.hintInterval = parseTimeout(key, value, bad);
        else if (key == QLatin1String("sslmode"))
            o.sslMode = value;
        else if (key == QLatin1String("sslrootcert"))
            o.sslRootCert = value;
        else if (key == QLatin1String("sslcert"))
            o.sslCert = value;
        else if (key == QLatin1String("sslkey"))
            o.sslKey = value;
        else
            throw bad(QStringLiteral("unknown option '%1': known options are prefix, connectTimeout, "
                                     "statementTimeout, hintInterval, sslmode, sslrootcert, sslcert and sslkey")
                          .arg(key));
    }
    validate(o, where);
    return o;
}
