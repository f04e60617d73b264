// SPDX-License-Identifier: Apache-2.0
// The lock cycle of the etcd backend (acquire + release: two transactions, two writes)
// against etcd's own round trips on the same server in the same run, over the same kind of
// connection (libcurl, HTTP/1.1 keep-alive, the JSON gateway): a put and a get of one key
// (one write, one read), and a put and a delete (two writes, like the cycle). Prints
// medians, 99th percentiles and the ratios. Rounds alternate, so that a busy machine weighs
// on all three.
//
// Also the handoff: from one session's release to another session's grant, the waiting
// backend told by the watch's Released hint (as the engine is), against the same put+get.
// With --failover (and the test fixture): a 3-member cluster, its leader killed, and the
// time until the client's next keepAlive succeeds through another member.
// With --handover N: two QSimba clients; the leader's election stop() until the other
// client's elected signal, N times, the roles alternating (the graceful handover).
//
//   etcd_lockcycle [--url etcd://127.0.0.1:2379/bench] [--rounds 500] [--failover] [--handover 20]
// Without --url, an etcd on a free loopback port is started for the run.
#include "qsimba.h"
#include "qsimbaetcdleasebackend.h"
#ifdef QSIMBA_BENCH_HAVE_FIXTURE
#include "etcdserver.h"
#endif

#include <curl/curl.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QEventLoop>
#include <QtCore/QSemaphore>
#include <QtCore/QTimer>
#include <QtCore/QTextStream>

#include <algorithm>
#include <memory>

using namespace std::chrono_literals;

namespace {
size_t discard(char *, size_t size, size_t count, void *)
{
    return size * count;
}

// The baseline client: one keep-alive libcurl handle, as the backend uses.
class Gateway
{
public:
    explicit Gateway(const QString &endpoint) : m_base("http://" + endpoint.toUtf8()), m_curl(curl_easy_init()) {}
    ~Gateway() { curl_easy_cleanup(m_curl); }
    bool post(const char *path, const QByteArray &body)
    {
        const QByteArray url = m_base + path;
        curl_easy_setopt(m_curl, CURLOPT_URL, url.constData());
        curl_easy_setopt(m_curl, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
        curl_easy_setopt(m_curl, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(m_curl, CURLOPT_TIMEOUT_MS, 2000L);
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDS, body.constData());
        curl_easy_setopt(m_curl, CURLOPT_POSTFIELDSIZE, long(body.size()));
        curl_easy_setopt(m_curl, CURLOPT_WRITEFUNCTION, discard);
        curl_slist *headers = curl_slist_append(nullptr, "Content-Type: application/json");
        curl_easy_setopt(m_curl, CURLOPT_HTTPHEADER, headers);
        const CURLcode rc = curl_easy_perform(m_curl);
        curl_slist_free_all(headers);
        long status = 0;
        curl_easy_getinfo(m_curl, CURLINFO_RESPONSE_CODE, &status);
        return rc == CURLE_OK && status == 200;
    }

private:
    QByteArray m_base;
    CURL *m_curl;
};

struct Stats
{
    QList<double> us;
    double percentile(double p)
    {
        std::sort(us.begin(), us.end());
        return us.isEmpty() ? 0 : us.at(std::min<qsizetype>(us.size() - 1, qsizetype(p * double(us.size()))));
    }
};
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("The etcd backend's lock cycle against etcd's put/get round trip."));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("url"), QStringLiteral("The etcd to use (etcd://host:port/prefix)."), QStringLiteral("url")});
    parser.addOption({QStringLiteral("rounds"), QStringLiteral("Measured rounds (default 500)."), QStringLiteral("n"),
                      QStringLiteral("500")});
    parser.addOption({QStringLiteral("failover"), QStringLiteral("Also measure a failover in a 3-member cluster.")});
    parser.addOption({QStringLiteral("handover"), QStringLiteral("Also measure N graceful handovers between two clients."),
                      QStringLiteral("n")});
    parser.process(app);
    QTextStream out(stdout);
    QTextStream err(stderr);
    const int rounds = std::max(10, parser.value(QStringLiteral("rounds")).toInt());

    QString url = parser.value(QStringLiteral("url"));
#ifdef QSIMBA_BENCH_HAVE_FIXTURE
    std::unique_ptr<EtcdServer> server;
    if (url.isEmpty()) {
        server = std::make_unique<EtcdServer>();
        if (!server->start()) {
            err << server->errorString() << Qt::endl;
            return 1;
        }
        url = server->url(QStringLiteral("/bench"));
    }
#endif
    if (url.isEmpty()) {
        err << "give --url etcd://host:port/prefix" << Qt::endl;
        return 64;
    }
    try {
        auto backend = QSimbaEtcdLeaseBackend::fromUrl(url);
        const QString endpoint = backend->options().endpoints.first();
        Gateway gateway(endpoint);
        const QByteArray key = QByteArray("/bench-baseline").toBase64();
        const QByteArray put = "{\"key\":\"" + key + "\",\"value\":\"" + QByteArray("x").toBase64() + "\"}";
        const QByteArray get = "{\"key\":\"" + key + "\"}";
        const QByteArray del = get;
        const auto session = backend->openSession(30s).id;
        const auto name = QSimbaLeaseName::of(QStringLiteral("bench.lock"));

        Stats baseline, writes, cycle;
        QElapsedTimer timer;
        for (int i = -rounds / 10; i < rounds; ++i) { // the first tenth warms up
            timer.start();
            if (!gateway.post("/v3/kv/put", put) || !gateway.post("/v3/kv/range", get)) {
                err << "the baseline put/get failed at " << endpoint << Qt::endl;
                return 69;
            }
            const double b = double(timer.nsecsElapsed()) / 1000.0;
            timer.start();
            if (!gateway.post("/v3/kv/put", put) || !gateway.post("/v3/kv/deleterange", del)) {
                err << "the baseline put/delete failed at " << endpoint << Qt::endl;
                return 69;
            }
            const double w = double(timer.nsecsElapsed()) / 1000.0;
            timer.start();
            const auto r = backend->acquire(session, {name}).value(name);
            backend->release(session, {{name, r.token}});
            const double c = double(timer.nsecsElapsed()) / 1000.0;
            if (!r.isGranted) {
                err << "the lock was not granted" << Qt::endl;
                return 69;
            }
            if (i >= 0) {
                baseline.us.append(b);
                writes.us.append(w);
                cycle.us.append(c);
            }
            if (i % 100 == 0)
                backend->keepAlive(session, 30s, {});
        }
        // Handoff: holder releases; the waiter, told by the Released hint, acquires.
        auto waiter = QSimbaEtcdLeaseBackend::fromUrl(url);
        const auto waiting = waiter->openSession(30s).id;
        QSemaphore released;
        auto subscription = waiter->subscribe([&](const QSimbaLeaseBackend::Hint &h) {
            if (h.kind == QSimbaLeaseBackend::Hint::Kind::Released && h.name == name.toString())
                released.release();
        });
        // Armed once a release is hinted.
        for (int tries = 0; tries < 100 && !released.tryAcquire(1, 50); ++tries)
            backend->release(session, {{name, backend->acquire(session, {name}).value(name).token}});
        Stats handoff;
        const int handoffs = std::max(10, rounds / 10);
        for (int i = 0; i < handoffs; ++i) {
            const qint64 token = backend->acquire(session, {name}).value(name).token;
            while (released.tryAcquire()) {
            }
            timer.start();
            backend->release(session, {{name, token}});
            if (!released.tryAcquire(1, 5000)) {
                err << "no Released hint within 5 s" << Qt::endl;
                return 69;
            }
            const auto r = waiter->acquire(waiting, {name}).value(name);
            handoff.us.append(double(timer.nsecsElapsed()) / 1000.0);
            if (!r.isGranted) {
                err << "the waiter was not granted after the release" << Qt::endl;
                return 69;
            }
            waiter->release(waiting, {{name, r.token}});
            released.tryAcquire(1, 5000); // the waiter's own release
        }
        subscription.reset();
        waiter->closeSession(waiting);
        backend->closeSession(session);
        const double b50 = baseline.percentile(0.5), w50 = writes.percentile(0.5), c50 = cycle.percentile(0.5);
        out << "etcd lock cycle on " << backend->describe() << ", " << rounds << " rounds\n";
        out << Qt::fixed << qSetRealNumberPrecision(0);
        out << "baseline put+get (2 requests)        median " << b50 << " us  p99 " << baseline.percentile(0.99) << " us\n";
        out << "baseline put+delete (2 writes)       median " << w50 << " us  p99 " << writes.percentile(0.99) << " us\n";
        out << "lock cycle acquire+release (2 txns)  median " << c50 << " us  p99 " << cycle.percentile(0.99) << " us\n";
        out << qSetRealNumberPrecision(2) << "ratio lock cycle / put+get (medians)    " << (b50 > 0 ? c50 / b50 : 0) << "\n";
        out << "ratio lock cycle / put+delete (medians) " << (w50 > 0 ? c50 / w50 : 0) << "\n";
        const double h50 = handoff.percentile(0.5);
        out << qSetRealNumberPrecision(0) << "handoff release -> hint -> grant      median " << h50 << " us  p99 "
            << handoff.percentile(0.99) << " us (" << handoff.us.size() << " handoffs)\n";
        out << qSetRealNumberPrecision(2) << "ratio handoff / put+get (medians)       " << (b50 > 0 ? h50 / b50 : 0)
            << Qt::endl;
    } catch (const std::exception &e) {
        err << e.what() << Qt::endl;
        return 69;
    }
    if (const int handovers = parser.value(QStringLiteral("handover")).toInt(); handovers > 0) {
        // etcd's default minimum TTL is 2 s: a 2 s lease suits any server.
        const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(2s).build();
        const auto client = [&] { return QSimba::builder().backend(QSimbaEtcdLeaseBackend::fromUrl(url)).config(config).build(); };
        auto a = client(), b = client();
        QSimbaElection *elections[2] = {a->election(QStringLiteral("bench.leader")),
                                        b->election(QStringLiteral("bench.leader"))};
        // Waits for \a done, processing events, at most 10 s.
        const auto await = [](const std::function<bool()> &done) {
            QEventLoop loop;
            QTimer poll;
            QElapsedTimer timer;
            timer.start();
            QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
                if (done() || timer.elapsed() > 10000)
                    loop.quit();
            });
            poll.start(1);
            loop.exec();
            return done();
        };
        const auto leads = [](QSimbaElection *e) {
            return e->status() == QSimbaElection::Status::Leader && e->currentTerm().isValid();
        };
        elections[0]->start();
        if (!await([&] { return leads(elections[0]); })) {
            err << "no leader within 10 s" << Qt::endl;
            return 69;
        }
        Stats handover;
        int leader = 0;
        for (int i = -2; i < handovers; ++i) { // two to warm up: each client's watch armed
            QSimbaElection *from = elections[leader], *to = elections[1 - leader];
            if (!to->isStarted())
                to->start();
            if (!await([&] { return to->status() == QSimbaElection::Status::Candidate; })) {
                err << "the other client is no candidate within 10 s" << Qt::endl;
                return 69;
            }
            QElapsedTimer timer;
            timer.start();
            auto stopped = from->stop();
            if (!await([&] { return leads(to); })) {
                err << "no handover within 10 s" << Qt::endl;
                return 69;
            }
            if (i >= 0)
                handover.us.append(double(timer.nsecsElapsed()) / 1000.0);
            await([&] { return stopped.isFinished(); });
            leader = 1 - leader;
        }
        auto stopA = elections[0]->stop(), stopB = elections[1]->stop();
        await([&] { return stopA.isFinished() && stopB.isFinished(); });
        out << qSetRealNumberPrecision(1) << "graceful handover stop() -> other elected  median "
            << handover.percentile(0.5) / 1000.0 << " ms  max " << handover.percentile(1.0) / 1000.0 << " ms ("
            << handover.us.size() << " handovers, lease 2 s)" << Qt::endl;
    }
    if (parser.isSet(QStringLiteral("failover"))) {
#ifdef QSIMBA_BENCH_HAVE_FIXTURE
        EtcdCluster cluster(3);
        if (!cluster.start()) {
            err << cluster.errorString() << Qt::endl;
            return 1;
        }
        // The client talks to the leader first, which is killed.
        int leader = 0;
        for (int i = 0; i < cluster.size(); ++i) {
            QString status;
            cluster.member(i).ctl({QStringLiteral("endpoint"), QStringLiteral("status"), QStringLiteral("-w"),
                                   QStringLiteral("json")}, &status);
            const QJsonObject st = QJsonDocument::fromJson(status.toUtf8()).array().at(0).toObject()
                                       .value(QLatin1String("Status")).toObject();
            if (st.value(QLatin1String("header")).toObject().value(QLatin1String("member_id")).toVariant()
                == st.value(QLatin1String("leader")).toVariant())
                leader = i;
        }
        QSimbaEtcdLeaseBackend::Options o;
        for (int i = 0; i < cluster.size(); ++i)
            o.endpoints.append(cluster.member((leader + i) % cluster.size()).endpoint());
        o.prefix = QStringLiteral("/bench");
        o.connectTimeout = 200ms;
        o.requestTimeout = 500ms;
        QSimbaEtcdLeaseBackend client(o);
        const auto session = client.openSession(5s).id;
        QElapsedTimer timer;
        cluster.member(leader).kill();
        timer.start();
        int failures = 0;
        for (;;) {
            try {
                if (client.keepAlive(session, 5s, {}).isLive)
                    break;
                err << "the session expired during the failover" << Qt::endl;
                return 69;
            } catch (const std::exception &) {
                ++failures;
                if (timer.elapsed() > 10000) {
                    err << "no keepAlive succeeded within 10 s of the kill" << Qt::endl;
                    return 69;
                }
            }
        }
        out << "failover: leader killed -> keepAlive through " << client.currentEndpoint() << " after "
            << timer.elapsed() << " ms (" << failures << " failed calls before; election timeout 100 ms)"
            << Qt::endl;
#else
        err << "--failover needs the test fixture (configure with the tests)" << Qt::endl;
        return 64;
#endif
    }
    return 0;
}
