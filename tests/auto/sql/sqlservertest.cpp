// SPDX-License-Identifier: Apache-2.0
#include "sqlservertest.h"

#include "qsimba.h"
#include "qsimbaconfig.h"
#include "qsimbaerror.h"
#include "qsimbalock.h"
#include "qsimbalockterm.h"
#include "sqltestsupport.h"
#include "tcpproxy.h"
#include "testserver.h"

#include <QtCore/QCryptographicHash>
#include <QtCore/QDir>
#include <QtCore/QFile>
#include <QtCore/QElapsedTimer>
#include <QtCore/QProcess>
#include <QtCore/QScopeGuard>
#include <QtCore/QThread>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlQuery>
#include <QtTest/QTest>

#include <atomic>
#include <csignal>
#include <future>

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;

namespace {
// A connection of the test user outside the backend, e.g. to hold a lock.
class RawConnection
{
public:
    explicit RawConnection(const Backend::Options &o) : m_name(QStringLiteral("raw-%1").arg(quintptr(this)))
    {
        auto db = QSqlDatabase::addDatabase(o.driver == Backend::Driver::Postgres ? QStringLiteral("QPSQL")
                                                                                   : QStringLiteral("QMYSQL"),
                                            m_name);
        db.setHostName(o.host);
        db.setPort(o.port);
        db.setDatabaseName(o.database);
        db.setUserName(o.user);
        db.setPassword(o.password);
        db.open();
    }
    ~RawConnection()
    {
        QSqlDatabase::database(m_name).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    bool exec(const QString &sql) { return QSqlQuery(QSqlDatabase::database(m_name)).exec(sql); }

private:
    QString m_name;
};

using SqlTest::backendError;
} // namespace

QString SqlServerTest::newPrefix()
{
    return QStringLiteral("t%1_%2_").arg(QCoreApplication::applicationPid()).arg(++m_prefixes);
}

QString SqlServerTest::newPrefixWithSchema()
{
    const QString prefix = newPrefix();
    const auto maker = Backend::fromUrl(url(QStringLiteral("prefix=%1").arg(prefix)));
    maker->closeSession(maker->openSession(10s).id);
    return prefix;
}

QUrl SqlServerTest::withPassword(const QString &password, const QString &query) const
{
    QUrl u = url(query);
    u.setPassword(password);
    return u;
}

void SqlServerTest::wrongPasswordIsABackendError()
{
    const auto b = Backend::fromUrl(withPassword(QStringLiteral("wrong-pw")));
    const QString message = backendError([&] { b->openSession(1s); });
    QVERIFY2(message.contains(b->describe()), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("u:***@")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("cannot connect")) && message.contains(authFailure()), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1String("wrong-pw")), qPrintable(message));
}

void SqlServerTest::unreachableServerFailsInBoundedTime()
{
    QUrl closed = url(QStringLiteral("connectTimeout=1s"));
    closed.setPort(TestServer::freePort()); // nobody listens there
    const auto b = Backend::fromUrl(closed);
    QElapsedTimer timer;
    timer.start();
    const QString message = backendError([&] { b->openSession(1s); });
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QStringLiteral("took %1ms").arg(timer.elapsed())));
    QVERIFY2(message.contains(QStringLiteral("127.0.0.1:%1").arg(closed.port())), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("cannot connect")), qPrintable(message));
}

void SqlServerTest::newerSchemaIsAnError()
{
    const QString prefix = newPrefix();
    const auto running = Backend::fromUrl(url(QStringLiteral("prefix=") + prefix));
    const auto s = running->openSession(10s).id;
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = 9").arg(prefix)));
    const auto fresh = Backend::fromUrl(url(QStringLiteral("prefix=") + prefix));
    for (Backend *b : {running.get(), fresh.get()}) {
        const QString message = backendError([&] { b->keepAlive(s, 10s, {}); });
        QVERIFY2(message.contains(QStringLiteral("version 9, newer than version %1").arg(Backend::SchemaVersion)), qPrintable(message));
        QVERIFY2(message.contains(b->describe()), qPrintable(message));
    }
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = %2").arg(prefix).arg(Backend::SchemaVersion)));
    QVERIFY(running->keepAlive(s, 10s, {}).isLive);
}

void SqlServerTest::lostConnectionIsReopened()
{
    const auto b = Backend::fromUrl(url());
    const auto s = b->openSession(10s).id;
    QVERIFY(b->acquire(s, {a}).value(a).isGranted);
    QVERIFY(killClients());
    // The next call finds the connection gone at its start, reconnects and succeeds.
    const auto k = b->keepAlive(s, 10s, {});
    QVERIFY(k.isLive);
    QCOMPARE(k.owned, QSet<QSimbaLeaseName>{a});
    b->closeSession(s);
}

void SqlServerTest::lockWaitIsBounded()
{
    const QString prefix = newPrefixWithSchema();
    const QString query = QStringLiteral("prefix=%1&statementTimeout=300ms").arg(prefix);
    const auto b = Backend::fromUrl(url(query));
    const auto s = b->openSession(10s).id;
    RawConnection raw(Backend::optionsFromUrl(url(query)));
    QVERIFY(raw.exec(QStringLiteral("BEGIN")));
    QVERIFY(raw.exec(QStringLiteral("SELECT version FROM %1schema_version WHERE id = 1 FOR UPDATE").arg(prefix)));
    QElapsedTimer timer;
    timer.start();
    const QString message = backendError([&] { b->acquire(s, {a}); });
    QVERIFY2(!message.isEmpty(), "a call waited for a lock held elsewhere without bound");
    // The acquire routine's own statement timeout or lock timeout ended it: the message names
    // the routine's call and the cause.
    QVERIFY2(message.contains(QLatin1String("acquire(")), qPrintable(message));
    QVERIFY2(message.contains(QLatin1String("timeout")) || message.contains(QLatin1String("max_statement_time")),
             qPrintable(message));
    QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2500, qPrintable(QStringLiteral("took %1ms").arg(timer.elapsed())));
    QVERIFY(raw.exec(QStringLiteral("ROLLBACK")));
    // Granted once the lock is free: through an instance with the default statement timeout,
    // as 300 ms for a whole acquire were once not enough on a loaded machine.
    const auto granting = Backend::fromUrl(url(QStringLiteral("prefix=%1").arg(prefix)));
    QVERIFY(granting->acquire(s, {a}).value(a).isGranted);
}

// An acquire is one autocommit statement calling the prefix's routine, which takes the
// version row's lock and only then reads: at READ COMMITTED each statement inside it reads a
// snapshot of its own, so it sees what the transaction that held the lock before committed —
// here a name created and given to another session while the acquire waited. (A routine whose
// reads shared the snapshot of its call would not find the name: no answer for it.)
void SqlServerTest::routineReadsAfterTheLock()
{
    checkRoutineReadsAfterTheLock();
}

void SqlServerTest::checkRoutineReadsAfterTheLock()
{
    const QString prefix = newPrefix();
    const QUrl u = url(QStringLiteral("prefix=%1&statementTimeout=20s").arg(prefix));
    const auto b = Backend::fromUrl(u);
    const auto holder = b->openSession(60s).id;
    const auto waiter = b->openSession(60s).id;
    const QSimbaLeaseName fresh = QSimbaLeaseName::of(QStringLiteral("fresh"));
    RawConnection raw(Backend::optionsFromUrl(u));
    QVERIFY(raw.exec(QStringLiteral("BEGIN")));
    QVERIFY(raw.exec(QStringLiteral("SELECT version FROM %1schema_version WHERE id = 1 FOR UPDATE").arg(prefix)));
    QVERIFY(raw.exec(QStringLiteral("INSERT INTO %1leases (name, holder, token) VALUES ('fresh', '%2', 41)")
                         .arg(prefix, holder.toString())));
    // Another backend (used only on its own thread) acquires for the waiter's session.
    auto answer = std::async(std::launch::async, [&] { return Backend::fromUrl(u)->acquire(waiter, {fresh}); });
    QString waiters;
    QTRY_VERIFY2_WITH_TIMEOUT((waiters = adminValue(lockWaitersQuery())).toInt() >= 1,
                              qPrintable(QStringLiteral("lock waiters: '%1'").arg(waiters)), 10000);
    QCOMPARE(answer.wait_for(0s), std::future_status::timeout); // it waits for the lock
    QVERIFY(raw.exec(QStringLiteral("COMMIT")));
    QCOMPARE(answer.wait_for(15s), std::future_status::ready);
    try {
        const auto result = answer.get();
        QCOMPARE(result.size(), 1);
        QVERIFY(!result.value(fresh).isGranted);
        QCOMPARE(result.value(fresh).holder, holder);
        QCOMPARE(result.value(fresh).token, 41);
    } catch (const QSimbaError &e) {
        QFAIL(qPrintable(e.message()));
    }
}

// The acquire routine of the least-privilege DDL in docs/backend-sql.md is, character for
// character, the one the backend creates (its body, the prefix aside).
void SqlServerTest::documentedRoutineIsTheBackendsOwn()
{
    const QString prefix = newPrefix();
    const auto b = Backend::fromUrl(url(QStringLiteral("prefix=") + prefix));
    b->openSession(1s);
    const bool postgres = ddlName() == QLatin1String("postgresql");
    const QString ddl = documentedDdl(ddlName());
    // PostgreSQL: what stands between the dollar quotes; MySQL: BEGIN … END.
    const QString open = postgres ? QStringLiteral("AS $qsimba$") : QStringLiteral("SQL SECURITY INVOKER\n");
    const QString close = postgres ? QStringLiteral("$qsimba$;") : QStringLiteral(" //");
    const qsizetype start = ddl.indexOf(open);
    const qsizetype end = ddl.indexOf(close, start + open.size());
    QVERIFY2(start >= 0 && end > start, "no acquire routine in the documented DDL");
    QString body = ddl.mid(start + open.size(), end - start - open.size());
    body.replace(QLatin1String("simba_"), prefix);
    const QString md5 = QString::fromLatin1(QCryptographicHash::hash(body.toUtf8(), QCryptographicHash::Md5).toHex());
    const QString query = postgres
        ? QStringLiteral("SELECT md5(prosrc) FROM pg_proc WHERE proname = '%1acquire'").arg(prefix)
        : QStringLiteral("SELECT MD5(ROUTINE_DEFINITION) FROM information_schema.ROUTINES WHERE ROUTINE_NAME = "
                         "'%1acquire'")
              .arg(prefix);
    QCOMPARE(adminValue(query), md5);
}

// Schema version 1 (the same tables, no routines) is migrated by the first client that
// connects, routines included, keeping the rows; two clients migrating at once both succeed.
void SqlServerTest::olderSchemaIsMigrated()
{
    const QString prefix = newPrefix();
    const QUrl u = url(QStringLiteral("prefix=") + prefix);
    qint64 token = 0;
    {
        const auto b = Backend::fromUrl(u);
        const auto s = b->openSession(30s).id;
        token = b->acquire(s, {a}).value(a).token;
        b->closeSession(s);
    }
    const bool postgres = ddlName() == QLatin1String("postgresql");
    QVERIFY(admin(QStringLiteral("%1 %2acquire").arg(postgres ? QStringLiteral("DROP FUNCTION") : QStringLiteral("DROP PROCEDURE"), prefix)));
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = 1").arg(prefix)));
    const QSimbaLeaseName b = QSimbaLeaseName::of(QStringLiteral("b"));
    const auto client = [&](QSimbaLeaseName name) {
        const auto backend = Backend::fromUrl(u);
        const auto s = backend->openSession(30s).id;
        return backend->acquire(s, {name}).value(name);
    };
    auto one = std::async(std::launch::async, client, a);
    auto two = std::async(std::launch::async, client, b);
    try {
        const auto first = one.get(), second = two.get();
        QVERIFY(first.isGranted);
        QCOMPARE(first.token, token + 1); // the counter survived the migration
        QVERIFY(second.isGranted);
        QCOMPARE(second.token, 1);
    } catch (const QSimbaError &e) {
        QFAIL(qPrintable(e.message()));
    }
    // Both acquires went through the routine of the schema version this code expects (a call
    // on another version is refused, naming both).
}

// Schema version 2 (the same tables with an index on the leases' holder, and the acquire
// routine of version 2, which set two options on every call) is migrated in place by the
// first client of version 3: the routine replaced, the index dropped, the rows kept.
void SqlServerTest::versionTwoIsMigrated()
{
    const QString prefix = newPrefix();
    const QUrl u = url(QStringLiteral("prefix=") + prefix);
    const bool postgres = ddlName() == QLatin1String("postgresql");
    const QString database = u.path().mid(1); // the superuser's MySQL session has none by default
    const QString indexCount = postgres
        ? QStringLiteral("SELECT count(*) FROM pg_indexes WHERE tablename = '%1leases' AND indexname = "
                         "'%1leases_holder'")
              .arg(prefix)
        : QStringLiteral("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '%2' AND "
                         "TABLE_NAME = '%1leases' AND INDEX_NAME = '%1leases_holder'")
              .arg(prefix, database);
    qint64 token = 0;
    {
        const auto b = Backend::fromUrl(u);
        const auto s = b->openSession(30s).id;
        token = b->acquire(s, {a}).value(a).token;
        b->closeSession(s);
    }
    QCOMPARE(adminValue(indexCount), QStringLiteral("0"));
    // Back to what version 2 left: the holder index, a routine with per-call options.
    QVERIFY(admin(QStringLiteral("CREATE INDEX %1leases_holder ON %1leases (holder)").arg(prefix)));
    if (postgres)
        QVERIFY(admin(QStringLiteral("ALTER FUNCTION %1acquire(INTEGER, VARCHAR, VARCHAR) SET enable_seqscan = off")
                          .arg(prefix)));
    QVERIFY(admin(QStringLiteral("UPDATE %1schema_version SET version = 2").arg(prefix)));
    QCOMPARE(adminValue(indexCount), QStringLiteral("1"));
    try {
        const auto b = Backend::fromUrl(u);
        const auto s = b->openSession(30s).id;
        const auto granted = b->acquire(s, {a}).value(a);
        QVERIFY(granted.isGranted);
        QCOMPARE(granted.token, token + 1); // the counter survived the migration
    } catch (const QSimbaError &e) {
        QFAIL(qPrintable(e.message()));
    }
    QCOMPARE(adminValue(QStringLiteral("SELECT version FROM %1%2schema_version")
                            .arg(postgres ? QString() : database + QLatin1Char('.'), prefix)),
             QString::number(Backend::SchemaVersion));
    QCOMPARE(adminValue(indexCount), QStringLiteral("0"));
    if (postgres) // replaced: the routine sets nothing per call
        QCOMPARE(adminValue(QStringLiteral("SELECT COALESCE(array_to_string(proconfig, ','), 'none') FROM pg_proc "
                                           "WHERE proname = '%1acquire'")
                                .arg(prefix)),
                 QStringLiteral("none"));
}

// Fault tests: a frozen server (SIGSTOP), a black-holed or resetting network (TcpProxy), a
// client process stopped inside a call. The bound of one SPI call is the connect bound (the
// connect timeout in whole seconds, at least 2 s for libpq) plus statementTimeout plus the
// call slack (1 s); the tests allow 2 s more for a loaded machine.

namespace {
constexpr auto FaultStatementTimeout = 500ms;
constexpr qint64 CallBoundMs = 2000 + 500 + 1000 + 2000;

// Sends \a signal to \a pid and every process below it (PostgreSQL's backends are children
// of the postmaster), the parent first so it forks no new child meanwhile.
QList<qint64> signalTree(qint64 pid, int signal)
{
    QList<qint64> signalled{pid};
    ::kill(pid_t(pid), signal);
    QDir tasks(QStringLiteral("/proc/%1/task").arg(pid));
    for (const QString &task : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile children(tasks.filePath(task + QStringLiteral("/children")));
        if (!children.open(QIODevice::ReadOnly))
            continue;
        for (const QByteArray &child : children.readAll().split(' '))
            if (!child.trimmed().isEmpty())
                signalled += signalTree(child.trimmed().toLongLong(), signal);
    }
    return signalled;
}

// Stops a process tree for its lifetime.
class Frozen
{
public:
    explicit Frozen(qint64 pid) : m_pid(pid)
    {
        // Stopped for real before the test's next call: a server thread not stopped yet
        // answered a keepAlive on a loaded machine (2 runs in 6 beside four busy loops).
        for (qint64 p : signalTree(m_pid, SIGSTOP))
            if (!TestServer::waitStopped(p))
                qWarning("process %lld did not stop within 5 s", p);
    }
    ~Frozen() { thaw(); }
    void thaw()
    {
        if (m_pid > 0)
            signalTree(m_pid, SIGCONT);
        m_pid = 0;
    }

private:
    qint64 m_pid;
};

struct Timed
{
    QString error;
    qint64 ms;
};

Timed timed(const std::function<void()> &call)
{
    QElapsedTimer timer;
    timer.start();
    const QString error = backendError(call);
    return {error, timer.elapsed()};
}

// A session for a fault test's setup, through its proxy: on failure, \a why says after how
// long and why (an exception thrown out of a test function aborts the whole program, which
// then prints nothing of the servers' logs). A fresh-clone run beside the asan build once
// failed to connect here within the 2 s connect timeout.
QSimbaSessionId setupSession(Backend &b, QString *why)
{
    QSimbaSessionId s;
    const Timed t = timed([&] { s = b.openSession(30s).id; });
    if (!t.error.isEmpty())
        *why = QStringLiteral("opening the setup's session failed after %1 ms: %2").arg(t.ms).arg(t.error);
    return s;
}

// Every SPI call of \a b on an unresponsive server: each throws within the bound, with a
// message naming the backend.
void everyCallFailsInBoundedTime(Backend &b, const QSimbaSessionId &s)
{
    const QSimbaLeaseName n = QSimbaLeaseName::of(QStringLiteral("n"));
    const QList<QPair<const char *, std::function<void()>>> calls{
        {"keepAlive", [&] { b.keepAlive(s, 10s, {}); }},
        {"acquire", [&] { b.acquire(s, {n}); }},
        {"release", [&] { b.release(s, {{n, 1}}); }},
        {"join", [&] { b.join(s, QStringLiteral("g")); }},
        {"leave", [&] { b.leave(s, QStringLiteral("g")); }},
        {"members", [&] { b.members(QStringLiteral("g")); }},
        {"inspect", [&] { b.inspect(); }},
        {"openSession", [&] { b.openSession(10s); }},
        {"closeSession", [&] { b.closeSession(s); }},
    };
    for (const auto &[name, call] : calls) {
        const Timed t = timed(call);
        QVERIFY2(!t.error.isEmpty(), name);
        QVERIFY2(t.error.contains(b.describe()), qPrintable(t.error));
        QVERIFY2(t.ms < CallBoundMs, qPrintable(QStringLiteral("%1 took %2ms: %3").arg(QLatin1String(name)).arg(t.ms).arg(t.error)));
        qInfo("%s failed after %lld ms: %s", name, t.ms, qPrintable(t.error));
    }
}
} // namespace

QUrl SqlServerTest::viaPort(QUrl u, quint16 port)
{
    u.setPort(port);
    return u;
}

void SqlServerTest::frozenServerFailsEveryCallInBoundedTime()
{
    const auto b = Backend::fromUrl(url(QStringLiteral("prefix=%1&statementTimeout=500ms&connectTimeout=1s").arg(newPrefixWithSchema())));
    const auto s = b->openSession(30s).id; // the connection is open
    Frozen frozen(serverPid());
    // The first call runs on the open connection (the watchdog aborts it), the others
    // reconnect (the connect timeout ends them).
    everyCallFailsInBoundedTime(*b, s);
    frozen.thaw();
    QTRY_VERIFY_WITH_TIMEOUT(backendError([&] { b->keepAlive(s, 10s, {}); }).isEmpty(), 20000);
}

void SqlServerTest::blackHoledServerFailsEveryCallInBoundedTime()
{
    TcpProxy proxy(QStringLiteral("127.0.0.1"), serverPort());
    QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
    const auto b = Backend::fromUrl(
        viaPort(url(QStringLiteral("prefix=%1&statementTimeout=500ms&connectTimeout=1s").arg(newPrefixWithSchema())), proxy.port()));
    QString why;
    const auto s = setupSession(*b, &why);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    proxy.setMode(TcpProxy::Mode::BlackHole);
    everyCallFailsInBoundedTime(*b, s);
    // Slow but answering within the bound: calls succeed.
    proxy.setMode(TcpProxy::Mode::Delay, 20ms);
    QTRY_VERIFY_WITH_TIMEOUT(backendError([&] { b->keepAlive(s, 10s, {}); }).isEmpty(), 20000);
    proxy.setMode(TcpProxy::Mode::Forward);
    QVERIFY(b->keepAlive(s, 10s, {}).isLive);
}

void SqlServerTest::resetConnectionsFailFastAndRecover()
{
    TcpProxy proxy(QStringLiteral("127.0.0.1"), serverPort());
    QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
    const auto b = Backend::fromUrl(viaPort(url(QStringLiteral("prefix=%1&statementTimeout=500ms").arg(newPrefixWithSchema())), proxy.port()));
    QString why;
    const auto s = setupSession(*b, &why);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    proxy.setMode(TcpProxy::Mode::Reset);
    const Timed t = timed([&] { b->keepAlive(s, 10s, {}); });
    QVERIFY2(!t.error.isEmpty(), "a call succeeded through a resetting network");
    QVERIFY2(t.ms < CallBoundMs, qPrintable(QStringLiteral("took %1ms").arg(t.ms)));
    proxy.setMode(TcpProxy::Mode::Forward);
    QVERIFY(b->keepAlive(s, 10s, {}).isLive);
}

void SqlServerTest::closeReturnsWhileTheServerIsFrozen()
{
    auto config = QSimbaConfig::builder().leaseDuration(6s).build();
    auto client = QSimba::builder()
                      .backend(Backend::fromUrl(url(QStringLiteral("prefix=%1&statementTimeout=500ms&connectTimeout=1s")
                                                        .arg(newPrefixWithSchema()))))
                      .config(config)
                      .build();
    auto term = client->lock(QStringLiteral("held"))->tryAcquire();
    QVERIFY(term.has_value());
    Frozen frozen(serverPid());
    QElapsedTimer timer;
    timer.start();
    client->close(); // releases the lock and closes the session: calls to a frozen server
    const qint64 closed = timer.elapsed();
    client.reset();
    const qint64 destroyed = timer.elapsed();
    qInfo("close() returned after %lld ms, the destructor after %lld ms", closed, destroyed);
    QVERIFY2(destroyed < 3 * CallBoundMs, qPrintable(QStringLiteral("close took %1ms, destruction %2ms").arg(closed).arg(destroyed)));
}

void SqlServerTest::subscriptionEndsWhileTheServerIsFrozen()
{
    // PostgreSQL's subscription probes its connection every second, MariaDB's reads the rows
    // its client waits for: with the server frozen the probe or read blocks, and destroying
    // the subscription must not wait for it.
    const auto b = Backend::fromUrl(url(QStringLiteral("prefix=%1&statementTimeout=500ms&connectTimeout=1s").arg(newPrefixWithSchema())));
    const auto s = b->openSession(30s).id, w = b->openSession(30s).id;
    std::atomic<int> hints{0};
    auto subscription = b->subscribe([&](const QSimbaLeaseBackend::Hint &) { ++hints; });
    if (b->capabilities().releaseHints) {
        // Armed: a release reaches it (w waits for the lease, so MariaDB's reads go on).
        const auto cycle = [&] {
            const auto t = b->acquire(s, {a}).value(a).token;
            b->acquire(w, {a});
            b->release(s, {{a, t}});
        };
        QTRY_VERIFY_WITH_TIMEOUT((cycle(), hints.load() > 0), 10000);
    }
    Frozen frozen(serverPid());
    QTest::qWait(1500); // lets a probe start against the frozen server (time passing is the point)
    QElapsedTimer timer;
    timer.start();
    subscription.reset();
    qInfo("the subscription ended %lld ms after its destruction began", timer.elapsed());
    QVERIFY2(timer.elapsed() < 2500, qPrintable(QStringLiteral("%1ms").arg(timer.elapsed())));
}

void SqlServerTest::pausedClientCannotStallThePrefix()
{
    // A contender process is stopped inside a call, holding the version row: the server's
    // idle-transaction timeout (statementTimeout) must end its transaction.
    const QString prefix = newPrefix();
    const QString query = QStringLiteral("prefix=%1&statementTimeout=3s").arg(prefix);
    const auto b = Backend::fromUrl(url(QStringLiteral("prefix=%1&statementTimeout=1s").arg(prefix)));
    const auto s = b->openSession(60s).id;
    const auto x = QSimbaLeaseName::of(QStringLiteral("x"));
    // An acquire is one statement (the routine): a client stopped during it does not hold the
    // version row, the server finishes and commits it. openSession is several statements: its
    // sweep frees the leases of expired sessions — here x, held by a session left to expire.
    const auto expiring = b->openSession(1s).id;
    QVERIFY(b->acquire(expiring, {x}).value(x).isGranted);
    QTRY_VERIFY_WITH_TIMEOUT(b->inspect().leases.isEmpty(), 10000); // its holder expired (not swept yet)

    // The test holds x's row, so the contender's openSession waits inside its transaction.
    RawConnection raw(Backend::optionsFromUrl(url(query)));
    QVERIFY(raw.exec(QStringLiteral("BEGIN")));
    QVERIFY(raw.exec(QStringLiteral("SELECT name FROM %1leases WHERE name = 'x' FOR UPDATE").arg(prefix)));
    QProcess contender;
    contender.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    contender.start(QStringLiteral(QSIMBA_SQL_CONTENDER),
                    {url(query).toString(), QStringLiteral("x"), QStringLiteral("60000"), QStringLiteral("60000"),
                     QStringLiteral("1")});
    QVERIFY2(contender.waitForStarted(10000), qPrintable(contender.errorString()));
    const auto cleanup = qScopeGuard([&] {
        ::kill(pid_t(contender.processId()), SIGCONT);
        contender.kill();
        contender.waitForFinished(10000);
    });
    QString waiters;
    QTRY_VERIFY2_WITH_TIMEOUT((waiters = adminValue(lockWaitersQuery())).toInt() >= 1,
                              qPrintable(QStringLiteral("lock waiters: '%1'").arg(waiters)), 10000);
    ::kill(pid_t(contender.processId()), SIGSTOP);
    QElapsedTimer paused;
    paused.start();
    QVERIFY(raw.exec(QStringLiteral("ROLLBACK"))); // the contender's statement completes; it is idle in its transaction
    // Calls fail while it holds the version row, then succeed once the server ended it.
    QTRY_VERIFY_WITH_TIMEOUT(backendError([&] { b->keepAlive(s, 60s, {}); }).isEmpty(), 20000);
    qInfo("calls succeed again %lld ms after the contender was stopped", paused.elapsed());
    QVERIFY2(paused.elapsed() < 3000 + 1000 + 1000 + 4000, qPrintable(QStringLiteral("%1ms").arg(paused.elapsed())));
}

int SqlServerTest::userConnections() const
{
    const QString sql = ddlName() == QLatin1String("postgresql")
                            ? QStringLiteral("SELECT count(*) FROM pg_stat_activity WHERE usename = '%1'")
                            : QStringLiteral("SELECT count(*) FROM information_schema.processlist WHERE user = '%1'");
    bool ok = false;
    const int n = adminValue(sql.arg(url().userName())).toInt(&ok);
    return ok ? n : -1;
}

namespace {
// A thread that runs what it is given, one thing at a time, until it is stopped.
class CallerThread
{
public:
    CallerThread()
    {
        m_thread.start();
        m_context.moveToThread(&m_thread);
    }
    ~CallerThread() { stop(); }
    template<typename F>
    void run(F &&f)
    {
        QMetaObject::invokeMethod(&m_context, std::forward<F>(f), Qt::BlockingQueuedConnection);
    }
    //! Ends the thread (its thread-local state is destroyed before wait() returns).
    bool stop()
    {
        if (!m_thread.isRunning())
            return true;
        m_thread.quit();
        return m_thread.wait(10000);
    }

private:
    QThread m_thread;
    QObject m_context;
};
} // namespace

// A thread other than the first calling one gets a server connection of its own, closed when
// that thread ends; at most MaxCallerConnections are kept (the least recently used closed,
// and opened again by its next call); the backend's destruction closes the rest.
void SqlServerTest::callingThreadsHaveConnectionsOfTheirOwn()
{
    QTRY_COMPARE_WITH_TIMEOUT(userConnections(), 0, 10000); // the earlier tests' are gone
    auto b = Backend::fromUrl(url(QStringLiteral("prefix=%1").arg(newPrefix())));
    const auto s = b->openSession(30s).id; // this thread: the home connection
    QTRY_COMPARE(userConnections(), 1);
    qint64 token = 0;
    {
        CallerThread caller;
        caller.run([&] { token = b->acquire(s, {a}).value(a).token; });
        QVERIFY(token > 0);
        QTRY_COMPARE(userConnections(), 2);
        // The home connection sees what the caller's committed.
        QCOMPARE(b->acquire(s, {a}).value(a).token, token);
        QVERIFY(caller.stop());
        QTRY_COMPARE(userConnections(), 1); // closed on that thread, as it ended
    }
    constexpr int callers = 5; // one more than QSimbaSqlConnections::MaxCallerConnections
    std::vector<std::unique_ptr<CallerThread>> threads;
    for (int i = 0; i < callers; ++i) {
        threads.push_back(std::make_unique<CallerThread>());
        bool live = false;
        threads.back()->run([&] { live = b->acquire(s, {a}).value(a).isGranted; });
        QVERIFY(live);
    }
    QTRY_COMPARE(userConnections(), 1 + callers - 1); // the first caller's was closed
    bool again = false;
    threads.front()->run([&] { again = b->acquire(s, {a}).value(a).isGranted; }); // reconnects
    QVERIFY(again);
    QTRY_COMPARE(userConnections(), 1 + callers - 1);
    b.reset(); // closes every connection, the live threads' too
    QTRY_COMPARE(userConnections(), 0);
    for (auto &t : threads)
        QVERIFY(t->stop());
}

// QSimba's blocking acquire() and close() run their calls on the calling thread while the
// backend thread is idle: the calling thread's own connection appears on the server.
void SqlServerTest::blockingLockCycleRunsOnTheCallingThread()
{
    QTRY_COMPARE_WITH_TIMEOUT(userConnections(), 0, 10000);
    auto client = QSimba::builder()
                      .backend(Backend::fromUrl(url(QStringLiteral("prefix=%1").arg(newPrefix()))))
                      .config(QSimbaConfig::builder().leaseDuration(30s).build())
                      .build();
    QSimbaLock *lock = client->lock(QStringLiteral("cycle"));
    // The backend thread's connection (and PostgreSQL's listening one) once the session is
    // open: a cycle that never blocks this thread.
    auto viaAsync = lock->acquireAsync(10s);
    QTRY_VERIFY(viaAsync.isFinished());
    QSimbaLockTerm first = viaAsync.takeResult();
    auto released = first.releaseAsync();
    QTRY_VERIFY(released.isFinished());
    const int before = userConnections();
    QVERIFY(before >= 1);
    int after = before;
    for (int i = 0; i < 20 && after == before; ++i) {
        QSimbaLockTerm term = lock->acquire(10s);
        QVERIFY(term.isValid());
        term.close();
        after = userConnections();
    }
    QCOMPARE(after, before + 1);
    client->close();
}

namespace {
// The context switches of this process's thread named \a name so far (-1: no such thread).
qint64 contextSwitchesOf(const QByteArray &name)
{
    const QStringList tasks = QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &task : tasks) {
        QFile comm(QStringLiteral("/proc/self/task/%1/comm").arg(task));
        if (!comm.open(QIODevice::ReadOnly) || comm.readAll().trimmed() != name)
            continue;
        QFile status(QStringLiteral("/proc/self/task/%1/status").arg(task));
        if (!status.open(QIODevice::ReadOnly))
            return -1;
        qint64 switches = 0;
        for (const QByteArray &line : status.readAll().split('\n'))
            if (line.contains("ctxt_switches:"))
                switches += line.mid(line.indexOf(':') + 1).trimmed().toLongLong();
        return switches;
    }
    return -1;
}
} // namespace

// Every statement arms the watchdog (the bound of the call), which used to wake its thread
// each time: a context switch on every call's path. Now it is woken only when it would
// otherwise wake too late; while calls come it wakes about once a second by itself.
void SqlServerTest::statementsDoNotWakeTheWatchdog()
{
    const auto b = Backend::fromUrl(url(QStringLiteral("prefix=%1").arg(newPrefix())));
    const auto s = b->openSession(30s).id; // the watchdog's thread exists from here on
    const qint64 before = contextSwitchesOf("simba-sql-watch");
    QVERIFY2(before >= 0, "no watchdog thread named simba-sql-watch");
    constexpr int cycles = 200;
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < cycles; ++i) {
        const auto token = b->acquire(s, {a}).value(a).token;
        b->release(s, {{a, token}});
    }
    const qint64 woken = contextSwitchesOf("simba-sql-watch") - before;
    // 400 statements: before the change at least 400 wake-ups; now about one a second.
    const qint64 allowed = 10 + 2 * (timer.elapsed() / 1000);
    QVERIFY2(woken <= allowed, qPrintable(QStringLiteral("the watchdog thread switched %1 times in %2 ms of %3 cycles")
                                              .arg(woken).arg(timer.elapsed()).arg(cycles)));
}

QString SqlServerTest::documentedDdl(const QString &name)
{
    QFile doc(QStringLiteral(QSIMBA_DOCS_DIR "/backend-sql.md"));
    if (!doc.open(QIODevice::ReadOnly))
        return {};
    const QString text = QString::fromUtf8(doc.readAll());
    const qsizetype marker = text.indexOf(QStringLiteral("<!-- ddl:%1 -->").arg(name));
    const qsizetype start = text.indexOf(QLatin1String("```sql\n"), marker);
    const qsizetype end = text.indexOf(QLatin1String("```"), start + 7);
    if (marker < 0 || start < 0 || end < 0)
        return {};
    return text.mid(start + 7, end - start - 7);
}

void SqlServerTest::leastPrivilegeRoleRunsEveryCall()
{
    // Tables created beforehand by the documented DDL; the role may only read and write rows.
    const QString ddl = documentedDdl(ddlName());
    QVERIFY2(!ddl.isEmpty(), "no DDL block in docs/backend-sql.md");
    const QUrl app = prepareLeastPrivilege(ddl);
    QVERIFY2(!app.isEmpty(), "preparing the database and role failed");
    // A QSimbaError here (e.g. "permission denied" for DDL) fails the test with its message.
    try {
        const auto b = Backend::fromUrl(app);
        const auto x = QSimbaLeaseName::of(QStringLiteral("x"));
        const auto s = b->openSession(30s, {{QStringLiteral("k"), QStringLiteral("v")}}).id;
        QVERIFY(b->keepAlive(s, 30s, {}).isLive);
        const auto granted = b->acquire(s, {x}).value(x);
        QVERIFY(granted.isGranted);
        QCOMPARE(b->keepAlive(s, 30s, {x}).owned, QSet<QSimbaLeaseName>{x});
        b->join(s, QStringLiteral("g"));
        QCOMPARE(b->members(QStringLiteral("g")), QList<QSimbaSessionId>{s});
        const auto view = b->inspect();
        QCOMPARE(view.sessions.size(), 1);
        QCOMPARE(view.leases.size(), 1);
        b->release(s, {{x, granted.token}});
        b->leave(s, QStringLiteral("g"));
        const auto subscription = b->subscribe([](const QSimbaLeaseBackend::Hint &) {});
        // A second client connects and reads the schema version: still no DDL.
        const auto other = Backend::fromUrl(app);
        const auto o = other->openSession(30s).id;
        const auto again = other->acquire(o, {x}).value(x);
        QVERIFY(again.isGranted);
        QVERIFY(again.token > granted.token);
        other->closeSession(o);
        b->closeSession(s);
        QVERIFY(!b->keepAlive(s, 30s, {}).isLive);
    } catch (const QSimbaError &e) {
        QFAIL(qPrintable(e.message()));
    }
}

#include "moc_sqlservertest.cpp"
