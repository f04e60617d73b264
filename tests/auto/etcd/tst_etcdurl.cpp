// SPDX-License-Identifier: Apache-2.0
// Backend URLs and options of the etcd backend (no server needed).
#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"
#include "qsimbaetcdleasebackend.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Backend = QSimbaEtcdLeaseBackend;

class tst_EtcdUrl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesEveryPart()
    {
        const auto o = Backend::parseUrl(QStringLiteral(
            "etcds://alice:s%40cret@h1:2379,h2:2380,[::1]/k8s/locks?connectTimeout=500ms&requestTimeout=3s"
            "&cacert=/etc/ca.pem&cert=/etc/c.pem&key=/etc/k.pem"));
        QCOMPARE(o.endpoints, (QStringList{QStringLiteral("h1:2379"), QStringLiteral("h2:2380"), QStringLiteral("[::1]:2379")}));
        QVERIFY(o.tls);
        QCOMPARE(o.user, QStringLiteral("alice"));
        QCOMPARE(o.password, QStringLiteral("s@cret"));
        QCOMPARE(o.prefix, QStringLiteral("/k8s/locks"));
        QCOMPARE(o.connectTimeout, 500ms);
        QCOMPARE(o.requestTimeout, 3s);
        QCOMPARE(o.caFile, QStringLiteral("/etc/ca.pem"));
        QCOMPARE(o.certFile, QStringLiteral("/etc/c.pem"));
        QCOMPARE(o.keyFile, QStringLiteral("/etc/k.pem"));
        const QString printed = o.toRedactedUrl();
        QVERIFY2(!printed.contains(QStringLiteral("cret")), qPrintable(printed));
        QCOMPARE(printed, QStringLiteral("etcds://alice:***@h1:2379,h2:2380,[::1]:2379/k8s/locks?connectTimeout=500ms"
                                         "&requestTimeout=3s&cacert=/etc/ca.pem&cert=/etc/c.pem&key=/etc/k.pem"));
        // What it prints parses back to the same options (but the password).
        const auto again = Backend::parseUrl(printed);
        QCOMPARE(again.endpoints, o.endpoints);
        QCOMPARE(again.prefix, o.prefix);
        QCOMPARE(again.requestTimeout, o.requestTimeout);
    }

    void defaults()
    {
        const auto o = Backend::parseUrl(QStringLiteral("etcd://127.0.0.1"));
        QCOMPARE(o.endpoints, QStringList{QStringLiteral("127.0.0.1:2379")});
        QVERIFY(!o.tls);
        QCOMPARE(o.prefix, QStringLiteral("/simba"));
        QCOMPARE(o.connectTimeout, 2s);
        QCOMPARE(o.requestTimeout, 2s);
        QVERIFY(o.user.isEmpty() && o.password.isEmpty());
        QCOMPARE(Backend::parseUrl(QStringLiteral("ETCD://h:1/")).prefix, QStringLiteral("/simba"));
        QCOMPARE(Backend::parseUrl(QStringLiteral("etcd://h:1/")).toRedactedUrl(), QStringLiteral("etcd://h:1/simba"));
    }

    void fromUrlTakesQUrlAndString()
    {
        const auto single = Backend::fromUrl(QUrl(QStringLiteral("etcd://u:secret@127.0.0.1:2999/x?requestTimeout=1s")));
        QCOMPARE(single->describe(), QStringLiteral("etcd://u:***@127.0.0.1:2999/x?requestTimeout=1s"));
        QCOMPARE(single->options().password, QStringLiteral("secret"));
        const auto several = Backend::fromUrl(QStringLiteral("etcd://a:1,b:2/x"));
        QCOMPARE(several->options().endpoints.size(), 2);
        const auto caps = several->capabilities();
        QVERIFY(caps.inspection && caps.releaseHints && caps.membershipHints);
    }

    void rejectsEveryMalformedPart_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("named"); // what the message must name
        QTest::newRow("scheme") << "redis://h:1" << "etcd://";
        QTest::newRow("no scheme") << "h:2379" << "etcd://";
        QTest::newRow("no host") << "etcd:///simba" << "no host";
        QTest::newRow("empty host in list") << "etcd://a:1,,b:2" << "malformed host";
        QTest::newRow("bad host") << "etcd://a b:1" << "malformed host";
        QTest::newRow("port not a number") << "etcd://h:abc" << "invalid port";
        QTest::newRow("port zero") << "etcd://h:0" << "invalid port";
        QTest::newRow("port too big") << "etcd://h:65536" << "invalid port";
        QTest::newRow("signed port") << "etcd://h:+1" << "invalid port";
        QTest::newRow("empty port") << "etcd://h:" << "empty port";
        QTest::newRow("endpoint twice") << "etcd://h:1,h:1" << "given twice";
        QTest::newRow("user without password") << "etcd://alice@h" << "needs a password";
        QTest::newRow("password without user") << "etcd://:secret@h" << "needs a user name";
        QTest::newRow("trailing slash") << "etcd://h/a/" << "prefix";
        QTest::newRow("empty component") << "etcd://h/a//b" << "prefix";
        QTest::newRow("dot dot") << "etcd://h/a/.." << "..";
        QTest::newRow("space in prefix") << "etcd://h/a%20b" << "prefix";
        QTest::newRow("fragment") << "etcd://h/a#x" << "fragment";
        QTest::newRow("unknown option") << "etcd://h/a?ttl=1" << "unknown option ttl";
        QTest::newRow("option twice") << "etcd://h/a?requestTimeout=1s&requestTimeout=2s" << "given twice";
        QTest::newRow("bad duration") << "etcd://h/a?requestTimeout=soon" << "requestTimeout=soon";
        QTest::newRow("zero duration") << "etcd://h/a?connectTimeout=0s" << "connectTimeout=0s";
        QTest::newRow("TLS option without TLS") << "etcd://h/a?cacert=/ca.pem" << "etcds://";
        QTest::newRow("cert without key") << "etcds://h/a?cert=/c.pem" << "cert and key";
        QTest::newRow("empty cacert") << "etcds://h/a?cacert=" << "file path";
    }

    void rejectsEveryMalformedPart()
    {
        QFETCH(QString, url);
        QFETCH(QString, named);
        try {
            Backend::parseUrl(url);
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(named), e.what());
            QVERIFY2(e.message().startsWith(QStringLiteral("invalid etcd URL")), e.what());
        }
    }

    void passwordNeverAppearsInErrors_data()
    {
        QTest::addColumn<QString>("url");
        QTest::newRow("bad port") << "etcd://alice:TopSecret@h:abc/x";
        QTest::newRow("unknown option") << "etcd://alice:TopSecret@h/x?nope=1";
        QTest::newRow("bad prefix") << "etcds://alice:TopSecret@h1,h2/x/";
        QTest::newRow("at sign in password") << "etcd://alice:Top@Secret@h:0";
    }

    void passwordNeverAppearsInErrors()
    {
        QFETCH(QString, url);
        try {
            Backend::parseUrl(url);
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(!e.message().contains(QStringLiteral("Secret")), e.what());
            QVERIFY2(e.message().contains(QStringLiteral("alice:***@")), e.what());
        }
        try {
            Backend::fromUrl(QUrl(url));
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(!e.message().contains(QStringLiteral("Secret")), e.what());
        }
    }

    void factoryKnowsBothSchemes()
    {
        QVERIFY(QSimbaBackendFactory::schemes().contains(QStringLiteral("etcd")));
        QVERIFY(QSimbaBackendFactory::schemes().contains(QStringLiteral("etcds")));
        // Several endpoints only exist as text.
        const auto several = QSimbaBackendFactory::create(QStringLiteral("etcd://u:secret@h1:2379,h2:2379/app?requestTimeout=5s"));
        QCOMPARE(several->describe(), QStringLiteral("etcd://u:***@h1:2379,h2:2379/app?requestTimeout=5s"));
        const auto tls = QSimbaBackendFactory::create(QUrl(QStringLiteral("etcds://h1/app?cacert=/ca.pem")));
        QCOMPARE(tls->describe(), QStringLiteral("etcds://h1:2379/app?cacert=/ca.pem"));
        for (const QString &bad : {QStringLiteral("etcd://u:secret@h1:2379,h2:2379/app?bogus=1"),
                                   QStringLiteral("etcds://u:secret@h1:99999/app")}) {
            try {
                QSimbaBackendFactory::create(bad);
                QFAIL("no error");
            } catch (const QSimbaInvalidArgumentError &e) {
                QVERIFY2(!e.message().contains(QStringLiteral("secret")), e.what());
                QVERIFY2(e.message().contains(QStringLiteral("etcd")), e.what());
            }
        }
    }

    void rejectsBadOptions()
    {
        Backend::Options o;
        o.prefix = QStringLiteral("simba");
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o = {};
        o.endpoints.clear();
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o = {};
        o.user = QStringLiteral("u");
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o = {};
        o.certFile = QStringLiteral("/c.pem");
        o.keyFile = QStringLiteral("/k.pem");
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o = {};
        o.requestTimeout = 0ms;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_EtcdUrl)
#include "tst_etcdurl.moc"
