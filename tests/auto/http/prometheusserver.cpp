// SPDX-License-Identifier: Apache-2.0
#include "prometheusserver.h"

#include <QtCore/QFile>

PrometheusServer::PrometheusServer() : TestServer(QStringLiteral("prometheus")) {}

PrometheusServer::~PrometheusServer()
{
    stop();
}

void PrometheusServer::setTarget(const QString &target, const QString &metricsPath, const QString &token)
{
    m_target = target;
    m_path = metricsPath;
    m_token = token;
}

bool PrometheusServer::start()
{
    QFile config(dir() + QStringLiteral("/prometheus.yml"));
    if (!config.open(QIODevice::WriteOnly))
        return fail(QStringLiteral("cannot write %1").arg(config.fileName()));
    QString yaml = QStringLiteral("global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\n"
                                  "scrape_configs:\n  - job_name: simba\n    metrics_path: %1\n")
                       .arg(m_path);
    if (!m_token.isEmpty())
        yaml += QStringLiteral("    authorization:\n      credentials: %1\n").arg(m_token);
    yaml += QStringLiteral("    static_configs:\n      - targets: ['%1']\n").arg(m_target);
    config.write(yaml.toUtf8());
    config.close();
    const QString listen = QStringLiteral("127.0.0.1:%1").arg(port());
    const QStringList args{QStringLiteral("--config.file=") + config.fileName(),
                           QStringLiteral("--storage.tsdb.path=") + dir() + QStringLiteral("/data"),
                           QStringLiteral("--web.listen-address=") + listen,
                           QStringLiteral("--log.level=warn")};
    return launch(QStringLiteral("prometheus"), args, [listen] {
        return run(QStringLiteral("curl"), {QStringLiteral("-sf"), QStringLiteral("http://%1/-/ready").arg(listen)},
                   nullptr, std::chrono::seconds(5))
            == 0;
    }, std::chrono::seconds(60));
}

QUrl PrometheusServer::url() const
{
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port()));
}
