// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbaleasebackend.h"
#include "qsimbaredis_export.h"

#include <QtCore/QString>
#include <QtCore/QUrl>

#include <chrono>
#include <memory>

class QSimbaRedisLeaseBackendPrivate;

class QSIMBAREDIS_EXPORT QSimbaRedisLeaseBackend final : public QSimbaLeaseBackend
{
public:
    struct Options
    {
        QString host = QStringLiteral("127.0.0.1");
        quint16 port = 6379;
        int database = 0;
        QString user;     //!< ACL user; empty: "default" (or none with a plain requirepass)
        QString password; //!< empty: no AUTH
        QString prefix = QStringLiteral("simba"); //!< keys are "{prefix}:…"
        std::chrono::milliseconds connectTimeout{2000};
        std::chrono::milliseconds commandTimeout{2000};
        //! The longest lease granted (longer requests are shortened to it). After the server
        //! lost its data, no lease is granted for this long.
        std::chrono::milliseconds maxLease{30000};

        //! The URL of these options with the password as "***" (what describe() answers).
        QString toRedactedUrl() const;
    };

    //! Throws QSimbaInvalidArgumentError naming a bad option. Does not connect.
    explicit QSimbaRedisLeaseBackend(const Options &options);
    ~QSimbaRedisLeaseBackend() override;

    //! Parses "redis://[user:password@]host[:port][/db][?prefix=…&connectTimeout=2s&commandTimeout=2s&maxLease=30s]".
    static Options parseUrl(const QUrl &url);
    //! As parseUrl(QUrl), for a URL as text (the form every backend takes).
    static Options parseUrl(const QString &url);
    static std::unique_ptr<QSimbaRedisLeaseBackend> fromUrl(const QUrl &url);
    static std::unique_ptr<QSimbaRedisLeaseBackend> fromUrl(const QString &url);

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

    //! The holder that HeldBy names while the server recovers from a loss of its data.
    static QSimbaSessionId recoveringHolder();

private:
    Q_DISABLE_COPY_MOVE(QSimbaRedisLeaseBackend)
    std::unique_ptr<QSimbaRedisLeaseBackendPrivate> const d_ptr;
};
