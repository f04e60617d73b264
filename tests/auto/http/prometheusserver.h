// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include "testserver.h"

#include <QtCore/QUrl>

/*
 * A Prometheus server for tests: on 127.0.0.1 on a free port, its TSDB in a temporary
 * directory, scraping one target every 250 ms.
 */
class PrometheusServer : public TestServer
{
public:
    PrometheusServer();
    ~PrometheusServer() override;

    //! The target ("127.0.0.1:9464") and path scraped; set before start().
    void setTarget(const QString &target, const QString &metricsPath, const QString &token = {});
    bool start() override;
    //! "http://127.0.0.1:<port>".
    QUrl url() const;

private:
    QString m_target;
    QString m_path;
    QString m_token;
};
