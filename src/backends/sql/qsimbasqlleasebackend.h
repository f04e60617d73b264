// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbaleasebackend.h"
#include "qsimbasql_export.h"

#include <QtCore/QString>
#include <QtCore/QUrl>

#include <chrono>
#include <memory>

class QSimbaSqlLeaseBackendPrivate;

class QSIMBASQL_EXPORT QSimbaSqlLeaseBackend final : public QSimbaLeaseBackend
{
public:
    //! The schema version this code creates and understands.
    static constexpr int SchemaVersion = 4;

    enum class Driver { Sqlite, Postgres, MySql };

    struct Options
    {
        Driver driver = Driver::Sqlite;
        QString host;        //!< Postgres, MySql: server name or address
        int port = 0;        //!< 0: the driver's default (5432, 3306)
        QString database;    //!< the database name; for Sqlite the file's path
        QString user;
        QString password;
        QString tablePrefix = QStringLiteral("simba_"); //!< [a-z_][a-z0-9_]*, at most 32 characters
        std::chrono::milliseconds connectTimeout{2000};
        std::chrono::milliseconds statementTimeout{2000}; //!< also the lock wait (SQLite busy timeout)
        //! MySQL/MariaDB: how often a waiting client reads the rows it waits for (its release
        //! hints), 1 ms to 1 s.
        std::chrono::milliseconds hintInterval{5};
        //! TLS (PostgreSQL, MySQL/MariaDB). PostgreSQL: libpq's sslmode (disable, allow, prefer,
        //! require, verify-ca, verify-full; empty: libpq's default, prefer). MySQL/MariaDB:
        //! disable (the default), require or verify-ca (needs sslRootCert).
        QString sslMode;
        QString sslRootCert; //!< the CA certificate file the server's certificate must chain to
        QString sslCert;     //!< the client certificate file (with sslKey)
        QString sslKey;      //!< the client certificate's private key file
    };

    //! Throws QSimbaInvalidArgumentError naming a bad option. Does not connect.
    explicit QSimbaSqlLeaseBackend(const Options &options);
    ~QSimbaSqlLeaseBackend() override;

    //! sqlite:///path/file.db, postgresql://user:pw@host:port/db, mysql://user:pw@host:port/db
    //! with options ?prefix=…&connectTimeout=…&statementTimeout=…&hintInterval=…&sslmode=…
    //! &sslrootcert=…&sslcert=…&sslkey=…; throws QSimbaInvalidArgumentError naming what is wrong, also when
    //! the Qt SQL driver is not installed (naming its Debian package). Does not connect.
    static std::unique_ptr<QSimbaSqlLeaseBackend> fromUrl(const QUrl &url);
    //! The options of \a url, as fromUrl() reads them.
    static Options optionsFromUrl(const QUrl &url);

    Options options() const;

    Capabilities capabilities() const override;
    QString describe() const override;
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata = {}) override;
    KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease,
                              const QSet<QSimbaLeaseName> &held) override;
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session,
                                                 const QSet<QSimbaLeaseName> &names) override;
    void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) override;
    void closeSession(const QSimbaSessionId &session) override;
    void join(const QSimbaSessionId &session, const QString &group) override;
    void leave(const QSimbaSessionId &session, const QString &group) override;
    QList<QSimbaSessionId> members(const QString &group) override;
    std::unique_ptr<Subscription> subscribe(HintListener listener) override;
    Inspection inspect() override;

private:
    Q_DECLARE_PRIVATE(QSimbaSqlLeaseBackend)
    std::unique_ptr<QSimbaSqlLeaseBackendPrivate> const d_ptr;
};
