// SPDX-License-Identifier: Apache-2.0
#include "qsimbaconformancetest.h"

#include "qsimbaerror.h"
#include "qsimbaleasebackend.h"

#include <QtCore/QElapsedTimer>
#include <QtCore/QMutex>
#include <QtTest/QTest>

/*!
    \class QSimbaConformanceTest
    \brief The one test suite of the backend SPI's rules, instantiated per backend.

    Every test uses lease names unique to this run, so a server's state from earlier runs
    never matters. Sessions a test opens are closed in cleanup().

    The conformance suite every QSimbaLeaseBackend passes (the LeaseBackendSpec analogue):
    one test function at least per rule of the SPI. A backend's test builds it with a
    Fixture and runs it with QTest::qExec.
*/

using namespace std::chrono;
using namespace std::chrono_literals;
using Backend = QSimbaLeaseBackend;

struct QSimbaConformanceTest::Private
{
    Fixture fx;
    QString runId;
    std::unique_ptr<Backend> backend;
    QList<QSimbaSessionId> opened;

    QSimbaLeaseName name(const char *suffix) const
    {
        return QSimbaLeaseName::of(QStringLiteral("c%1.%2.%3")
                                       .arg(runId, QString::fromLatin1(QTest::currentTestFunction()),
                                            QString::fromLatin1(suffix))
                                       .left(QSimbaLeaseName::MaxLength));
    }
    QString group(const char *suffix) const { return name(suffix).toString(); }

    QSimbaSessionId open(Backend &b, milliseconds lease)
    {
        auto grant = b.openSession(lease, {{QStringLiteral("test"), QString::fromLatin1(QTest::currentTestFunction())}});
        opened.append(grant.id);
        return grant.id;
    }
    QSimbaSessionId open() { return open(*backend, fx.lease); }
    // For the tests that do not let time pass: a lease that outlasts a test thread starved
    // on a loaded machine (a backend may grant less, up to its maximum), so that no session
    // expires under them — an expired session's call throws, which ends the test program.
    milliseconds longLease() const { return fx.lease + 5s; }
    QSimbaSessionId openLong(Backend &b) { return open(b, longLease()); }
    QSimbaSessionId openLong() { return openLong(*backend); }
    // For the tests that renew a session while time passes, every half of the fixture's
    // lease for two of its own: 1.5 s longer than the fixture's lease, so only a test thread
    // starved for more than 1.5 s could see it expire, while a session whose keepAlive does
    // not extend it still expires within the test.
    milliseconds renewedLease() const { return fx.lease + 1500ms; }

    Backend::AcquireResult acquireOne(Backend &b, const QSimbaSessionId &s, const QSimbaLeaseName &n)
    {
        const auto results = b.acquire(s, {n});
        if (results.size() != 1 || !results.contains(n))
            throw QSimbaError(QStringLiteral("acquire answered %1 results for one name").arg(results.size()));
        return results.value(n);
    }
    Backend::AcquireResult acquireOne(const QSimbaSessionId &s, const QSimbaLeaseName &n)
    {
        return acquireOne(*backend, s, n);
    }
    qint64 grant(const QSimbaSessionId &s, const QSimbaLeaseName &n)
    {
        const auto r = acquireOne(s, n);
        if (!r.isGranted)
            throw QSimbaError(QStringLiteral("expected %1 to be granted, it is held by %2")
                                  .arg(n.toString(), r.holder.toString()));
        return r.token;
    }
    void expire() { fx.elapse(fx.lease + fx.tolerance); }
};

std::function<void(milliseconds)> QSimbaConformanceTest::wallClock()
{
    return [](milliseconds d) {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < d.count())
            QTest::qWait(int(std::min<qint64>(d.count() - timer.elapsed(), 50)));
    };
}

QSimbaConformanceTest::QSimbaConformanceTest(Fixture fixture, QObject *parent)
    : QObject(parent), d(new Private{std::move(fixture), QSimbaSessionId::generate().toString().left(8), {}, {}})
{
}

QSimbaConformanceTest::~QSimbaConformanceTest() = default;

void QSimbaConformanceTest::init()
{
    d->backend = d->fx.factory();
    QVERIFY(d->backend);
}

void QSimbaConformanceTest::cleanup()
{
    for (const auto &s : std::as_const(d->opened)) {
        try {
            d->backend->closeSession(s);
        } catch (const QSimbaError &e) {
            qWarning("closing session %s failed: %s", qPrintable(s.toString()), e.what());
        }
    }
    d->opened.clear();
    d->backend.reset();
}

void QSimbaConformanceTest::describesItself()
{
    const QString description = d->backend->describe();
    QVERIFY2(description.contains(QStringLiteral("://")), qPrintable(description));
}

void QSimbaConformanceTest::openSessionGrantsRemainingLease()
{
    const auto grant = d->backend->openSession(d->fx.lease);
    d->opened.append(grant.id);
    QVERIFY(!grant.id.isNull());
    QVERIFY2(grant.remaining > 0ms && grant.remaining <= d->fx.lease,
             qPrintable(QStringLiteral("remaining %1ms").arg(grant.remaining.count())));
    QVERIFY(grant.remaining >= d->fx.lease - d->fx.tolerance);
}

void QSimbaConformanceTest::sessionIdsAreNeverReused()
{
    QSet<QSimbaSessionId> ids;
    for (int i = 0; i < 5; ++i) {
        const auto id = d->openLong();
        QVERIFY(!ids.contains(id));
        ids.insert(id);
        d->backend->closeSession(id);
    }
    // A new instance on the same storage does not hand out an old id either.
    auto other = d->fx.factory();
    for (int i = 0; i < 5; ++i) {
        const auto id = d->openLong(*other);
        QVERIFY(!ids.contains(id));
        ids.insert(id);
    }
}

void QSimbaConformanceTest::grantedTokenIsPositive()
{
    const auto s = d->openLong();
    const auto r = d->acquireOne(s, d->name("a"));
    QVERIFY(r.isGranted);
    QVERIFY(r.token > 0);
}

void QSimbaConformanceTest::acquireByHolderKeepsToken()
{
    const auto s = d->openLong();
    const auto n = d->name("a");
    const qint64 t = d->grant(s, n);
    const auto again = d->acquireOne(s, n);
    QVERIFY(again.isGranted);
    QCOMPARE(again.token, t);
}

void QSimbaConformanceTest::heldByNamesHolderAndToken()
{
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto n = d->name("a");
    const qint64 t = d->grant(s1, n);
    const auto r = d->acquireOne(s2, n);
    QVERIFY(!r.isGranted);
    QCOMPARE(r.holder, s1);
    QCOMPARE(r.token, t);
    if (r.holderRemaining) {
        QVERIFY(*r.holderRemaining > 0ms);
        QVERIFY(*r.holderRemaining <= d->longLease());
    }
}

void QSimbaConformanceTest::batchAcquireAnswersEveryName()
{
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto held = d->name("held");
    const qint64 t = d->grant(s1, held);
    QSet<QSimbaLeaseName> names{held};
    for (int i = 0; i < 9; ++i)
        names.insert(QSimbaLeaseName::of(d->name("n").toString() + QString::number(i)));
    const auto results = d->backend->acquire(s2, names);
    QCOMPARE(results.size(), names.size());
    for (const auto &n : names) {
        QVERIFY(results.contains(n));
        if (n == held) {
            QVERIFY(!results[n].isGranted);
            QCOMPARE(results[n].token, t);
        } else {
            QVERIFY(results[n].isGranted);
            QVERIFY(results[n].token > 0);
        }
    }
    QVERIFY(d->backend->acquire(s2, {}).isEmpty());
}

void QSimbaConformanceTest::tokensIncreaseAcrossRelease()
{
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto n = d->name("a");
    qint64 last = 0;
    for (int i = 0; i < 6; ++i) {
        const auto &s = i % 2 ? s2 : s1;
        const qint64 t = d->grant(s, n);
        QVERIFY2(t > last, qPrintable(QStringLiteral("token %1 after %2").arg(t).arg(last)));
        last = t;
        d->backend->release(s, {{n, t}});
    }
}

void QSimbaConformanceTest::tokensIncreaseAcrossSessionExpiry()
{
    const auto n = d->name("a");
    const auto s1 = d->open();
    const qint64 t1 = d->grant(s1, n);
    d->expire();
    const auto s2 = d->open();
    const auto r = d->acquireOne(s2, n);
    QVERIFY2(r.isGranted, "a lease of an expired session must be free");
    QVERIFY(r.token > t1);
}

void QSimbaConformanceTest::tokensIncreaseAcrossInstances()
{
    const auto n = d->name("a");
    qint64 last = 0;
    for (int i = 0; i < 3; ++i) {
        auto b = d->fx.factory();
        const auto s = d->openLong(*b);
        const auto r = d->acquireOne(*b, s, n);
        QVERIFY(r.isGranted);
        QVERIFY(r.token > last);
        last = r.token;
        b->release(s, {{n, r.token}});
        b->closeSession(s);
    }
}

void QSimbaConformanceTest::noLocalLeaseState()
{
    auto a = d->fx.factory(), b = d->fx.factory();
    const auto n = d->name("a");
    const auto s1 = d->openLong(*a);
    const auto s2 = d->openLong(*b);
    const auto r1 = d->acquireOne(*a, s1, n);
    QVERIFY(r1.isGranted);
    // Another instance sees the lease and keeps the session alive with what it owns.
    const auto r2 = d->acquireOne(*b, s2, n);
    QVERIFY(!r2.isGranted);
    QCOMPARE(r2.holder, s1);
    const auto k = b->keepAlive(s1, d->longLease(), {});
    QVERIFY(k.isLive);
    QVERIFY(k.owned.contains(n));
    // Released through one instance, granted through the other.
    b->release(s1, {{n, r1.token}});
    const auto r3 = d->acquireOne(*a, s2, n);
    QVERIFY(r3.isGranted);
    QVERIFY(r3.token > r1.token);
}

void QSimbaConformanceTest::callsDoNotWaitForLeases()
{
    // With a lease far longer than the test, an answer that waited for it would never come
    // in time: every call must answer at once.
    const milliseconds longLease = 120s;
    const auto s1 = d->open(*d->backend, longLease), s2 = d->open(*d->backend, longLease);
    const auto n = d->name("a");
    const auto g = d->name("g").toString();
    QElapsedTimer timer;
    timer.start();
    const qint64 t = d->grant(s1, n);
    QVERIFY(!d->acquireOne(s2, n).isGranted);
    d->backend->join(s1, g);
    d->backend->join(s2, g);
    QCOMPARE(d->backend->members(g).size(), 2);
    d->backend->keepAlive(s2, longLease, {});
    d->backend->release(s1, {{n, t}});
    QVERIFY(d->acquireOne(s2, n).isGranted);
    QVERIFY2(timer.elapsed() < duration_cast<milliseconds>(longLease).count() / 4,
             qPrintable(QStringLiteral("calls took %1ms").arg(timer.elapsed())));
}

void QSimbaConformanceTest::remainingComesFromBackendClock()
{
    // The holder's and the asker's sessions take the long lease: a test thread starved on a
    // loaded machine while half the fixture's lease passes must not see them expire (it did
    // once, with the fixture's lease: the asker's acquire threw), while the remaining lease
    // is still checked against the time passed.
    const milliseconds lease = d->longLease();
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto n = d->name("a");
    d->grant(s1, n);
    const auto first = d->acquireOne(s2, n);
    QVERIFY2(first.holderRemaining.has_value(), "HeldBy carries the holder's remaining lease");
    const milliseconds half = d->fx.lease / 2;
    d->fx.elapse(half);
    const auto later = d->acquireOne(s2, n);
    QVERIFY2(later.holderRemaining.has_value(), "the holder outlives half of the fixture's lease");
    QVERIFY2(*later.holderRemaining < *first.holderRemaining,
             "the holder's remaining lease must shrink as the backend's time passes");
    QVERIFY(*later.holderRemaining <= lease - half + d->fx.tolerance);
    // keepAlive answers the lease granted, measured from its own call, and a holder's
    // remaining lease follows it (a session of the fixture's lease: some backends cannot
    // change a session's lease once opened).
    const auto s3 = d->open(), s4 = d->openLong();
    const auto m = d->name("b");
    d->grant(s3, m);
    d->fx.elapse(half);
    QElapsedTimer since; // real time between the keepAlive and the read, if the test thread is starved
    since.start();
    const auto k = d->backend->keepAlive(s3, d->fx.lease, {m});
    QVERIFY(k.isLive);
    QVERIFY(k.remaining <= d->fx.lease);
    QVERIFY(k.remaining >= d->fx.lease - d->fx.tolerance);
    const auto renewed = d->acquireOne(s4, m);
    QVERIFY(renewed.holderRemaining.has_value());
    QVERIFY2(*renewed.holderRemaining >= d->fx.lease - d->fx.tolerance - milliseconds(since.elapsed()),
             qPrintable(QStringLiteral("remaining %1 ms, %2 ms after the keepAlive")
                            .arg(renewed.holderRemaining->count()).arg(since.elapsed())));
}

void QSimbaConformanceTest::sessionExpiresWithoutKeepAlive()
{
    const auto s = d->open();
    QVERIFY(d->backend->keepAlive(s, d->fx.lease, {}).isLive);
    // The backend's connection stays open all along: only the missing keepAlive counts.
    d->expire();
    QVERIFY(!d->backend->keepAlive(s, d->fx.lease, {}).isLive);
}

void QSimbaConformanceTest::keepAliveExtendsSession()
{
    // (A loaded 2-core machine starved a test thread for over 300 ms: renewedLease().)
    const milliseconds lease = d->renewedLease();
    const auto s = d->open(*d->backend, lease);
    const auto n = d->name("a");
    const qint64 t = d->grant(s, n);
    const milliseconds step = d->fx.lease / 2;
    for (milliseconds passed{0}; passed < lease * 2; passed += step) {
        d->fx.elapse(step);
        const auto k = d->backend->keepAlive(s, lease, {n});
        QVERIFY2(k.isLive, qPrintable(QStringLiteral("expired after %1ms").arg(passed.count())));
        QCOMPARE(k.owned, QSet<QSimbaLeaseName>{n});
    }
    QCOMPARE(d->grant(s, n), t);
}

void QSimbaConformanceTest::expiredSessionIsNeverRevived()
{
    const auto s = d->open();
    const auto n = d->name("a");
    d->grant(s, n);
    d->expire();
    QVERIFY(!d->backend->keepAlive(s, d->fx.lease, {n}).isLive);
    QVERIFY(!d->backend->keepAlive(s, d->fx.lease, {n}).isLive);
    QVERIFY_THROWS_EXCEPTION(QSimbaSessionExpiredError, d->backend->acquire(s, {n}));
    QVERIFY_THROWS_EXCEPTION(QSimbaSessionExpiredError, d->backend->join(s, d->group("g")));
    QVERIFY(!d->backend->keepAlive(s, d->fx.lease, {}).isLive);
    // Through a new instance too.
    auto other = d->fx.factory();
    QVERIFY(!other->keepAlive(s, d->fx.lease, {}).isLive);
}

void QSimbaConformanceTest::closedSessionIsNeverRevived()
{
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto n = d->name("a");
    const auto g = d->group("g");
    const qint64 t = d->grant(s1, n);
    d->backend->join(s1, g);
    d->backend->closeSession(s1);
    QVERIFY(!d->backend->keepAlive(s1, d->longLease(), {n}).isLive);
    QVERIFY_THROWS_EXCEPTION(QSimbaSessionExpiredError, d->backend->acquire(s1, {n}));
    QVERIFY(d->backend->members(g).isEmpty());
    const auto r = d->acquireOne(s2, n);
    QVERIFY2(r.isGranted, "closeSession frees the session's leases");
    QVERIFY(r.token > t);
    d->backend->closeSession(s1); // closing twice is harmless
}

void QSimbaConformanceTest::keepAliveReportsEveryOwnedLease()
{
    const auto s = d->openLong(), other = d->openLong();
    const auto a = d->name("a"), b = d->name("b"), c = d->name("c");
    d->grant(s, a);
    d->grant(s, b);
    d->grant(other, c);
    QCOMPARE(d->backend->keepAlive(s, d->longLease(), {}).owned, (QSet<QSimbaLeaseName>{a, b}));
    QCOMPARE(d->backend->keepAlive(s, d->longLease(), {a, c}).owned, (QSet<QSimbaLeaseName>{a, b}));
    QCOMPARE(d->backend->keepAlive(other, d->longLease(), {a}).owned, QSet<QSimbaLeaseName>{c});
}

void QSimbaConformanceTest::ownedLeaseLastsAsLongAsSession()
{
    // renewedLease(): a starved test thread let a session of the fixture's lease, renewed
    // every third of it, expire.
    const milliseconds lease = d->renewedLease();
    const auto s = d->open(*d->backend, lease), other = d->open(*d->backend, lease);
    const auto n = d->name("a");
    const qint64 t = d->grant(s, n);
    const milliseconds step = d->fx.lease / 2;
    for (milliseconds passed{0}; passed < lease * 2; passed += step) {
        d->fx.elapse(step);
        // `held` is left empty: the lease must last on the session alone.
        const auto k = d->backend->keepAlive(s, lease, {});
        QVERIFY2(k.isLive, qPrintable(QStringLiteral("expired after %1ms").arg(passed.count())));
        QVERIFY2(k.owned.contains(n), qPrintable(QStringLiteral("lost after %1ms").arg(passed.count())));
        d->backend->keepAlive(other, lease, {});
        const auto r = d->acquireOne(other, n);
        QVERIFY(!r.isGranted);
        QCOMPARE(r.token, t);
    }
}

void QSimbaConformanceTest::rejectsInvalidInput_data()
{
    QTest::addColumn<QString>("call");
    for (const char *call : {"openSession 0ms", "keepAlive 0ms", "acquire 65 names", "join empty group",
                             "join group with space", "join group ..", "leave group with slash",
                             "members group too long"})
        QTest::newRow(call) << QString::fromLatin1(call);
}

void QSimbaConformanceTest::rejectsInvalidInput()
{
    QFETCH(QString, call);
    const auto s = d->openLong();
    auto &b = *d->backend;
    const auto attempt = [&] {
        if (call == QLatin1String("openSession 0ms")) {
            b.openSession(0ms);
        } else if (call == QLatin1String("keepAlive 0ms")) {
            b.keepAlive(s, 0ms, {});
        } else if (call == QLatin1String("acquire 65 names")) {
            QSet<QSimbaLeaseName> names;
            for (int i = 0; i < Backend::MaxBatch + 1; ++i)
                names.insert(QSimbaLeaseName::of(d->name("n").toString() + QString::number(i)));
            b.acquire(s, names);
        } else if (call == QLatin1String("join empty group")) {
            b.join(s, QString());
        } else if (call == QLatin1String("join group with space")) {
            b.join(s, QStringLiteral("a group"));
        } else if (call == QLatin1String("join group ..")) {
            b.join(s, QStringLiteral(".."));
        } else if (call == QLatin1String("leave group with slash")) {
            b.leave(s, QStringLiteral("a/b"));
        } else {
            b.members(QString(129, QLatin1Char('g')));
        }
    };
    QVERIFY_THROWS_EXCEPTION(QSimbaInvalidArgumentError, attempt());
    // The session is untouched by the rejected call.
    QVERIFY(b.keepAlive(s, d->longLease(), {}).isLive);
    QVERIFY(b.keepAlive(s, d->longLease(), {}).owned.isEmpty());
}

void QSimbaConformanceTest::acceptsFullBatch()
{
    const auto s = d->openLong();
    QSet<QSimbaLeaseName> names;
    for (int i = 0; i < Backend::MaxBatch; ++i)
        names.insert(QSimbaLeaseName::of(d->name("n").toString() + QString::number(i)));
    const auto results = d->backend->acquire(s, names);
    QCOMPARE(results.size(), Backend::MaxBatch);
    for (const auto &r : results)
        QVERIFY(r.isGranted);
    QCOMPARE(d->backend->keepAlive(s, d->longLease(), {}).owned, names);
}

void QSimbaConformanceTest::staleReleaseIsNoop()
{
    const auto n = d->name("a");
    const auto s1 = d->open(), s3 = d->open();
    const qint64 t1 = d->grant(s1, n);
    // Wrong token, wrong session: no-ops.
    d->backend->release(s1, {{n, t1 + 1}});
    d->backend->release(s3, {{n, t1}});
    QCOMPARE(d->acquireOne(s3, n).holder, s1);
    // After another session took over, the old holder's release is a no-op.
    d->expire();
    const auto s2 = d->open(), s4 = d->open();
    const qint64 t2 = d->grant(s2, n);
    QVERIFY(t2 > t1);
    d->backend->release(s1, {{n, t1}});
    const auto r = d->acquireOne(s4, n);
    QVERIFY(!r.isGranted);
    QCOMPARE(r.holder, s2);
    QCOMPARE(r.token, t2);
}

void QSimbaConformanceTest::releaseFreesLease()
{
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto a = d->name("a"), b = d->name("b");
    const qint64 ta = d->grant(s1, a), tb = d->grant(s1, b);
    d->backend->release(s1, {{a, ta}, {b, tb}});
    QVERIFY(d->backend->keepAlive(s1, d->longLease(), {a, b}).owned.isEmpty());
    const auto r = d->backend->acquire(s2, {a, b});
    QVERIFY(r[a].isGranted && r[a].token > ta);
    QVERIFY(r[b].isGranted && r[b].token > tb);
    d->backend->release(s1, {{a, ta}}); // releasing twice is harmless
    QCOMPARE(d->acquireOne(s1, a).holder, s2);
}

void QSimbaConformanceTest::membersAreLiveSessions()
{
    const auto g = d->group("g");
    const auto s1 = d->openLong(), s2 = d->open();
    QVERIFY(d->backend->members(g).isEmpty());
    d->backend->join(s1, g);
    d->backend->join(s2, g);
    d->backend->join(s2, g); // joining twice is harmless
    auto expected = QList<QSimbaSessionId>{s1, s2};
    std::sort(expected.begin(), expected.end());
    QCOMPARE(d->backend->members(g), expected);
    d->backend->leave(s1, g);
    QCOMPARE(d->backend->members(g), QList<QSimbaSessionId>{s2});
    d->backend->join(s1, g);
    // s2 stops keeping alive: it leaves the group with its session. s1, renewed every third of
    // the fixture's lease with the long lease, stays: a test thread starved on a loaded
    // machine must not let it expire too (it did once, with the fixture's lease).
    const milliseconds step = d->fx.lease / 3;
    for (milliseconds passed{0}; passed <= d->fx.lease + d->fx.tolerance; passed += step) {
        d->fx.elapse(step);
        QVERIFY(d->backend->keepAlive(s1, d->longLease(), {}).isLive);
    }
    QCOMPARE(d->backend->members(g), QList<QSimbaSessionId>{s1});
}

void QSimbaConformanceTest::hintsArriveWhenAdvertised()
{
    const auto caps = d->backend->capabilities();
    if (!caps.releaseHints && !caps.membershipHints)
        return; // nothing is promised; lostHintsChangeNoOutcome covers the rest
    QMutex mutex;
    QList<Backend::Hint> hints;
    auto watcher = d->fx.factory();
    auto subscription = watcher->subscribe([&](const Backend::Hint &h) {
        QMutexLocker lock(&mutex);
        hints.append(h);
    });
    const auto seen = [&](Backend::Hint::Kind kind, const QString &name) {
        QMutexLocker lock(&mutex);
        return std::any_of(hints.cbegin(), hints.cend(),
                           [&](const Backend::Hint &h) { return h.kind == kind && h.name == name; });
    };
    // Some backends arm their subscription asynchronously: publish until it is seen. Some
    // publish only what their client waits for: the watcher waits for the lease (its acquire
    // answered HeldBy) and is a member of the group, as the engine's clients are. The
    // sessions outlive the loops.
    const auto s = d->open(*d->backend, d->fx.hintTimeout * 2);
    const auto w = d->open(*watcher, d->fx.hintTimeout * 2);
    const auto n = d->name("a");
    const auto g = d->group("g");
    if (caps.releaseHints) {
        QElapsedTimer timer;
        timer.start();
        bool arrived = false;
        while (!arrived && timer.elapsed() < d->fx.hintTimeout.count()) {
            const qint64 t = d->grant(s, n);
            QVERIFY(!d->acquireOne(*watcher, w, n).isGranted);
            d->backend->release(s, {{n, t}});
            QTest::qWait(20);
            arrived = seen(Backend::Hint::Kind::Released, n.toString());
        }
        QVERIFY2(arrived, "a Released hint for the released lease");
    }
    if (caps.membershipHints) {
        watcher->join(w, g);
        QElapsedTimer timer;
        timer.start();
        bool arrived = false;
        for (int i = 0; !arrived && timer.elapsed() < d->fx.hintTimeout.count(); ++i) {
            if (i % 2 == 0)
                d->backend->join(s, g);
            else
                d->backend->leave(s, g);
            (void)QTest::qWaitFor([&] { return seen(Backend::Hint::Kind::MembersChanged, g); }, 200);
            arrived = seen(Backend::Hint::Kind::MembersChanged, g);
        }
        QVERIFY2(arrived, "a MembersChanged hint for the group joined and left");
    }
}

void QSimbaConformanceTest::lostHintsChangeNoOutcome()
{
    // Nobody listens: every outcome follows from the calls alone.
    const auto s1 = d->openLong(), s2 = d->openLong();
    const auto n = d->name("a");
    const auto g = d->group("g");
    const qint64 t = d->grant(s1, n);
    QVERIFY(!d->acquireOne(s2, n).isGranted);
    d->backend->release(s1, {{n, t}});
    QVERIFY(d->acquireOne(s2, n).isGranted);
    d->backend->join(s1, g);
    QCOMPARE(d->backend->members(g), QList<QSimbaSessionId>{s1});
    // A subscription that is dropped at once loses its hints without effect.
    d->backend->subscribe([](const Backend::Hint &) {}).reset();
    d->backend->leave(s1, g);
    QVERIFY(d->backend->members(g).isEmpty());
}

void QSimbaConformanceTest::inspectionShowsState()
{
    if (!d->backend->capabilities().inspection) {
        QVERIFY_THROWS_EXCEPTION(QSimbaIllegalStateError, d->backend->inspect());
        return;
    }
    const auto s = d->openLong();
    const auto n = d->name("a");
    const auto g = d->group("g");
    const qint64 t = d->grant(s, n);
    d->backend->join(s, g);
    const auto view = d->backend->inspect();
    QVERIFY(std::any_of(view.sessions.cbegin(), view.sessions.cend(),
                        [&](const auto &x) { return x.id == s && x.remaining > 0ms; }));
    QVERIFY(std::any_of(view.leases.cbegin(), view.leases.cend(),
                        [&](const auto &x) { return x.name == n && x.holder == s && x.token == t; }));
    QVERIFY(std::any_of(view.groups.cbegin(), view.groups.cend(),
                        [&](const auto &x) { return x.name == g && x.members.contains(s); }));
}

#include "moc_qsimbaconformancetest.cpp"
