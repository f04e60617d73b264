// SPDX-License-Identifier: Apache-2.0
// The Redis backend beyond the conformance suite: URLs, ACL, restarts without persistence,
// hint latency and resubscription, unreachable and hung servers. One redis-server per run.
#include "qsimbaconformancetest.h"
#include "qsimbaerror.h"
#include "qsimbaredisleasebackend.h"
#include "redisserver.h"
#include "tcpproxy.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QMutex>
#include <QtCore/QScopeGuard>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QTest>
#include "qsimbatestmain.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

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
    void aCallIsOneWriteAndOneRead();
    void aLockCycleRunsOnlyTheCommandsItNeeds();
    void releasedLeaseLeavesKeepAliveAndInspection();
    void unreachableServerFailsInBoundedTime();
    void unresolvableHostFailsInBoundedTime();
    void hungServerTimesOut();

    void aclUserAndPassword();
    void leastPrivilegeAclSuffices();
    void wrongPasswordIsAClearError();

    void releaseHintReachesWaitingPartyQuickly();
    void releasePublishesOnlyWhenSomebodyWaits();
    void olderListenersGetEveryReleaseHint();
    void restartWithoutPersistenceKeepsSafety();
    void hintsResubscribeAfterRestart();

    void everyCallEndsWithinItsDeadline_data();
    void everyCallEndsWithinItsDeadline();
    void slowServerCannotStretchACall();
    void connectsOverIpv6();
    void readOnlyDropsTheConnection();
    void followsMovedToTheNewNode();
    void restoredOldDataNeverGrantsALowerToken_data();
    void restoredOldDataNeverGrantsALowerToken();
    void freshPrefixGrantsAtOnce();
    void replacedDataStaysGuarded_data();
    void replacedDataStaysGuarded();
    void longestMaxLeaseGuardsARestart();

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

namespace {
// How long a call may take beyond its limit (connectTimeout + commandTimeout) on a loaded
// machine: thread wake-ups, the proxy's own latency.
constexpr milliseconds Slack = 400ms;

// Runs \a call, which must fail with a QSimbaBackendError within \a bound; the message.
QString failsWithin(const std::function<void()> &call, milliseconds bound, qint64 *elapsed = nullptr)
{
    QElapsedTimer timer;
    timer.start();
    QString message = S("<no error>");
    try {
        call();
    } catch (const QSimbaBackendError &e) {
        message = e.message();
    }
    if (elapsed)
        *elapsed = timer.elapsed();
    if (timer.elapsed() > bound.count())
        return QStringLiteral("<took %1ms, more than %2ms> %3").arg(timer.elapsed()).arg(bound.count()).arg(message);
    return message;
}

QString field(const QString &info, const QString &name)
{
    for (const QString &line : info.split(QLatin1Char('\n')))
        if (line.startsWith(name + QLatin1Char(':')))
            return line.mid(name.size() + 1).trimmed();
    return {};
}
} // namespace

namespace {
// poll() calls of this thread while >= 0 (see aCallIsOneWriteAndOneRead).
thread_local int t_polls = -1;

// This thread's read and write system calls so far (/proc/thread-self/io); reading it is
// one read of its own, counted in the next look.
std::pair<qint64, qint64> readsAndWrites()
{
    char text[1024] = {};
    const int fd = ::open("/proc/thread-self/io", O_RDONLY);
    const ssize_t n = fd >= 0 ? ::read(fd, text, sizeof text - 1) : -1;
    if (fd >= 0)
        ::close(fd);
    const QByteArray io(text, n > 0 ? qsizetype(n) : 0);
    const auto number = [&](const char *key) {
        const qsizetype at = io.indexOf(key);
        return at < 0 ? qint64(-1) : io.mid(at + qsizetype(qstrlen(key))).split('\n').value(0).trimmed().toLongLong();
    };
    return {number("syscr:"), number("syscw:")};
}
} // namespace

// Counts the calls of poll() on a thread that asks for it (t_polls), for
// aCallIsOneWriteAndOneRead(); forwards every call to the C library's poll(). Exported (the
// tests are built with hidden visibility), so that it stands in for the C library's.
extern "C" Q_DECL_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    using Poll = int (*)(struct pollfd *, nfds_t, int);
    static const auto next = reinterpret_cast<Poll>(dlsym(RTLD_NEXT, "poll"));
    if (t_polls >= 0)
        ++t_polls;
    return next(fds, n, timeout);
}

namespace {
// The server's PUBLISH calls so far (INFO commandstats), or -1.
qint64 publishes(const RedisServer &server)
{
    QString info;
    if (server.cli({S("INFO"), S("commandstats")}, &info) != 0)
        return -1;
    const QString stats = field(info, S("cmdstat_publish"));
    if (stats.isEmpty())
        return 0; // never called
    return stats.section(QLatin1Char(','), 0, 0).section(QLatin1Char('='), 1).toLongLong();
}

// Calls per command so far (INFO commandstats: "cmdstat_<name>:calls=<n>,…").
QMap<QString, qint64> commandCalls(const RedisServer &server)
{
    QString info;
    QMap<QString, qint64> calls;
    if (server.cli({S("INFO"), S("commandstats")}, &info) != 0)
        return calls;
    for (const QString &line : info.split(QLatin1Char('\n'))) {
        if (!line.startsWith(S("cmdstat_")))
            continue;
        const QString name = line.mid(8).section(QLatin1Char(':'), 0, 0);
        calls.insert(name, line.section(QLatin1String("calls="), 1).section(QLatin1Char(','), 0, 0).toLongLong());
    }
    return calls;
}

// How many connections subscribe to \a channel, or -1.
int subscribers(const RedisServer &server, const QString &channel)
{
    QString out;
    if (server.cli({S("PUBSUB"), S("NUMSUB"), channel}, &out) != 0)
        return -1;
    const QStringList lines = out.trimmed().split(QLatin1Char('\n'));
    return lines.size() == 2 ? lines[1].trimmed().toInt() : -1;
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
    QTest::newRow("ipv6") << S("redis://[::1]:7000/2") << S("::1") << 7000 << 2 << S("") << S("") << S("simba")
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
    QTest::newRow("scheme") << S("http://h") << S("scheme must be \"redis\"");
    QTest::newRow("tls") << S("rediss://h") << S("hiredis 0.14 has no TLS");
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
    QCOMPARE(QSimbaRedisLeaseBackend::fromUrl(QUrl(QStringLiteral("redis://u:p%2Fw@[::1]:7000/1")))->describe(),
             QStringLiteral("redis://u:***@[::1]:7000/1"));
    // The text form parses the same; the options print the same description.
    const Options parsed = QSimbaRedisLeaseBackend::parseUrl(QStringLiteral("redis://u:p%2Fw@[::1]:7000/1"));
    QCOMPARE(parsed.password, QStringLiteral("p/w"));
    QCOMPARE(parsed.toRedactedUrl(), QStringLiteral("redis://u:***@[::1]:7000/1"));
    QCOMPARE(QSimbaRedisLeaseBackend::fromUrl(QStringLiteral("redis://h:1/2"))->describe(), QStringLiteral("redis://h:1/2"));
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
    b.release(s, {{n, t2}});

    // A last token above the server's time (granted faster than one per microsecond, or by a
    // server whose clock was ahead): the next is that + 1, not the time (one SET wrote the
    // time and read the last token; a second one writes the higher token).
    const qint64 ahead = t2 + 1'000'000'000'000;
    QCOMPARE(m_server.cli({S("SET"), S("{t}:token:") + n.toString(), QString::number(ahead)}), 0);
    const qint64 t3 = grant(b, s, n, 500ms);
    QCOMPARE(t3, ahead + 1);
    b.release(s, {{n, t3}});
    QCOMPARE(grant(b, s, n, 500ms), ahead + 2);
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

// A call on an open connection is one write and one read, as a plain redisCommand(): no
// poll() before either while the command timeout is the limit (the socket's own timeouts,
// set to it, bound them). A lock cycle is two such calls.
void tst_RedisBackend::aCallIsOneWriteAndOneRead()
{
    QSimbaRedisLeaseBackend b(options(QStringLiteral("syscalls")));
    const auto s = b.openSession(600ms).id;
    const auto n = name("a");
    b.release(s, {{n, grant(b, s, n, 600ms)}}); // connected, the recovery guard passed, scripts loaded
    t_polls = 0;
    const auto before = readsAndWrites();
    for (int i = 0; i < 5; ++i) {
        const auto r = b.acquire(s, {n}).value(n);
        QVERIFY(r.isGranted);
        b.release(s, {{n, r.token}});
    }
    QVERIFY(b.keepAlive(s, 600ms, {}).isLive);
    const auto after = readsAndWrites();
    const int polls = std::exchange(t_polls, -1);
    QVERIFY2(before.first >= 0 && before.second >= 0, "no /proc/thread-self/io");
    QCOMPARE(after.second - before.second, 11);
    QCOMPARE(after.first - before.first - 1, 11); // less the read of the first look
    // Before, each call polled before its write and before its read: 22. Now none, unless the
    // thread was held up for more than a millisecond between a write and its read (a loaded
    // machine, a sanitizer build): that read then waits in poll() to keep the command's
    // limit exact. So fewer than one per call, whatever the machine does.
    QVERIFY2(polls < 11, qPrintable(QStringLiteral("%1 polls in 11 calls").arg(polls)));
}

/*
 * An uncontended lock cycle (acquire and release of a free name, the client's hint
 * subscription up) runs only the commands its rules need on the server: the clock, the
 * session's liveness, the recovery guard's INFO and epoch, the lease, the token (one SET
 * that also reads the last one), the session's owned set; the release deletes the lease and
 * asks whether an older client listens. No PUBLISH (nobody waits), no index of held names,
 * and the owned set is left to keepAlive to tidy.
 */
void tst_RedisBackend::aLockCycleRunsOnlyTheCommandsItNeeds()
{
    const QString prefix = S("cmd") + m_run;
    // A session that outlives the redis-cli runs of a loaded machine (the recovery guard of
    // this new prefix waits until the server has run maxLease: grant() waits up to 5 s).
    Options o = options(prefix);
    o.maxLease = 3s;
    QSimbaRedisLeaseBackend b(o);
    HintLog log;
    const auto subscription = b.subscribe(log.listener());
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server, S("{") + prefix + S("}:waitmarks")), 1, 5000);
    const auto s = b.openSession(3s).id;
    const auto n = name("a");
    b.release(s, {{n, grant(b, s, n, 3s)}}); // past the recovery guard, the scripts loaded
    QVERIFY(b.keepAlive(s, 3s, {}).isLive);

    const auto before = commandCalls(m_server);
    QVERIFY(!before.isEmpty());
    const auto r = b.acquire(s, {n}).value(n);
    QVERIFY(r.isGranted);
    b.release(s, {{n, r.token}});
    const auto after = commandCalls(m_server);
    QMap<QString, qint64> ran;
    for (auto it = after.cbegin(); it != after.cend(); ++it)
        if (it.value() != before.value(it.key()))
            ran.insert(it.key(), it.value() - before.value(it.key()));
    // INFO: the script's and the first INFO commandstats of this test's own.
    const QMap<QString, qint64> expected{{S("evalsha"), 2}, {S("time"), 1}, {S("zscore"), 1}, {S("info"), 2},
                                         {S("hmget"), 3}, {S("set"), 1}, {S("hset"), 1}, {S("sadd"), 1},
                                         {S("del"), 1}, {S("pubsub|numsub"), 1}};
    QString shown;
    for (auto it = ran.cbegin(); it != ran.cend(); ++it)
        shown += S(" %1=%2").arg(it.key()).arg(it.value());
    QVERIFY2(ran == expected, qPrintable(S("commands of one cycle:") + shown));
    b.closeSession(s);
}

// The owned set keeps a released name until keepAlive tidies it: no reader may take it for
// a held lease (keepAlive, inspect, closeSession), also once another session holds it.
void tst_RedisBackend::releasedLeaseLeavesKeepAliveAndInspection()
{
    const QString prefix = S("own") + m_run;
    QSimbaRedisLeaseBackend b(options(prefix));
    const auto s1 = b.openSession(600ms).id;
    const auto n = name("a"), kept = name("b");
    b.release(s1, {{n, grant(b, s1, n, 600ms)}});
    grant(b, s1, kept, 600ms);
    const auto lists = [&](const QSimbaSessionId &s, const QSimbaLeaseName &name) {
        const auto view = b.inspect();
        return std::count_if(view.leases.cbegin(), view.leases.cend(),
                             [&](const auto &l) { return l.name == name && l.holder == s; });
    };
    QCOMPARE(lists(s1, n), 0);
    QCOMPARE(lists(s1, kept), 1);
    const auto s2 = b.openSession(600ms).id;
    const qint64 t2 = grant(b, s2, n, 600ms);
    QCOMPARE(lists(s1, n), 0);
    QCOMPARE(lists(s2, n), 1);
    QCOMPARE(b.keepAlive(s1, 600ms, {}).owned, QSet<QSimbaLeaseName>{kept});
    QCOMPARE(b.keepAlive(s2, 600ms, {}).owned, QSet<QSimbaLeaseName>{n});
    b.closeSession(s1); // frees only what s1 holds
    const auto view = b.inspect();
    QCOMPARE(view.leases.size(), 1);
    QCOMPARE(view.leases.first().name, n);
    QCOMPARE(view.leases.first().token, t2);
    QVERIFY(b.keepAlive(s2, 600ms, {}).owned.contains(n));
    b.closeSession(s2);
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

// m15: name resolution is inside connectTimeout (getaddrinfo has no bound of its own).
void tst_RedisBackend::unresolvableHostFailsInBoundedTime()
{
    Options o = options(QStringLiteral("t"));
    o.host = QStringLiteral("no-such-host.invalid");
    o.connectTimeout = 500ms;
    QSimbaRedisLeaseBackend b(o);
    const QString message = failsWithin([&] { b.openSession(500ms); }, o.connectTimeout + o.commandTimeout + Slack);
    QVERIFY2(message.contains(QLatin1String("cannot resolve no-such-host.invalid")), qPrintable(message));
    QVERIFY2(message.contains(b.describe()), qPrintable(message));
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

// The ACL docs/backend-redis.md gives: the prefix's keys and channel, and only the commands
// the backend and its scripts use.
void tst_RedisBackend::leastPrivilegeAclSuffices()
{
    const QStringList commands{
        S("+auth"), S("+select"), S("+ping"), S("+evalsha"), S("+script|load"), S("+subscribe"), S("+info"),
        S("+time"), S("+publish"), S("+pubsub|numsub"), S("+get"), S("+set"), S("+del"), S("+hget"), S("+hset"), S("+hmget"),
        S("+hgetall"), S("+sadd"), S("+srem"), S("+smembers"), S("+scard"), S("+zadd"), S("+zrem"), S("+zscore"),
        S("+zrangebyscore")};
    QString out;
    QCOMPARE(m_server.cli(QStringList{S("ACL"), S("SETUSER"), S("least"), S("on"), S(">pw"), S("resetkeys"),
                                      S("~{least}:*"), S("resetchannels"), S("&{least}:*"), S("-@all")}
                              + commands,
                          &out),
             0);
    QVERIFY2(out.contains(QLatin1String("OK")), qPrintable(out));
    const auto b = QSimbaRedisLeaseBackend::fromUrl(
        QUrl(S("redis://least:pw@127.0.0.1:%1/0?prefix=least&maxLease=600ms").arg(m_server.port())));
    HintLog log;
    const auto subscription = b->subscribe(log.listener());
    const auto s = b->openSession(600ms).id;
    const auto n = name("a");
    const qint64 t = grant(*b, s, n, 600ms);
    QVERIFY(b->keepAlive(s, 600ms, {}).owned.contains(n));
    QVERIFY(awaitHint(log, Backend::Hint::Kind::MembersChanged, name("g").toString(), [&] {
        b->join(s, name("g").toString());
        QCOMPARE(b->members(name("g").toString()), QList<QSimbaSessionId>{s});
        b->leave(s, name("g").toString());
    }));
    QCOMPARE(b->inspect().leases.size(), 1);
    b->release(s, {{n, t}});
    b->closeSession(s);
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
    const auto s2 = waiter.openSession(600ms).id;
    // Armed once a hint went through (a release publishes only what somebody waits for).
    const auto warmup = name("warmup");
    QVERIFY(awaitHint(log, Backend::Hint::Kind::Released, warmup.toString(), [&] {
        const qint64 token = grant(holder, s1, warmup, 600ms);
        if (!waiter.keepAlive(s2, 600ms, {}).isLive || waiter.acquire(s2, {warmup}).value(warmup).isGranted)
            throw QSimbaError(QStringLiteral("the waiter's session ended, or it was granted a held name"));
        holder.release(s1, {{warmup, token}});
    }));
    const auto n = name("a");
    const qint64 t = grant(holder, s1, n, 600ms);
    QVERIFY(waiter.keepAlive(s2, 600ms, {}).isLive);
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
 * A release publishes its Released hint only when somebody waits for the name (an acquire
 * answered HeldBy marked the lease): an uncontended lock cycle publishes nothing, so it
 * wakes no hint subscriber, the releasing client's own included. One that somebody waits
 * for publishes once, however often the waiter asked, and the mark goes with the lease.
 */
void tst_RedisBackend::releasePublishesOnlyWhenSomebodyWaits()
{
    const QString prefix = S("wm") + m_run;
    QSimbaRedisLeaseBackend holder(options(prefix)), waiter(options(prefix));
    HintLog log, own;
    const auto subscription = waiter.subscribe(log.listener());
    const auto ownSubscription = holder.subscribe(own.listener()); // as a client's engine has
    const QString base = S("{") + prefix + S("}:");
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server, base + S("hints")), 2, 5000);
    QCOMPARE(subscribers(m_server, base + S("waitmarks")), 2);
    const auto s1 = holder.openSession(600ms).id;
    const auto n = name("a");
    holder.release(s1, {{n, grant(holder, s1, n, 600ms)}}); // past the recovery guard

    const qint64 before = publishes(m_server);
    QVERIFY(before >= 0);
    for (int i = 0; i < 3; ++i)
        holder.release(s1, {{n, grant(holder, s1, n, 600ms)}});
    QCOMPARE(publishes(m_server), before); // nobody waited

    const auto s2 = waiter.openSession(600ms).id;
    const qint64 t = grant(holder, s1, n, 600ms);
    for (int i = 0; i < 2; ++i) {
        const auto held = waiter.acquire(s2, {n}).value(n);
        QVERIFY(!held.isGranted);
        QCOMPARE(held.holder, s1);
    }
    holder.release(s1, {{n, t}});
    QCOMPARE(publishes(m_server), before + 1);
    QTRY_VERIFY_WITH_TIMEOUT(log.seen(Backend::Hint::Kind::Released, n.toString()) >= 0, 5000);
    holder.closeSession(s1); // frees nothing: no hint
    waiter.closeSession(s2);

    // The mark went with the released lease: the next uncontended cycle publishes nothing.
    const auto s3 = waiter.openSession(600ms).id;
    waiter.release(s3, {{n, grant(waiter, s3, n, 600ms)}});
    QCOMPARE(publishes(m_server), before + 1);
    waiter.closeSession(s3);
}

/*
 * Clients older than the mark wait without marking, and listen on the hints channel only:
 * while one listens, every release publishes (more subscribers of the hints channel than
 * of the marks channel); once it left, uncontended releases publish nothing again. A user
 * whose ACL does not allow PUBSUB NUMSUB (the least-privilege list before the mark) cannot
 * count them: its releases publish every time.
 */
void tst_RedisBackend::olderListenersGetEveryReleaseHint()
{
    const QString prefix = S("old") + m_run;
    const QString base = S("{") + prefix + S("}:");
    QSimbaRedisLeaseBackend holder(options(prefix));
    HintLog own;
    const auto ownSubscription = holder.subscribe(own.listener());
    const auto n = name("a");
    // An uncontended lock cycle in a session of its own (whose close frees nothing).
    const auto cycle = [&](Backend &b) {
        const auto s = b.openSession(600ms).id;
        b.release(s, {{n, grant(b, s, n, 600ms)}});
        b.closeSession(s);
    };
    cycle(holder); // past the recovery guard
    {
        // An older client's subscription: the hints channel alone.
        QTcpSocket older;
        older.connectToHost(S("127.0.0.1"), m_server.port());
        QVERIFY2(older.waitForConnected(5000), qPrintable(older.errorString()));
        const QByteArray channel = base.toUtf8() + "hints";
        older.write("*2\r\n$9\r\nSUBSCRIBE\r\n$" + QByteArray::number(channel.size()) + "\r\n" + channel + "\r\n");
        QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server, base + S("hints")), 2, 5000);
        QCOMPARE(subscribers(m_server, base + S("waitmarks")), 1);
        const qint64 before = publishes(m_server);
        cycle(holder);
        QCOMPARE(publishes(m_server), before + 1);
        const QByteArray expected = "R " + n.toString().toUtf8();
        QByteArray heard;
        QElapsedTimer timer;
        timer.start();
        while (!heard.contains(expected) && timer.elapsed() < 5000 && older.waitForReadyRead(100))
            heard += older.readAll();
        QVERIFY2(heard.contains(expected), heard.constData());
    }
    QTRY_COMPARE_WITH_TIMEOUT(subscribers(m_server, base + S("hints")), 1, 5000);
    qint64 before = publishes(m_server);
    cycle(holder);
    QCOMPARE(publishes(m_server), before); // only clients that mark listen

    // A user who may not count subscribers: every release publishes.
    QString out;
    QCOMPARE(m_server.cli({S("ACL"), S("SETUSER"), S("nonumsub"), S("on"), S(">pw"), S("resetkeys"),
                           S("~") + base + S("*"), S("resetchannels"), S("&") + base + S("*"), S("+@all"),
                           S("-pubsub|numsub")},
                          &out),
             0);
    Options o = options(prefix);
    o.user = S("nonumsub");
    o.password = S("pw");
    QSimbaRedisLeaseBackend limited(o);
    before = publishes(m_server);
    cycle(limited);
    QCOMPARE(publishes(m_server), before + 1);
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
        QVERIFY(b.keepAlive(s2, lease, {}).isLive);
        const auto r = b.acquire(s2, {n}).value(n);
        // Read after the answer: the server granted no later than this. (A time read before
        // sending is no bound: a test thread descheduled for longer than the lease between
        // reading it and sending made this check fail on a correct grant under load.)
        const qint64 answered = clock.elapsed();
        if (r.isGranted) {
            QVERIFY2(answered >= validUntil,
                     qPrintable(QStringLiteral("granted by %1ms while the old term was valid until %2ms")
                                    .arg(answered).arg(validUntil)));
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


void tst_RedisBackend::everyCallEndsWithinItsDeadline_data()
{
    QTest::addColumn<int>("fault"); // -1: the server frozen (SIGSTOP), else a TcpProxy::Mode
    QTest::newRow("frozen") << -1;
    QTest::newRow("black hole") << int(TcpProxy::Mode::BlackHole);
    QTest::newRow("delayed") << int(TcpProxy::Mode::Delay);
    QTest::newRow("reset") << int(TcpProxy::Mode::Reset);
}

// Whatever the server or the network does, every SPI call fails with a clear error within
// connectTimeout + commandTimeout (+ Slack), and destroying the backend and its
// subscription returns at once.
void tst_RedisBackend::everyCallEndsWithinItsDeadline()
{
    QFETCH(int, fault);
    TcpProxy proxy(S("127.0.0.1"), m_server.port());
    QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
    Options o = options(S("dl") + QString::number(fault + 1));
    o.port = proxy.port();
    o.connectTimeout = 300ms;
    o.commandTimeout = 300ms;
    o.maxLease = 30s;
    auto b = std::make_unique<QSimbaRedisLeaseBackend>(o);
    HintLog log;
    auto subscription = b->subscribe(log.listener());
    const auto s = b->openSession(30s).id;
    const auto n = name("a");
    b->join(s, S("g"));

    const auto thaw = qScopeGuard([&] { m_server.resume(); });
    if (fault < 0)
        QVERIFY(m_server.pause());
    else
        proxy.setMode(TcpProxy::Mode(fault), 700ms);
    const milliseconds bound = o.connectTimeout + o.commandTimeout + Slack;
    const std::pair<const char *, std::function<void()>> calls[] = {
        {"openSession", [&] { b->openSession(30s); }},
        {"keepAlive", [&] { b->keepAlive(s, 30s, {}); }},
        {"acquire", [&] { b->acquire(s, {n}); }},
        {"release", [&] { b->release(s, {{n, 1}}); }},
        {"join", [&] { b->join(s, S("g")); }},
        {"leave", [&] { b->leave(s, S("g")); }},
        {"members", [&] { b->members(S("g")); }},
        {"inspect", [&] { b->inspect(); }},
        {"closeSession", [&] { b->closeSession(s); }},
    };
    for (const auto &[what, call] : calls) {
        const QString message = failsWithin(call, bound);
        QVERIFY2(!message.startsWith(QLatin1Char('<')), qPrintable(QLatin1String(what) + S(": ") + message));
        QVERIFY2(message.contains(b->describe()), qPrintable(message));
    }
    QElapsedTimer timer;
    timer.start();
    subscription.reset();
    b.reset();
    QVERIFY2(timer.elapsed() < bound.count(), qPrintable(QString::number(timer.elapsed())));
}

// A server that answers each command just within the command timeout cannot stretch one
// call over several of them (reconnect, SELECT, NOSCRIPT, SCRIPT LOAD, EVALSHA).
void tst_RedisBackend::slowServerCannotStretchACall()
{
    TcpProxy proxy(S("127.0.0.1"), m_server.port());
    QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
    Options o = options(S("slow"));
    o.port = proxy.port();
    o.database = 1;
    o.connectTimeout = 200ms;
    o.commandTimeout = 1000ms;
    o.maxLease = 30s;
    QSimbaRedisLeaseBackend b(o);
    const auto s = b.openSession(30s).id;
    QCOMPARE(m_server.cli({S("SCRIPT"), S("FLUSH")}), 0);
    QCOMPARE(m_server.cli({S("CLIENT"), S("KILL"), S("TYPE"), S("normal")}), 0);
    proxy.setMode(TcpProxy::Mode::Delay, 200ms); // 400 ms a round trip, 4 round trips needed
    qint64 elapsed = 0;
    const QString message = failsWithin([&] { b.keepAlive(s, 30s, {}); },
                                        o.connectTimeout + o.commandTimeout + Slack, &elapsed);
    // Ended by the call's limit (or, on a very slow machine, by one command's timeout).
    QVERIFY2(!message.startsWith(QLatin1Char('<')) && message.contains(S("no answer within")), qPrintable(message));
    proxy.setMode(TcpProxy::Mode::Forward);
    QVERIFY(b.keepAlive(s, 30s, {}).isLive);
    b.closeSession(s);
}

void tst_RedisBackend::connectsOverIpv6()
{
    RedisServer six;
    six.setExtraArguments({S("--bind"), S("127.0.0.1"), S("::1")});
    if (!six.start())
        QFAIL(qPrintable(six.errorString()));
    const auto b = QSimbaRedisLeaseBackend::fromUrl(QUrl(S("redis://[::1]:%1/0?prefix=v6").arg(six.port())));
    QCOMPARE(b->describe(), S("redis://[::1]:%1/0?prefix=v6").arg(six.port()));
    const auto s = b->openSession(500ms).id;
    QVERIFY(b->keepAlive(s, 500ms, {}).isLive);
    b->closeSession(s);
}

// A primary demoted by a failover (REPLICAOF) answers READONLY on the connection it kept:
// the backend drops that connection and connects again (a new connection re-resolves the
// host name, which now names the new primary), instead of failing on it until a restart.
void tst_RedisBackend::readOnlyDropsTheConnection()
{
    RedisServer other;
    if (!other.start())
        QFAIL(qPrintable(other.errorString()));
    RedisServer primary;
    if (!primary.start())
        QFAIL(qPrintable(primary.errorString()));
    Options o = options(S("ro"));
    o.port = primary.port();
    QSimbaRedisLeaseBackend b(o);
    const auto s = b.openSession(2s).id;
    const auto scriptConnections = [&] {
        QString clients;
        primary.cli({S("CLIENT"), S("LIST"), S("TYPE"), S("normal")}, &clients);
        return clients.count(S("cmd=evalsha"));
    };
    QCOMPARE(scriptConnections(), 1);
    QCOMPARE(primary.cli({S("REPLICAOF"), S("127.0.0.1"), QString::number(other.port())}), 0);
    QTRY_VERIFY_WITH_TIMEOUT([&] {
        QString info;
        primary.cli({S("INFO"), S("replication")}, &info);
        return field(info, S("master_link_status")) == S("up");
    }(), 10000);
    try {
        b.keepAlive(s, 2s, {});
        QFAIL("a replica accepted a write");
    } catch (const QSimbaBackendError &e) {
        QVERIFY2(e.message().contains(S("READONLY")), e.what());
    }
    QTRY_COMPARE_WITH_TIMEOUT(scriptConnections(), 0, 5000); // not kept to fail again
    // Promoted again: the next call works on a new connection.
    QCOMPARE(primary.cli({S("REPLICAOF"), S("NO"), S("ONE")}), 0);
    const auto again = b.openSession(2s).id;
    QVERIFY(b.keepAlive(again, 2s, {}).isLive);
}

// A Redis Cluster moves the prefix's slot to another node: the backend follows MOVED.
void tst_RedisBackend::followsMovedToTheNewNode()
{
    const QStringList cluster{S("--cluster-enabled"), S("yes"), S("--cluster-config-file"), S("nodes.conf"),
                              S("--cluster-require-full-coverage"), S("no")};
    RedisServer a, c;
    a.setExtraArguments(cluster);
    c.setExtraArguments(cluster);
    if (!a.start())
        QFAIL(qPrintable(a.errorString()));
    if (!c.start())
        QFAIL(qPrintable(c.errorString()));
    QCOMPARE(a.cli({S("CLUSTER"), S("ADDSLOTSRANGE"), S("0"), S("16383")}), 0);
    QCOMPARE(a.cli({S("CLUSTER"), S("MEET"), S("127.0.0.1"), QString::number(c.port())}), 0);
    QString idOfA, idOfC;
    QVERIFY(a.cli({S("CLUSTER"), S("MYID")}, &idOfA) == 0);
    QVERIFY(c.cli({S("CLUSTER"), S("MYID")}, &idOfC) == 0);
    idOfA = idOfA.trimmed();
    idOfC = idOfC.trimmed();
    QTRY_VERIFY_WITH_TIMEOUT([&] {
        QString nodes;
        c.cli({S("CLUSTER"), S("NODES")}, &nodes);
        return nodes.contains(S("0-16383"));
    }(), 15000);
    for (RedisServer *node : {&a, &c}) {
        QTRY_VERIFY_WITH_TIMEOUT([&] {
            QString info;
            node->cli({S("CLUSTER"), S("INFO")}, &info);
            return field(info, S("cluster_state")) == S("ok");
        }(), 15000);
    }

    Options o = options(S("mv"));
    o.port = a.port();
    QSimbaRedisLeaseBackend b(o);
    const auto s = b.openSession(2s).id;
    QVERIFY(b.keepAlive(s, 2s, {}).isLive);

    QString slot;
    QCOMPARE(a.cli({S("CLUSTER"), S("KEYSLOT"), S("{mv}:epoch")}, &slot), 0);
    slot = slot.trimmed();
    QCOMPARE(a.cli({S("FLUSHALL")}), 0); // a node hands over only a slot without keys
    // The resharding steps of the Redis Cluster specification, for a slot without keys.
    QCOMPARE(c.cli({S("CLUSTER"), S("SETSLOT"), slot, S("IMPORTING"), idOfA}), 0);
    QCOMPARE(a.cli({S("CLUSTER"), S("SETSLOT"), slot, S("MIGRATING"), idOfC}), 0);
    QCOMPARE(c.cli({S("CLUSTER"), S("SETSLOT"), slot, S("NODE"), idOfC}), 0);
    QCOMPARE(a.cli({S("CLUSTER"), S("SETSLOT"), slot, S("NODE"), idOfC}), 0);
    QString moved;
    a.cli({S("GET"), S("{mv}:x")}, &moved);
    QVERIFY2(moved.contains(S("MOVED")), qPrintable(moved));

    // The session's keys were flushed with the slot: it has ended; a new one lives on c.
    QVERIFY(!b.keepAlive(s, 2s, {}).isLive);
    const auto t = b.openSession(2s).id;
    QVERIFY(b.keepAlive(t, 2s, {}).isLive);
    QString exists;
    QCOMPARE(c.cli({S("ZSCORE"), S("{mv}:sessions"), t.toString()}, &exists), 0);
    QVERIFY2(!exists.trimmed().isEmpty(), "the session is not on the node the slot moved to");
}

// An older dataset restored (a restart with an RDB file from before a grant) must not make
// the backend grant a token below one it granted since.
void tst_RedisBackend::restoredOldDataNeverGrantsALowerToken_data()
{
    QTest::addColumn<bool>("restart"); // else DEBUG RELOAD NOSAVE: the same server run
    QTest::newRow("restart from an older dump") << true;
    QTest::newRow("DEBUG RELOAD of an older dump") << false;
}

void tst_RedisBackend::restoredOldDataNeverGrantsALowerToken()
{
    QFETCH(bool, restart);
    RedisServer server;
    server.setExtraArguments({S("--enable-debug-command"), S("local")});
    if (!server.start())
        QFAIL(qPrintable(server.errorString()));
    Options o = options(S("old"));
    o.port = server.port();
    o.maxLease = 3s;
    QSimbaRedisLeaseBackend b(o);
    const auto n = name("a");
    const auto s1 = b.openSession(3s).id;
    const qint64 t1 = grant(b, s1, n, 3s);
    QCOMPARE(server.cli({S("SAVE")}), 0); // the dump: s1 holds n with t1
    b.release(s1, {{n, t1}});
    const auto s2 = b.openSession(3s).id;
    const auto r2 = b.acquire(s2, {n}).value(n);
    QVERIFY(r2.isGranted && r2.token > t1);
    // The server restarts from the dump, or reloads it: s1 holds n again, with t1.
    if (restart && !server.restart())
        QFAIL(qPrintable(server.errorString()));
    if (!restart)
        QCOMPARE(server.cli({S("DEBUG"), S("RELOAD"), S("NOSAVE")}), 0);
    QElapsedTimer clock;
    clock.start();
    qint64 granted = 0;
    while (granted == 0 && clock.elapsed() < 10000) {
        QVERIFY2(b.keepAlive(s1, 3s, {}).isLive, "the restored session ran out");
        const auto r = b.acquire(s1, {n}).value(n);
        if (r.isGranted) {
            granted = r.token;
        } else {
            QCOMPARE(r.holder, QSimbaRedisLeaseBackend::recoveringHolder());
            QSimbaConformanceTest::wallClock()(std::min(*r.holderRemaining, 100ms));
        }
    }
    QVERIFY2(granted > r2.token,
             qPrintable(QStringLiteral("granted %1 after %2 had been granted").arg(granted).arg(r2.token)));
}

// A first-time user on a server that has run longer than maxLease gets a grant at once.
void tst_RedisBackend::freshPrefixGrantsAtOnce()
{
    Options o = options(S("fresh") + m_run);
    o.maxLease = 600ms;
    QString info;
    // A server of its own, whose statistics show no flush, once it has run maxLease.
    RedisServer server;
    if (!server.start())
        QFAIL(qPrintable(server.errorString()));
    o.port = server.port();
    QTRY_VERIFY_WITH_TIMEOUT([&] {
        server.cli({S("INFO"), S("server")}, &info);
        // uptime_in_seconds may overstate the time run by up to a second
        return (field(info, S("uptime_in_seconds")).toInt() - 1) * 1000 >= o.maxLease.count();
    }(), 5000);
    QSimbaRedisLeaseBackend b(o);
    const auto s = b.openSession(600ms).id;
    const auto r = b.acquire(s, {name("a")}).value(name("a"));
    QVERIFY2(r.isGranted, qPrintable(r.holder.toString()));
}

// Data lost or replaced within one server run, on a server that has run longer than
// maxLease (so that a new prefix would be granted at once): FLUSHALL (which looks like a
// new prefix), SWAPDB there and back (the prefix's own epoch returns, but leases may have
// been granted in the other data meanwhile), and RESTORE (here of another key: the server's
// record cannot tell which keys a RESTORE wrote). The server's statistics tell: still
// guarded.
void tst_RedisBackend::replacedDataStaysGuarded_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<int>("times");
    QTest::newRow("FLUSHALL") << QStringList{S("FLUSHALL")} << 1;
    QTest::newRow("SWAPDB and back") << QStringList{S("SWAPDB"), S("0"), S("1")} << 2;
    QTest::newRow("RESTORE") << QStringList{S("EVAL"), S("return redis.call('RESTORE', KEYS[2], 0, redis.call('DUMP', KEYS[1]))"),
                                            S("2"), S("plain"), S("other")} << 1;
}

void tst_RedisBackend::replacedDataStaysGuarded()
{
    QFETCH(QStringList, command);
    QFETCH(int, times);
    RedisServer server;
    if (!server.start())
        QFAIL(qPrintable(server.errorString()));
    Options o = options(S("replaced"));
    o.port = server.port();
    o.maxLease = 600ms;
    QString info;
    QTRY_VERIFY_WITH_TIMEOUT([&] { // it would count as new now, but for the command
        server.cli({S("INFO"), S("server")}, &info);
        // uptime_in_seconds may overstate the time run by up to a second
        return (field(info, S("uptime_in_seconds")).toInt() - 1) * 1000 >= o.maxLease.count();
    }(), 5000);
    QSimbaRedisLeaseBackend b(o);
    const auto n = name("a");
    const auto s1 = b.openSession(600ms).id;
    grant(b, s1, n, 600ms); // the epoch of this run
    QCOMPARE(server.cli({S("SET"), S("plain"), S("x")}), 0); // RESTORE's copy of a key of its own
    for (int i = 0; i < times; ++i) {
        QString out;
        QCOMPARE(server.cli(command, &out), 0);
        QVERIFY2(out.trimmed() == u"OK", qPrintable(out));
    }
    const auto s2 = b.openSession(600ms).id;
    const auto r = b.acquire(s2, {name("free")}).value(name("free"));
    QVERIFY2(!r.isGranted, qPrintable(command.join(QLatin1Char(' ')) + S(": granted at once")));
    QCOMPARE(r.holder, QSimbaRedisLeaseBackend::recoveringHolder());
    QVERIFY(r.holderRemaining && *r.holderRemaining > 300ms);
}

// m2: a client configured with a shorter maxLease than another must not end the recovery
// period before the other's longer leases ran out (when the prefix's epoch survived).
void tst_RedisBackend::longestMaxLeaseGuardsARestart()
{
    RedisServer server;
    if (!server.start())
        QFAIL(qPrintable(server.errorString()));
    Options longer = options(S("mixed"));
    longer.port = server.port();
    longer.maxLease = 4s;
    Options shorter = longer;
    shorter.maxLease = 600ms;
    QSimbaRedisLeaseBackend a(longer);
    const auto s1 = a.openSession(4s).id;
    grant(a, s1, name("held"), 4s);
    QCOMPARE(server.cli({S("SAVE")}), 0);
    if (!server.restart()) // from the dump: the epoch of the old run, written by a 4s client
        QFAIL(qPrintable(server.errorString()));
    QSimbaRedisLeaseBackend b(shorter);
    const auto s2 = b.openSession(600ms).id;
    const auto r = b.acquire(s2, {name("free")}).value(name("free"));
    QVERIFY(!r.isGranted);
    QCOMPARE(r.holder, QSimbaRedisLeaseBackend::recoveringHolder());
    QVERIFY2(*r.holderRemaining > 3s, qPrintable(QString::number(r.holderRemaining->count())));
}

QSIMBA_TEST_GUILESS_MAIN(tst_RedisBackend)
#include "tst_redisbackend.moc"
