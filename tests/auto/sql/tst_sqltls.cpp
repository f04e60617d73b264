// SPDX-License-Identifier: Apache-2.0
// The SQL backend over TLS: a PostgreSQL and a MariaDB server that refuse TCP without TLS,
// with certificates made by the test (openssl): verified connections, client certificates,
// and clear failures with a wrong CA, without TLS, and without a client certificate.
#include "mariadbserver.h"
#include "postgresserver.h"
#include "qsimbaerror.h"
#include "qsimbasqlleasebackend.h"
#include "sqltestsupport.h"
#include "testcertificates.h"

#include <QtCore/QTemporaryDir>
#include <QtCore/QUrlQuery>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;

namespace {
using SqlTest::backendError;

QUrl withQuery(QUrl url, const QString &user, const QList<QPair<QString, QString>> &items)
{
    url.setUserName(user);
    QUrlQuery query;
    query.setQueryItems(items);
    query.addQueryItem(QStringLiteral("prefix"), user + QStringLiteral("_tls_")); // tables of its own
    url.setQuery(query);
    return url;
}
} // namespace

class tst_SqlTls : public QObject
{
    Q_OBJECT
public:
    tst_SqlTls(PostgresServer &postgres, MariaDbServer &mariadb, const TestCertificates &certificates)
        : m_postgres(postgres), m_mariadb(mariadb), m_certs(certificates)
    {
    }

private:
    PostgresServer &m_postgres;
    MariaDbServer &m_mariadb;
    const TestCertificates &m_certs;

    QUrl postgres(const QString &user, const QList<QPair<QString, QString>> &items) const
    {
        return withQuery(m_postgres.url(), user, items);
    }
    QUrl mariadb(const QString &user, const QList<QPair<QString, QString>> &items) const
    {
        return withQuery(m_mariadb.url(), user, items);
    }
    // Every SPI call works through \a url, and the hint subscription connects too.
    static void works(const QUrl &url)
    {
        const auto b = Backend::fromUrl(url);
        const QString error = backendError([&] {
            const auto s = b->openSession(10s).id;
            const auto x = QSimbaLeaseName::of(QStringLiteral("tls"));
            const auto r = b->acquire(s, {x}).value(x);
            QVERIFY(r.isGranted);
            QVERIFY(b->keepAlive(s, 10s, {}).owned.contains(x));
            b->closeSession(s);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }
    static QString fails(const QUrl &url)
    {
        const auto b = Backend::fromUrl(url);
        const QString error = backendError([&] { b->openSession(10s); });
        if (!error.isEmpty() && !error.contains(b->describe()))
            return QStringLiteral("the error does not name the backend: ") + error;
        return error;
    }

private Q_SLOTS:
    void postgresVerifiedWithClientCertificate()
    {
        works(postgres(m_postgres.tlsUser(), {{QStringLiteral("sslmode"), QStringLiteral("verify-full")},
                                              {QStringLiteral("sslrootcert"), m_certs.caCert()},
                                              {QStringLiteral("sslcert"), m_certs.clientCert()},
                                              {QStringLiteral("sslkey"), m_certs.clientKey()}}));
        QString ssl;
        QCOMPARE(m_postgres.psql(QStringLiteral("SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a "
                                                "USING (pid) WHERE a.usename = '%1'")
                                     .arg(m_postgres.tlsUser()),
                                 &ssl),
                 0);
        QVERIFY2(ssl.trimmed() != QLatin1String("f"), qPrintable(ssl)); // empty: the sessions ended
    }

    void postgresVerifiedWithoutClientCertificate()
    {
        works(postgres(m_postgres.user(), {{QStringLiteral("sslmode"), QStringLiteral("verify-full")},
                                           {QStringLiteral("sslrootcert"), m_certs.caCert()}}));
    }

    void postgresWrongCaFailsClearly()
    {
        const QString error = fails(postgres(m_postgres.user(), {{QStringLiteral("sslmode"), QStringLiteral("verify-full")},
                                                                 {QStringLiteral("sslrootcert"), m_certs.otherCaCert()}}));
        QVERIFY2(error.contains(QLatin1String("certificate verify failed")), qPrintable(error));
    }

    void postgresWithoutTlsIsRefused()
    {
        const QString error = fails(postgres(m_postgres.user(), {{QStringLiteral("sslmode"), QStringLiteral("disable")}}));
        QVERIFY2(error.contains(QLatin1String("no encryption")), qPrintable(error));
    }

    void postgresWithoutClientCertificateIsRefused()
    {
        const QString error = fails(postgres(m_postgres.tlsUser(), {{QStringLiteral("sslmode"), QStringLiteral("verify-full")},
                                                                    {QStringLiteral("sslrootcert"), m_certs.caCert()}}));
        QVERIFY2(error.contains(QLatin1String("certificate")), qPrintable(error));
    }

    void mariadbVerifiedWithClientCertificate()
    {
        works(mariadb(m_mariadb.tlsUser(), {{QStringLiteral("sslmode"), QStringLiteral("verify-ca")},
                                            {QStringLiteral("sslrootcert"), m_certs.caCert()},
                                            {QStringLiteral("sslcert"), m_certs.clientCert()},
                                            {QStringLiteral("sslkey"), m_certs.clientKey()}}));
    }

    void mariadbRequiredWithoutVerification()
    {
        works(mariadb(m_mariadb.user(), {{QStringLiteral("sslmode"), QStringLiteral("require")}}));
    }

    void mariadbWrongCaFailsClearly()
    {
        const QString error = fails(mariadb(m_mariadb.user(), {{QStringLiteral("sslmode"), QStringLiteral("verify-ca")},
                                                               {QStringLiteral("sslrootcert"), m_certs.otherCaCert()}}));
        QVERIFY2(error.contains(QLatin1String("certificate"), Qt::CaseInsensitive), qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("cannot connect")), qPrintable(error));
    }

    void mariadbWithoutTlsIsRefused()
    {
        // The same user and password connect with sslmode=require (above); MariaDB 10.11 answers
        // "Access denied" to a plaintext login under require_secure_transport.
        const QString error = fails(mariadb(m_mariadb.user(), {}));
        QVERIFY2(error.contains(QLatin1String("cannot connect")), qPrintable(error));
    }

    void mariadbWithoutClientCertificateIsRefused()
    {
        const QString error = fails(mariadb(m_mariadb.tlsUser(), {{QStringLiteral("sslmode"), QStringLiteral("verify-ca")},
                                                                  {QStringLiteral("sslrootcert"), m_certs.caCert()}}));
        QVERIFY2(error.contains(QLatin1String("Access denied")), qPrintable(error));
    }
};

QSIMBA_TEST_ENTRY(tst_sqltls)
{
    QCoreApplication app(argc, argv);
    QTemporaryDir dir;
    TestCertificates certificates(dir.path(), QStringLiteral("c"));
    PostgresServer postgres;
    MariaDbServer mariadb;
    QString error;
    if (!dir.isValid())
        error = dir.errorString();
    else if (!certificates.generate())
        error = certificates.errorString();
    if (error.isEmpty()) {
        postgres.setTls(certificates.serverCert(), certificates.serverKey(), certificates.caCert());
        mariadb.setTls(certificates.serverCert(), certificates.serverKey(), certificates.caCert());
        if (!postgres.start())
            error = postgres.errorString();
        else if (!mariadb.start())
            error = mariadb.errorString();
    }
    if (!error.isEmpty())
        return SqlTest::runFailure(error, argc, argv);
    tst_SqlTls test(postgres, mariadb, certificates);
    return QTest::qExec(&test, argc, argv);
}

#include "tst_sqltls.moc"
