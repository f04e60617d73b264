// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testserver.h"

#include <QtCore/QUrl>

/*
 * A PostgreSQL server (Debian's postgresql package) on 127.0.0.1 in a private directory.
 * PostgreSQL refuses to run as root: initdb and postgres run as the postgres user
 * (setpriv, which execs, so the QProcess is the postmaster itself). Host connections need
 * a password (scram-sha-256); the superuser reaches it through the Unix socket (trust).
 * start() creates the role user() with password() and the database database().
 */
class PostgresServer : public TestServer
{
public:
    PostgresServer();
    ~PostgresServer() override;

    bool start() override;
    void stop() override;
    void reportOnAbort() const override;
    //! Before start(): serve TLS with \a cert and \a key, trust client certificates signed by
    //! \a ca, and refuse TCP connections without TLS; the role tlsUser() (password
    //! password(), a member of user()) must present a client certificate whose CN is its name.
    void setTls(const QString &cert, const QString &key, const QString &ca);
    QString tlsUser() const { return QStringLiteral("c"); }

    QString user() const { return QStringLiteral("u"); }
    QString password() const { return QStringLiteral("pw"); }
    QString database() const { return QStringLiteral("simba"); }
    //! postgresql://u:pw@127.0.0.1:port/simba, plus \a query (e.g. "prefix=x_").
    QUrl url(const QString &query = {}) const;
    //! Runs \a sql as the superuser with psql in \a db (default: database()); returns its exit
    //! code, its output in \a output.
    int psql(const QString &sql, QString *output = nullptr, const QString &db = {}) const;
    //! The postmaster's process id (the backends are its children), or 0.
    qint64 pid() const { return m_process ? m_process->processId() : 0; }

private:
    //! Prints the server log's slow statements (over 500 ms), lock waits and sessions ended
    //! idle in a transaction: on a loaded machine, whether a stalled call waited for the
    //! server or the server for the client.
    void reportSlowStatements() const;
    bool installTls(const QString &data, QStringList *args);

    QString m_bin;
    QStringList m_tls; // cert, key, CA
};
