// SPDX-License-Identifier: Apache-2.0
#include "etcdserver.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QDir>
#include <QtCore/QThread>

#include <csignal>
#include <sys/types.h>

EtcdServer::EtcdServer()
    : TestServer(QStringLiteral("etcd")), m_peerPort(freePort({port()}))
{
}

EtcdServer::~EtcdServer()
{
    stop();
}

QString EtcdServer::endpoint() const
{
    return QStringLiteral("127.0.0.1:%1").arg(port());
}

QString EtcdServer::url(const QString &prefix) const
{
    return QStringLiteral("etcd://") + endpoint() + prefix;
}

int EtcdServer::ctl(const QStringList &args, QString *output) const
{
    QStringList options{QStringLiteral("--endpoints=") + (m_tls ? QStringLiteral("https://") : QString()) + endpoint(),
                        QStringLiteral("--dial-timeout=2s"), QStringLiteral("--command-timeout=5s")};
    if (m_tls)
        options << QStringLiteral("--cacert=") + caFile() << QStringLiteral("--cert=") + clientCertFile()
                << QStringLiteral("--key=") + clientKeyFile();
    return run(QStringLiteral("etcdctl"), options + args, output, std::chrono::seconds(15));
}

bool EtcdServer::enableTls()
{
    if (!m_dir.isValid())
        return fail(QStringLiteral("cannot create a temporary directory: ") + m_dir.errorString());
    // The server certificate has no extended key usage: etcd's JSON gateway dials its own
    // gRPC server with it, which --client-cert-auth accepts only from a certificate good for
    // client authentication too.
    m_certificates = std::make_unique<TestCertificates>(dir(), QStringLiteral("qsimba"));
    if (!m_certificates->generate())
        return fail(m_certificates->errorString());
    m_tls = true;
    return true;
}

bool EtcdServer::isHealthy() const
{
    QString out;
    return ctl({QStringLiteral("endpoint"), QStringLiteral("health")}, &out) == 0
        && out.contains(QLatin1String("is healthy"));
}

QString EtcdServer::peerUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1").arg(m_peerPort);
}

QString EtcdServer::initialCluster() const
{
    return m_initialCluster.isEmpty() ? m_memberName + QLatin1Char('=') + peerUrl() : m_initialCluster;
}

QString EtcdServer::clusterToken() const
{
    return m_clusterToken.isEmpty() ? QStringLiteral("qsimba-test") : m_clusterToken;
}

bool EtcdServer::saveSnapshot(const QString &file)
{
    QString out;
    if (ctl({QStringLiteral("snapshot"), QStringLiteral("save"), file}, &out) != 0)
        return fail(QStringLiteral("etcdctl snapshot save failed: ") + out);
    return true;
}

bool EtcdServer::restoreSnapshot(const QString &file)
{
    if (!m_initialCluster.isEmpty())
        return fail(QStringLiteral("restoreSnapshot() restores a one-member cluster only"));
    stop();
    const QString data = dir() + QStringLiteral("/data");
    if (!QDir(data).removeRecursively())
        return fail(QStringLiteral("cannot remove ") + data);
    QString out;
    if (run(QStringLiteral("etcdctl"),
            {QStringLiteral("snapshot"), QStringLiteral("restore"), file, QStringLiteral("--name"), m_memberName,
             QStringLiteral("--data-dir"), data, QStringLiteral("--initial-cluster"), initialCluster(),
             QStringLiteral("--initial-cluster-token"), clusterToken(),
             QStringLiteral("--initial-advertise-peer-urls"), peerUrl()},
            &out, std::chrono::seconds(30))
        != 0)
        return fail(QStringLiteral("etcdctl snapshot restore failed: ") + out);
    return launchMember(true);
}

bool EtcdServer::launchMember(bool waitForHealth)
{
    if (m_peerPort == 0 || m_peerPort == port())
        return fail(QStringLiteral("no second free port on 127.0.0.1"));
    const QString client = QStringLiteral("%1://127.0.0.1:%2").arg(m_tls ? QStringLiteral("https") : QStringLiteral("http")).arg(port());
    const QString peer = peerUrl();
    const QString cluster = initialCluster();
    QStringList args{
        QStringLiteral("--name"), m_memberName,
        QStringLiteral("--data-dir"), dir() + QStringLiteral("/data"),
        QStringLiteral("--listen-client-urls"), client,
        QStringLiteral("--advertise-client-urls"), client,
        QStringLiteral("--listen-peer-urls"), peer,
        QStringLiteral("--initial-advertise-peer-urls"), peer,
        QStringLiteral("--initial-cluster"), cluster,
        QStringLiteral("--initial-cluster-token"), clusterToken(),
        QStringLiteral("--initial-cluster-state"), m_started ? QStringLiteral("existing") : QStringLiteral("new"),
        QStringLiteral("--heartbeat-interval"), QStringLiteral("10"),
        QStringLiteral("--election-timeout"), QStringLiteral("100"),
        QStringLiteral("--snapshot-count"), QStringLiteral("10000"),
        QStringLiteral("--logger"), QStringLiteral("zap"),
        QStringLiteral("--log-outputs"), QStringLiteral("stderr"),
    };
    if (m_tls)
        args << QStringLiteral("--cert-file") << m_certificates->serverCert()
             << QStringLiteral("--key-file") << m_certificates->serverKey()
             << QStringLiteral("--trusted-ca-file") << caFile() << QStringLiteral("--client-cert-auth");
    args += m_extra;
    m_started = true;
    // A member of a cluster cannot be healthy before a quorum runs: it is "up" once its
    // process runs; EtcdCluster waits for the cluster's health.
    return launch(QStringLiteral("etcd"), args, [this, waitForHealth] { return !waitForHealth || isHealthy(); });
}

bool EtcdServer::start()
{
    return launchMember(true);
}

void EtcdServer::kill()
{
    if (!m_process)
        return;
    m_process->kill();
    m_process->waitForFinished(5000);
    m_process.reset();
}

bool EtcdServer::restart()
{
    stop();
    return launchMember(m_initialCluster.isEmpty());
}

EtcdCluster::EtcdCluster(int size)
{
    for (int i = 0; i < size; ++i)
        m_members.append(std::make_shared<EtcdServer>());
    QStringList peers;
    for (int i = 0; i < size; ++i) {
        m_members[i]->m_memberName = QStringLiteral("m%1").arg(i);
        peers.append(QStringLiteral("m%1=http://127.0.0.1:%2").arg(i).arg(m_members[i]->peerPort()));
    }
    for (auto &m : m_members) {
        m->m_initialCluster = peers.join(QLatin1Char(','));
        m->m_clusterToken = QStringLiteral("qsimba-test-%1").arg(m_members.first()->peerPort());
    }
}

EtcdCluster::~EtcdCluster()
{
    stop();
}

bool EtcdCluster::start()
{
    for (auto &m : m_members) {
        if (!m->launchMember(false)) {
            m_error = m->errorString();
            stop();
            return false;
        }
    }
    QDeadlineTimer deadline(std::chrono::seconds(30));
    for (auto &m : m_members) {
        while (!m->isHealthy()) {
            if (deadline.hasExpired() || !m->isRunning()) {
                m_error = QStringLiteral("etcd cluster: member %1 not healthy within 30 s").arg(m->endpoint());
                stop();
                return false;
            }
            QThread::msleep(50); // polling another process: nothing to await
        }
    }
    return true;
}

void EtcdCluster::stop()
{
    for (auto &m : m_members)
        m->stop();
}

QString EtcdCluster::url(const QString &prefix) const
{
    QStringList endpoints;
    for (const auto &m : m_members)
        endpoints.append(m->endpoint());
    return QStringLiteral("etcd://") + endpoints.join(QLatin1Char(',')) + prefix;
}
