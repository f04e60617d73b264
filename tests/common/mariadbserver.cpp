// SPDX-License-Identifier: Apache-2.0
#include "mariadbserver.h"

#include <QtCore/QDir>

MariaDbServer::MariaDbServer() : TestServer(QStringLiteral("mariadb")) {}

QUrl MariaDbServer::url(const QString &query) const
{
    QUrl u(QStringLiteral("mysql://%1:%2@127.0.0.1:%3/%4").arg(user(), password()).arg(port()).arg(database()));
    if (!query.isEmpty())
        u.setQuery(query);
    return u;
}

int MariaDbServer::sql(const QString &statements, QString *output) const
{
    return run(QStringLiteral("mariadb"),
               {QStringLiteral("--no-defaults"), QStringLiteral("--socket=") + socket(), QStringLiteral("-uroot"),
                QStringLiteral("-N"), QStringLiteral("-B"), QStringLiteral("-e"), statements},
               output);
}

bool MariaDbServer::start()
{
    if (!m_dir.isValid())
        return fail(QStringLiteral("cannot create a temporary directory: ") + m_dir.errorString());
    const QString data = dir() + QStringLiteral("/data");
    // Its own temporary directory: servers bootstrapped at once by parallel tests must not
    // meet in /tmp (seen: "Could not remove temporary table '/tmp/#sql-temptable-…'").
    const QString tmp = dir() + QStringLiteral("/tmp");
    if (!QDir().mkpath(tmp))
        return fail(QStringLiteral("cannot create ") + tmp);
    QString output;
    if (run(QStringLiteral("mariadb-install-db"),
            {QStringLiteral("--no-defaults"), QStringLiteral("--datadir=") + data, QStringLiteral("--user=root"),
             QStringLiteral("--auth-root-authentication-method=normal"), QStringLiteral("--skip-test-db"),
             QStringLiteral("--tmpdir=") + tmp},
            &output)
        != 0)
        return fail(QStringLiteral("mariadb-install-db failed: ") + output);
    QStringList tls;
    if (!m_tls.isEmpty())
        tls << QStringLiteral("--ssl-cert=") + m_tls.at(0) << QStringLiteral("--ssl-key=") + m_tls.at(1)
            << QStringLiteral("--ssl-ca=") + m_tls.at(2) << QStringLiteral("--require-secure-transport=ON");
    const bool ready = launch(
        QStringLiteral("mariadbd"),
        QStringList{QStringLiteral("--no-defaults"), QStringLiteral("--datadir=") + data, QStringLiteral("--socket=") + socket(),
         QStringLiteral("--port=") + QString::number(port()), QStringLiteral("--bind-address=127.0.0.1"),
         QStringLiteral("--user=root"), QStringLiteral("--skip-log-bin"), QStringLiteral("--skip-name-resolve"),
         QStringLiteral("--pid-file=") + dir() + QStringLiteral("/mariadb.pid"), QStringLiteral("--tmpdir=") + tmp,
         QStringLiteral("--innodb-buffer-pool-size=32M"), QStringLiteral("--innodb-flush-log-at-trx-commit=2")}
            + tls,
        [&] {
            return run(QStringLiteral("mariadb-admin"),
                       {QStringLiteral("--no-defaults"), QStringLiteral("--socket=") + socket(), QStringLiteral("-uroot"),
                        QStringLiteral("ping")})
                   == 0;
        });
    if (!ready)
        return false;
    QString setup = QStringLiteral("CREATE DATABASE %1;").arg(database());
    for (const char *host : {"localhost", "127.0.0.1"}) {
        setup += QStringLiteral("CREATE USER '%1'@'%2' IDENTIFIED BY '%3';").arg(user(), QLatin1String(host), password());
        setup += QStringLiteral("GRANT ALL ON %1.* TO '%2'@'%3';").arg(database(), user(), QLatin1String(host));
        if (!m_tls.isEmpty())
            setup += QStringLiteral("CREATE USER '%1'@'%2' IDENTIFIED BY '%3' REQUIRE X509;"
                                    "GRANT ALL ON %4.* TO '%1'@'%2';")
                         .arg(tlsUser(), QLatin1String(host), password(), database());
    }
    if (sql(setup, &output) != 0) {
        stop();
        return fail(QStringLiteral("creating the user and database failed: ") + output);
    }
    return true;
}
