// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include <QtCore/QString>

/*
 * Certificates for TLS tests, made with the openssl command in a directory: a CA, a server
 * certificate for 127.0.0.1 and localhost signed by it, a client certificate (CN clientName)
 * signed by it, and a second, unrelated CA ("the wrong CA"). EC P-256 keys, valid two days,
 * private keys mode 0600.
 */
class TestCertificates
{
public:
    TestCertificates(const QString &dir, const QString &clientName);

    //! Makes every file; false (with errorString()) when openssl failed.
    bool generate();
    QString errorString() const { return m_error; }

    QString caCert() const { return path(QStringLiteral("ca.crt")); }
    QString otherCaCert() const { return path(QStringLiteral("other-ca.crt")); }
    QString serverCert() const { return path(QStringLiteral("server.crt")); }
    QString serverKey() const { return path(QStringLiteral("server.key")); }
    QString clientCert() const { return path(QStringLiteral("client.crt")); }
    QString clientKey() const { return path(QStringLiteral("client.key")); }

private:
    QString path(const QString &file) const { return m_dir + QLatin1Char('/') + file; }
    bool openssl(const QStringList &args);

    QString m_dir;
    QString m_clientName;
    QString m_error;
};
