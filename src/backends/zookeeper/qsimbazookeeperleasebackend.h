// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbazookeeper_export.h"

#include "qsimbaleasebackend.h"

#include <QtCore/QStringList>
#include <QtCore/QUrl>

#include <chrono>
#include <memory>

class QSIMBAZOOKEEPER_EXPORT QSimbaZookeeperLeaseBackend final : public QSimbaLeaseBackend
{
public:
    //! Which ACL the znodes this backend creates get.
    enum class Acl {
        Open,        //!< world:anyone may do anything (the default without credentials)
        Creator,     //!< only the digest identity that created a node (the default with credentials)
        CreatorRead, //!< the creator may do anything, everyone may read
    };

    struct Options
    {
        //! "host1:2181,host2:2181" (every host with its port).
        QString hosts;
        //! Absolute znode path under which everything lives; created when missing.
        QString basePath = QStringLiteral("/simba");
        //! The C client's ZooKeeper session timeout (the server clamps it to its limits).
        std::chrono::milliseconds sessionTimeout{10000};
        //! Bound of every call: connecting, and waiting for each batch of answers.
        std::chrono::milliseconds timeout{2000};
        //! "user:password" for the digest scheme; empty for none.
        QString digest;
        Acl acl = Acl::Open;

        //! "zookeeper://host:2181/simba?…", the digest password redacted.
        QString toRedactedUrl() const;
    };

    //! Builds a backend from "zookeeper://h1:2181,h2:2181/base?sessionTimeout=10s&timeout=2s
    //! &digest=user:pw&acl=creator". Throws QSimbaInvalidArgumentError naming a malformed
    //! or unknown part. QUrl cannot hold several hosts: pass such URLs as a string.
    static std::unique_ptr<QSimbaZookeeperLeaseBackend> fromUrl(const QUrl &url);
    static std::unique_ptr<QSimbaZookeeperLeaseBackend> fromUrl(const QString &url);
    //! Parses a URL as fromUrl() does, without connecting.
    static Options parseUrl(const QString &url);
    //! As parseUrl(QString), for a URL that QUrl holds (one host).
    static Options parseUrl(const QUrl &url);

    //! Does not connect: the first call does (and every call after a lost ZooKeeper session).
    explicit QSimbaZookeeperLeaseBackend(const Options &options);
    ~QSimbaZookeeperLeaseBackend() override;

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
    struct Private;
    std::unique_ptr<Private> const d;
};
