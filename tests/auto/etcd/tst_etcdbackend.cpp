// SPDX-License-Identifier: Apache-2.0
// The etcd backend beyond the conformance suite, against real etcd servers started here:
// a 3-member cluster losing the member the client talks to, authentication, watches that
// resume after a broken connection and after a compaction, restarts, unreachable servers.
#include "etcdserver.h"
#include "tcpproxy.h"
#include "qsimbaerror.h"
#include "qsimbaetcdleasebackend.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QMutex>
#include <QtNetwork/QTcpServer>
#include <QtTest/QTest>
#include "qsimbatestmain.h"


using namespace std::chrono_literals;
using Backend = QSimbaEtcdLeaseBackend;
using Hint = QSimbaLeaseBackend::Hint;

namespace {
QSimbaLeaseName leaseName(const char *name)
{
    return QSimbaLeaseName::of(QString::fromLatin1(name));
}

// Collects the hints of one subscription (they arrive on the watch's thread).
class HintLog
{
public:
    QSimbaLeaseBackend::HintListener listener()
    {
        return [this](const Hint &h) {
            QMutexLocker lock(&m_mutex);
            m_hints.append(h);
        };
    }
    bool seen(Hint::Kind kind, const QString &name)
    {
        QMutexLocker lock(&m_mutex);
        return std::any_of(m_hints.cbegin(), m_hints.cend(),
                           [&](const Hint &h) { return h.kind == kind && h.name == name; });
    }

private:
    QMutex m_mutex;
    QList<Hint> m_hints;
};

Backend::Options optionsFor(const QStringList &endpoints, const QString &prefix = QStringLiteral("/t"))
{
    Backend::Options o;
    o.endpoints = endpoints;
    o.prefix = prefix;
    o.connectTimeout = 1s;
    o.requestTimeout = 2s;
    return o;
}

// The watch starts at some revision after subscribe(): write until it reports a change.
void armed(Backend &direct, const QSimbaSessionId &s, HintLog &hints)
{
    const auto changed = [&] {
        direct.leave(s, QStringLiteral("armed"));
        direct.join(s, QStringLiteral("armed"));
        return hints.seen(Hint::Kind::MembersChanged, QStringLiteral("armed"));
    };
    QTRY_VERIFY_WITH_TIMEOUT(changed(), 5000);
}

// An etcd, a session on it, and a watch through a proxy the test can cut, armed.
struct CutWatch
{
    EtcdServer server;
    std::unique_ptr<TcpProxy> relay;
    std::unique_ptr<Backend> direct;
    HintLog hints;
    QSimbaSessionId session;
    std::unique_ptr<Backend> watcher;
    std::unique_ptr<QSimbaLeaseBackend::Subscription> subscription;

    //! False (the test failed) when the server did not start or the watch never armed.
    bool start()
    {
        if (!server.start()) {
            QTest::qFail(qPrintable(server.errorString()), __FILE__, __LINE__);
            return false;
        }
        relay = std::make_unique<TcpProxy>(QStringLiteral("127.0.0.1"), server.port());
        direct = std::make_unique<Backend>(optionsFor({server.endpoint()}));
        watcher = std::make_unique<Backend>(optionsFor({QStringLiteral("127.0.0.1:%1").arg(relay->port())}));
        subscription = watcher->subscribe(hints.listener());
        session = direct->openSession(10s).id;
        armed(*direct, session, hints);
        return !QTest::currentTestFailed();
    }
};

// The current revision of \a server's store (etcdctl's JSON output).
qint64 revisionOf(const EtcdServer &server)
{
    QString out;
    if (server.ctl({QStringLiteral("get"), QStringLiteral("/"), QStringLiteral("-w"), QStringLiteral("json")}, &out) != 0)
        return -1;
    return QJsonDocument::fromJson(out.toUtf8()).object().value(QLatin1String("header")).toObject()
        .value(QLatin1String("revision")).toVariant().toLongLong();
}
} // namespace

class tst_EtcdBackend : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // A 3-member cluster; the client's first endpoint is the leader, which is killed. The
    // client continues on another member; the term it held stays the only one.
    void survivesTheLossOfItsMember()
    {
        EtcdCluster cluster(3);
        if (!cluster.start())
            QFAIL(qPrintable(cluster.errorString()));
        // Which member leads: the one whose member id is the leader id etcdctl reports.
        int leader = -1;
        for (int i = 0; i < cluster.size() && leader < 0; ++i) {
            QString out;
            QCOMPARE(cluster.member(i).ctl({QStringLiteral("endpoint"), QStringLiteral("status"), QStringLiteral("-w"),
                                             QStringLiteral("json")}, &out), 0);
            const QJsonObject status = QJsonDocument::fromJson(out.toUtf8()).array().at(0).toObject()
                                           .value(QLatin1String("Status")).toObject();
            const QJsonObject header = status.value(QLatin1String("header")).toObject();
            if (header.value(QLatin1String("member_id")).toVariant() == status.value(QLatin1String("leader")).toVariant())
                leader = i;
        }
        QVERIFY2(leader >= 0, "no member says it leads");
        QStringList endpoints;
        for (int i = 0; i < cluster.size(); ++i)
            endpoints.append(cluster.member((leader + i) % cluster.size()).endpoint());

        Backend holder(optionsFor(endpoints)), rival(optionsFor(QStringList(endpoints.crbegin(), endpoints.crend())));
        HintLog hints;
        auto subscription = holder.subscribe(hints.listener());
        const auto s1 = holder.openSession(5s).id;
        const auto s2 = rival.openSession(5s).id;
        const auto n = leaseName("cluster.lock");
        const auto first = holder.acquire(s1, {n}).value(n);
        QVERIFY(first.isGranted);
        QCOMPARE(holder.currentEndpoint(), cluster.member(leader).endpoint());

        cluster.member(leader).kill();

        // The holder's next calls go to another member, once the others elected a leader.
        const auto alive = [&] {
            try {
                return holder.keepAlive(s1, 5s, {n}).owned.contains(n);
            } catch (const QSimbaBackendError &e) {
                qDebug("while the cluster elects: %s", e.what());
                return false;
            }
        };
        QTRY_VERIFY_WITH_TIMEOUT(alive(), 10000);
        QVERIFY(holder.currentEndpoint() != cluster.member(leader).endpoint());
        // No second term: the rival sees the holder's, with the same token.
        const auto seen = rival.acquire(s2, {n}).value(n);
        QVERIFY(!seen.isGranted);
        QCOMPARE(seen.holder, s1);
        QCOMPARE(seen.token, first.token);
        QCOMPARE(holder.acquire(s1, {n}).value(n).token, first.token);
        // The watch moved on too: the release is hinted, and the next term's token is larger.
        holder.release(s1, {{n, first.token}});
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::Released, n.toString()), 10000);
        const auto next = rival.acquire(s2, {n}).value(n);
        QVERIFY(next.isGranted);
        QVERIFY(next.token > first.token);
        holder.closeSession(s1);
        rival.closeSession(s2);
    }

    void authenticates()
    {
        EtcdServer server;
        // Tokens that expire after 1 s unused: the backend must authenticate again.
        server.setExtraArguments({QStringLiteral("--auth-token-ttl"), QStringLiteral("1")});
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        QString out;
        QVERIFY2(server.ctl({QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("root"),
                             QStringLiteral("--new-user-password=R00tPass")}, &out) == 0, qPrintable(out));
        QVERIFY2(server.ctl({QStringLiteral("auth"), QStringLiteral("enable")}, &out) == 0, qPrintable(out));

        const QString base = QStringLiteral("etcd://%1@") + server.endpoint() + QStringLiteral("/auth");
        auto good = Backend::fromUrl(base.arg(QStringLiteral("root:R00tPass")));
        HintLog hints;
        auto subscription = good->subscribe(hints.listener());
        const auto s = good->openSession(3s).id;
        armed(*good, s, hints); // the watch authenticated too
        if (QTest::currentTestFailed())
            return;
        const auto n = leaseName("auth.lock");
        const auto r = good->acquire(s, {n}).value(n);
        QVERIFY(r.isGranted);
        QVERIFY(good->keepAlive(s, 3s, {}).owned.contains(n));
        good->release(s, {{n, r.token}});
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::Released, n.toString()), 5000);
        // Idle for longer than the token lives (what is tested is time passing on the
        // server): the next call is refused the old token, authenticates again, succeeds.
        QTest::qWait(2500);
        QVERIFY(good->keepAlive(s, 3s, {}).isLive);
        QVERIFY(good->acquire(s, {n}).value(n).isGranted);

        for (const QString &credentials : {QStringLiteral("root:WrongPass"), QStringLiteral("nobody:WrongPass")}) {
            auto bad = Backend::fromUrl(base.arg(credentials));
            try {
                bad->openSession(3s);
                QFAIL("a wrong password was accepted");
            } catch (const QSimbaBackendError &e) {
                QVERIFY2(e.message().contains(QStringLiteral("authentication as")), e.what());
                QVERIFY2(e.message().contains(server.endpoint()), e.what());
                QVERIFY2(!e.message().contains(QStringLiteral("WrongPass")), e.what());
            }
        }
        // Without credentials etcd refuses the request itself.
        auto anonymous = Backend::fromUrl(server.url(QStringLiteral("/auth")));
        QVERIFY_THROWS_EXCEPTION(QSimbaBackendError, anonymous->acquire(s, {n}));
        good->closeSession(s);

        // A user that is not root, with a role reading and writing the prefix only, as the
        // documentation says: sessions, the token floor (the member's status included), grants.
        const QStringList asRoot{QStringLiteral("--user=root:R00tPass")};
        for (const QStringList &args : {QStringList{QStringLiteral("user"), QStringLiteral("add"), QStringLiteral("app"),
                                                    QStringLiteral("--new-user-password=AppPass")},
                                        QStringList{QStringLiteral("role"), QStringLiteral("add"), QStringLiteral("app")},
                                        QStringList{QStringLiteral("role"), QStringLiteral("grant-permission"), QStringLiteral("app"),
                                                    QStringLiteral("readwrite"), QStringLiteral("/auth/"), QStringLiteral("/auth0")},
                                        QStringList{QStringLiteral("user"), QStringLiteral("grant-role"), QStringLiteral("app"),
                                                    QStringLiteral("app")}})
            QVERIFY2(server.ctl(asRoot + args, &out) == 0, qPrintable(out));
        auto app = Backend::fromUrl(base.arg(QStringLiteral("app:AppPass")));
        const auto as = app->openSession(3s).id;
        const auto granted = app->acquire(as, {n});
        QVERIFY(granted.value(n).isGranted);
        app->release(as, {{n, granted.value(n).token}});
        app->closeSession(as);
    }

    // etcds:// with the CA and a client certificate; etcd requires client certificates.
    void speaksTls()
    {
        EtcdServer server;
        if (!server.enableTls() || !server.start())
            QFAIL(qPrintable(server.errorString()));
        const QString url = QStringLiteral("etcds://%1/tls?cacert=%2&cert=%3&key=%4")
                                .arg(server.endpoint(), server.caFile(), server.clientCertFile(), server.clientKeyFile());
        auto backend = Backend::fromUrl(url);
        HintLog hints;
        auto subscription = backend->subscribe(hints.listener());
        const auto s = backend->openSession(3s).id;
        armed(*backend, s, hints); // the watch speaks TLS too
        if (QTest::currentTestFailed())
            return;
        const auto n = leaseName("tls.lock");
        QVERIFY(backend->acquire(s, {n}).value(n).isGranted);
        QVERIFY(backend->keepAlive(s, 3s, {}).owned.contains(n));
        backend->closeSession(s);

        // Without a client certificate, or without TLS, or without trusting the CA: refused.
        for (const QString &bad : {QStringLiteral("etcds://%1/tls?cacert=%2").arg(server.endpoint(), server.caFile()),
                                   QStringLiteral("etcd://%1/tls").arg(server.endpoint()),
                                   QStringLiteral("etcds://%1/tls?cert=%2&key=%3")
                                       .arg(server.endpoint(), server.clientCertFile(), server.clientKeyFile())}) {
            auto refused = Backend::fromUrl(bad);
            try {
                refused->members(QStringLiteral("g"));
                QFAIL(qPrintable(QStringLiteral("accepted: ") + bad));
            } catch (const QSimbaBackendError &e) {
                QVERIFY2(e.message().contains(server.endpoint()), e.what());
            }
        }
    }

    // A watch cut off while events happen resumes from its last revision: nothing is lost.
    void watchResumesFromItsRevision()
    {
        CutWatch cut;
        if (!cut.start())
            return;
        TcpProxy &relay = *cut.relay;
        Backend &direct = *cut.direct;
        HintLog &hints = cut.hints;
        const auto s = cut.session;

        relay.setMode(TcpProxy::Mode::Reset);
        const auto n = leaseName("resume.lock");
        const auto t = direct.acquire(s, {n}).value(n).token;
        direct.release(s, {{n, t}});
        direct.join(s, QStringLiteral("meanwhile"));
        QTest::qWait(300); // the watch retries against the closed relay meanwhile
        QVERIFY(!hints.seen(Hint::Kind::Released, n.toString()));
        relay.setMode(TcpProxy::Mode::Forward);
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::Released, n.toString()), 10000);
        QVERIFY(hints.seen(Hint::Kind::MembersChanged, QStringLiteral("meanwhile")));
        direct.closeSession(s);
    }

    // The revision a watch would resume from was compacted away: it re-reads and watches on.
    void compactionDoesNotBreakHints()
    {
        CutWatch cut;
        if (!cut.start())
            return;
        const EtcdServer &server = cut.server;
        TcpProxy &relay = *cut.relay;
        Backend &direct = *cut.direct;
        HintLog &hints = cut.hints;
        const auto s = cut.session;

        relay.setMode(TcpProxy::Mode::Reset);
        direct.join(s, QStringLiteral("during"));
        const auto n = leaseName("compacted.lock");
        direct.release(s, {{n, direct.acquire(s, {n}).value(n).token}});
        const qint64 revision = revisionOf(server);
        QVERIFY(revision > 0);
        QString out;
        QVERIFY2(server.ctl({QStringLiteral("compaction"), QString::number(revision)}, &out) == 0, qPrintable(out));
        relay.setMode(TcpProxy::Mode::Forward);

        // The join's event is gone: the re-read reports the group.
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::MembersChanged, QStringLiteral("during")), 10000);
        // And the watch goes on from there.
        const auto m = leaseName("after.lock");
        direct.release(s, {{m, direct.acquire(s, {m}).value(m).token}});
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::Released, m.toString()), 10000);
        direct.closeSession(s);
    }

    // Tokens and sessions live in etcd's store: a restart keeps both.
    void restartKeepsTokensAndSessions()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        Backend backend(optionsFor({server.endpoint()}));
        const auto s = backend.openSession(10s).id;
        const auto n = leaseName("restart.lock");
        const qint64 before = backend.acquire(s, {n}).value(n).token;
        if (!server.restart())
            QFAIL(qPrintable(server.errorString()));
        const auto k = backend.keepAlive(s, 10s, {});
        QVERIFY(k.isLive);
        QVERIFY(k.owned.contains(n));
        backend.release(s, {{n, before}});
        const auto after = backend.acquire(s, {n}).value(n);
        QVERIFY(after.isGranted);
        QVERIFY(after.token > before);
        backend.closeSession(s);
    }

    void restoredSnapshotKeepsTokensIncreasing_data()
    {
        QTest::addColumn<bool>("freshFirst");
        QTest::newRow("a new client first") << true;
        QTest::newRow("a client that lived through it first") << false;
    }

    // etcd 3.4's snapshot restore takes the store back to the snapshot's revision: the
    // tokens handed out after the snapshot was taken must still stay below the next ones,
    // whether the first client after the restore is a new one (it knows nothing of the
    // lost history) or one whose session lived through it (its session is in the snapshot).
    void restoredSnapshotKeepsTokensIncreasing()
    {
        QFETCH(bool, freshFirst);
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        const QStringList endpoints{server.endpoint()};
        const auto n = leaseName("restore.lock");
        qint64 highest = 0;
        const auto cycle = [&](Backend &b, const QSimbaSessionId &s, const QSimbaLeaseName &name) {
            const auto r = b.acquire(s, {name}).value(name);
            if (!r.isGranted || r.token <= highest)
                return false;
            highest = r.token;
            b.release(s, {{name, r.token}});
            return true;
        };
        const auto newClientCycles = [&](int sessions) {
            for (int i = 0; i < sessions; ++i) {
                Backend b(optionsFor(endpoints));
                const auto s = b.openSession(2s).id;
                if (!cycle(b, s, n))
                    return false;
                b.closeSession(s);
            }
            return true;
        };

        Backend survivor(optionsFor(endpoints));
        const auto kept = survivor.openSession(30s).id; // in the snapshot: it lives on after the restore
        for (int i = 0; i < 5; ++i)
            QVERIFY(cycle(survivor, kept, n));
        QVERIFY(newClientCycles(3));
        const QString snapshot = server.dir() + QStringLiteral("/snapshot.db");
        QVERIFY2(server.saveSnapshot(snapshot), qPrintable(server.errorString()));
        const qint64 inSnapshot = highest;

        // Terms after the snapshot: the restore forgets them, their tokens must not come back.
        for (int i = 0; i < 10; ++i)
            QVERIFY(cycle(survivor, kept, n));
        QVERIFY(newClientCycles(3));
        QVERIFY(highest > inSnapshot);
        const qint64 before = highest;

        QVERIFY2(server.restoreSnapshot(snapshot), qPrintable(server.errorString()));
        QVERIFY2(revisionOf(server) < before, "the restore did not take the store back");

        const auto freshTerm = [&] {
            Backend fresh(optionsFor(endpoints));
            const auto s = fresh.openSession(2s).id;
            const auto r = fresh.acquire(s, {n}).value(n);
            fresh.release(s, {{n, r.token}});
            fresh.closeSession(s);
            return r;
        };
        const auto survivorTerm = [&] {
            const auto m = leaseName("other.lock"); // any name: tokens are per prefix
            const auto r = survivor.acquire(kept, {m}).value(m);
            survivor.release(kept, {{m, r.token}});
            return r;
        };
        const auto first = freshFirst ? freshTerm() : survivorTerm();
        QVERIFY(first.isGranted);
        QVERIFY2(first.token > before, qPrintable(QStringLiteral("token %1 after the restore, %2 before").arg(first.token).arg(before)));
        const auto second = freshFirst ? survivorTerm() : freshTerm();
        QVERIFY(second.isGranted);
        QVERIFY2(second.token > first.token, qPrintable(QStringLiteral("token %1 after %2").arg(second.token).arg(first.token)));
        QVERIFY2(second.token - first.token < (qint64(1) << 40), "one restore moved the floor twice");
        // The session from before the snapshot still releases what it takes.
        const auto again = survivor.acquire(kept, {n}).value(n);
        QVERIFY(again.isGranted);
        QVERIFY(again.token > second.token);
        survivor.release(kept, {{n, again.token}});
        QVERIFY(!survivor.keepAlive(kept, 30s, {}).owned.contains(n));
        survivor.closeSession(kept);
    }

    // etcd deletes an expired session's keys: its names are hinted Released, its groups
    // MembersChanged, without anybody calling.
    void expiryIsHinted()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        Backend backend(optionsFor({server.endpoint()}));
        HintLog hints;
        auto subscription = backend.subscribe(hints.listener());
        const auto keeper = backend.openSession(10s).id;
        armed(backend, keeper, hints);
        if (QTest::currentTestFailed())
            return;
        const auto lapsing = backend.openSession(1s).id; // the fixture's minimum TTL
        const auto n = leaseName("lapsing.lock");
        QVERIFY(backend.acquire(lapsing, {n}).value(n).isGranted);
        backend.join(lapsing, QStringLiteral("lapsing"));
        QTRY_VERIFY_WITH_TIMEOUT(hints.seen(Hint::Kind::Released, n.toString()), 5000);
        QVERIFY(hints.seen(Hint::Kind::MembersChanged, QStringLiteral("lapsing")));
        QVERIFY(!backend.keepAlive(lapsing, 1s, {}).isLive);
        backend.closeSession(keeper);
    }

    // One keep-alive connection carries every call of a backend instance.
    void reusesOneConnection()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        TcpProxy proxy(QStringLiteral("127.0.0.1"), server.port());
        QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
        Backend backend(optionsFor({QStringLiteral("127.0.0.1:%1").arg(proxy.port())}));
        const auto s = backend.openSession(5s).id;
        const auto n = leaseName("reuse.lock");
        for (int i = 0; i < 10; ++i) {
            backend.keepAlive(s, 5s, {});
            backend.release(s, {{n, backend.acquire(s, {n}).value(n).token}});
        }
        backend.members(QStringLiteral("g"));
        backend.closeSession(s);
        QCOMPARE(proxy.accepted(), 1); // for all 44 requests
    }

    // What simbactl status shows: metadata, holder, token, and the server's remaining TTLs.
    void inspectionShowsEverything()
    {
        EtcdServer server;
        if (!server.start())
            QFAIL(qPrintable(server.errorString()));
        Backend backend(optionsFor({server.endpoint()}, QStringLiteral("/inspect")));
        const auto grant = backend.openSession(5s, {{QStringLiteral("host"), QStringLiteral("h1")},
                                                    {QStringLiteral("pid"), QStringLiteral("42")}});
        const auto other = backend.openSession(5s).id;
        const auto a = leaseName("a"), b = leaseName("b");
        const auto tokens = backend.acquire(grant.id, {a, b});
        backend.join(grant.id, QStringLiteral("workers"));
        backend.join(other, QStringLiteral("workers"));
        backend.closeSession(other);

        const auto view = backend.inspect();
        QCOMPARE(view.sessions.size(), 1); // the closed one is gone
        QCOMPARE(view.sessions.first().id, grant.id);
        QCOMPARE(view.sessions.first().metadata.value(QStringLiteral("host")), QStringLiteral("h1"));
        QCOMPARE(view.sessions.first().metadata.value(QStringLiteral("pid")), QStringLiteral("42"));
        QVERIFY(view.sessions.first().remaining > 0ms && view.sessions.first().remaining <= grant.remaining);
        QCOMPARE(view.leases.size(), 2);
        for (const auto &lease : view.leases) {
            QCOMPARE(lease.holder, grant.id);
            QCOMPARE(lease.token, tokens.value(lease.name).token);
            QCOMPARE(lease.remaining, view.sessions.first().remaining);
        }
        QCOMPARE(view.leases.first().name, a); // sorted
        QCOMPARE(view.groups.size(), 1);
        QCOMPARE(view.groups.first().name, QStringLiteral("workers"));
        QCOMPARE(view.groups.first().members, QList<QSimbaSessionId>{grant.id});
        backend.closeSession(grant.id);
        QVERIFY(backend.inspect().sessions.isEmpty());
    }

    // Nobody answers: each call fails within its bounds, naming every endpoint and why.
    void failsInBoundedTimeWhenUnreachable()
    {
        const quint16 portA = TestServer::freePort();
        const QString a = QStringLiteral("127.0.0.1:%1").arg(portA);
        const QString b = QStringLiteral("127.0.0.1:%1").arg(TestServer::freePort({portA}));
        Backend backend(optionsFor({a, b}));
        QElapsedTimer timer;
        timer.start();
        try {
            backend.openSession(3s);
            QFAIL("no error");
        } catch (const QSimbaBackendError &e) {
            QVERIFY2(e.message().contains(a) && e.message().contains(b), e.what());
        }
        // At most connect + request timeout per endpoint.
        QVERIFY2(timer.elapsed() < 2 * (1000 + 2000), qPrintable(QString::number(timer.elapsed())));
        // A hung server: accepts, never answers; the request timeout bounds the call.
        QTcpServer silent;
        QVERIFY(silent.listen(QHostAddress::LocalHost, 0));
        Backend hung(optionsFor({QStringLiteral("127.0.0.1:%1").arg(silent.serverPort())}));
        timer.restart();
        QVERIFY_THROWS_EXCEPTION(QSimbaBackendError, hung.members(QStringLiteral("g")));
        QVERIFY2(timer.elapsed() < 1000 + 2000 + 1000, qPrintable(QString::number(timer.elapsed())));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_EtcdBackend)
#include "tst_etcdbackend.moc"
