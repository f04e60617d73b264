// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbaetcd_export.h"

#include "qsimbaleasebackend.h"

#include <QtCore/QStringList>
#include <QtCore/QUrl>

#include <chrono>
#include <memory>

class QSIMBAETCD_EXPORT QSimbaEtcdLeaseBackend final : public QSimbaLeaseBackend
{
public:
    struct Options
    {
        //! "host:port" of each member the client may talk to, tried in this order.
        QStringList endpoints{QStringLiteral("127.0.0.1:2379")};
        bool tls = false;            //!< https (the etcds:// scheme)
        QString caFile;              //!< tls: the CA bundle that signed the server (empty: the system's)
        QString certFile;            //!< tls: a client certificate (PEM), with keyFile
        QString keyFile;             //!< tls: the client certificate's private key (PEM)
        QString user;                //!< etcd user (auth enabled); empty: no authentication
        QString password;
        //! Every key lives under "<prefix>/": s/ sessions, l/ lease names, g/ groups.
        QString prefix = QStringLiteral("/simba");
        std::chrono::milliseconds connectTimeout{2000}; //!< per endpoint and attempt
        std::chrono::milliseconds requestTimeout{2000}; //!< per request, on one endpoint

        //! "etcd://user:***@h1:2379,h2:2379/simba?…": the password never appears.
        QString toRedactedUrl() const;
    };

    //! Parses "etcd://[user:password@]host:2379[,host:2379…]/prefix?connectTimeout=2s
    //! &requestTimeout=2s" (and etcds:// with cacert, cert, key). Throws
    //! QSimbaInvalidArgumentError naming the malformed part, with the password redacted.
    static Options parseUrl(const QString &url);
    //! QUrl cannot hold several hosts: pass such URLs as a string.
    static std::unique_ptr<QSimbaEtcdLeaseBackend> fromUrl(const QString &url);
    static std::unique_ptr<QSimbaEtcdLeaseBackend> fromUrl(const QUrl &url);

    //! Throws QSimbaInvalidArgumentError naming a bad option. Does not connect.
    explicit QSimbaEtcdLeaseBackend(const Options &options);
    ~QSimbaEtcdLeaseBackend() override;

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

    //! The endpoint ("host:port") the next call goes to first: the last one that answered.
    QString currentEndpoint() const;

private:
    struct Private;
    std::unique_ptr<Private> const d;
};
