// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testcertificates.h"
#include "testserver.h"

#include <QtCore/QList>

#include <memory>

/*
 * An etcd member for tests: in the foreground under QProcess, on 127.0.0.1 on free client
 * and peer ports, its data in a temporary directory. Alone (start()) it is a one-member
 * cluster; EtcdCluster starts several that form one cluster. Short heartbeat and election
 * timeouts (10 ms, 100 ms), so that a failover takes a fraction of a second and etcd's
 * minimum lease TTL is 1 s.
 */
class EtcdServer : public TestServer
{
public:
    EtcdServer();
    ~EtcdServer() override;

    quint16 peerPort() const { return m_peerPort; }
    //! "127.0.0.1:<client port>".
    QString endpoint() const;
    //! "etcd://127.0.0.1:<port><prefix>".
    QString url(const QString &prefix = QStringLiteral("/simba")) const;

    //! More etcd arguments for the next start(), e.g. {"--auth-token-ttl", "1"}.
    void setExtraArguments(const QStringList &args) { m_extra = args; }
    bool start() override;
    //! Kills the process at once (SIGKILL): no goodbye to the cluster.
    void kill();
    //! Stops the member and starts it again on the same ports and data.
    bool restart();
    //! Saves a snapshot of the store to \a file (etcdctl snapshot save).
    bool saveSnapshot(const QString &file);
    //! A one-member cluster only: stops the member, restores \a file into a fresh data
    //! directory (etcdctl snapshot restore, same name, peer URL and cluster token) and
    //! starts it on the same ports. False (with errorString()) when a step fails.
    bool restoreSnapshot(const QString &file);
    //! Runs etcdctl against this member; its exit code, with the output in \a output.
    int ctl(const QStringList &args, QString *output = nullptr) const;
    //! Whether /health answers true.
    bool isHealthy() const;

    //! Before start(): serves clients over TLS only, with a test CA, a server certificate
    //! for 127.0.0.1 and client certificates required (TestCertificates, in dir()).
    //! False (with errorString()) when openssl fails.
    bool enableTls();
    QString caFile() const { return m_certificates ? m_certificates->caCert() : QString(); }
    QString clientCertFile() const { return m_certificates ? m_certificates->clientCert() : QString(); }
    QString clientKeyFile() const { return m_certificates ? m_certificates->clientKey() : QString(); }

private:
    friend class EtcdCluster;
    bool launchMember(bool waitForHealth);
    QString peerUrl() const;
    QString initialCluster() const;
    QString clusterToken() const;

    quint16 m_peerPort = 0;
    QString m_memberName = QStringLiteral("m0");
    QString m_initialCluster; // empty: alone
    QString m_clusterToken;   // the same for every member of one cluster
    bool m_started = false;   // started before: rejoins with its data
    bool m_tls = false;
    std::unique_ptr<TestCertificates> m_certificates;
    QStringList m_extra;
};

/*
 * \a size etcd members forming one cluster, all on loopback. FAILS (start() answers false,
 * with errorString()) when the cluster does not become healthy.
 */
class EtcdCluster
{
public:
    explicit EtcdCluster(int size = 3);
    ~EtcdCluster();

    bool start();
    void stop();
    QString errorString() const { return m_error; }
    EtcdServer &member(int i) { return *m_members.at(i); }
    int size() const { return int(m_members.size()); }
    //! "etcd://h:p1,h:p2,h:p3<prefix>" in member order.
    QString url(const QString &prefix = QStringLiteral("/simba")) const;

private:
    QList<std::shared_ptr<EtcdServer>> m_members;
    QString m_error;
};
