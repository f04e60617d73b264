// SPDX-License-Identifier: Apache-2.0
// The Redis backend beyond the conformance suite: URLs, ACL, restarts without persistence,
// hint latency and resubscription, unreachable and hung servers. One redis-server per run.
#include "qsimbaconformancetest.h"
#include "qsimbaerror.h"
#include "qsimbaredisleasebackend.h"
#include "redisserver.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QMutex>
#include <QtTest/QTest>

using namespace std::chrono;
using namespace std::chrono_literals;
using Backend = QSimbaLeaseBackend;
using Options = QSimbaRedisLeaseBackend::Options;

class tst_RedisBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void parsesUrls_data();
    void parsesUrls();
    void rejectsBadUrls_data();
    void rejectsBadUrls();
    void rejectsBadOptions();
    void describeRedactsPassword();

    void keysShareOneHashTag();
    void tokensAreFlooredAtServerTime();
    void longLeaseIsShortenedToMaxLease();
    void inspectionShowsMetadata();
    void brokenConnectionIsReestablished();
    void unreachableServerFailsInBoundedTime();
    void hungServerTimesOut();

    void aclUserAndPassword();
    void wrongPasswordIsAClearError();

    void releaseHintReachesWaitingPartyQuickly();
    void restartWithoutPersistenceKeepsSafety();
    void hintsResubscribeAfterRestart();

private:
    Options options(const QString &prefix) const;
    QSimbaLeaseName name(const char *suffix) const;
    // Acquires \a n, letting a recovery period (after a fresh store or a restart) pass.
    qint64 grant(Backend &b, const QSimbaSessionId &s, const QSimbaLeaseName &n, milliseconds lease);

    RedisServer m_server;
    QString m_run = QSimbaSessionId::generate().toString().left(8);
};

namespace {
QString S(const char *text)
{
    return QString::fromUtf8(text);
}

// Collects hints from any thread.
class HintLog
{
public:
    Backend::HintListener listener()
    {
        return [this](const Backend::Hint &h) {
            QMutexLocker lock(&m_mutex);
            m_hints.append({h, m_clock.nsecsElapsed()});
        };
    }
    //! When the hint arrived (ns on clock()), or -1.
    qint64 seen(Backend::Hint::Kind kind, const QString &name) const
    {
        QMutexLocker lock(&m_mutex);
        for (const auto &[h, at] : m_hints)
            if (h.kind == kind && h.name == name)
                return at;
        return -1;
    }
    const QElapsedTimer &clock() const { return m_clock; }

private:
    mutable QMutex m_mutex;
    QList<std::pair<Backend::Hint, qint64>> m_hints;
    QElapsedTimer m_clock = [] { QElapsedTimer t; t.start(); return t; }();
};

// Waits until \a log saw a hint of \a kind for \a name, repeating \a publish (a
// subscription arms asynchronously).
bool awaitHint(const HintLog &log, Backend::Hint::Kind kind, const QString &name,
               const std::function<void()> &publish, milliseconds timeout = 5s)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeout.count()) {
        try {
            publish();
        } catch (const QSimbaBackendError &) {
            // the server may still be restarting: try again
        }
        for (int i = 0; i < 5 && log.seen(kind, name) < 0; ++i)
            QTest::qWait(10);
        if (log.seen(kind, name) >= 0)
            return true;
    }
    return false;
}
} // namespace

void tst_RedisBackend::initTestCase()
{
    if (!m_server.start())
        QFAIL(qPrintable(m_server.errorString()));
}

Options tst_RedisBackend::options(const QString &prefix) const
{
    Options o;
    o.port = m_server.port();
    o.prefix = prefix;
    o.maxLease = 600ms;
    o.connectTimeout = o.commandTimeout = 1s;
    return o;
}

QSimbaLeaseName tst_RedisBackend::name(const char *suffix) const
{
    return QSimbaLeaseName::of(QStringLiteral("r%1.%2.%3").arg(m_run, QLatin1String(QTest::currentTestFunction()),
                                                               QLatin1String(suffix)));
}

qint64 tst_RedisBackend::grant(Backend &b, const QSimbaSessionId &s, const QSimbaLeaseName &n, milliseconds lease)
{
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 5000) {
        if (!b.keepAlive(s, lease, {}).isLive)
            throw QSimbaError(QStringLiteral("session expired while waiting for %1").arg(n.toString()));
        const auto r = b.acquire(s, {n}).value(n);
        if (r.isGranted)
            return r.token;
        if (r.holder != QSimbaRedisLeaseBackend::recoveringHolder())
            throw QSimbaError(QStringLiteral("%1 is held by %2").arg(n.toString(), r.holder.toString()));
        // The server recovers from a loss of data: no grant until that time has passed.
        QSimbaConformanceTest::wallClock()(std::min(*r.holderRemaining, lease / 3));
    }
    throw QSimbaError(QStringLiteral("%1 was not granted within 5s").arg(n.toString()));
}

void tst_RedisBackend::parsesUrls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<int>("database");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<qint64>("connectMs");
    QTest::addColumn<qint64>("commandMs");
    QTest::addColumn<qint64>("maxLeaseMs");
    QTest::newRow("defaults") << S("redis://localhost") << S("localhost") << 6379 << 0 << S("") << S("") << S("simba")
                              << qint64(2000) << qint64(2000) << qint64(30000);
    QTest::newRow("port and db") << S("redis://10.0.0.1:7000/3") << S("10.0.0.1") << 7000 << 3 << S("") << S("") << S("simba")
                                 << qint64(2000) << qint64(2000) << qint64(30000);
    QTest::newRow("root path") << S("redis://h:1/") << S("h") << 1 << 0 << S("") << S("") << S("simba") << qint64(2000)
                               << qint64(2000) << qint64(30000);
    QTest::newRow("acl user") << S("redis://alice:s%40cret@h/0") << S("h") << 6379 << 0 << S("alice") << S("s@cret")
                              << S("simba") << qint64(2000) << qint64(2000) << qint64(30000);
    QTest::newRow("password only") << S("redis://:pw@h") << S("h") << 6379 << 0 << S("") << S("pw") << S("simba")
                                   << qint64(2000) << qint64(2000) << qint64(30000);
    QTest::newRow("options") << S("redis://h/1?prefix=app.locks&connectTimeout=500ms&commandTimeout=1.5s&maxLease=1m")
                             << S("h") << 6379 << 1 << S("") << S("") << S("app.locks") << qint64(500) << qint64(1500)
                             << qint64(60000);
}

void tst_RedisBackend::parsesUrls()
{
    QFETCH(QString, url);
    const Options o = QSimbaRedisLeaseBackend::parseUrl(QUrl(url));
    QTEST(o.host, "host");
    QTEST(int(o.port), "port");
    QTEST(o.database, "database");
    QTEST(o.user, "user");
    QTEST(o.password, "password");
    QTEST(o.prefix, "prefix");
    QTEST(qint64(o.connectTimeout.count()), "connectMs");
    QTEST(qint64(o.commandTimeout.count()), "commandMs");
    QTEST(qint64(o.maxLease.count()), "maxLeaseMs");
    QVERIFY(QSimbaRedisLeaseBackend::fromUrl(QUrl(url)));
}

void tst_RedisBackend::rejectsBadUrls_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("expected"); // in the message
    QTest::newRow("scheme") << S("rediss://h") << S("scheme must be \"redis\"");
    QTest::newRow("no host") << S("redis:///0") << S("no host");
    QTest::newRow("port 0") << S("redis://h:0") << S("port");
    QTest::newRow("db not a number") << S("redis://h/zero") << S("database number");
    QTest::newRow("db with more path") << S("redis://h/0/x") << S("database number");
    QTest::newRow("user without password") << S("redis://alice@h") << S("user \"alice\" needs a password");
    QTest::newRow("unknown option") << S("redis://h?timeout=2s") << S("unknown option \"timeout\"");
    QTest::newRow("twice") << S("redis://h?prefix=a&prefix=b") << S("option prefix is given twice");
    QTest::newRow("bad duration") << S("redis://h?connectTimeout=soon") << S("option connectTimeout");
    QTest::newRow("duration without unit") << S("redis://h?commandTimeout=2") << S("option commandTimeout");
    QTest::newRow("zero duration") << S("redis://h?maxLease=0s") << S("option maxLease");
    QTest::newRow("prefix with brace") << S("redis://h?prefix=a%7Bb") << S("prefix must be");
    QTest::newRow("empty prefix") << S("redis://h?prefix=") << S("prefix must be");
    QTest::newRow("fragment") << S("redis://h#x") << S("fragment");
    QTest::newRow("password redacted") << S("redis://alice:topsecret@h?bogus=1") << S("alice:***@h");
    QTest::newRow("malformed") << S("redis://alice:topsecret@h:99999") << S("invalid Redis URL");
    QTest::newRow("empty") << S("") << S("invalid Redis URL");
}

void tst_RedisBackend::rejectsBadUrls()
{
    QFETCH(QString, url);
    QFETCH(QString, expected);
    try {
        QSimbaRedisLeaseBackend::fromUrl(QUrl(url));
        QFAIL("no error");
    } catch (const QSimbaInvalidArgumentError &e) {
        QVERIFY2(e.message().contains(expected), qPrintable(e.message()));
        QVERIFY2(!e.message().contains(QLatin1String("topsecret")), qPrintable(e.message()));
    }
}

void tst_RedisBackend::rejectsBadOptions()
{
    Options o;
    o.prefix = QStringLiteral("{x}");
    QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaRedisLeaseBackend{o});
    o = {};
    o.commandTimeout = 0ms;
    try {
        QSimbaRedisLeaseBackend b(o);
        QFAIL("no error");
    } catch (const QSimbaInvalidArgumentError &e) {
        QVERIFY2(e.message().contains(QLatin1String("commandTimeout")), qPrintable(e.message()));
    }
}

void tst_RedisBackend::describeRedactsPassword()
{
    const auto b = QSimbaRedisLeaseBackend::fromUrl(QUrl(QStringLiteral("redis://alice:topsecret@h:7000/2?prefix=p")));
    QCOMPARE(b->describe(), QStringLiteral("redis://alice:***@h:7000/2?prefix=p"));
    QCOMPARE(QSimbaRedisLeaseBackend::fromUrl(QUrl(QStringLiteral("redis://h")))->describe(),
             QStringLiteral("redis://h:6379/0"));
}

void tst_RedisBackend::keysShareOneHashTag()
{
    const QString prefix = QStringLiteral("tag") + m_run;
    QSimbaRedisLeaseBackend b(options(prefix));
    const auto s = b.openSession(500ms).id;
    grant(b, s, name("a"), 500ms);
    b.join(s, name("g").toString());
    QString keys;
    QCOMPARE(m_server.cli({QStringLiteral("--scan"), QStringLiteral("--pattern"), QStringLiteral("*") + prefix + QStringLiteral("*")}, &keys), 0);
    const QStringList list = keys.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QVERIFY2(list.size() >= 6, qPrintable(keys)); // epoch, sessions, session, lease, token, owned, group…
    for (const auto &key : list)
        QVERIFY2(key.startsWith(QLatin1Char('{') + prefix + QStringLiteral("}:")), qPrintable(key));
    b.closeSession(s);
}

void tst_RedisBackend::tokensAreFlooredAtServerTime()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("t")));
    const auto s = b.openSession(500ms).id;
    const auto n = name("a");
    QString time;
    QCOMPARE(m_server.cli({QStringLiteral("TIME")}, &time), 0);
    const QStringList parts = time.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(parts.size(), 2);
    const qint64 before = parts[0].toLongLong() * 1000000 + parts[1].toLongLong();
    const qint64 t1 = grant(b, s, n, 500ms);
    QVERIFY2(t1 >= before, qPrintable(QStringLiteral("token %1, server time %2us").arg(t1).arg(before)));
    b.release(s, {{n, t1}});
    const qint64 t2 = grant(b, s, n, 500ms);
    QVERIFY(t2 > t1);
    b.closeSession(s);
}

void tst_RedisBackend::longLeaseIsShortenedToMaxLease()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("t")));
    const auto grant = b.openSession(1h);
    QCOMPARE(grant.remaining, 600ms);
    QCOMPARE(b.keepAlive(grant.id, 1h, {}).remaining, 600ms);
    b.closeSession(grant.id);
}

void tst_RedisBackend::inspectionShowsMetadata()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("t")));
    const auto s = b.openSession(500ms, {{QStringLiteral("host"), QStringLiteral("node-1")}}).id;
    const auto view = b.inspect();
    const auto it = std::find_if(view.sessions.cbegin(), view.sessions.cend(), [&](const auto &x) { return x.id == s; });
    QVERIFY(it != view.sessions.cend());
    QCOMPARE(it->metadata.value(QStringLiteral("host")), QStringLiteral("node-1"));
    QVERIFY(it->remaining > 0ms && it->remaining <= 500ms);
    b.closeSession(s);
    const auto after = b.inspect();
    QVERIFY(std::none_of(after.sessions.cbegin(), after.sessions.cend(), [&](const auto &x) { return x.id == s; }));
}

void tst_RedisBackend::brokenConnectionIsReestablished()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("t")));
    const auto s = b.openSession(500ms).id;
    QString out;
    QCOMPARE(m_server.cli({QStringLiteral("CLIENT"), QStringLiteral("KILL"), QStringLiteral("TYPE"),
                           QStringLiteral("normal")}, &out), 0);
    QVERIFY2(out.toInt() >= 1, qPrintable(out));
    // The next call notices, reconnects and answers.
    QVERIFY(b.keepAlive(s, 500ms, {}).isLive);
    // Scripts flushed from the server's cache are loaded again.
    QCOMPARE(m_server.cli({QStringLiteral("SCRIPT"), QStringLiteral("FLUSH")}), 0);
    QVERIFY(b.keepAlive(s, 500ms, {}).isLive);
    b.closeSession(s);
}

void tst_RedisBackend::unreachableServerFailsInBoundedTime()
{
    Options o = options(QStringLiteral("t"));
    o.port = TestServer::freePort(); // nobody listens there
    o.connectTimeout = 500ms;
    QSimbaRedisLeaseBackend b(o);
    QElapsedTimer timer;
    timer.start();
    try {
        b.openSession(500ms);
        QFAIL("no error");
    } catch (const QSimbaBackendError &e) {
        QVERIFY2(e.message().contains(QStringLiteral("127.0.0.1:%1").arg(o.port)), qPrintable(e.message()));
        QVERIFY2(e.message().contains(QLatin1String("cannot connect")), qPrintable(e.message()));
    }
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
}

void tst_RedisBackend::hungServerTimesOut()
{
    Options o = options(QStringLiteral("t"));
    o.commandTimeout = 300ms;
    o.maxLease = 5s; // the session outlives the pause; nothing is granted here
    QSimbaRedisLeaseBackend b(o);
    const auto s = b.openSession(5s).id;
    QVERIFY(m_server.pause());
    QElapsedTimer timer;
    timer.start();
    try {
        b.keepAlive(s, 5s, {});
        m_server.resume();
        QFAIL("no error");
    } catch (const QSimbaBackendError &e) {
        QVERIFY2(e.message().contains(QLatin1String("no answer within the command timeout (300ms)")),
                 qPrintable(e.message()));
        QVERIFY2(e.message().contains(b.describe()), qPrintable(e.message()));
    }
    const qint64 elapsed = timer.elapsed();
    QVERIFY(m_server.resume());
    QVERIFY2(elapsed >= 250 && elapsed < 1500, qPrintable(QString::number(elapsed)));
    QVERIFY(b.keepAlive(s, 5s, {}).isLive); // reconnected
    b.closeSession(s);
}

void tst_RedisBackend::aclUserAndPassword()
{
    QString out;
    QCOMPARE(m_server.cli({QStringLiteral("ACL"), QStringLiteral("SETUSER"), QStringLiteral("alice"),
                           QStringLiteral("on"), QStringLiteral(">s3cret"), QStringLiteral("~{acl}:*"),
                           QStringLiteral("&{acl}:*"), QStringLiteral("+@all")}, &out), 0);
    QVERIFY2(out.contains(QLatin1String("OK")), qPrintable(out));
    const auto b = QSimbaRedisLeaseBackend::fromUrl(
        QUrl(QStringLiteral("redis://alice:s3cret@127.0.0.1:%1/0?prefix=acl&maxLease=600ms").arg(m_server.port())));
    QCOMPARE(b->describe(), QStringLiteral("redis://alice:***@127.0.0.1:%1/0?prefix=acl").arg(m_server.port()));
    HintLog log;
    const auto subscription = b->subscribe(log.listener());
    const auto s = b->openSession(500ms).id;
    const auto n = name("a");
    const qint64 t = grant(*b, s, n, 500ms);
    QVERIFY(t > 0);
    QVERIFY(awaitHint(log, Backend::Hint::Kind::MembersChanged, name("g").toString(), [&] {
        b->join(s, name("g").toString());
        b->leave(s, name("g").toString());
    }));
    b->closeSession(s);
    // alice may not touch other prefixes: the server's refusal is reported.
    Options other = b->options();
    other.prefix = QStringLiteral("simba");
    try {
        QSimbaRedisLeaseBackend(other).openSession(500ms);
        QFAIL("no error");
    } catch (const QSimbaBackendError &e) {
        QVERIFY2(e.message().contains(QLatin1String("NOPERM")), qPrintable(e.message()));
    }
}

void tst_RedisBackend::wrongPasswordIsAClearError()
{
    m_server.cli({QStringLiteral("ACL"), QStringLiteral("SETUSER"), QStringLiteral("bob"), QStringLiteral("on"),
                  QStringLiteral(">right"), QStringLiteral("~*"), QStringLiteral("&*"), QStringLiteral("+@all")});
    const auto b = QSimbaRedisLeaseBackend::fromUrl(
        QUrl(QStringLiteral("redis://bob:wrong@127.0.0.1:%1/0").arg(m_server.port())));
    try {
        b->openSession(500ms);
        QFAIL("no error");
    } catch (const QSimbaBackendError &e) {
        QVERIFY2(e.message().contains(QLatin1String("authentication as bob failed")), qPrintable(e.message()));
        QVERIFY2(e.message().contains(QLatin1String("WRONGPASS")), qPrintable(e.message()));
        QVERIFY2(e.message().contains(b->describe()), qPrintable(e.message()));
        QVERIFY2(!e.message().contains(QLatin1String("wrong@")), qPrintable(e.message()));
    }
}

void tst_RedisBackend::releaseHintReachesWaitingPartyQuickly()
{
    QSimbaRedisLeaseBackend holder(options(QStringLiteral("t"))), waiter(options(QStringLiteral("t")));
    HintLog log;
    const auto subscription = waiter.subscribe(log.listener());
    const auto s1 = holder.openSession(600ms).id;
    // Armed once a hint went through.
    const auto warmup = name("warmup");
    QVERIFY(awaitHint(log, Backend::Hint::Kind::Released, warmup.toString(), [&] {
        holder.release(s1, {{warmup, grant(holder, s1, warmup, 600ms)}});
    }));
    const auto n = name("a");
    const qint64 t = grant(holder, s1, n, 600ms);
    const auto s2 = waiter.openSession(600ms).id;
    const auto held = waiter.acquire(s2, {n}).value(n);
    QVERIFY(!held.isGranted);
    QCOMPARE(held.holder, s1);
    const qint64 releasedAt = log.clock().nsecsElapsed();
    holder.release(s1, {{n, t}});
    QTRY_VERIFY_WITH_TIMEOUT(log.seen(Backend::Hint::Kind::Released, n.toString()) >= 0, 1000);
    const qint64 latency = log.seen(Backend::Hint::Kind::Released, n.toString()) - releasedAt;
    qInfo("release -> hint latency: %.2f ms", double(latency) / 1e6);
    QVERIFY(latency < 1'000'000'000);
    const auto won = waiter.acquire(s2, {n}).value(n);
    QVERIFY(won.isGranted);
    QVERIFY(won.token > t);
    holder.closeSession(s1);
    waiter.closeSession(s2);
}

/*
 * A restart without persistence loses every key. The old holder's term stays valid for
 * the rest of its lease (its local deadline); nobody may be granted the name before then,
 * and the next token must still be higher.
 */
void tst_RedisBackend::restartWithoutPersistenceKeepsSafety()
{
    const milliseconds lease = 500ms;
    QSimbaRedisLeaseBackend a(options(QStringLiteral("t"))), b(options(QStringLiteral("t")));
    const auto n = name("a");
    QElapsedTimer clock;
    clock.start();
    const auto s1 = a.openSession(lease).id;
    const qint64 t1 = grant(a, s1, n, lease);
    const qint64 sent = clock.elapsed();
    const auto k = a.keepAlive(s1, lease, {n});
    QVERIFY(k.isLive && k.owned.contains(n));
    const qint64 validUntil = sent + k.remaining.count(); // s1's term, before drift and margin

    if (!m_server.restart())
        QFAIL(qPrintable(m_server.errorString()));

    // The session is gone with the data: its holder learns it at the next keepAlive.
    QVERIFY(!a.keepAlive(s1, lease, {n}).isLive);
    const auto s2 = b.openSession(lease).id;
    qint64 t2 = 0;
    bool sawRecovering = false;
    while (clock.elapsed() < 5000 && t2 == 0) {
        const qint64 attempt = clock.elapsed();
        QVERIFY(b.keepAlive(s2, lease, {}).isLive);
        const auto r = b.acquire(s2, {n}).value(n);
        if (r.isGranted) {
            QVERIFY2(attempt >= validUntil,
                     qPrintable(QStringLiteral("granted at %1ms while the old term was valid until %2ms")
                                    .arg(attempt).arg(validUntil)));
            t2 = r.token;
        } else {
            QCOMPARE(r.holder, QSimbaRedisLeaseBackend::recoveringHolder());
            QVERIFY(r.holderRemaining && *r.holderRemaining > 0ms && *r.holderRemaining <= 600ms + 1ms);
            sawRecovering = true;
            QSimbaConformanceTest::wallClock()(std::min(*r.holderRemaining, 50ms));
        }
    }
    QVERIFY(sawRecovering);
    QVERIFY2(t2 > t1, qPrintable(QStringLiteral("token %1 after %2").arg(t2).arg(t1)));

    // Once more, with the counter gone again: still increasing.
    if (!m_server.restart())
        QFAIL(qPrintable(m_server.errorString()));
    QVERIFY(!b.keepAlive(s2, lease, {}).isLive);
    const auto s3 = b.openSession(lease).id;
    const qint64 t3 = grant(b, s3, n, lease);
    QVERIFY2(t3 > t2, qPrintable(QStringLiteral("token %1 after %2").arg(t3).arg(t2)));
    b.closeSession(s3);
}

void tst_RedisBackend::hintsResubscribeAfterRestart()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("t")));
    HintLog log;
    const auto subscription = b.subscribe(log.listener());
    const auto g1 = name("before").toString(), g2 = name("after").toString();
    QSimbaSessionId s;
    const auto churn = [&](const QString &g) {
        return [&b, &s, g] {
            if (s.isNull() || !b.keepAlive(s, 2s, {}).isLive)
                s = b.openSession(2s).id;
            b.join(s, g);
            b.leave(s, g);
        };
    };
    QVERIFY(awaitHint(log, Backend::Hint::Kind::MembersChanged, g1, churn(g1)));
    if (!m_server.restart())
        QFAIL(qPrintable(m_server.errorString()));
    QVERIFY2(awaitHint(log, Backend::Hint::Kind::MembersChanged, g2, churn(g2)),
             "no hint after the server restarted: the subscription was not renewed");
    b.closeSession(s);
}

QTEST_GUILESS_MAIN(tst_RedisBackend)
#include "tst_redisbackend.moc"
