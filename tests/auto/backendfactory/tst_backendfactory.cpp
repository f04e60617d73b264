// SPDX-License-Identifier: Apache-2.0
// QSimbaBackendFactory: every scheme with its options, every error (malformed URL, unknown
// scheme or option, backend not built, missing Qt SQL driver, redaction), the default URL
// and QSettings configuration.
#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"
#include "qsimbaredact.h"

#ifdef QSIMBA_HAVE_SQL
#include "qsimbasqlleasebackend.h"
#endif
#ifdef QSIMBA_HAVE_REDIS
#include "qsimbaredisleasebackend.h"
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
#include "qsimbazookeeperleasebackend.h"
#endif

#include <QtCore/QDir>
#include <QtCore/QFileInfo>
#include <QtCore/QSettings>
#include <QtCore/QStandardPaths>
#include <QtCore/QTemporaryDir>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;

namespace {
QString S(const char *text)
{
    return QString::fromUtf8(text);
}
} // namespace

class tst_BackendFactory : public QObject
{
    Q_OBJECT

    static QString errorOf(const std::function<void()> &f)
    {
        try {
            f();
        } catch (const QSimbaInvalidArgumentError &e) {
            return e.message();
        }
        return QStringLiteral("<no QSimbaInvalidArgumentError>");
    }

private Q_SLOTS:
    // First: the SQL driver plugins are looked up once per process.
    void missingSqlDriverIsNamed()
    {
#ifdef QSIMBA_HAVE_SQL
        const QStringList paths = QCoreApplication::libraryPaths();
        QCoreApplication::setLibraryPaths({});
        const QString error = errorOf([] { QSimbaBackendFactory::create(QStringLiteral("sqlite:///tmp/x.db")); });
        QCoreApplication::setLibraryPaths(paths);
        QVERIFY2(error.contains(QLatin1String("QSQLITE")) && error.contains(QLatin1String("not installed")),
                 qPrintable(error));
        QVERIFY2(error.contains(QLatin1String("libqt6sql6-sqlite")), qPrintable(error));
#else
        QVERIFY(!QSimbaBackendFactory::schemes().contains(QStringLiteral("sqlite")));
#endif
    }

    void createsEveryScheme_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QString>("description"); // describe() starts with it
        QTest::newRow("memory") << "memory://store1" << "memory://store1";
#ifdef QSIMBA_HAVE_SQL
        QTest::newRow("sqlite") << "sqlite:///tmp/qsimba-factory.db" << "sqlite:///tmp/qsimba-factory.db";
        QTest::newRow("postgresql") << "postgresql://u:pw@db.example:5433/app" << "postgresql://u:***@db.example:5433/app";
        QTest::newRow("postgres") << "postgres://u@db.example/app" << "postgresql://u@db.example";
        QTest::newRow("mysql") << "mysql://u:pw@db.example:3307/app" << "mysql://u:***@db.example:3307/app";
        QTest::newRow("mariadb") << "mariadb://u@db.example/app" << "mysql://u@db.example";
        QTest::newRow("postgresql-ipv6") << "postgresql://u:pw@[::1]:5433/app" << "postgresql://u:***@[::1]:5433/app";
        QTest::newRow("mysql-ipv6") << "mysql://u:pw@[::1]:3307/app" << "mysql://u:***@[::1]:3307/app";
#endif
#ifdef QSIMBA_HAVE_REDIS
        QTest::newRow("redis") << "redis://127.0.0.1:6390/2" << "redis://127.0.0.1:6390/2";
        QTest::newRow("redis-acl") << "redis://app:pw@127.0.0.1/0" << "redis://app:***@127.0.0.1";
        QTest::newRow("redis-ipv6") << "redis://app:p%40w@[::1]:6390/2" << "redis://app:***@[::1]:6390/2";
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
        QTest::newRow("zookeeper") << "zookeeper://127.0.0.1:2181/simba" << "zookeeper://127.0.0.1:2181/simba";
        QTest::newRow("zookeeper-hosts") << "zookeeper://h1:2181,h2:2182/app" << "zookeeper://h1:2181,h2:2182/app";
        QTest::newRow("zookeeper-ipv6") << "zookeeper://[::1]:2181/app" << "zookeeper://[::1]:2181/app";
        QTest::newRow("zookeeper-ipv6-hosts") << "zookeeper://[::1]:2181,[fe80::1]/app?digest=u:p%40w"
                                              << "zookeeper://[::1]:2181,[fe80::1]:2181/app?digest=u:***";
#endif
    }
    void createsEveryScheme()
    {
        QFETCH(QString, url);
        QFETCH(QString, description);
        const auto backend = QSimbaBackendFactory::create(url);
        QVERIFY(backend);
        QVERIFY2(backend->describe().startsWith(description), qPrintable(backend->describe()));
        if (!url.contains(QLatin1Char(','))) {
            const auto fromQUrl = QSimbaBackendFactory::create(QUrl(url));
            QCOMPARE(fromQUrl->describe(), backend->describe());
        }
    }

    void passesOptionsOn()
    {
        auto memory = QSimbaBackendFactory::create(QStringLiteral("memory://shared"));
        QVERIFY(dynamic_cast<QSimbaMemoryLeaseBackend *>(memory.get()));
#ifdef QSIMBA_HAVE_SQL
        auto sql = QSimbaBackendFactory::create(
            QStringLiteral("postgresql://u:pw@h/db?prefix=app_&connectTimeout=3s&statementTimeout=750ms"));
        auto *s = dynamic_cast<QSimbaSqlLeaseBackend *>(sql.get());
        QVERIFY(s);
        QCOMPARE(s->options().tablePrefix, QStringLiteral("app_"));
        QCOMPARE(s->options().connectTimeout, 3000ms);
        QCOMPARE(s->options().statementTimeout, 750ms);
        QCOMPARE(s->options().password, QStringLiteral("pw"));
#endif
#ifdef QSIMBA_HAVE_REDIS
        auto redis = QSimbaBackendFactory::create(QStringLiteral("redis://h:6400/3?prefix=jobs&maxLease=10s"));
        auto *r = dynamic_cast<QSimbaRedisLeaseBackend *>(redis.get());
        QVERIFY(r);
        QCOMPARE(r->options().prefix, QStringLiteral("jobs"));
        QCOMPARE(r->options().database, 3);
        QCOMPARE(r->options().maxLease, 10000ms);
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
        auto zk = QSimbaBackendFactory::create(QStringLiteral("zookeeper://h1:2181,h2:2181/app?timeout=5s&sessionTimeout=20s"));
        auto *z = dynamic_cast<QSimbaZookeeperLeaseBackend *>(zk.get());
        QVERIFY(z);
        QCOMPARE(z->options().hosts, QStringLiteral("h1:2181,h2:2181"));
        QCOMPARE(z->options().basePath, QStringLiteral("/app"));
        QCOMPARE(z->options().timeout, 5000ms);
#endif
    }

    void schemesOfOtherBuildsAreNamed_data()
    {
        QTest::addColumn<QString>("url");
        for (const char *url : {"sqlite:///tmp/x.db", "postgresql://h/db", "mysql://h/db", "redis://h",
                                "zookeeper://h:2181", "memory://m"})
            QTest::newRow(url) << QString::fromLatin1(url);
    }
    void schemesOfOtherBuildsAreNamed()
    {
        // Whatever this build contains: a scheme either works or says it is not built.
        QFETCH(QString, url);
        const QString scheme = url.section(QLatin1Char(':'), 0, 0);
        if (QSimbaBackendFactory::schemes().contains(scheme)) {
            QVERIFY(QSimbaBackendFactory::create(url));
        } else {
            const QString error = errorOf([&] { QSimbaBackendFactory::create(url); });
            QVERIFY2(error.contains(QLatin1String("not part of this build")), qPrintable(error));
        }
    }

    void errorsNameTheProblem_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("no scheme") << "just-a-name" << QStringList{QStringLiteral("malformed URL"), QStringLiteral("memory")};
        QTest::newRow("unknown scheme") << "consul://127.0.0.1:8500" << QStringList{QStringLiteral("unknown scheme 'consul'")};
        QTest::newRow("memory option") << "memory://m?lease=1s" << QStringList{QStringLiteral("unknown option 'lease'")};
        QTest::newRow("memory path") << "memory://m/x" << QStringList{QStringLiteral("no path")};
        QTest::newRow("memory port") << "memory://m:12" << QStringList{QStringLiteral("no user, password or port")};
#ifdef QSIMBA_HAVE_SQL
        QTest::newRow("sqlite option") << "sqlite:///tmp/x.db?prefx=a_" << QStringList{QStringLiteral("prefx")};
        QTest::newRow("sqlite host") << "sqlite://host/x.db" << QStringList{QStringLiteral("no host")};
        QTest::newRow("postgres no db") << "postgresql://u:secret@h" << QStringList{QStringLiteral("database"), QStringLiteral("***")};
        QTest::newRow("mysql option") << "mysql://u:secret@h/db?timeout=1s" << QStringList{QStringLiteral("timeout"), QStringLiteral("***")};
        QTest::newRow("bad port") << "postgresql://u:secret@h:99999/db" << QStringList{QStringLiteral("malformed URL"), QStringLiteral("port")};
#endif
#ifdef QSIMBA_HAVE_REDIS
        QTest::newRow("redis option") << "redis://:secret@h/0?bogus=1" << QStringList{QStringLiteral("bogus")};
        QTest::newRow("redis db") << "redis://h/zero" << QStringList{QStringLiteral("database number")};
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
        QTest::newRow("zookeeper option") << "zookeeper://h:2181/simba?digest=u:secret&bogus=1" << QStringList{QStringLiteral("bogus")};
        QTest::newRow("zookeeper acl") << "zookeeper://h:2181/simba?acl=creator" << QStringList{QStringLiteral("needs digest")};
#endif
    }
    void errorsNameTheProblem()
    {
        QFETCH(QString, url);
        QFETCH(QStringList, expected);
        const QString error = errorOf([&] { QSimbaBackendFactory::create(url); });
        for (const QString &e : expected)
            QVERIFY2(error.contains(e), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String("secret")), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1String("<no ")), qPrintable(url));
    }

    void emptyQUrlIsAnError()
    {
        const QString error = errorOf([] { QSimbaBackendFactory::create(QUrl()); });
        QVERIFY2(error.contains(QLatin1String("empty")), qPrintable(error));
    }

    void redactsPasswords()
    {
        QCOMPARE(QSimbaBackendFactory::redacted(QStringLiteral("postgresql://u:secret@h/db")),
                 QStringLiteral("postgresql://u:***@h/db"));
        QCOMPARE(QSimbaBackendFactory::redacted(QStringLiteral("redis://:secret@h/0")), QStringLiteral("redis://:***@h/0"));
        QCOMPARE(QSimbaBackendFactory::redacted(QStringLiteral("zookeeper://h:1/s?digest=u:secret&acl=creator")),
                 QStringLiteral("zookeeper://h:1/s?digest=u:***&acl=creator"));
        QCOMPARE(QSimbaBackendFactory::redacted(QStringLiteral("sqlite:///a:b@c.db")), QStringLiteral("sqlite:///a:b@c.db"));
    }

    // Secrets with characters that end a URL part ('/', '@', '#', ':') or are percent-encoded:
    // no piece of the secret (three characters or more between separators) may survive, in
    // QSimbaRedact::text() or in any error of the factory.
    void redactsAwkwardSecrets_data()
    {
        QTest::addColumn<QString>("url");
        QTest::addColumn<QStringList>("pieces");
        QTest::newRow("base64 with /") << "postgresql://app:ab9/cd+ef==@db:5432/app" << QStringList{S("ab9"), S("cd+ef==")};
        QTest::newRow("@ in password") << "redis://app:pq7@rs8@127.0.0.1/0" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("# in password") << "redis://app:pq7#rs8@127.0.0.1/0" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("%40 in password") << "redis://app:pq7%40rs8@127.0.0.1/0?bogus=1" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("only password") << "redis://:s3cr3t@127.0.0.1/0?bogus=1" << QStringList{S("s3cr3t")};
        QTest::newRow("digest %3A") << "zookeeper://h:2181/a?digest=app%3As3cr3t&x=1" << QStringList{S("s3cr3t")};
        QTest::newRow("digest #") << "zookeeper://h:2181/a?digest=app:pq7#rs8" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("digest @") << "zookeeper://h1:2181,h2:2181/a?digest=app:pq7@rs8&x=1" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("digest /") << "zookeeper://h:2181/a?digest=app:pq7/rs8&acl=bogus" << QStringList{S("pq7"), S("rs8")};
        QTest::newRow("ipv6 host") << "redis://app:pq7/rs8@[::1]:6379/0?bogus=1" << QStringList{S("pq7"), S("rs8")};
    }
    void redactsAwkwardSecrets()
    {
        QFETCH(QString, url);
        QFETCH(QStringList, pieces);
        const QString masked = QSimbaRedact::text(url);
        const QString factory = errorOf([&] { QSimbaBackendFactory::create(url); });
        const QString viaQUrl = errorOf([&] { QSimbaBackendFactory::create(QUrl(url)); });
        for (const QString &shown : {masked, factory, viaQUrl}) {
            QVERIFY2(shown.contains(QSimbaRedact::Mask) || !shown.contains(QLatin1String("://")), qPrintable(shown));
            for (const QString &piece : pieces)
                QVERIFY2(!shown.contains(piece), qPrintable(piece + QLatin1String(" in: ") + shown));
        }
    }

    void redactsParsedUrls()
    {
        QCOMPARE(QSimbaRedact::url(QUrl(S("redis://app:s3cr3t@127.0.0.1:6379/0"))), S("redis://app:***@127.0.0.1:6379/0"));
        QCOMPARE(QSimbaRedact::url(QUrl(S("postgresql://u:a%2Fb@[::1]:5432/db?sslpassword=k3y&x=1"))),
                 S("postgresql://u:***@[::1]:5432/db?sslpassword=***&x=1"));
        QCOMPARE(QSimbaRedact::url(QUrl(S("zookeeper://h:2181/a?digest=app%3As3cr3t&acl=creator"))),
                 S("zookeeper://h:2181/a?digest=app:***&acl=creator"));
        QCOMPARE(QSimbaRedact::hostPort(S("::1"), 6379), S("[::1]:6379"));
        QCOMPARE(QSimbaRedact::hostPort(S("db.example"), 5432), S("db.example:5432"));
    }

    void defaultIsSqliteInTheDataDirectory()
    {
        QStandardPaths::setTestModeEnabled(true);
        const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/qsimba");
        QDir(dir).removeRecursively();
        const QUrl url = QSimbaBackendFactory::defaultUrl();
        QCOMPARE(url.scheme(), QStringLiteral("sqlite"));
        QCOMPARE(url.path(), dir + QStringLiteral("/simba.db"));
        QVERIFY(QFileInfo(dir).isDir());
        QVERIFY2(url.toString().startsWith(QLatin1String("sqlite:///")), qPrintable(url.toString()));
#ifdef QSIMBA_HAVE_SQL
        const auto backend = QSimbaBackendFactory::create(QString());
        QVERIFY2(backend->describe().contains(dir), qPrintable(backend->describe()));
#endif
        QStandardPaths::setTestModeEnabled(false);
    }

    void settingsConfigureClient()
    {
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/backend"), QStringLiteral("memory://settings"));
        settings.setValue(QStringLiteral("simba/leaseDuration"), QStringLiteral("3s"));
        settings.setValue(QStringLiteral("simba/margin"), QStringLiteral("20ms"));
        settings.setValue(QStringLiteral("simba/drift"), QStringLiteral("0.02"));
        settings.setValue(QStringLiteral("other/leaseDuration"), QStringLiteral("nonsense"));
        settings.sync();
        const QSimbaConfig config = QSimbaBackendFactory::configFromSettings(settings, QStringLiteral("simba"));
        QCOMPARE(config.leaseDuration(), 3s);
        QCOMPARE(config.renewInterval(), 1s); // derived from the lease
        QCOMPARE(config.margin(), 20ms);
        QCOMPARE(config.drift(), 0.02);
        auto simba = QSimbaBackendFactory::fromSettings(settings, QStringLiteral("simba")).build();
        QCOMPARE(simba->config(), config);
        // No key at all: the defaults.
        QCOMPARE(QSimbaBackendFactory::configFromSettings(settings, QStringLiteral("empty")), QSimbaConfig());
    }

    void settingsErrorsNameTheKey_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("expected");
        QTest::newRow("duration") << "leaseDuration" << "fifteen" << "simba/leaseDuration=\"fifteen\"";
        QTest::newRow("unit") << "minBackoff" << "100" << "simba/minBackoff=\"100\"";
        QTest::newRow("drift") << "drift" << "a lot" << "simba/drift=\"a lot\"";
        QTest::newRow("unknown") << "leaseDurration" << "3s" << "unknown setting simba/leaseDurration";
        QTest::newRow("rule") << "renewInterval" << "10s" << "renewInterval";
        QTest::newRow("backend") << "backend" << "ftp://h" << "unknown scheme 'ftp'";
    }
    void settingsErrorsNameTheKey()
    {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFETCH(QString, expected);
        QTemporaryDir tmp;
        QSettings settings(tmp.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
        settings.setValue(QStringLiteral("simba/") + key, value);
        const QString error = errorOf([&] { QSimbaBackendFactory::fromSettings(settings, QStringLiteral("simba")); });
        QVERIFY2(error.contains(expected), qPrintable(error));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_BackendFactory)
#include "tst_backendfactory.moc"
