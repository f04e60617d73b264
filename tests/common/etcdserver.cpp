// SPDX-License-Identifier: Apache-2.0
#include "etcdserver.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QFile>
#include <QtCore/QThread>

#include <csignal>
#include <sys/types.h>

EtcdServer::EtcdServer()
    : TestServer(QStringLiteral("etcd")), m_peerPort(freePort())
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
    const QString d = dir() + QLatin1Char('/');
    QFile serverExt(d + QStringLiteral("server.ext")), clientExt(d + QStringLiteral("client.ext"));
    if (!serverExt.open(QIODevice::WriteOnly) || !clientExt.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write the certificate extensions in ") + dir());
    // etcd's JSON gateway dials its own gRPC server with the server certificate: with
    // --client-cert-auth, that certificate must be good for client authentication too.
    serverExt.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n");
    clientExt.write("extendedKeyUsage=clientAuth\n");
    serverExt.close();
    clientExt.close();
    const QStringList ec{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                         QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
    const QList<QStringList> steps{
        QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ec
            + QStringList{QStringLiteral("-keyout"), d + QStringLiteral("ca.key"), QStringLiteral("-out"), caFile(),
                          QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=qsimba test CA")},
        QStringList{QStringLiteral("req")} + ec
            + QStringList{QStringLiteral("-keyout"), d + QStringLiteral("server.key"), QStringLiteral("-out"),
                          d + QStringLiteral("server.csr"), QStringLiteral("-subj"), QStringLiteral("/CN=127.0.0.1")},
        QStringList{QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), d + QStringLiteral("server.csr"),
                    QStringLiteral("-CA"), caFile(), QStringLiteral("-CAkey"), d + QStringLiteral("ca.key"),
                    QStringLiteral("-CAcreateserial"), QStringLiteral("-out"), d + QStringLiteral("server.pem"),
                    QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-extfile"), serverExt.fileName()},
        QStringList{QStringLiteral("req")} + ec
            + QStringList{QStringLiteral("-keyout"), clientKeyFile(), QStringLiteral("-out"), d + QStringLiteral("client.csr"),
                          QStringLiteral("-subj"), QStringLiteral("/CN=qsimba")},
        QStringList{QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), d + QStringLiteral("client.csr"),
                    QStringLiteral("-CA"), caFile(), QStringLiteral("-CAkey"), d + QStringLiteral("ca.key"),
                    QStringLiteral("-CAcreateserial"), QStringLiteral("-out"), clientCertFile(),
                    QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-extfile"), clientExt.fileName()},
    };
    for (const auto &step : steps) {
        QString out;
        if (run(QStringLiteral("openssl"), step, &out) != 0)
            return fail(QStringLiteral("openssl %1 failed: %2").arg(step.join(QLatin1Char(' ')), out));
    }
    m_tls = true;
    return true;
}

bool EtcdServer::isHealthy() const
{
    QString out;
    return ctl({QStringLiteral("endpoint"), QStringLiteral("health")}, &out) == 0
        && out.contains(QLatin1String("is healthy"));
}

bool EtcdServer::launchMember(bool waitForHealth)
{
    if (m_peerPort == 0 || m_peerPort == port())
        return fail(QStringLiteral("no second free port on 127.0.0.1"));
    const QString client = QStringLiteral("%1://127.0.0.1:%2").arg(m_tls ? QStringLiteral("https") : QStringLiteral("http")).arg(port());
    const QString peer = QStringLiteral("http://127.0.0.1:%1").arg(m_peerPort);
    const QString cluster = m_initialCluster.isEmpty() ? m_memberName + QLatin1Char('=') + peer : m_initialCluster;
    QStringList args{
        QStringLiteral("--name"), m_memberName,
        QStringLiteral("--data-dir"), dir() + QStringLiteral("/data"),
        QStringLiteral("--listen-client-urls"), client,
        QStringLiteral("--advertise-client-urls"), client,
        QStringLiteral("--listen-peer-urls"), peer,
        QStringLiteral("--initial-advertise-peer-urls"), peer,
        QStringLiteral("--initial-cluster"), cluster,
        QStringLiteral("--initial-cluster-token"), m_clusterToken.isEmpty() ? QStringLiteral("qsimba-test") : m_clusterToken,
        QStringLiteral("--initial-cluster-state"), m_started ? QStringLiteral("existing") : QStringLiteral("new"),
        QStringLiteral("--heartbeat-interval"), QStringLiteral("10"),
        QStringLiteral("--election-timeout"), QStringLiteral("100"),
        QStringLiteral("--snapshot-count"), QStringLiteral("10000"),
        QStringLiteral("--logger"), QStringLiteral("zap"),
        QStringLiteral("--log-outputs"), QStringLiteral("stderr"),
    };
    if (m_tls)
        args << QStringLiteral("--cert-file") << dir() + QStringLiteral("/server.pem")
             << QStringLiteral("--key-file") << dir() + QStringLiteral("/server.key")
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
