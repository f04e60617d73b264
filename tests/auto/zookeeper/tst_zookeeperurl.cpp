// SPDX-License-Identifier: Apache-2.0
// Backend URLs and options of the ZooKeeper backend (no server needed).
#include "qsimbaerror.h"
#include "qsimbazookeeperleasebackend.h"

#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Backend = QSimbaZookeeperLeaseBackend;

class tst_ZookeeperUrl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parsesEveryPart()
    {
        const auto o = Backend::parseUrl(QStringLiteral(
            "zookeeper://h1:2181,h2:2182,10.0.0.3/chroot/x?sessionTimeout=10s&timeout=1500ms&digest=user:pw&acl=creator-read"));
        QCOMPARE(o.hosts, QStringLiteral("h1:2181,h2:2182,10.0.0.3:2181"));
        QCOMPARE(o.basePath, QStringLiteral("/chroot/x"));
        QCOMPARE(o.sessionTimeout, 10s);
        QCOMPARE(o.timeout, 1500ms);
        QCOMPARE(o.digest, QStringLiteral("user:pw"));
        QCOMPARE(o.acl, Backend::Acl::CreatorRead);
        const QString printed = o.toRedactedUrl();
        QVERIFY2(!printed.contains(QStringLiteral("pw")), qPrintable(printed));
        QCOMPARE(printed, QStringLiteral("zookeeper://h1:2181,h2:2182,10.0.0.3:2181/chroot/x?timeout=1.5s"
                                         "&digest=user:***&acl=creator-read"));
    }

    void defaults()
    {
        const auto o = Backend::parseUrl(QStringLiteral("zookeeper://127.0.0.1"));
        QCOMPARE(o.hosts, QStringLiteral("127.0.0.1:2181"));
        QCOMPARE(o.basePath, QStringLiteral("/simba"));
        QCOMPARE(o.sessionTimeout, 10s);
        QCOMPARE(o.timeout, 2s);
        QVERIFY(o.digest.isEmpty());
        QCOMPARE(o.acl, Backend::Acl::Open);
        QCOMPARE(Backend::parseUrl(QStringLiteral("ZOOKEEPER://h:1/")).basePath, QStringLiteral("/simba"));
        // With credentials, the nodes are the creator's by default.
        QCOMPARE(Backend::parseUrl(QStringLiteral("zookeeper://h/?digest=a:b")).acl, Backend::Acl::Creator);
        QCOMPARE(Backend::parseUrl(QStringLiteral("zookeeper://[::1]:2181/a%20b")).basePath, QStringLiteral("/a b"));
    }

    void fromUrlTakesQUrlAndString()
    {
        const auto single = Backend::fromUrl(QUrl(QStringLiteral("zookeeper://127.0.0.1:2999/x?timeout=1s")));
        QCOMPARE(single->describe(), QStringLiteral("zookeeper://127.0.0.1:2999/x?timeout=1s"));
        const auto several = Backend::fromUrl(QStringLiteral("zookeeper://a:1,b:2/x?digest=u:secret"));
        QCOMPARE(several->describe(), QStringLiteral("zookeeper://a:1,b:2/x?digest=u:***"));
        QCOMPARE(several->options().digest, QStringLiteral("u:secret"));
        QVERIFY(several->capabilities().inspection);
        // QUrl cannot hold several hosts: the error says what to do instead.
        try {
            Backend::fromUrl(QUrl(QStringLiteral("zookeeper://a:1,b:2/x?digest=u:secret")));
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("as a string")), e.what());
            QVERIFY2(!e.message().contains(QStringLiteral("secret")), e.what());
        }
    }

    void rejectsEveryMalformedPart_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("named"); // what the message must name
        QTest::newRow("scheme") << "redis://h:1" << "zookeeper://";
        QTest::newRow("no host") << "zookeeper:///simba" << "no host";
        QTest::newRow("empty host in list") << "zookeeper://a:1,,b:2" << "malformed host";
        QTest::newRow("bad host") << "zookeeper://a b:1" << "malformed host";
        QTest::newRow("userinfo") << "zookeeper://u:secret@h:1" << "digest";
        QTest::newRow("port not a number") << "zookeeper://h:abc" << "invalid port";
        QTest::newRow("port zero") << "zookeeper://h:0" << "invalid port";
        QTest::newRow("port too big") << "zookeeper://h:65536" << "invalid port";
        QTest::newRow("empty port") << "zookeeper://h:" << "empty port";
        QTest::newRow("trailing slash") << "zookeeper://h/a/" << "must not end with /";
        QTest::newRow("empty component") << "zookeeper://h/a//b" << "empty";
        QTest::newRow("dot dot") << "zookeeper://h/a/.." << "..";
        QTest::newRow("reserved") << "zookeeper://h/zookeeper/x" << "reserved";
        QTest::newRow("fragment") << "zookeeper://h/a#x" << "fragment";
        QTest::newRow("unknown option") << "zookeeper://h/a?sesionTimeout=1s" << "unknown option sesionTimeout";
        QTest::newRow("duplicate option") << "zookeeper://h/a?timeout=1s&timeout=2s" << "twice";
        QTest::newRow("malformed duration") << "zookeeper://h/a?sessionTimeout=10" << "sessionTimeout=10";
        QTest::newRow("zero duration") << "zookeeper://h/a?timeout=0s" << "timeout=0s";
        QTest::newRow("negative duration") << "zookeeper://h/a?timeout=-1s" << "timeout=-1s";
        QTest::newRow("below a millisecond") << "zookeeper://h/a?timeout=10us" << "timeout=10us";
        QTest::newRow("over a day") << "zookeeper://h/a?sessionTimeout=25h" << "sessionTimeout=25h";
        QTest::newRow("empty option") << "zookeeper://h/a?timeout" << "timeout=";
        QTest::newRow("digest without password") << "zookeeper://h/a?digest=user" << "user:password";
        QTest::newRow("digest empty password") << "zookeeper://h/a?digest=user:" << "user:password";
        QTest::newRow("digest empty user") << "zookeeper://h/a?digest=:pw" << "user:password";
        QTest::newRow("unknown acl") << "zookeeper://h/a?acl=world" << "acl=world";
        QTest::newRow("creator acl without digest") << "zookeeper://h/a?acl=creator" << "needs digest";
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
            QVERIFY2(e.message().contains(QStringLiteral("invalid ZooKeeper URL")), e.what());
        }
    }

    void redactsThePasswordInErrors()
    {
        try {
            Backend::parseUrl(QStringLiteral("zookeeper://h/a?digest=user:topsecret&bogus=1"));
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(QStringLiteral("unknown option bogus")), e.what());
            QVERIFY2(e.message().contains(QStringLiteral("digest=user:***")), e.what());
            QVERIFY2(!e.message().contains(QStringLiteral("topsecret")), e.what());
        }
    }

    // Digests whose password is percent-encoded or holds URL delimiters never show, and the
    // TLS options say why TLS is unavailable.
    void redactsAwkwardDigests_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("named");
        QTest::newRow("%3A") << QStringLiteral("zookeeper://h/a?digest=app%3As3cr3t&x=1") << QStringLiteral("unknown option x");
        QTest::newRow("#") << QStringLiteral("zookeeper://h/a?digest=app:pq7#rs8") << QStringLiteral("fragment");
        QTest::newRow("/") << QStringLiteral("zookeeper://h/a?digest=app:pq7/rs8&acl=nope") << QStringLiteral("acl=nope");
        QTest::newRow("tls") << QStringLiteral("zookeeper://h/a?digest=app:s3cr3t&tls=true") << QStringLiteral("no zookeeper_init_ssl");
    }
    void redactsAwkwardDigests()
    {
        QFETCH(QString, url);
        QFETCH(QString, named);
        try {
            Backend::parseUrl(url);
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(named), e.what());
            for (const char *piece : {"s3cr3t", "pq7", "rs8"})
                QVERIFY2(!e.message().contains(QLatin1String(piece)), e.what());
        }
    }

    void ipv6Hosts()
    {
        const auto o = Backend::parseUrl(QStringLiteral("zookeeper://[::1]:2181,[fd00::5]/x"));
        QCOMPARE(o.hosts, QStringLiteral("[::1]:2181,[fd00::5]:2181"));
        QCOMPARE(o.toRedactedUrl(), QStringLiteral("zookeeper://[::1]:2181,[fd00::5]:2181/x"));
        QCOMPARE(Backend::parseUrl(QUrl(QStringLiteral("zookeeper://[::1]/x"))).hosts, QStringLiteral("[::1]:2181"));
    }

    void rejectsInvalidOptions()
    {
        Backend::Options o;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o}); // no hosts
        o.hosts = QStringLiteral("h:1");
        o.basePath = QStringLiteral("relative");
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o.basePath = QStringLiteral("/ok");
        o.timeout = 0ms;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
        o.timeout = 1s;
        o.acl = Backend::Acl::Creator;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, Backend{o});
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_ZookeeperUrl)
#include "tst_zookeeperurl.moc"
