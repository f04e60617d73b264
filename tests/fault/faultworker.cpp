// SPDX-License-Identifier: Apache-2.0
// A worker process of the fault suite (not a test by itself):
//   qsimba_faultworker BACKEND_URL FENCE_DB ID LEASE_MS PARTITIONS SEED
// An ordinary QSimba client: it contends for the election "leader", takes and releases the
// lock "lock" again and again, and works on the partitions of the group "parts" assigned
// to it. It prints one line per fact, times in CLOCK_MONOTONIC nanoseconds (one clock for
// every process of the host):
//   BEGIN <kind> <name> <token> <t>      a term was handed to it (elected, acquired, work)
//   END <name> <token> <begin> <end> <reason> <revokedAt> <deadline> <stall>
//                                        the term stopped being valid at <end>: the first of
//                                        its revocation and its local deadline; <stall> is
//                                        how long the last deadline probe was held up (a
//                                        diagnosis only: see Terms)
//   PROBE <stall>                        a deadline probe that was held up 2 ms or more
//   GAP <gap> <t>                        the sampler thread ran 20 ms or more after its last
//                                        round (it sleeps 2 ms): how long a loaded machine
//                                        keeps a thread waiting
//   LOG <event>                          each of the client's events
//   CLOSED <t>                           close() completed (after SIGTERM)
// While a term is valid it writes its token to the fenced table of FENCE_DB (an SQLite
// file) every 100 ms; the table accepts a write only if its token is at least the highest
// one it accepted for that name, and keeps every write with its verdict.
// With QSIMBA_FAULT_BROKEN_WORKER set it is a deliberately wrong client (the runner's
// --self-test): it uses each term for a lease longer than the term was valid.
#include "monotonic.h"
#include "qsimba.h"
#include "qsimbabackendfactory.h"
#include "qsimbaerror.h"
#include "qsimbaevent.h"
#include "qsimbagrouptask.h"
#include "qsimbalockterm.h"
#include "qsimbaticker.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QJsonDocument>
#include <QtCore/QSocketNotifier>
#include <QtCore/QTimer>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <csignal>
#include <cstdio>
#include <mutex>
#include <random>
#include <thread>
#include <unistd.h>

using namespace std::chrono;
using namespace std::chrono_literals;

namespace {

std::mutex outputMutex;

void emitLine(const QString &line)
{
    std::lock_guard lock(outputMutex);
    const QByteArray bytes = line.toUtf8() + '\n';
    fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    fflush(stdout);
}

/*
 * The client's ticker: CLOCK_MONOTONIC, like QSimbaTicker::system(). A thread may freeze
 * what it reads at a fixed moment an hour back (probeNow): a term then still reads as valid
 * until revoked, and remaining() reveals the term's own local deadline exactly, deadline =
 * probeNow + remaining(), including after that deadline passed. Both reads of the ticker
 * inside remaining() see the same frozen moment, so a thread held up in the middle of the
 * probe (a loaded machine, a sanitizer) cannot shift the result. The engine's threads never
 * freeze.
 */
thread_local qint64 probeNow = 0;
constexpr qint64 ProbeShift = 3600LL * 1'000'000'000;

class ProbeTicker final : public QSimbaTicker
{
public:
    nanoseconds now() const override { return nanoseconds(probeNow ? probeNow : monotonicNs()); }
};

struct Probe
{
    qint64 deadline = 0; // the term's local deadline; 0 once it is revoked
    qint64 stall = 0;    // how long the probe took: what an estimate "now after the read +
                         // remaining" would have added to the deadline
};

// QSIMBA_FAULT_PROBE_DELAY_MS (a diagnosis of the suite itself): the sampler thread sleeps
// that long in the middle of each probe, and the thread that waits on a term's revoked()
// that long before it reads the clock, as threads of a worker starved of CPU would.
const milliseconds probeDelay(qEnvironmentVariableIntValue("QSIMBA_FAULT_PROBE_DELAY_MS"));

// The term's local deadline as QSimbaTerm itself holds it.
Probe probe(const QSimbaTerm &term, bool sampler = false)
{
    const qint64 before = monotonicNs();
    probeNow = before - ProbeShift;
    const qint64 remaining = term.remaining().count();
    if (sampler && probeDelay > 0ms)
        std::this_thread::sleep_for(probeDelay);
    probeNow = 0;
    const qint64 stall = monotonicNs() - before;
    if (stall >= 2'000'000)
        emitLine(QStringLiteral("PROBE %1").arg(stall));
    return remaining > 0 ? Probe{before - ProbeShift + remaining, stall} : Probe{};
}

struct Record
{
    QSimbaTerm term;
    qint64 begin = 0;
    std::atomic<qint64> revokedAt{0};
    std::atomic<qint64> deadline{0};
    std::atomic<qint64> stall{0};

    void update(const Probe &p)
    {
        if (p.deadline) {
            deadline = p.deadline;
            stall = p.stall;
        }
    }
};

/*
 * Every term the worker holds. A thread of its own reads each term's deadline every 2 ms
 * (a renewal moves it, a revocation freezes it): the last value read before the revocation
 * is the deadline the term ended with, unless a renewal landed in those last 2 ms (see
 * docs/fault-testing.md). A lock's release is timed by the worker itself at the moment it
 * decides to release, and the deadline is read again at that moment, so a released term's
 * interval does not depend on the sampler. Other revocations are timed by whoever sees them
 * first: the client's own revoked callback or work (both run after the term is marked
 * revoked and before its lease is released), or a thread that waits on revoked(). No
 * continuation is attached to revoked(): under Qt 6.4 a QFuture keeps one continuation only,
 * and QSimba attaches its own.
 */
class Terms
{
public:
    //! \a broken > 0: a deliberately wrong client, for the suite's self-test: it goes on using
    //! each term for \a broken ns after the term stopped being valid.
    explicit Terms(qint64 broken)
        : m_broken(broken), m_thread([this] {
              qint64 last = monotonicNs();
              while (!m_stop.load()) {
                  const qint64 now = monotonicNs();
                  if (now - last >= 20'000'000)
                      emitLine(QStringLiteral("GAP %1 %2").arg(now - last).arg(now));
                  sample();
                  last = monotonicNs();
                  std::this_thread::sleep_for(2ms);
              }
          })
    {
    }
    ~Terms()
    {
        m_stop = true;
        m_thread.join();
        sample();
    }

    void add(const QString &kind, const QSimbaTerm &term)
    {
        auto r = std::make_shared<Record>();
        r->term = term;
        r->begin = monotonicNs();
        r->update(probe(term));
        emitLine(QStringLiteral("BEGIN %1 %2 %3 %4").arg(kind, term.name().toString()).arg(term.token()).arg(r->begin));
        std::thread([r] {
            r->term.revoked().waitForFinished();
            if (probeDelay > 0ms)
                std::this_thread::sleep_for(probeDelay);
            ended(*r, monotonicNs());
        }).detach();
        std::lock_guard lock(m_mutex);
        m_records.push_back(r);
    }

    //! The term stopped being valid at \a at at the latest.
    void ended(const QSimbaTerm &term, qint64 at)
    {
        std::lock_guard lock(m_mutex);
        for (const auto &r : m_records) {
            if (r->term == term)
                ended(*r, at);
        }
    }

    //! The worker releases \a term now: the release instant, and the deadline read at that
    //! instant (the term is still valid, so the read is exact and no sample can be late).
    void releasing(const QSimbaTerm &term)
    {
        const qint64 at = monotonicNs();
        const Probe last = probe(term);
        std::lock_guard lock(m_mutex);
        for (const auto &r : m_records) {
            if (r->term == term && r->revokedAt.load() == 0)
                r->update(last);
            if (r->term == term)
                ended(*r, at);
        }
    }

    // The terms that are valid now (for the fenced writes).
    QList<QSimbaTerm> valid() const
    {
        std::lock_guard lock(m_mutex);
        QList<QSimbaTerm> terms;
        const qint64 now = monotonicNs();
        for (const auto &r : m_records) {
            const qint64 revokedAt = r->revokedAt.load();
            if (r->term.isValid() || (m_broken && revokedAt && now < std::min(revokedAt, r->deadline.load()) + m_broken))
                terms << r->term;
        }
        return terms;
    }

    void sample()
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_records.begin(); it != m_records.end();) {
            Record &r = **it;
            const qint64 revokedAt = r.revokedAt.load();
            if (revokedAt == 0) {
                r.update(probe(r.term, true));
                ++it;
                continue;
            }
            const qint64 end = std::min(revokedAt, r.deadline.load()) + m_broken;
            if (monotonicNs() < end) {
                ++it;
                continue;
            }
            const auto f = r.term.revoked();
            const QString reason = f.isFinished() && f.resultCount() > 0 ? QSimbaTerm::reasonName(f.result())
                                                                         : QStringLiteral("RELEASING");
            emitLine(QStringLiteral("END %1 %2 %3 %4 %5 %6 %7 %8")
                         .arg(r.term.name().toString())
                         .arg(r.term.token())
                         .arg(r.begin)
                         .arg(end)
                         .arg(reason)
                         .arg(revokedAt)
                         .arg(r.deadline.load())
                         .arg(r.stall.load()));
            it = m_records.erase(it);
        }
    }

private:
    static void ended(Record &r, qint64 at)
    {
        qint64 expected = 0;
        while (!r.revokedAt.compare_exchange_weak(expected, at)) {
            if (expected != 0 && expected <= at)
                return;
        }
    }

    const qint64 m_broken;
    mutable std::mutex m_mutex;
    std::vector<std::shared_ptr<Record>> m_records;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

int signalPipe[2] = {-1, -1};

void onSignal(int)
{
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(signalPipe[1], &c, 1);
}

class Worker : public QObject
{
public:
    Worker(const QStringList &args)
        : m_id(args.at(3)), m_random(args.at(6).toUInt()),
          m_terms(qEnvironmentVariableIsSet("QSIMBA_FAULT_BROKEN_WORKER") ? args.at(4).toLongLong() * 1'000'000 : 0)
    {
        const milliseconds lease(args.at(4).toLongLong());
        m_fence = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("fence"));
        m_fence.setDatabaseName(args.at(2));
        m_fence.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=10000"));
        if (!m_fence.open())
            qFatal("cannot open the fenced table: %s", qPrintable(m_fence.lastError().text()));
        // No sync to disk per write: the table is read by the runner of this machine, never
        // after a crash of it, and a write's fdatasync, which holds the file's write lock,
        // waited up to 22 s while builds filled the disk's queue, blocking every other
        // worker's write and, with it, their owner threads for the busy timeout.
        if (!QSqlQuery(m_fence).exec(QStringLiteral("PRAGMA synchronous=OFF")))
            qFatal("cannot configure the fenced table: %s", qPrintable(m_fence.lastError().text()));
        m_simba = QSimba::builder()
                      .backend(QSimbaBackendFactory::create(args.at(1)))
                      .config(QSimbaConfig::builder().leaseDuration(lease).build())
                      .ticker(std::make_shared<ProbeTicker>())
                      .callbackExecutor(QSimba::CallbackExecutor::Direct)
                      .metadata(QStringLiteral("worker"), m_id)
                      .listener([](const QSimbaEvent &e) {
                          emitLine(QStringLiteral("LOG ") + QString::fromUtf8(QJsonDocument(e.toJson()).toJson(QJsonDocument::Compact)));
                      })
                      .build();
        m_simba->election(QStringLiteral("leader"))->start([this](const QSimbaTerm &t) { m_terms.add(QStringLiteral("election"), t); },
                                                           [this](const QSimbaTerm &t, QSimbaTerm::RevokeReason) { m_terms.ended(t, monotonicNs()); });
        m_group = m_simba->group(QStringLiteral("parts"), args.at(5).toInt())->runWhileLeader([this](const QSimbaTerm &t, int) {
            m_terms.add(QStringLiteral("partition"), t);
            t.revoked().waitForFinished();
            m_terms.ended(t, monotonicNs()); // before the work returns, so before the release
        });
        connect(&m_writes, &QTimer::timeout, this, &Worker::write);
        m_writes.start(100);
        m_signals = new QSocketNotifier(signalPipe[0], QSocketNotifier::Read, this);
        connect(m_signals, &QSocketNotifier::activated, this, &Worker::close);
        acquireLock();
        emitLine(QStringLiteral("READY %1").arg(::getpid()));
    }

private:
    void acquireLock()
    {
        if (m_closing)
            return;
        m_simba->lock(QStringLiteral("lock"))->acquireAsync(2s).then(QtFuture::Launch::Sync, [this](QFuture<QSimbaLockTerm> f) {
            std::shared_ptr<QSimbaLockTerm> held;
            try {
                held = std::make_shared<QSimbaLockTerm>(f.takeResult());
                m_terms.add(QStringLiteral("lock"), held->term());
            } catch (...) { // a timeout, a closed client: try again (below) unless closing
            }
            QMetaObject::invokeMethod(this, [this, held] {
                if (!held) {
                    QTimer::singleShot(50, this, &Worker::acquireLock);
                    return;
                }
                write();
                m_lock = held;
                QTimer::singleShot(std::uniform_int_distribution<int>(50, 300)(m_random), this, [this, held] {
                    write();
                    m_terms.releasing(held->term()); // it is not used after this
                    held->close();
                    m_lock.reset();
                    QTimer::singleShot(std::uniform_int_distribution<int>(0, 50)(m_random), this, &Worker::acquireLock);
                });
            }, Qt::QueuedConnection);
        });
    }

    // One fenced write per valid term: accepted only if no higher token was accepted. The
    // write leaves 0–30 ms after the check, as a slow client's would: a worker frozen in
    // between writes late, and the fence must reject it once a newer holder wrote.
    void write()
    {
        for (const QSimbaTerm &term : m_terms.valid()) {
            const qint64 at = monotonicNs();
            if (!term.isValid() && !qEnvironmentVariableIsSet("QSIMBA_FAULT_BROKEN_WORKER"))
                continue;
            const QString name = term.name().toString();
            const qint64 token = term.token();
            QTimer::singleShot(std::uniform_int_distribution<int>(0, 30)(m_random), this, [this, name, token, at] {
                QSqlQuery q(m_fence);
                q.prepare(QStringLiteral("INSERT INTO writes(name, token, worker, at, accepted) SELECT :n, :t, :w, :at, "
                                         ":t >= COALESCE((SELECT MAX(token) FROM writes WHERE name = :n AND accepted), 0)"));
                q.bindValue(QStringLiteral(":n"), name);
                q.bindValue(QStringLiteral(":t"), token);
                q.bindValue(QStringLiteral(":w"), m_id);
                q.bindValue(QStringLiteral(":at"), at);
                if (!q.exec())
                    emitLine(QStringLiteral("LOG fenced write failed: ") + q.lastError().text());
            });
        }
    }

    void close()
    {
        if (m_closing)
            return;
        m_closing = true;
        m_writes.stop();
        if (m_lock) {
            m_terms.releasing(m_lock->term()); // not used after this
            m_lock->close();
        }
        m_group.reset();
        m_simba->closeAsync().then(this, [this] {
            m_terms.sample();
            emitLine(QStringLiteral("CLOSED %1").arg(monotonicNs()));
            QCoreApplication::exit(0);
        });
    }

    QString m_id;
    std::mt19937 m_random;
    QSqlDatabase m_fence;
    Terms m_terms;
    std::unique_ptr<QSimba> m_simba;
    std::unique_ptr<QSimbaGroupTask> m_group;
    std::shared_ptr<QSimbaLockTerm> m_lock;
    QTimer m_writes;
    QSocketNotifier *m_signals = nullptr;
    bool m_closing = false;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 7) {
        fprintf(stderr, "usage: qsimba_faultworker BACKEND_URL FENCE_DB ID LEASE_MS PARTITIONS SEED\n");
        return 2;
    }
    if (::pipe(signalPipe) != 0)
        return 1;
    std::signal(SIGTERM, onSignal);
    std::signal(SIGINT, onSignal);
    Worker worker(args);
    return QCoreApplication::exec();
}
