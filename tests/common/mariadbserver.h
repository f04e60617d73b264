// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testserver.h"

#include <QtCore/QUrl>

/*
 * A MariaDB server (Debian's mariadb-server package) on 127.0.0.1 in a private directory:
 * mariadb-install-db, then mariadbd as root. start() creates the database database() and
 * the user user() with password() for both 'u'@'localhost' and 'u'@'127.0.0.1'.
 */
class MariaDbServer : public TestServer
{
public:
    MariaDbServer();

    bool start() override;
    //! Before start(): serve TLS with \a cert and \a key, trust client certificates signed by
    //! \a ca, and refuse TCP connections without TLS (require_secure_transport). start() also
    //! creates tlsUser() (password password()), which must present a client certificate.
    void setTls(const QString &cert, const QString &key, const QString &ca) { m_tls = {cert, key, ca}; }
    QString tlsUser() const { return QStringLiteral("c"); }

    QString user() const { return QStringLiteral("u"); }
    QString password() const { return QStringLiteral("pw"); }
    QString database() const { return QStringLiteral("simba"); }
    //! mysql://u:pw@127.0.0.1:port/simba, plus \a query (e.g. "prefix=x_").
    QUrl url(const QString &query = {}) const;
    //! Runs \a sql as root with the mariadb client; returns its exit code, its output in \a output.
    int sql(const QString &sql, QString *output = nullptr) const;
    //! The server's process id, or 0.
    qint64 pid() const { return m_process ? m_process->processId() : 0; }

private:
    QStringList m_tls; // cert, key, CA
    QString socket() const { return dir() + QStringLiteral("/mariadb.sock"); }
};
