// SPDX-License-Identifier: Apache-2.0
// The operator endpoint against real clients: QNetworkAccessManager, curl, promtool, a
// Prometheus server, and Server-Sent Events readers that resume, crowd in or stall.
#include "prometheusserver.h"
#include "qsimbametricswriter_p.h"
#include "ssereader.h"

#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbaerror.h"
#include "qsimbahttpendpoint.h"
#include "qsimbamemoryleasebackend.h"
#ifdef QSIMBA_HAVE_REDIS
#include "qsimbabackendfactory.h"
#include "redisserver.h"
#endif

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QProcess>
#include <QtCore/QRegularExpression>
#include <QtCore/QSettings>
#include <QtCore/QTemporaryDir>
#include <QtCore/QUrlQuery>
#include <QtNetwork/QNetworkAccessManager>
#include <QtNetwork/QNetworkReply>
#include <QtTest/QSignalSpy>
#include <QtTest/QTest>

using namespace std::chrono_literals;

namespace {

struct Response
{
    int status = 0;
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-case names

    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
};

//! Runs \a program to the end while this thread's event loop serves the endpoint.
int runAsync(const QString &program, const QStringList &args, QByteArray *out = nullptr,
             const QString &stdinFile = {})
{
    QProcess process;
    process.setProcessChannelMode(QProcess::SeparateChannels);
    if (!stdinFile.isEmpty())
        process.setStandardInputFile(stdinFile);
    QSignalSpy finished(&process, &QProcess::finished);
    process.start(program, args);
    if (!process.waitForStarted(10000))
        return -1;
    if (!finished.wait(30000)) {
        process.kill();
        process.waitForFinished();
        return -2;
    }
    if (out)
        *out = process.readAllStandardOutput() + process.readAllStandardError();
    return process.exitCode();
}

//! curl -i: the status, headers and body of the (last) response.
Response curl(const QStringList &args)
{
    QByteArray out;
    Response r;
    if (runAsync(QStringLiteral("curl"), QStringList{QStringLiteral("-s"), QStringLiteral("-i")} + args, &out) < 0)
        return r;
    const qsizetype end = out.indexOf("\r\n\r\n");
    const QList<QByteArray> lines = out.left(end).split('\n');
    r.status = lines.value(0).split(' ').value(1).toInt();
    for (const QByteArray &line : lines.mid(1)) {
        const qsizetype colon = line.indexOf(':');
        if (colon > 0)
            r.headers.insert(line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed());
    }
    r.body = end < 0 ? QByteArray() : out.mid(end + 4);
    return r;
}

Response fetch(QNetworkAccessManager &nam, const QUrl &url, const QByteArray &verb = "GET",
               const QList<std::pair<QByteArray, QByteArray>> &headers = {})
{
    QNetworkRequest request(url);
    for (const auto &[k, v] : headers)
        request.setRawHeader(k, v);
    QNetworkReply *reply = verb == "HEAD" ? nam.head(request) : nam.sendCustomRequest(request, verb);
    QSignalSpy finished(reply, &QNetworkReply::finished);
    Response r;
    if (!reply->isFinished() && !finished.wait(15000))
        return r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    for (const auto &[k, v] : reply->rawHeaderPairs())
        r.headers.insert(k.toLower(), v);
    reply->deleteLater();
    return r;
}

QUrl route(const QSimbaHttpEndpoint &endpoint, const QString &path)
{
    QUrl url = endpoint.url();
    url.setPath(path);
    return url;
}

//! Takes and releases \a name \a n times: two events (ELECTED, REVOKED) each.
bool churnLock(QSimba *simba, const QString &name, int n)
{
    for (int i = 0; i < n; ++i) {
        auto term = simba->lock(name)->tryAcquire();
        if (!term)
            return false;
        term->close();
    }
    return true;
}

QList<qint64> ids(const QList<SseEvent> &events)
{
    QList<qint64> out;
    for (const auto &e : events) {
        if (e.id >= 0)
            out.append(e.id);
    }
    return out;
}

} // namespace

class tst_Http : public QObject
{
    Q_OBJECT

    QString store;
    QSimbaConfig config = QSimbaConfig::builder().leaseDuration(600ms).build();

    std::unique_ptr<QSimba> client()
    {
        return QSimba::builder()
            .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store))
            .config(config)
            .metadata(u"instance"_qs, u"billing-3"_qs)
            .build();
    }

private Q_SLOTS:
    void init() { store = QSimbaSessionId::generate().toString(); }

    void snapshotHealthMetricsOverQNetworkAccessManager()
    {
        auto simba = client();
        QSimbaHttpEndpoint endpoint(simba.get()); // the one line: loopback, any free port
        QCOMPARE(endpoint.address(), QHostAddress(QHostAddress::LocalHost));
        QVERIFY(endpoint.port() > 0);

        simba->election(QStringLiteral("alpha"))->start();
        auto work = simba->group(QStringLiteral("jobs"), 4)->runWhileLeader(
            [](const QSimbaTerm &term, int) { term.revoked().waitForFinished(); });
        auto lock = simba->lock(QStringLiteral("beta"))->tryAcquire();
        QVERIFY(lock.has_value());
        QTRY_COMPARE(simba->election(QStringLiteral("alpha"))->status(), QSimbaElection::Status::Leader);

        QNetworkAccessManager nam;
        // The group's four partitions are all this client's (its only member) and held.
        QJsonObject snap;
        QTRY_VERIFY_WITH_TIMEOUT((snap = fetch(nam, endpoint.url()).json(),
                                  snap[u"groups"_qs][0][u"held"_qs].toArray().size() == 4),
                                 10000);
        const Response r = fetch(nam, endpoint.url());
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(r.headers.value("cache-control"), QByteArray("no-store"));
        const QJsonObject o = r.json();
        QCOMPARE(o[u"client"_qs][u"pid"_qs].toInteger(), QCoreApplication::applicationPid());
        QVERIFY(o[u"client"_qs][u"backend"_qs].toString().startsWith(u"memory://"_qs));
        QCOMPARE(o[u"session"_qs][u"status"_qs].toString(), u"LIVE"_qs);
        // The session's metadata, as the builder set it: which instance this is, for operators.
        QCOMPARE(o[u"session"_qs][u"metadata"_qs].toObject(), (QJsonObject{{u"instance"_qs, u"billing-3"_qs}}));
        QCOMPARE(o[u"healthy"_qs].toBool(), true);
        QCOMPARE(o[u"leaseDurationMs"_qs].toInt(), 600);
        const QJsonArray elections = o[u"elections"_qs].toArray();
        QCOMPARE(elections.size(), 5); // alpha and the four partitions
        QCOMPARE(elections[0][u"name"_qs].toString(), u"alpha"_qs);
        QCOMPARE(elections[0][u"status"_qs].toString(), u"LEADER"_qs);
        QCOMPARE(elections[0][u"kind"_qs].toString(), u"ELECTION"_qs);
        QCOMPARE(elections[0][u"token"_qs].toInteger(), simba->election(u"alpha"_qs)->currentTerm().token());
        const QJsonArray locks = o[u"locks"_qs].toArray();
        QCOMPARE(locks.size(), 1);
        QCOMPARE(locks[0][u"name"_qs].toString(), u"beta"_qs);
        QCOMPARE(locks[0][u"kind"_qs].toString(), u"LOCK"_qs);
        QCOMPARE(locks[0][u"token"_qs].toInteger(), lock->token());
        const QJsonObject group = o[u"groups"_qs][0].toObject();
        QCOMPARE(group[u"name"_qs].toString(), u"jobs"_qs);
        QCOMPARE(group[u"partitions"_qs].toInt(), 4);
        QCOMPARE(group[u"members"_qs].toArray(), QJsonArray{o[u"session"_qs][u"id"_qs]});
        QCOMPARE(group[u"owned"_qs].toArray(), (QJsonArray{0, 1, 2, 3}));

        const Response health = fetch(nam, route(endpoint, u"/simba/health"_qs));
        QCOMPARE(health.status, 200);
        QCOMPARE(health.json()[u"status"_qs].toString(), u"UP"_qs);

        const Response metrics = fetch(nam, route(endpoint, u"/simba/metrics"_qs));
        QCOMPARE(metrics.status, 200);
        QCOMPARE(metrics.headers.value("content-type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
        QVERIFY(metrics.body.contains("\nsimba_leader{name=\"alpha\"} 1\n"));
        QVERIFY(metrics.body.contains("\nsimba_leader{name=\"beta\"} 1\n"));
        QVERIFY(metrics.body.contains(QByteArray("simba_term_token{name=\"beta\"} " + QByteArray::number(lock->token()) + "\n")));
        QVERIFY(metrics.body.contains("\nsimba_session_healthy 1\n"));
        QVERIFY(metrics.body.contains("\nsimba_group_partitions_owned{group=\"jobs\"} 4\n"));
        QVERIFY(!metrics.body.contains("simba_leader{name=\"jobs.0\"}")); // partitions: per group only
        QVERIFY(metrics.body.contains("simba_backend_call_duration_seconds_count{call=\"keep_alive\"}"));
        QVERIFY(metrics.body.contains("# TYPE simba_backend_call_duration_seconds histogram\n"));

        QCOMPARE(fetch(nam, route(endpoint, u"/nope"_qs)).status, 404);
        QCOMPARE(fetch(nam, route(endpoint, u"/simba/healthz"_qs)).status, 404);
        const Response post = fetch(nam, route(endpoint, u"/simba"_qs), "POST");
        QCOMPARE(post.status, 405);
        QCOMPARE(post.headers.value("allow"), QByteArray("GET, HEAD"));
        QCOMPARE(fetch(nam, route(endpoint, u"/simba/metrics"_qs), "DELETE").status, 405);
        const Response head = fetch(nam, route(endpoint, u"/simba/health"_qs), "HEAD");
        QCOMPARE(head.status, 200);
        QVERIFY(head.body.isEmpty());

        // The event stream answers with its type, then the events as they happen.
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs));
        QTRY_COMPARE(endpoint.readerCount(), 1);
        QVERIFY(churnLock(simba.get(), u"gamma"_qs, 1));
        // Renewals come and go meanwhile: look at gamma's events only.
        QList<SseEvent> gamma;
        QTRY_VERIFY((gamma.clear(),
                     std::copy_if(reader.events.cbegin(), reader.events.cend(), std::back_inserter(gamma),
                                  [](const SseEvent &e) { return e.data.contains("\"name\":\"gamma\""); }),
                     gamma.size() == 2));
        QCOMPARE(reader.status(), 200);
        QCOMPARE(reader.reply->header(QNetworkRequest::ContentTypeHeader).toByteArray(),
                 QByteArray("text/event-stream; charset=utf-8"));
        QCOMPARE(gamma[0].event, QByteArray("ELECTED"));
        QCOMPARE(QJsonDocument::fromJson(gamma[0].data)[u"type"_qs].toString(), u"Elected"_qs);
        QCOMPARE(gamma[1].event, QByteArray("REVOKED"));
        QCOMPARE(QJsonDocument::fromJson(gamma[1].data)[u"reason"_qs].toString(), u"STOPPED"_qs);
        QVERIFY(gamma[1].id > gamma[0].id);
        reader.close();
        QTRY_COMPARE(endpoint.readerCount(), 0);
        lock->close();
    }

    void curlEveryRoute()
    {
        auto simba = client();
        QSimbaHttpEndpoint endpoint(simba.get());
        simba->election(u"alpha"_qs)->start();
        QTRY_COMPARE(simba->election(u"alpha"_qs)->status(), QSimbaElection::Status::Leader);
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(endpoint.port());

        Response r = curl({base + u"/simba"_qs});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        QCOMPARE(r.headers.value("content-length").toInt(), r.body.size());
        QCOMPARE(r.json()[u"elections"_qs][0][u"status"_qs].toString(), u"LEADER"_qs);

        r = curl({base + u"/simba/health"_qs});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.json()[u"status"_qs].toString(), u"UP"_qs);

        r = curl({base + u"/simba/metrics"_qs});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.headers.value("content-type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
        QVERIFY(r.body.contains("simba_leader{name=\"alpha\"} 1\n"));

        QCOMPARE(curl({base + u"/"_qs}).status, 404);
        QCOMPARE(curl({base + u"/simba/metrics/extra"_qs}).status, 404);
        r = curl({u"-X"_qs, u"PUT"_qs, base + u"/simba/health"_qs});
        QCOMPARE(r.status, 405);
        QCOMPARE(r.headers.value("allow"), QByteArray("GET, HEAD"));
        r = curl({u"-I"_qs, base + u"/simba/metrics"_qs}); // HEAD
        QCOMPARE(r.status, 200);
        QVERIFY(r.headers.value("content-length").toInt() > 0);

        // Oversized headers: 431 before QtHttpServer's parser sees them, and the connection closes.
        const QString big = u"X-Big: "_qs + QString(20000, u'a');
        r = curl({u"-H"_qs, big, base + u"/simba/health"_qs});
        QCOMPARE(r.status, 431);
        QCOMPARE(r.headers.value("connection"), QByteArray("close"));
        // Headers under the limit are fine.
        QCOMPARE(curl({u"-H"_qs, u"X-Big: "_qs + QString(8000, u'a'), base + u"/simba/health"_qs}).status, 200);
        // A body where none is taken.
        QTemporaryDir dir;
        QFile body(dir.filePath(u"body"_qs));
        QVERIFY(body.open(QIODevice::WriteOnly));
        body.write(QByteArray(40000, 'b'));
        body.close();
        QCOMPARE(curl({u"--data-binary"_qs, u"@"_qs + body.fileName(), base + u"/simba"_qs}).status, 413);

        // The event stream: curl reads it until --max-time; ELECTED and REVOKED of one term.
        QProcess stream;
        QSignalSpy finished(&stream, &QProcess::finished);
        stream.start(u"curl"_qs, {u"-s"_qs, u"-N"_qs, u"-i"_qs, u"--max-time"_qs, u"20"_qs, base + u"/simba/events"_qs});
        QTRY_COMPARE(endpoint.readerCount(), 1);
        QVERIFY(churnLock(simba.get(), u"gamma"_qs, 1));
        QByteArray out;
        QTRY_VERIFY((out += stream.readAllStandardOutput(), out.contains("event: REVOKED")));
        stream.kill();
        QVERIFY(finished.wait(5000));
        QVERIFY(out.startsWith("HTTP/1.1 200 OK\r\n"));
        QVERIFY(out.contains("Content-Type: text/event-stream; charset=utf-8\r\n"));
        QVERIFY2(QRegularExpression(u"\nid: [0-9]+\nevent: ELECTED\ndata: \\{[^\n]*\"type\":\"Elected\"\\}\n\n"_qs)
                    .match(QString::fromUtf8(out))
                    .hasMatch(), out.constData());
        QTRY_COMPARE(endpoint.readerCount(), 0);
    }

    void garbageAndTooManyConnections()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.maxConnections = 2;
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        // Not HTTP (e.g. TLS spoken to a plain port): 400, then the connection closes.
        QTcpSocket garbage;
        garbage.connectToHost(u"127.0.0.1"_qs, endpoint.port());
        garbage.write(QByteArray("\x16\x03\x01\x02\x00 hello\r\n\r\n", 14));
        QTRY_VERIFY(garbage.state() == QAbstractSocket::UnconnectedState);
        QVERIFY(garbage.readAll().startsWith("HTTP/1.1 400 Bad Request\r\n"));
        // Two connections open: a third is refused with 503.
        QTcpSocket one, two, three;
        one.connectToHost(u"127.0.0.1"_qs, endpoint.port());
        two.connectToHost(u"127.0.0.1"_qs, endpoint.port());
        // An answer on each shows the server accepted both (they stay open: keep-alive).
        for (QTcpSocket *s : {&one, &two})
            s->write("GET /simba/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QTRY_VERIFY(one.bytesAvailable() > 0 && two.bytesAvailable() > 0);
        QVERIFY(one.readAll().startsWith("HTTP/1.1 "));
        three.connectToHost(u"127.0.0.1"_qs, endpoint.port());
        QByteArray answer;
        QTRY_VERIFY((answer += three.readAll(), three.state() == QAbstractSocket::UnconnectedState));
        answer += three.readAll();
        QVERIFY2(answer.startsWith("HTTP/1.1 503 Service Unavailable\r\n"), answer.constData());
        one.close();
        two.close();
        QNetworkAccessManager nam;
        QTRY_COMPARE(fetch(nam, route(endpoint, u"/simba/health"_qs)).status, 200);
    }

    void bearerTokenOnEveryRoute()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.token = "s3cr3t-token";
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        QNetworkAccessManager nam;
        const QList<std::pair<QByteArray, QByteArray>> right{{"Authorization", "Bearer s3cr3t-token"}};
        const QList<std::pair<QByteArray, QByteArray>> wrong{{"Authorization", "Bearer s3cr3t-tokem"}};
        for (const QString &path : {u"/simba"_qs, u"/simba/health"_qs, u"/simba/metrics"_qs, u"/simba/events"_qs,
                                    u"/other"_qs}) {
            const Response none = fetch(nam, route(endpoint, path));
            QCOMPARE(none.status, 401);
            QCOMPARE(none.headers.value("www-authenticate"), QByteArray("Bearer realm=\"simba\""));
            QVERIFY(!none.body.contains("s3cr3t"));
            QCOMPARE(fetch(nam, route(endpoint, path), "GET", wrong).status, 401);
            QCOMPARE(curl({u"-H"_qs, u"Authorization: Basic czNjcjN0LXRva2Vu"_qs, route(endpoint, path).toString()}).status,
                     401);
        }
        QTRY_COMPARE(fetch(nam, route(endpoint, u"/simba/health"_qs), "GET", right).status, 200);
        QCOMPARE(fetch(nam, route(endpoint, u"/simba"_qs), "GET", right).status, 200);
        QCOMPARE(fetch(nam, route(endpoint, u"/other"_qs), "GET", right).status, 404);
        QCOMPARE(curl({u"-H"_qs, u"Authorization: Bearer s3cr3t-token"_qs, route(endpoint, u"/simba/metrics"_qs).toString()})
                     .status,
                 200);
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs), std::nullopt, "s3cr3t-token");
        QTRY_COMPARE(endpoint.readerCount(), 1);

        // From settings, the environment winning.
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"s.ini"_qs), QSettings::IniFormat);
        settings.setValue(u"simba/http/token"_qs, u"from-settings"_qs);
        settings.setValue(u"simba/http/port"_qs, 9464);
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).token, QByteArray("from-settings"));
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).port, 9464);
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).address, QHostAddress(QHostAddress::LocalHost));
        settings.setValue(u"simba/http/address"_qs, u"::1"_qs);
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).address, QHostAddress(QHostAddress::LocalHostIPv6));
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).port, 9464);
        settings.setValue(u"simba/http/port"_qs, u"http"_qs);
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaHttpEndpoint::Options::fromSettings(settings));
        settings.remove(u"simba/http/port"_qs);
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).port, 0);
        // Placeholders, as in every other setting; a missing variable is named.
        qunsetenv("QSIMBA_TEST_HTTP_PORT");
        settings.setValue(u"simba/http/port"_qs, u"${QSIMBA_TEST_HTTP_PORT:9465}"_qs);
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).port, 9465);
        qputenv("QSIMBA_TEST_HTTP_PORT", "9466");
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).port, 9466);
        settings.setValue(u"simba/http/token"_qs, u"${QSIMBA_TEST_HTTP_TOKEN}"_qs);
        try {
            (void)QSimbaHttpEndpoint::Options::fromSettings(settings);
            QFAIL("an unset variable without a default was accepted");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(u"simba/http/token"_qs) && e.message().contains(u"QSIMBA_TEST_HTTP_TOKEN"_qs),
                     qPrintable(e.message()));
        }
        qputenv("QSIMBA_TEST_HTTP_TOKEN", "from-placeholder");
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).token, QByteArray("from-placeholder"));
        qunsetenv("QSIMBA_TEST_HTTP_TOKEN");
        qunsetenv("QSIMBA_TEST_HTTP_PORT");
        settings.setValue(u"simba/http/token"_qs, u"from-settings"_qs);
        settings.remove(u"simba/http/port"_qs);
        qputenv("SIMBA_HTTP_TOKEN", "from-env");
        QCOMPARE(QSimbaHttpEndpoint::Options::fromSettings(settings).token, QByteArray("from-env"));
        qunsetenv("SIMBA_HTTP_TOKEN");
    }

    void listenOptions()
    {
        const QSimbaHttpEndpoint::Options base;
        QCOMPARE(QSimbaHttpEndpoint::Options::parseListen(u"9464"_qs, base).port, 9464);
        QCOMPARE(QSimbaHttpEndpoint::Options::parseListen(u"9464"_qs, base).address, QHostAddress(QHostAddress::LocalHost));
        QCOMPARE(QSimbaHttpEndpoint::Options::parseListen(u"0.0.0.0:80"_qs, base).address, QHostAddress(QHostAddress::AnyIPv4));
        QCOMPARE(QSimbaHttpEndpoint::Options::parseListen(u"[::1]:81"_qs, base).address, QHostAddress(QHostAddress::LocalHostIPv6));
        try {
            (void)QSimbaHttpEndpoint::Options::parseListen(u"host:99999"_qs, base);
            QFAIL("no error");
        } catch (const QSimbaInvalidArgumentError &e) {
            QVERIFY2(e.message().contains(u"host:99999"_qs) && e.message().contains(u"0 to 65535"_qs), qPrintable(e.message()));
        }
        auto simba = client();
        QSimbaHttpEndpoint first(simba.get());
        QSimbaHttpEndpoint::Options taken;
        taken.port = first.port();
        try {
            QSimbaHttpEndpoint second(simba.get(), taken);
            QFAIL("listened twice on one port");
        } catch (const QSimbaIllegalStateError &e) {
            QVERIFY2(e.message().contains(QString::number(first.port())), qPrintable(e.message()));
        }
        const quint16 free = TestServer::freePort();
        QSimbaHttpEndpoint byPort(simba.get(), free); // the README's form
        QCOMPARE(byPort.port(), free);
        QCOMPARE(byPort.address(), QHostAddress(QHostAddress::LocalHost));
        QCOMPARE(byPort.url(), QUrl(QStringLiteral("http://127.0.0.1:%1/simba").arg(free)));
        QSimbaHttpEndpoint::Options bad;
        bad.eventBufferSize = 0;
        QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, QSimbaHttpEndpoint(simba.get(), bad));
    }

    void healthReportsSuspendedLostAndClosed()
    {
        // A 3 s lease: the session stays suspended (not yet lost) for about 2 s, long enough
        // to be seen by polling on a loaded machine.
        auto simba = QSimba::builder()
                         .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store))
                         .config(QSimbaConfig::builder().leaseDuration(3s).build())
                         .build();
        QSimbaHttpEndpoint endpoint(simba.get());
        QNetworkAccessManager nam;
        const QUrl health = route(endpoint, u"/simba/health"_qs);
        QTRY_COMPARE(fetch(nam, health).status, 200);

        // Every backend call fails: keep-alives first suspend the session, then it is lost.
        QSimbaMemoryLeaseBackend faults(store);
        faults.failNext(1000000);
        Response r;
        QTRY_VERIFY_WITH_TIMEOUT((r = fetch(nam, health), r.json()[u"reason"_qs] == u"SESSION_SUSPENDED"_qs), 10000);
        QCOMPARE(r.status, 503);
        QCOMPARE(r.json()[u"status"_qs].toString(), u"DOWN"_qs);
        QVERIFY(r.json()[u"detail"_qs].toString().contains(u"keep-alive failing"_qs));
        const QByteArray metrics = fetch(nam, route(endpoint, u"/simba/metrics"_qs)).body;
        QVERIFY(metrics.contains("\nsimba_session_healthy 0\n"));
        QVERIFY(!metrics.contains("simba_backend_errors_total{call=\"keep_alive\"} 0\n"));
        // Opening a new session fails too.
        QTRY_VERIFY_WITH_TIMEOUT((r = fetch(nam, health), r.json()[u"reason"_qs] == u"BACKEND_FAILING"_qs), 10000);
        QCOMPARE(r.status, 503);
        QVERIFY(fetch(nam, route(endpoint, u"/simba/metrics"_qs)).body.contains(
            "simba_session_losses_total{reason=\"DEADLINE_PASSED\"} 1\n"));
        faults.failNext(0);
        QTRY_COMPARE_WITH_TIMEOUT(fetch(nam, health).status, 200, 10000);

        simba->close();
        r = fetch(nam, health);
        QCOMPARE(r.status, 503);
        QCOMPARE(r.json()[u"reason"_qs].toString(), u"CLOSED"_qs);
    }

#ifdef QSIMBA_HAVE_REDIS
    void noSecretInAnyResponse()
    {
        RedisServer redis;
        redis.setExtraArguments({u"--requirepass"_qs, u"pa55-w0rd-XYZ"_qs});
        QVERIFY2(redis.start(), qPrintable(redis.errorString()));
        // maxLease: a fresh Redis store grants nothing for one maxLease.
        const QString url = QStringLiteral("redis://:pa55-w0rd-XYZ@127.0.0.1:%1/0?maxLease=600ms&commandTimeout=150ms")
                                .arg(redis.port());
        auto simba = QSimba::builder().backend(QSimbaBackendFactory::create(url)).config(config).build();
        QSimbaHttpEndpoint endpoint(simba.get());
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs), 0);
        simba->election(u"alpha"_qs)->start();
        QTRY_COMPARE_WITH_TIMEOUT(simba->election(u"alpha"_qs)->status(), QSimbaElection::Status::Leader, 10000);
        QNetworkAccessManager nam;
        const Response snap = fetch(nam, endpoint.url());
        QCOMPARE(snap.status, 200);
        QVERIFY2(snap.json()[u"client"_qs][u"backend"_qs].toString().contains(QString::number(redis.port())),
                 snap.body.constData());
        QTRY_VERIFY(!reader.events.isEmpty());
        redis.pause(); // the failures' messages are in events and health too
        QTRY_VERIFY_WITH_TIMEOUT(fetch(nam, route(endpoint, u"/simba/health"_qs)).status == 503, 15000);
        redis.resume();
        QByteArray all = snap.body + reader.buffer;
        for (const auto &e : std::as_const(reader.events))
            all += e.data;
        for (const QString &path : {u"/simba"_qs, u"/simba/health"_qs, u"/simba/metrics"_qs, u"/nope"_qs})
            all += fetch(nam, route(endpoint, path)).body;
        QVERIFY(all.size() > 1000);
        QVERIFY(!all.contains("pa55-w0rd-XYZ"));
    }
#endif

    void promtoolAcceptsMetrics()
    {
        auto simba = client();
        QSimbaHttpEndpoint endpoint(simba.get());
        simba->election(u"alpha"_qs)->start();
        auto work = simba->group(u"jobs"_qs, 3)->runWhileLeader(
            [](const QSimbaTerm &term, int) { term.revoked().waitForFinished(); });
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 3));
        QTRY_COMPARE(simba->election(u"alpha"_qs)->status(), QSimbaElection::Status::Leader);
        QNetworkAccessManager nam;
        QTRY_VERIFY(fetch(nam, route(endpoint, u"/simba/metrics"_qs))
                        .body.contains("simba_elected_total{kind=\"LOCK\"} 3\n"));
        // Each release was a hint to this client too (the in-memory backend publishes them).
        QTRY_VERIFY(!fetch(nam, route(endpoint, u"/simba/metrics"_qs))
                         .body.contains("simba_hints_total{kind=\"released\"} 0\n"));
        const Response metrics = fetch(nam, route(endpoint, u"/simba/metrics"_qs));
        QTemporaryDir dir;
        QFile file(dir.filePath(u"metrics.txt"_qs));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(metrics.body);
        file.close();
        QByteArray out;
        const int code = runAsync(u"promtool"_qs, {u"check"_qs, u"metrics"_qs}, &out, file.fileName());
        QVERIFY2(code == 0, out.constData());
        QVERIFY2(out.trimmed().isEmpty(), out.constData()); // not even a lint warning
        // Each family once, HELP before TYPE before its samples.
        QCOMPARE(metrics.body.count("# TYPE simba_leader gauge\n"), 1);
        QVERIFY(metrics.body.indexOf("# HELP simba_leader ") < metrics.body.indexOf("# TYPE simba_leader "));
    }

    void prometheusScrapesTheLeaderGauge()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.token = "scrape-token";
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        simba->election(u"alpha"_qs)->start();
        QTRY_COMPARE(simba->election(u"alpha"_qs)->status(), QSimbaElection::Status::Leader);
        PrometheusServer prometheus;
        prometheus.setTarget(QStringLiteral("127.0.0.1:%1").arg(endpoint.port()), u"/simba/metrics"_qs,
                             u"scrape-token"_qs);
        QVERIFY2(prometheus.start(), qPrintable(prometheus.errorString()));
        QNetworkAccessManager nam;
        QUrl query = prometheus.url();
        query.setPath(u"/api/v1/query"_qs);
        query.setQuery(QUrlQuery{{u"query"_qs, u"simba_leader{name=\"alpha\"}"_qs}});
        QJsonArray result;
        QTRY_VERIFY_WITH_TIMEOUT((result = fetch(nam, query).json()[u"data"_qs][u"result"_qs].toArray(),
                                  !result.isEmpty()),
                                 30000);
        QCOMPARE(result.size(), 1);
        QCOMPARE(result[0][u"metric"_qs][u"job"_qs].toString(), u"simba"_qs);
        QCOMPARE(result[0][u"value"_qs][1].toString(), u"1"_qs);
        // The scrape itself was healthy (authorized, parsed).
        query.setQuery(QUrlQuery{{u"query"_qs, u"up{job=\"simba\"}"_qs}});
        QCOMPARE(fetch(nam, query).json()[u"data"_qs][u"result"_qs][0][u"value"_qs][1].toString(), u"1"_qs);

        // The documented "no leader" alert's expression picks the name nobody here leads.
        auto other = client(); // holds "beta" without an endpoint: this client only contends
        other->election(u"beta"_qs)->start();
        QTRY_COMPARE(other->election(u"beta"_qs)->status(), QSimbaElection::Status::Leader);
        simba->election(u"beta"_qs)->start();
        QFile doc(QStringLiteral(QSIMBA_DOCS_DIR "/endpoint.md"));
        QVERIFY(doc.open(QIODevice::ReadOnly));
        const QString expr = QRegularExpression(u"alert: SimbaNoLeader\\n(?:.*\\n)*?\\s*expr: (.*)\\n"_qs)
                                 .match(QString::fromUtf8(doc.readAll()))
                                 .captured(1);
        QVERIFY2(expr.contains(u"simba_leader"_qs), qPrintable(expr));
        query.setQuery(QUrlQuery{{u"query"_qs, expr}});
        QTRY_VERIFY_WITH_TIMEOUT((result = fetch(nam, query).json()[u"data"_qs][u"result"_qs].toArray(),
                                  result.size() == 1),
                                 30000);
        QCOMPARE(result[0][u"metric"_qs][u"name"_qs].toString(), u"beta"_qs);
    }

    void documentedScrapeConfigAndAlertRulesAreValid()
    {
        QFile doc(QStringLiteral(QSIMBA_DOCS_DIR "/endpoint.md"));
        QVERIFY2(doc.open(QIODevice::ReadOnly), qPrintable(doc.fileName()));
        const QString text = QString::fromUtf8(doc.readAll());
        QTemporaryDir dir;
        int checked = 0;
        auto it = QRegularExpression(u"```yaml\n(.*?)```"_qs, QRegularExpression::DotMatchesEverythingOption)
                      .globalMatch(text);
        while (it.hasNext()) {
            const QString yaml = it.next().captured(1);
            const bool rules = yaml.startsWith(u"groups:"_qs);
            if (!rules && !yaml.startsWith(u"scrape_configs:"_qs))
                continue; // e.g. the Kubernetes probe
            QFile file(dir.filePath(QStringLiteral("block%1.yml").arg(checked++)));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(yaml.toUtf8());
            file.close();
            QByteArray out;
            const int code = runAsync(u"promtool"_qs,
                                      {u"check"_qs, rules ? u"rules"_qs : u"config"_qs, file.fileName()}, &out);
            QVERIFY2(code == 0, out.constData());
            if (rules) {
                QVERIFY(yaml.contains(u"alert: SimbaNoLeader"_qs));
                QVERIFY(yaml.contains(u"alert: SimbaSessionSuspended"_qs));
            }
        }
        QCOMPARE(checked, 2);
    }

    void eventsResumeWithoutLossOrDuplicates()
    {
        auto simba = client();
        QSimbaHttpEndpoint endpoint(simba.get());
        auto first = std::make_unique<SseReader>();
        first->open(route(endpoint, u"/simba/events"_qs));
        QTRY_COMPARE(endpoint.readerCount(), 1);
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 10));
        QTRY_VERIFY(first->events.size() >= 20);
        QList<SseEvent> seen = first->events;
        first->close();
        first.reset();
        QTRY_COMPARE(endpoint.readerCount(), 0);
        // Missed while disconnected.
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 10));
        QTRY_VERIFY(endpoint.lastEventId() >= seen.last().id + 20);

        SseReader second;
        second.open(route(endpoint, u"/simba/events"_qs), seen.last().id);
        QTRY_COMPARE(endpoint.readerCount(), 1);
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 5));
        QTRY_VERIFY(!second.events.isEmpty() && second.events.last().id == endpoint.lastEventId()
                    && endpoint.lastEventId() >= seen.last().id + 30);
        const qint64 reached = endpoint.lastEventId();
        QVERIFY(second.events.first().event != "GAP");
        // The same resume through the query parameter (for clients that cannot set headers).
        SseReader third;
        QUrl byQuery = route(endpoint, u"/simba/events"_qs);
        byQuery.setQuery(QUrlQuery{{u"lastEventId"_qs, QString::number(seen.last().id)}});
        third.open(byQuery);
        QTRY_VERIFY(third.events.size() >= 2);
        QCOMPARE(third.events[0].id, seen.last().id + 1);
        QCOMPARE(third.events[0].data, second.events[0].data);
        QCOMPARE(third.events[1].data, second.events[1].data);
        seen += second.events;
        const QList<qint64> got = ids(seen);
        for (qsizetype i = 0; i < got.size(); ++i)
            QCOMPARE(got[i], i + got.first());
        QVERIFY(got.last() >= reached); // renewals may have come since
        // The ELECTED/REVOKED pairs of the lock alternate all along, tokens increasing.
        qint64 token = 0;
        for (const auto &e : std::as_const(seen)) {
            if (e.event == "ELECTED") {
                const qint64 t = QJsonDocument::fromJson(e.data)[u"token"_qs].toInteger();
                QVERIFY(t > token);
                token = t;
            }
        }
    }

    void resumeOlderThanTheBufferStartsWithGap()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.eventBufferSize = 8;
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 10));
        QTRY_VERIFY(endpoint.lastEventId() >= 20);
        const qint64 last = endpoint.lastEventId();
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs), 2);
        QTRY_VERIFY(reader.events.size() >= 9); // GAP and the 8 events kept (more may follow: renewals)
        QCOMPARE(reader.events[0].event, QByteArray("GAP"));
        QCOMPARE(reader.events[0].id, -1);
        const QJsonObject gap = QJsonDocument::fromJson(reader.events[0].data).object();
        QCOMPARE(gap[u"from"_qs].toInteger(), 2);
        const qint64 oldest = gap[u"oldest"_qs].toInteger();
        QVERIFY(oldest >= last - 7); // only the last 8 are kept
        for (int i = 1; i <= 8; ++i)
            QCOMPARE(reader.events[i].id, oldest + i - 1);
        // A bad id is a bad request.
        QNetworkAccessManager nam;
        QCOMPARE(fetch(nam, route(endpoint, u"/simba/events"_qs), "GET", {{"Last-Event-ID", "x1"}}).status, 400);
    }

    void hundredReadersWhileElectionsChurn()
    {
        auto simba = client();
        QSimbaHttpEndpoint endpoint(simba.get());
        std::vector<std::unique_ptr<RawSseReader>> readers;
        for (int i = 0; i < 100; ++i) {
            readers.push_back(std::make_unique<RawSseReader>());
            readers.back()->open(endpoint.port());
        }
        QTRY_COMPARE_WITH_TIMEOUT(endpoint.readerCount(), 100, 20000);
        const qint64 before = endpoint.lastEventId();
        auto *election = simba->election(u"churn"_qs);
        election->start();
        for (int i = 0; i < 10; ++i) {
            QTRY_COMPARE(election->status(), QSimbaElection::Status::Leader);
            auto stepped = election->stepDown(0ms);
            QTRY_VERIFY(stepped.isFinished());
        }
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 20));
        QTRY_VERIFY_WITH_TIMEOUT(endpoint.lastEventId() >= before + 60, 20000);
        const qint64 last = endpoint.lastEventId();
        for (const auto &r : readers)
            QTRY_VERIFY_WITH_TIMEOUT(!r->events.isEmpty() && r->events.last().id >= last, 20000);
        // Each reader has every event from before the churn to its end, in order, once.
        for (const auto &r : readers) {
            QVERIFY(r->headers.startsWith("HTTP/1.1 200 OK"));
            const QList<qint64> got = ids(r->events);
            QVERIFY(got.first() <= before + 1);
            for (qsizetype i = 1; i < got.size(); ++i)
                QCOMPARE(got[i], got[i - 1] + 1);
        }
        QCOMPARE(endpoint.readerCount(), 100);
        QNetworkAccessManager nam;
        QVERIFY(fetch(nam, route(endpoint, u"/simba/metrics"_qs)).body.contains("\nsimba_http_event_readers 100\n"));
    }

    void stalledReaderIsDroppedOthersContinue()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.maxPendingBytes = 4096;
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        QSignalSpy dropped(&endpoint, &QSimbaHttpEndpoint::readerDropped);
        RawSseReader stalled;
        stalled.socket.setReadBufferSize(64); // Qt stops reading the socket: the kernel's buffers fill
        stalled.paused = true;
        stalled.open(endpoint.port());
        RawSseReader healthy;
        healthy.open(endpoint.port(), 0); // from the first event on
        QTRY_COMPARE(endpoint.readerCount(), 2);
        stalled.socket.setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 4096);
        // Events until the stalled reader is dropped (bounded: about 10,000 events at most).
        for (int round = 0; round < 50 && dropped.isEmpty(); ++round) {
            QVERIFY(churnLock(simba.get(), u"beta"_qs, 100));
            (void)dropped.wait(50); // runs the event loop: the events reach the endpoint, sockets drain
        }
        QVERIFY2(!dropped.isEmpty(), "the stalled reader was never dropped");
        QTRY_COMPARE(endpoint.readerCount(), 1);
        // The healthy reader got every event, in order.
        QTRY_VERIFY_WITH_TIMEOUT(!healthy.events.isEmpty() && healthy.events.last().id == endpoint.lastEventId(), 20000);
        const QList<qint64> got = ids(healthy.events);
        QCOMPARE(got.size(), endpoint.lastEventId());
        QCOMPARE(got.first(), 1);
        QNetworkAccessManager nam;
        QVERIFY(fetch(nam, route(endpoint, u"/simba/metrics"_qs))
                    .body.contains("\nsimba_http_event_readers_dropped_total 1\n"));
    }

    void eventsFromEveryCallbackExecutor_data()
    {
        QTest::addColumn<QSimba::CallbackExecutor>("executor");
        QTest::newRow("direct (engine thread)") << QSimba::CallbackExecutor::Direct;
        QTest::newRow("dedicated thread") << QSimba::CallbackExecutor::DedicatedThread;
        QTest::newRow("owner thread") << QSimba::CallbackExecutor::OwnerThread;
    }

    void eventsFromEveryCallbackExecutor()
    {
        // The events reach the endpoint's thread whichever thread publishes them.
        QFETCH(QSimba::CallbackExecutor, executor);
        auto simba = QSimba::builder()
                         .backend(std::make_unique<QSimbaMemoryLeaseBackend>(store))
                         .config(config)
                         .callbackExecutor(executor)
                         .build();
        QSimbaHttpEndpoint endpoint(simba.get());
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs), 0);
        QTRY_COMPARE(endpoint.readerCount(), 1);
        QVERIFY(churnLock(simba.get(), u"beta"_qs, 5));
        QTRY_COMPARE(std::count_if(reader.events.cbegin(), reader.events.cend(),
                                   [](const SseEvent &e) { return e.event == "REVOKED"; }),
                     5);
        const QList<qint64> got = ids(reader.events);
        QCOMPARE(got.first(), 1);
        for (qsizetype i = 1; i < got.size(); ++i)
            QCOMPARE(got[i], got[i - 1] + 1);
    }

    void keepAliveComments()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.keepAliveInterval = 100ms;
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        SseReader reader;
        reader.open(route(endpoint, u"/simba/events"_qs));
        QTRY_VERIFY(reader.comments >= 3);
    }

    void perNameSeriesAreCapped()
    {
        auto simba = client();
        QSimbaHttpEndpoint::Options options;
        options.maxNameSeries = 3;
        QSimbaHttpEndpoint endpoint(simba.get(), options);
        auto other = client(); // holds "a" and "b", so this client only contends for them
        for (const QString &n : {u"a"_qs, u"b"_qs})
            other->election(n)->start();
        for (const QString &n : {u"a"_qs, u"b"_qs})
            QTRY_COMPARE(other->election(n)->status(), QSimbaElection::Status::Leader);
        for (const QString &n : {u"a"_qs, u"b"_qs, u"c"_qs, u"d"_qs, u"e"_qs})
            simba->election(n)->start();
        for (const QString &n : {u"c"_qs, u"d"_qs, u"e"_qs})
            QTRY_COMPARE(simba->election(n)->status(), QSimbaElection::Status::Leader);
        QNetworkAccessManager nam;
        const QByteArray body = fetch(nam, route(endpoint, u"/simba/metrics"_qs)).body;
        QCOMPARE(body.count("\nsimba_leader{"), 3);
        // The names it leads come first: none of them is hidden by the cap.
        for (const char *expected : {"simba_leader{name=\"c\"} 1\n",
                                     "simba_leader{name=\"d\"} 1\n",
                                     "simba_leader{name=\"e\"} 1\n",
                                     "\nsimba_name_series_omitted 2\n",
                                     "\nsimba_names{kind=\"ELECTION\",status=\"CANDIDATE\"} 2\n",
                                     "\nsimba_names{kind=\"ELECTION\",status=\"LEADER\"} 3\n"})
            QVERIFY2(body.contains(expected), expected);
    }

    void backendMetricsHistogram()
    {
        QSimbaBackendMetrics m(u"memory://x"_qs);
        using Call = QSimbaBackendMetrics::Call;
        m.record(Call::KeepAlive, 1ms, false);    // le 0.001: bounds are inclusive
        m.record(Call::KeepAlive, 1100us, false); // le 0.0025
        m.record(Call::KeepAlive, 20s, true);     // +Inf
        m.record(Call::Acquire, 100us, false);    // le 0.0005
        const auto s = m.stats(Call::KeepAlive);
        QCOMPARE(s.count, 3u);
        QCOMPARE(s.errors, 1u);
        QCOMPARE(s.sum, std::chrono::nanoseconds(20002100us));
        QCOMPARE(s.buckets[1], 1u);
        QCOMPARE(s.buckets[2], 1u);
        QCOMPARE(s.buckets[QSimbaBackendMetrics::BucketCount - 1], 1u);
        QVERIFY(m.lastFailed(Call::KeepAlive));
        QVERIFY(!m.lastFailed(Call::Acquire));
        QCOMPARE(m.stats(Call::Acquire).buckets[0], 1u);
        QCOMPARE(QSimbaBackendMetrics::callName(Call::CloseSession), u"close_session"_qs);

        QSimbaMetricsWriter::Input in;
        in.backend = &m;
        const QByteArray text = QSimbaMetricsWriter::write(in);
        for (const char *expected : {"simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"0.0005\"} 0\n",
                                     "simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"0.001\"} 1\n",
                                     "simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"0.0025\"} 2\n",
                                     "simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"10\"} 2\n",
                                     "simba_backend_call_duration_seconds_bucket{call=\"keep_alive\",le=\"+Inf\"} 3\n",
                                     "simba_backend_call_duration_seconds_sum{call=\"keep_alive\"} 20.0021\n",
                                     "simba_backend_call_duration_seconds_count{call=\"keep_alive\"} 3\n",
                                     "simba_backend_errors_total{call=\"keep_alive\"} 1\n"})
            QVERIFY2(text.contains(expected), expected);
        QCOMPARE(QSimbaMetricsWriter::escapeLabel(u"a\"b\\c\nd"_qs), QByteArray("a\\\"b\\\\c\\nd"));
    }

    void tenThousandNamesStayWithinTheCap()
    {
        // The writer alone, on a snapshot as a client contending for 10,000 names gives it.
        QSimbaSnapshot snap;
        for (int i = 0; i < 10000; ++i) {
            QSimbaElectionSnapshot e;
            e.name = QSimbaLeaseName::of(QStringLiteral("job-%1").arg(i, 5, 10, QLatin1Char('0')));
            e.kind = i % 2 ? QSimbaElection::Kind::Lock : QSimbaElection::Kind::Election;
            const bool leads = i % 97 == 0; // 104 names led, spread over the whole range
            e.status = leads ? QSimbaElection::Status::Leader : QSimbaElection::Status::Candidate;
            e.token = leads ? i + 1 : 0;
            e.remaining = leads ? std::chrono::nanoseconds(5s) : std::chrono::nanoseconds(0);
            snap.elections.append(e);
        }
        QSimbaEventCounters counters;
        QSimbaMetricsWriter::Input in;
        in.snapshot = snap;
        in.events = &counters;
        in.maxNameSeries = 1000;
        const QByteArray text = QSimbaMetricsWriter::write(in);
        QCOMPARE(text.count("\nsimba_leader{"), 1000);
        QCOMPARE(text.count("\nsimba_leader{name=\"job-09991\"} 1\n"), 1); // led, far past the first 1000
        QCOMPARE(text.count("\nsimba_term_token{"), 104);
        QVERIFY(text.contains("\nsimba_name_series_omitted 9000\n"));
        QVERIFY(text.contains("\nsimba_names{kind=\"LOCK\",status=\"CANDIDATE\"} "));
        qsizetype series = 0;
        for (const QByteArray &line : text.split('\n'))
            series += !line.isEmpty() && !line.startsWith('#');
        QVERIFY2(series < 1300, QByteArray::number(series).constData()); // 2 × 1000 at most, plus fixed ones
        qInfo("10,000 names: %lld series, %lld bytes", qint64(series), qint64(text.size()));
    }

#ifdef SIMBACTL_PATH
    void simbactlServesTheEndpoint()
    {
        const quint16 port = TestServer::freePort();
        QProcess ctl;
        ctl.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        ctl.start(QStringLiteral(SIMBACTL_PATH),
                  {u"watch"_qs, u"--backend"_qs, u"memory://ctl"_qs, u"--http"_qs, QStringLiteral("127.0.0.1:%1").arg(port),
                   u"alpha"_qs});
        QVERIFY(ctl.waitForStarted());
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(port);
        Response r;
        QTRY_VERIFY_WITH_TIMEOUT((r = curl({base + u"/simba/metrics"_qs}),
                                  r.body.contains("simba_leader{name=\"alpha\"} 1")),
                                 15000);
        QCOMPARE(curl({base + u"/simba/health"_qs}).status, 200);
        ctl.terminate();
        QVERIFY(ctl.waitForFinished(10000));
        QCOMPARE(ctl.exitCode(), 0);
    }
#endif
};

QTEST_MAIN(tst_Http)
#include "tst_http.moc"

#include "moc_ssereader.cpp"
