// SPDX-License-Identifier: Apache-2.0
// The raw clients: each server's cheapest read and cheapest durable write through the client
// library the backend itself uses, over one kept connection.
#include "suite.h"

#include <QtCore/QByteArray>
#include <QtCore/QUuid>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#ifdef QSIMBA_BENCH_REDIS
#include <hiredis/hiredis.h>
#endif
#ifdef QSIMBA_BENCH_ZOOKEEPER
#include <zookeeper/zookeeper.h>
#endif
#ifdef QSIMBA_BENCH_ETCD
#include <curl/curl.h>
#endif

#include <stdexcept>
#include <thread>

using namespace std::chrono_literals;

namespace Bench {
namespace {

[[noreturn]] void fail(const QString &what)
{
    throw std::runtime_error(what.toStdString());
}

// QSqlDatabase: "SELECT 1" and an autocommit UPDATE of one row, both prepared once.
class SqlRaw : public RawClient
{
public:
    SqlRaw(const QString &driver, const QString &where, const QString &user, const QString &password,
           const QString &database)
        : m_connection(QStringLiteral("bench-raw-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(driver, m_connection);
        if (driver == QLatin1String("QSQLITE")) {
            db.setDatabaseName(where);
        } else {
            const auto colon = where.lastIndexOf(QLatin1Char(':'));
            db.setHostName(where.left(colon));
            db.setPort(where.mid(colon + 1).toInt());
            db.setUserName(user);
            db.setPassword(password);
            db.setDatabaseName(database);
        }
        if (!db.open())
            fail(QStringLiteral("%1: cannot open the raw connection: %2").arg(driver, db.lastError().text()));
        QSqlQuery q(db);
        // The SQLite backend puts its file in WAL mode (persistent, per file): the same here.
        if (driver == QLatin1String("QSQLITE"))
            exec(q, QStringLiteral("PRAGMA journal_mode=WAL"));
        exec(q, QStringLiteral("CREATE TABLE IF NOT EXISTS bench_raw (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)"));
        exec(q, QStringLiteral("DELETE FROM bench_raw"));
        exec(q, QStringLiteral("INSERT INTO bench_raw (id, v) VALUES (1, 0)"));
        m_select = std::make_unique<QSqlQuery>(db);
        m_update = std::make_unique<QSqlQuery>(db);
        if (!m_select->prepare(QStringLiteral("SELECT 1")) || !m_update->prepare(QStringLiteral("UPDATE bench_raw SET v = v + 1 WHERE id = 1")))
            fail(QStringLiteral("%1: cannot prepare: %2").arg(driver, db.lastError().text()));
    }
    ~SqlRaw() override
    {
        m_select.reset();
        m_update.reset();
        QSqlDatabase::database(m_connection, false).close();
        QSqlDatabase::removeDatabase(m_connection);
    }
    QString readName() const override { return QStringLiteral("SELECT 1"); }
    QString writeName() const override { return QStringLiteral("UPDATE"); }
    void read() override
    {
        if (!m_select->exec() || !m_select->next())
            fail(QStringLiteral("SELECT 1 failed: %1").arg(m_select->lastError().text()));
        m_select->finish();
    }
    void write() override
    {
        if (!m_update->exec() || m_update->numRowsAffected() != 1)
            fail(QStringLiteral("UPDATE failed: %1").arg(m_update->lastError().text()));
    }

private:
    static void exec(QSqlQuery &q, const QString &sql)
    {
        if (!q.exec(sql))
            fail(QStringLiteral("%1 failed: %2").arg(sql, q.lastError().text()));
    }
    QString m_connection;
    std::unique_ptr<QSqlQuery> m_select, m_update;
};

#ifdef QSIMBA_BENCH_REDIS
// hiredis, as the Redis backend: PING and SET.
class RedisRaw : public RawClient
{
public:
    explicit RedisRaw(const QString &where)
    {
        const auto colon = where.lastIndexOf(QLatin1Char(':'));
        const timeval timeout{2, 0};
        m_c = redisConnectWithTimeout(where.left(colon).toUtf8().constData(), where.mid(colon + 1).toInt(), timeout);
        if (!m_c || m_c->err)
            fail(QStringLiteral("redis %1: cannot connect").arg(where));
        redisSetTimeout(m_c, timeout);
    }
    ~RedisRaw() override { redisFree(m_c); }
    QString readName() const override { return QStringLiteral("PING"); }
    QString writeName() const override { return QStringLiteral("SET"); }
    void read() override { command("PING", REDIS_REPLY_STATUS); }
    void write() override { command("SET bench:raw x", REDIS_REPLY_STATUS); }

private:
    void command(const char *cmd, int type)
    {
        auto *reply = static_cast<redisReply *>(redisCommand(m_c, cmd));
        const bool ok = reply && reply->type == type;
        if (reply)
            freeReplyObject(reply);
        if (!ok)
            fail(QStringLiteral("redis %1 failed").arg(QLatin1String(cmd)));
    }
    redisContext *m_c = nullptr;
};
#endif

#ifdef QSIMBA_BENCH_ZOOKEEPER
// The ZooKeeper C client (multi-threaded, synchronous calls), as the backend: exists and set.
class ZookeeperRaw : public RawClient
{
public:
    explicit ZookeeperRaw(const QString &where)
    {
        zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
        m_zh = zookeeper_init(where.toUtf8().constData(), nullptr, 10000, nullptr, nullptr, 0);
        // As the backend: no resolving of the (numeric) host list on every poll of the IO thread.
        if (m_zh)
            zoo_set_servers_resolution_delay(m_zh, -1);
        for (int i = 0; m_zh && zoo_state(m_zh) != ZOO_CONNECTED_STATE && i < 1000; ++i)
            std::this_thread::sleep_for(10ms);
        if (!m_zh || zoo_state(m_zh) != ZOO_CONNECTED_STATE)
            fail(QStringLiteral("zookeeper %1: not connected within 10 s").arg(where));
        const int rc = zoo_create(m_zh, "/bench-raw", "x", 1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
        if (rc != ZOK && rc != ZNODEEXISTS)
            fail(QStringLiteral("zookeeper: create /bench-raw failed: %1").arg(QLatin1String(zerror(rc))));
    }
    ~ZookeeperRaw() override
    {
        if (m_zh)
            zookeeper_close(m_zh);
    }
    QString readName() const override { return QStringLiteral("exists"); }
    QString writeName() const override { return QStringLiteral("set"); }
    void read() override
    {
        Stat stat;
        check(zoo_exists(m_zh, "/bench-raw", 0, &stat), "exists");
    }
    void write() override { check(zoo_set(m_zh, "/bench-raw", "x", 1, -1), "set"); }

private:
    static void check(int rc, const char *what)
    {
        if (rc != ZOK)
            fail(QStringLiteral("zookeeper %1 failed: %2").arg(QLatin1String(what), QLatin1String(zerror(rc))));
    }
    zhandle_t *m_zh = nullptr;
};
#endif

#ifdef QSIMBA_BENCH_ETCD
// libcurl on one kept HTTP/1.1 connection to the JSON gateway, as the etcd backend: get and put.
class EtcdRaw : public RawClient
{
public:
    explicit EtcdRaw(const QString &where) : m_base("http://" + where.toUtf8()), m_curl(curl_easy_init())
    {
        m_headers = curl_slist_append(nullptr, "Content-Type: application/json");
        const QByteArray key = QByteArray("/bench-raw").toBase64();
        m_put = "{\"key\":\"" + key + "\",\"value\":\"" + QByteArray("x").toBase64() + "\"}";
        m_get = "{\"key\":\"" + key + "\"}";
        write();
    }
    ~EtcdRaw() override
    {
        curl_slist_free_all(m_headers);
        curl_easy_cleanup(m_curl);
    }
    QString readName() const override { return QStringLiteral("get"); }
    QString writeName() const override { return QStringLiteral("put"); }
    void read() override { post("/v3/kv/range", m_get); }
    void write() override { post("/v3/kv/put", m_put); }

private:
    static size_t discard(char *, size_t size, size_t count, void *) { return size * count; }
    void post(const char *path, const QByteArray &body)
    {
        const QByteArray url = m_base + path;
        curl_easy_setopt(m_curl, CURLOPT_URL, url.constData());
        curl_easy_setopt(m_curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(m_curl, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
        curl_easy_setopt(m_curl, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(m_curl, CURLOPT_NOPROXY, "*");
        curl_easy_setopt(m_curl, CURLOPT_TIMEOUT_MS, 2000L);
        curl_easy_setopt(m_curl, CURLOPT_POST, 1L);
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDS, body.constData());
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDSIZE, long(body.size()));
        curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, discard);
        curl_easy_setopt(m_curl, CURLOPT_HTTPHEADER, m_headers);
        const CURLcode rc = curl_easy_perform(m_curl);
        long status = 0;
        curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &status);
        if (rc != CURLE_OK || status != 200)
            fail(QStringLiteral("etcd %1 failed (curl %2, HTTP %3)").arg(QLatin1String(path)).arg(int(rc)).arg(status));
    }
    QByteArray m_base, m_put, m_get;
    CURL *m_curl;
    curl_slist *m_headers = nullptr;
};
#endif

} // namespace

std::unique_ptr<RawClient> makeRawClient(const QString &backend, const QString &where, const QString &user,
                                         const QString &password, const QString &database)
{
    if (backend == QLatin1String("sqlite"))
        return std::make_unique<SqlRaw>(QStringLiteral("QSQLITE"), where, user, password, database);
    if (backend == QLatin1String("postgres"))
        return std::make_unique<SqlRaw>(QStringLiteral("QPSQL"), where, user, password, database);
    if (backend == QLatin1String("mariadb"))
        return std::make_unique<SqlRaw>(QStringLiteral("QMYSQL"), where, user, password, database);
#ifdef QSIMBA_BENCH_REDIS
    if (backend == QLatin1String("redis"))
        return std::make_unique<RedisRaw>(where);
#endif
#ifdef QSIMBA_BENCH_ZOOKEEPER
    if (backend == QLatin1String("zookeeper"))
        return std::make_unique<ZookeeperRaw>(where);
#endif
#ifdef QSIMBA_BENCH_ETCD
    if (backend == QLatin1String("etcd"))
        return std::make_unique<EtcdRaw>(where);
#endif
    return nullptr;
}

} // namespace Bench
