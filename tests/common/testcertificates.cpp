// SPDX-License-Identifier: Apache-2.0
#include "testcertificates.h"

#include "testserver.h"

#include <QtCore/QFile>

TestCertificates::TestCertificates(const QString &dir, const QString &clientName)
    : m_dir(dir), m_clientName(clientName)
{
}

bool TestCertificates::openssl(const QStringList &args)
{
    QString output;
    if (TestServer::run(QStringLiteral("openssl"), args, &output) == 0)
        return true;
    m_error = QStringLiteral("openssl %1 failed: %2").arg(args.join(QLatin1Char(' ')), output);
    return false;
}

bool TestCertificates::generate()
{
    const QStringList ecKey{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                            QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};
    const auto selfSigned = [&](const QString &name, const QString &subject) {
        return openssl(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + ecKey
                       + QStringList{QStringLiteral("-keyout"), path(name + QStringLiteral(".key")), QStringLiteral("-out"),
                                     path(name + QStringLiteral(".crt")), QStringLiteral("-days"), QStringLiteral("2"),
                                     QStringLiteral("-subj"), subject});
    };
    const auto signedByCa = [&](const QString &name, const QString &subject, const QString &extensions) {
        QFile ext(path(name + QStringLiteral(".ext")));
        if (!ext.open(QIODevice::WriteOnly) || ext.write(extensions.toUtf8()) < 0)
            return false;
        ext.close();
        return openssl(QStringList{QStringLiteral("req")} + ecKey
                       + QStringList{QStringLiteral("-keyout"), path(name + QStringLiteral(".key")), QStringLiteral("-out"),
                                     path(name + QStringLiteral(".csr")), QStringLiteral("-subj"), subject})
               && openssl({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"),
                           path(name + QStringLiteral(".csr")), QStringLiteral("-CA"), caCert(), QStringLiteral("-CAkey"),
                           path(QStringLiteral("ca.key")), QStringLiteral("-CAcreateserial"), QStringLiteral("-out"),
                           path(name + QStringLiteral(".crt")), QStringLiteral("-days"), QStringLiteral("2"),
                           QStringLiteral("-extfile"), ext.fileName()});
    };
    if (!selfSigned(QStringLiteral("ca"), QStringLiteral("/CN=QSimba test CA"))
        || !selfSigned(QStringLiteral("other-ca"), QStringLiteral("/CN=QSimba wrong CA"))
        || !signedByCa(QStringLiteral("server"), QStringLiteral("/CN=127.0.0.1"),
                       QStringLiteral("subjectAltName=IP:127.0.0.1,DNS:localhost\n"))
        || !signedByCa(QStringLiteral("client"), QStringLiteral("/CN=") + m_clientName,
                       QStringLiteral("extendedKeyUsage=clientAuth\n")))
        return false;
    for (const QString &key : {serverKey(), clientKey(), path(QStringLiteral("ca.key")), path(QStringLiteral("other-ca.key"))})
        QFile::setPermissions(key, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}
