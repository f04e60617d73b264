// SPDX-License-Identifier: Apache-2.0
// How fast the SQL backend is, next to the raw client's round trips measured in the same run,
// on SQLite (a file in a temporary directory) and on the PostgreSQL and MariaDB servers of the
// test fixtures (loopback, temporary data directories):
//   qsimba_sqlbench [--quick] [--rounds N] [--only sqlite|postgresql|mariadb] [--loop SECONDS]
//                   [--lock-loop SECONDS]
// (--loop: only SPI lock cycles for SECONDS, for a profiler such as `perf record -a`;
// --lock-loop: only QSimba lock cycles, acquire(10 s) then close(), for SECONDS)
// For each database it prints one table row per figure: median and p99 in microseconds, and
// the median as a ratio to the raw `SELECT 1` and to one autocommit `UPDATE` through
// QSqlDatabase (the cycles also to two UPDATEs: a lock cycle needs two durable writes). One
// SELECT 1 and one UPDATE are timed before every sample of a figure, and its ratios use the
// medians of those: on a shared machine the times drift, the ratios much less.
//   select1, update          the raw baselines over the whole run (prepared statements on a
//                            QSqlDatabase of their own)
//   spi_acquire, spi_release, spi_cycle
//                            the backend's calls alone (acquire of one free name, its release)
//   lock_cycle               QSimba: QSimbaLock::acquire(10 s) then QSimbaLockTerm::close()
//                            (a timeout of at least the backend's call bound, 8 s with the
//                            default options, lets the caller run its calls itself)
//   hint_latency             the backend alone: a session waits for a name (its acquire was
//                            answered HeldBy); another backend releases it: from release()
//                            called to the Released hint delivered to the waiter's subscription
//   waiter_handoff           QSimba: a client waits in acquireAsync() (its attempt answered
//                            HeldBy); another releases: from releaseAsync() to the waiter's
//                            future finished
//   graceful_handover        QSimba: the leader of an election stops; from stop() to the
//                            candidate's elected() signal
// and, on MariaDB, the statements each SPI call sends (the server's Questions counter) and
// what a waiting client's hint reads cost the server (reads per second, server CPU).
// Lock leases are 10 s, election leases 3 s, as in the cross-library comparison.
#include "mariadbserver.h"
#include "postgresserver.h"
#include "qsimba.h"
#include "qsimbabackendmetrics.h"
#include "qsimbaconfig.h"
#include "qsimbaelection.h"
#include "qsimbaerror.h"
#include "qsimbalock.h"
#include "qsimbalockterm.h"
#include "qsimbasqlleasebackend.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QTemporaryDir>
#include <QtCore/QThread>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <functional>
#include <unistd.h>

using namespace std::chrono_literals;
using Backend = QSimbaSqlLeaseBackend;
using Call = QSimbaBackendMetrics::Call;

namespace {
struct Settings
{
    int cycles = 300;   // per cycle figure
    int handoffs = 40;  // per handoff figure
    QString only;
    int loopSeconds = 0; // > 0: only run SPI lock cycles this long (for a profiler)
    bool lockLoop = false; // with loopSeconds: QSimba lock cycles instead
};

struct Figure
{
    double median = 0, p99 = 0; // microseconds
};

Figure summarize(std::vector<double> us)
{
    if (us.empty())
        return {};
    std::sort(us.begin(), us.end());
    const auto at = [&](double q) { return us[std::min(us.size() - 1, size_t(std::ceil(q * double(us.size()))) - 1)]; };
    return {at(0.5), at(0.99)};
}

double elapsedUs(const QElapsedTimer &t)
{
    return double(t.nsecsElapsed()) / 1e3;
}


// Processes events until \a done or \a timeoutMs passed; false on timeout.
bool waitUntil(const std::function<bool()> &done, int timeoutMs = 20000)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        if (!done())
            QThread::usleep(50);
    }
    return true;
}

struct Row
{
    QString figure;
    Figure f;
    std::pair<Figure, Figure> baselines; // SELECT 1 and UPDATE, sampled between its samples
    double per = 1; // the figure counts this many baseline operations (cycles: 2 UPDATEs)
};

class Table
{
public:
    explicit Table(const char *database) : m_database(database) {}
    void add(const QString &figure, Figure f, std::pair<Figure, Figure> baselines, double per = 1)
    {
        m_rows.push_back({figure, f, baselines, per});
    }
    void print(const QString &note = {}) const
    {
        for (const Row &r : m_rows) {
            const double select1 = r.baselines.first.median, update = r.baselines.second.median;
            std::printf("%-10s %-18s %10.1f %10.1f %9.2f %9.2f", m_database, qPrintable(r.figure), r.f.median, r.f.p99,
                        select1 > 0 ? r.f.median / select1 : 0.0, update > 0 ? r.f.median / update : 0.0);
            if (r.per > 1 && update > 0)
                std::printf(" %9.2f", r.f.median / (update * r.per));
            else
                std::printf(" %9s", "-");
            std::printf("\n");
        }
        if (!note.isEmpty())
            std::printf("%-10s # %s\n", m_database, qPrintable(note));
        std::fflush(stdout);
    }

private:
    const char *m_database;
    std::vector<Row> m_rows;
};

// The raw baselines through QSqlDatabase: SELECT 1, and an autocommit UPDATE of one row
// (prepared statements). sample() takes one of each; every figure takes one before each of its
// own samples, so its ratios compare times measured in the same moments of a noisy machine.
class Raw
{
public:
    explicit Raw(const Backend::Options &o)
    {
        static const char *drivers[] = {"QSQLITE", "QPSQL", "QMYSQL"};
        QSqlDatabase db = QSqlDatabase::addDatabase(QLatin1String(drivers[int(o.driver)]), m_name);
        db.setDatabaseName(o.database);
        if (o.driver != Backend::Driver::Sqlite) {
            db.setHostName(o.host);
            db.setPort(o.port);
            db.setUserName(o.user);
            db.setPassword(o.password);
        }
        if (!db.open())
            throw QSimbaBackendError(QStringLiteral("raw connection: ") + db.lastError().text());
        QSqlQuery setup(db);
        if (o.driver == Backend::Driver::Sqlite)
            setup.exec(QStringLiteral("PRAGMA journal_mode=WAL")); // as the backend runs it
        setup.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS bench_raw (id INTEGER PRIMARY KEY, v BIGINT NOT NULL)"));
        setup.exec(QStringLiteral("DELETE FROM bench_raw"));
        setup.exec(QStringLiteral("INSERT INTO bench_raw (id, v) VALUES (1, 0)"));
        m_select = std::make_unique<QSqlQuery>(db);
        m_update = std::make_unique<QSqlQuery>(db);
        m_select->prepare(QStringLiteral("SELECT ?"));
        m_update->prepare(QStringLiteral("UPDATE bench_raw SET v = v + 1 WHERE id = ?"));
        for (int i = 0; i < 20; ++i)
            sample();
        take();
        m_allSelect.clear();
        m_allUpdate.clear();
    }
    ~Raw()
    {
        m_select.reset();
        m_update.reset();
        QSqlDatabase::database(m_name).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    void sample()
    {
        const auto run = [](QSqlQuery &q) {
            QElapsedTimer t;
            t.start();
            q.bindValue(0, 1);
            if (!q.exec())
                throw QSimbaBackendError(QStringLiteral("raw statement: ") + q.lastError().text());
            while (q.next()) {
            }
            q.finish();
            return elapsedUs(t);
        };
        m_selectUs.push_back(run(*m_select));
        m_updateUs.push_back(run(*m_update));
        m_allSelect.push_back(m_selectUs.back());
        m_allUpdate.push_back(m_updateUs.back());
    }
    //! The baselines sampled since the last take().
    std::pair<Figure, Figure> take()
    {
        return {summarize(std::exchange(m_selectUs, {})), summarize(std::exchange(m_updateUs, {}))};
    }
    //! Every sample of the run.
    std::pair<Figure, Figure> all() const { return {summarize(m_allSelect), summarize(m_allUpdate)}; }

private:
    const QString m_name = QStringLiteral("bench-raw");
    std::unique_ptr<QSqlQuery> m_select, m_update;
    std::vector<double> m_selectUs, m_updateUs, m_allSelect, m_allUpdate;
};

// Runs \a call \a n times after a warm-up, each timed, with a baseline sample before each.
Figure timeEach(int n, Raw &raw, const std::function<void()> &call)
{
    for (int i = 0; i < std::min(n, 20); ++i)
        call();
    raw.take();
    std::vector<double> us;
    us.reserve(size_t(n));
    for (int i = 0; i < n; ++i) {
        raw.sample();
        QElapsedTimer t;
        t.start();
        call();
        us.push_back(elapsedUs(t));
    }
    return summarize(std::move(us));
}

std::unique_ptr<QSimba> client(const QUrl &url, std::chrono::milliseconds lease)
{
    return QSimba::builder()
        .backend(Backend::fromUrl(url))
        .config(QSimbaConfig::builder().leaseDuration(lease).build())
        .build();
}

// Waits until \a c's acquire attempts passed \a before: its attempt was answered.
bool attempted(QSimba &c, quint64 before)
{
    const auto metrics = c.backendMetrics();
    return waitUntil([&] { return metrics->stats(Call::Acquire).count > before; });
}

// The hint alone: a backend's session waits for a name (its acquire answered HeldBy);
// another backend releases it: from release() called to the Released hint delivered.
Figure hintLatency(const QUrl &url, int n, Raw &raw)
{
    const auto holder = Backend::fromUrl(url), waiter = Backend::fromUrl(url);
    const auto hs = holder->openSession(60s).id, ws = waiter->openSession(60s).id;
    const auto x = QSimbaLeaseName::of(QStringLiteral("hint"));
    std::atomic<qint64> arrived{0};
    QElapsedTimer clock;
    clock.start();
    const auto subscription = waiter->subscribe([&](const QSimbaLeaseBackend::Hint &h) {
        if (h.kind == QSimbaLeaseBackend::Hint::Kind::Released && h.name == x.toString())
            arrived = clock.nsecsElapsed();
    });
    std::vector<double> us;
    for (int i = 0; i < n + 5; ++i) {
        if (i == 5)
            raw.take(); // after the warm-up (the subscription arms asynchronously)
        raw.sample();
        const qint64 token = holder->acquire(hs, {x}).value(x).token;
        waiter->acquire(ws, {x}); // HeldBy: it waits for x
        arrived = 0;
        const qint64 released = clock.nsecsElapsed();
        holder->release(hs, {{x, token}});
        if (!waitUntil([&] { return arrived.load() != 0; }, 5000))
            continue; // lost (the subscription was still arming): counted by the caller as missing
        if (i >= 5)
            us.push_back(double(arrived.load() - released) / 1e3);
    }
    holder->closeSession(hs);
    waiter->closeSession(ws);
    if (int(us.size()) < n)
        std::fprintf(stderr, "%d of %d hints did not arrive within 5 s\n", n - int(us.size()), n);
    return summarize(std::move(us));
}

Figure waiterHandoff(const QUrl &url, int n, Raw &raw)
{
    auto a = client(url, 10s), b = client(url, 10s);
    QSimba *holder = a.get(), *waiter = b.get();
    std::vector<double> us;
    for (int i = 0; i < n + 2; ++i) {
        if (i == 2)
            raw.take(); // after the warm-up
        raw.sample();
        auto term = holder->lock(QStringLiteral("handoff"))->acquire(5s);
        const quint64 before = waiter->backendMetrics()->stats(Call::Acquire).count;
        auto future = waiter->lock(QStringLiteral("handoff"))->acquireAsync(20s);
        if (!attempted(*waiter, before) || future.isFinished())
            throw QSimbaError(QStringLiteral("the waiter did not wait"));
        QElapsedTimer t;
        t.start();
        auto released = term.releaseAsync();
        if (!waitUntil([&] { return future.isFinished(); }))
            throw QSimbaError(QStringLiteral("no handoff within 20 s"));
        const double took = elapsedUs(t);
        waitUntil([&] { return released.isFinished(); });
        future.takeResult().close();
        if (i >= 2) // warm-up
            us.push_back(took);
        std::swap(holder, waiter);
    }
    return summarize(std::move(us));
}

Figure gracefulHandover(const QUrl &url, int n, Raw &raw)
{
    auto a = client(url, 3s), b = client(url, 3s);
    QSimbaElection *leader = a->election(QStringLiteral("handover"));
    QSimbaElection *candidate = b->election(QStringLiteral("handover"));
    QSimba *candidateClient = b.get(), *leaderClient = a.get();
    leader->start();
    if (!waitUntil([&] { return leader->status() == QSimbaElection::Status::Leader; }))
        throw QSimbaError(QStringLiteral("no leader"));
    std::vector<double> us;
    for (int i = 0; i < n + 2; ++i) {
        if (i == 2)
            raw.take(); // after the warm-up
        raw.sample();
        const quint64 before = candidateClient->backendMetrics()->stats(Call::Acquire).count;
        candidate->start();
        if (!attempted(*candidateClient, before) || candidate->status() == QSimbaElection::Status::Leader)
            throw QSimbaError(QStringLiteral("the candidate did not wait"));
        bool elected = false;
        double took = 0;
        QElapsedTimer t;
        const auto connection = QObject::connect(candidate, &QSimbaElection::elected, [&] {
            if (!std::exchange(elected, true))
                took = elapsedUs(t);
        });
        t.start();
        auto stopped = leader->stop();
        if (!waitUntil([&] { return elected; }))
            throw QSimbaError(QStringLiteral("no handover within 20 s"));
        QObject::disconnect(connection);
        waitUntil([&] { return stopped.isFinished(); });
        if (i >= 2)
            us.push_back(took);
        std::swap(leader, candidate);
        std::swap(leaderClient, candidateClient);
    }
    return summarize(std::move(us));
}

// MariaDB's Questions counter.
qint64 questions(MariaDbServer &server)
{
    QString output;
    server.sql(QStringLiteral("SHOW GLOBAL STATUS LIKE 'Questions'"), &output);
    return output.section(QLatin1Char('\t'), 1).trimmed().toLongLong();
}

// CPU seconds a process used so far (user + system).
double cpuSeconds(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = stat.readAll().split(')').last().trimmed().split(' ');
    // After "pid (comm)": state is field 3, utime 14, stime 15 (1-based): indexes 11 and 12 here.
    return fields.size() > 12 ? double(fields.at(11).toLongLong() + fields.at(12).toLongLong()) / double(sysconf(_SC_CLK_TCK))
                              : 0;
}

// Runs \a cycle (\a what) for \a seconds, for a profiler to watch; prints the rate.
void timedLoop(const char *database, const char *what, int seconds, const std::function<void()> &cycle)
{
    std::printf("%-10s looping %s for %d s (pid %lld)\n", database, what, seconds, qlonglong(getpid()));
    std::fflush(stdout);
    QElapsedTimer t;
    t.start();
    qint64 n = 0;
    for (; t.elapsed() < seconds * 1000; ++n)
        cycle();
    std::printf("%-10s %lld %s, %.1f us each\n", database, qlonglong(n), what, double(t.nsecsElapsed()) / 1e3 / double(n));
}

// SPI lock cycles, the backend alone.
void loop(const char *database, const QUrl &url, int seconds)
{
    const auto b = Backend::fromUrl(url);
    const auto session = b->openSession(60s).id;
    const auto x = QSimbaLeaseName::of(QStringLiteral("bench"));
    timedLoop(database, "SPI lock cycles", seconds,
              [&] { b->release(session, {{x, b->acquire(session, {x}).value(x).token}}); });
    b->closeSession(session);
}

// QSimba lock cycles: acquire(10 s), close() (or `perf stat` to count their wake-ups).
void lockLoop(const char *database, const QUrl &url, int seconds)
{
    auto c = client(url, 10s);
    QSimbaLock *lock = c->lock(QStringLiteral("cycle"));
    lock->acquire(10s).close(); // connected, the name's row exists
    timedLoop(database, "lock cycles", seconds, [&] { lock->acquire(10s).close(); });
}

void run(const char *database, const QUrl &url, const Settings &s, MariaDbServer *mariadb = nullptr)
{
    if (s.loopSeconds > 0 && s.lockLoop)
        return lockLoop(database, url, s.loopSeconds);
    if (s.loopSeconds > 0)
        return loop(database, url, s.loopSeconds);
    Table table(database);
    const Backend::Options options = Backend::optionsFromUrl(url);
    Raw raw(options);

    const auto b = Backend::fromUrl(url);
    const auto session = b->openSession(60s).id;
    const auto x = QSimbaLeaseName::of(QStringLiteral("bench"));
    qint64 token = 0;
    b->release(session, {{x, b->acquire(session, {x}).value(x).token}}); // the name's row exists
    for (int i = 0; i < 20; ++i) // warm-up
        b->release(session, {{x, b->acquire(session, {x}).value(x).token}});
    // Each cycle timed per half: acquire of the free name, then its release.
    std::vector<double> acquireUs, releaseUs;
    raw.take();
    for (int i = 0; i < s.cycles; ++i) {
        raw.sample();
        QElapsedTimer t;
        t.start();
        token = b->acquire(session, {x}).value(x).token;
        acquireUs.push_back(elapsedUs(t));
        t.restart();
        b->release(session, {{x, token}});
        releaseUs.push_back(elapsedUs(t));
    }
    std::vector<double> cycleUs(acquireUs.size());
    std::transform(acquireUs.begin(), acquireUs.end(), releaseUs.begin(), cycleUs.begin(), std::plus<>());
    const auto spiBaselines = raw.take();
    table.add(QStringLiteral("spi_acquire"), summarize(acquireUs), spiBaselines);
    table.add(QStringLiteral("spi_release"), summarize(releaseUs), spiBaselines);
    table.add(QStringLiteral("spi_cycle"), summarize(cycleUs), spiBaselines, 2);
    QString note;
    if (mariadb) {
        const qint64 q0 = questions(*mariadb);
        for (int i = 0; i < 100; ++i)
            token = b->acquire(session, {x}).value(x).token, b->release(session, {{x, token}});
        const qint64 q1 = questions(*mariadb);
        for (int i = 0; i < 100; ++i)
            b->keepAlive(session, 60s, {});
        const qint64 q2 = questions(*mariadb);
        // Each Questions read counts once itself.
        note = QStringLiteral("statements per call (Questions): lock cycle %1, keepAlive %2")
                   .arg(double(q1 - q0 - 1) / 100, 0, 'f', 1)
                   .arg(double(q2 - q1 - 1) / 100, 0, 'f', 1);
    }
    b->closeSession(session);

    {
        auto c = client(url, 10s);
        QSimbaLock *lock = c->lock(QStringLiteral("cycle"));
        const auto metrics = c->backendMetrics();
        const quint64 acquires = metrics->stats(Call::Acquire).count, releases = metrics->stats(Call::Release).count;
        const Figure f = timeEach(s.cycles, raw, [&] { lock->acquire(10s).close(); });
        table.add(QStringLiteral("lock_cycle"), f, raw.take(), 2);
        const double cycles = s.cycles + std::min(s.cycles, 20);
        note += QStringLiteral("%1lock_cycle: %2 acquire and %3 release calls per cycle")
                    .arg(note.isEmpty() ? QString() : QStringLiteral("; "))
                    .arg(double(metrics->stats(Call::Acquire).count - acquires) / cycles, 0, 'f', 2)
                    .arg(double(metrics->stats(Call::Release).count - releases) / cycles, 0, 'f', 2);
    }
    {
        const Figure f = hintLatency(url, s.handoffs, raw);
        table.add(QStringLiteral("hint_latency"), f, raw.take());
    }
    {
        const Figure f = waiterHandoff(url, s.handoffs, raw);
        table.add(QStringLiteral("waiter_handoff"), f, raw.take());
    }
    {
        const Figure f = gracefulHandover(url, s.handoffs, raw);
        table.add(QStringLiteral("graceful_handover"), f, raw.take());
    }

    if (mariadb) {
        // What one waiting client's hint reads cost: Questions and server CPU over 2 s of
        // waiting, next to 2 s with the same clients idle.
        auto holder = client(url, 10s), waiter = client(url, 10s);
        auto term = holder->lock(QStringLiteral("load"))->acquire(5s);
        const auto measure = [&](int ms) {
            const qint64 q0 = questions(*mariadb);
            const double c0 = cpuSeconds(mariadb->pid());
            QElapsedTimer t;
            t.start();
            waitUntil([&] { return t.elapsed() >= ms; }, ms + 1000);
            const double secs = double(t.elapsed()) / 1000;
            return std::pair<double, double>((double(questions(*mariadb) - q0 - 1)) / secs,
                                             (cpuSeconds(mariadb->pid()) - c0) / secs * 100);
        };
        const auto idle = measure(2000);
        const quint64 before = waiter->backendMetrics()->stats(Call::Acquire).count;
        auto future = waiter->lock(QStringLiteral("load"))->acquireAsync(30s);
        attempted(*waiter, before);
        const auto waiting = measure(2000);
        term.close();
        waitUntil([&] { return future.isFinished(); });
        note += QStringLiteral("; one client waiting: %1 statements/s, server CPU %2% of a core (the same "
                               "clients idle: %3/s, %4%)")
                    .arg(waiting.first, 0, 'f', 0)
                    .arg(waiting.second, 0, 'f', 1)
                    .arg(idle.first, 0, 'f', 0)
                    .arg(idle.second, 0, 'f', 1);
    }
    // The baselines over the whole run, first.
    Table all(database);
    const auto [select1, update] = raw.all();
    all.add(QStringLiteral("select1"), select1, raw.all());
    all.add(QStringLiteral("update"), update, raw.all());
    all.print();
    table.print(note);
}
} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Settings s;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        if (args.at(i) == QLatin1String("--quick")) {
            s.cycles = 50;
            s.handoffs = 10;
        } else if (args.at(i) == QLatin1String("--rounds") && i + 1 < args.size()) {
            s.cycles = std::max(1, args.at(++i).toInt());
            s.handoffs = std::max(1, s.cycles / 8);
        } else if (args.at(i) == QLatin1String("--only") && i + 1 < args.size()) {
            s.only = args.at(++i);
        } else if (args.at(i) == QLatin1String("--loop") && i + 1 < args.size()) {
            s.loopSeconds = std::max(1, args.at(++i).toInt());
        } else if (args.at(i) == QLatin1String("--lock-loop") && i + 1 < args.size()) {
            s.loopSeconds = std::max(1, args.at(++i).toInt());
            s.lockLoop = true;
        } else {
            std::fprintf(stderr, "usage: qsimba_sqlbench [--quick] [--rounds N] [--only sqlite|postgresql|mariadb] "
                                 "[--loop SECONDS] [--lock-loop SECONDS]\n");
            return 2;
        }
    }
    const auto wanted = [&](const char *db) { return s.only.isEmpty() || s.only == QLatin1String(db); };
    std::printf("# %d cycles, %d handoffs per figure; one machine, loopback; times in microseconds\n", s.cycles,
                s.handoffs);
    std::printf("%-10s %-18s %10s %10s %9s %9s %9s\n", "database", "figure", "median_us", "p99_us", "x_select1",
                "x_update", "x_2update");
    std::fflush(stdout);
    try {
        QTemporaryDir dir;
        if (wanted("sqlite"))
            run("sqlite", QUrl(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("bench.db"))), s);
        if (wanted("postgresql")) {
            PostgresServer postgres;
            if (!postgres.start()) {
                std::fprintf(stderr, "PostgreSQL did not start: %s\n", qPrintable(postgres.errorString()));
                return 1;
            }
            run("postgresql", postgres.url(), s);
        }
        if (wanted("mariadb")) {
            MariaDbServer mariadb;
            if (!mariadb.start()) {
                std::fprintf(stderr, "MariaDB did not start: %s\n", qPrintable(mariadb.errorString()));
                return 1;
            }
            run("mariadb", mariadb.url(), s, &mariadb);
        }
    } catch (const QSimbaError &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
