// SPDX-License-Identifier: Apache-2.0
// An engine core's run, recorded as a trace of inputs, replays to the very same effects.
//
// The replay command: QSIMBA_REPLAY_TRACE=file[,file…] tst_replay aTraceFileReplays
// replays input trace files (a failed simulation seed writes one per client) and prints
// every input with the effects it produced.
#include "inputtrace.h"

#include "qsimbamemoryleasebackend.h"
#include "runtime/qsimbaruntime_p.h"

#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

#include <random>
#include "qsimbatestmain.h"

using namespace QSimbaEngine;
using namespace std::chrono_literals;

namespace {

/*
 * Two clients' cores against one in-memory store on one fake clock, driven at random: they
 * start, stop and step down elections, acquire, cancel and release locks, run partition
 * groups, see failed backend calls, rejected and declined deliveries, leader work that exits
 * late, and close. Each core is traced (InputTrace) and every effect it produced is kept, in
 * the order it was produced.
 */
class Run
{
public:
    struct Client
    {
        Options options;
        InputTrace trace;
        std::unique_ptr<QSimbaMemoryLeaseBackend> backend;
        std::unique_ptr<Core> core;
        QStringList effects;
        QList<TermPtr> terms; // won, for releases and work exits
        quint64 nextPromise = 1;
    };

    Run(quint64 seed, const QString &store) : m_random(seed), m_ticker(std::make_shared<QSimbaManualTicker>())
    {
        const QSimbaConfig config = QSimbaConfig::builder().leaseDuration(3s).build();
        for (int i = 0; i < 2; ++i) {
            auto c = std::make_unique<Client>();
            c->options.config = config;
            c->options.ticker = m_ticker;
            c->options.seed = seed * 10 + quint64(i);
            c->trace.recordInto(c->options);
            c->backend = std::make_unique<QSimbaMemoryLeaseBackend>(store, m_ticker);
            c->core = std::make_unique<Core>(c->options);
            m_clients.push_back(std::move(c));
        }
    }

    void run(int steps)
    {
        for (auto &c : m_clients) {
            c->core->start(now());
            settle(*c);
        }
        for (int i = 0; i < steps; ++i) {
            Client &c = *m_clients[pick(m_clients.size())];
            act(c);
            settle(c);
            if (pick(4) == 0)
                advance(Nanos(qint64(pick(1500)) * 1'000'000));
        }
        for (auto &c : m_clients) {
            const quint64 closed = DirectPromise | c->nextPromise++;
            const quint64 afterCallbacks = c->nextPromise++;
            c->core->close(now(), closed, afterCallbacks);
            settle(*c);
        }
        advance(10s);
    }

    std::vector<std::unique_ptr<Client>> &clients() { return m_clients; }

private:
    Nanos now() const { return m_ticker->now(); }
    size_t pick(size_t n) { return size_t(m_random() % n); }

    void act(Client &c)
    {
        static const QStringList names{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("lock")};
        const auto name = QSimbaLeaseName::of(names[int(pick(names.size()))]);
        Core &core = *c.core;
        switch (pick(10)) {
        case 0:
        case 1:
            core.startElection(now(), name, Kind::Election, false, pick(2) == 0);
            break;
        case 2:
            core.stopElection(now(), name, c.nextPromise++);
            break;
        case 3:
            core.stepDown(now(), name, Nanos(qint64(pick(2000)) * 1'000'000), c.nextPromise++);
            break;
        case 4: {
            const quint64 waiter = (pick(2) ? DirectPromise : 0) | c.nextPromise++;
            core.acquireLock(now(), name, waiter, pick(3) == 0 ? Core::Never : Nanos(qint64(pick(4000)) * 1'000'000),
                             pick(4) == 0);
            if (pick(3) == 0)
                core.cancelLock(now(), name, waiter);
            break;
        }
        case 5:
            if (!c.terms.isEmpty()) {
                const TermPtr t = c.terms[int(pick(c.terms.size()))];
                core.releaseLock(now(), t->name, t->token, c.nextPromise++);
            }
            break;
        case 6:
            if (!c.terms.isEmpty()) {
                const TermPtr t = c.terms[int(pick(c.terms.size()))];
                core.workFinished(now(), t, QSimbaEvent::WorkOutcome::Completed, {}, pick(2) == 0);
            }
            break;
        case 7:
            if (pick(2))
                core.startGroup(now(), QStringLiteral("g"), 4);
            else
                core.stopGroup(now(), QStringLiteral("g"), c.nextPromise++);
            break;
        case 8:
            core.hint(now(), {QSimbaLeaseBackend::Hint::Kind::Released, name.toString()});
            break;
        default:
            core.tick(now());
            break;
        }
    }

    //! Carries out the effects of \a c until none is left, keeping each as text.
    void settle(Client &c)
    {
        for (;;) {
            auto effects = c.core->takeEffects();
            if (effects.empty())
                return;
            for (auto &e : effects) {
                c.effects.append(describeEffect(e));
                switch (e.type) {
                case Effect::Type::CallBackend: {
                    Reply reply = execute(*c.backend, e.call);
                    if (pick(12) == 0) // a failed call (its effect may have happened)
                        reply = Reply{Reply::Error::Failed, QStringLiteral("injected"), {}};
                    c.core->backendReplied(now(), e.callId, reply);
                    break;
                }
                case Effect::Type::RunTask:
                    // A term won: an election's elected, a lock's result (a lock's term is
                    // no elected task).
                    if (e.task.term && (e.task.type == Task::Type::Elected || e.task.lockResult))
                        c.terms.append(e.task.term);
                    c.core->taskFinished(now(), e.stream, pick(15) == 0,
                                         pick(6) == 0 ? Taken::Retry : (pick(8) == 0 ? Taken::Release : Taken::Yes));
                    break;
                case Effect::Type::Resolve:
                    if (e.term) // a lock's term, answered to a blocking acquire
                        c.terms.append(e.term);
                    break;
                }
            }
        }
    }

    void advance(Nanos d)
    {
        const Nanos end = now() + d;
        for (;;) {
            Client *next = nullptr;
            for (auto &c : m_clients)
                if (!next || c->core->nextWakeup() < next->core->nextWakeup())
                    next = c.get();
            if (next->core->nextWakeup() > end)
                break;
            m_ticker->set(std::max(next->core->nextWakeup(), now()));
            next->core->tick(now());
            settle(*next);
        }
        m_ticker->set(end);
    }

    std::mt19937_64 m_random;
    std::shared_ptr<QSimbaManualTicker> m_ticker;
    std::vector<std::unique_ptr<Run::Client>> m_clients;
};


} // namespace

class tst_Replay : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void aTraceReplaysToTheSameEffects_data()
    {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed = 1; seed <= 20; ++seed)
            QTest::addRow("seed %llu", seed) << seed;
    }

    void aTraceReplaysToTheSameEffects()
    {
        QFETCH(quint64, seed);
        Run run(seed, QStringLiteral("replay-%1").arg(seed));
        run.run(400);
        int inputs = 0;
        for (auto &c : run.clients()) {
            QVERIFY(c->trace.entries.size() > 100);
            inputs += int(c->trace.entries.size());
            const QStringList again = c->trace.replayedEffects(c->options);
            if (again != c->effects) {
                int i = 0;
                while (i < again.size() && i < c->effects.size() && again[i] == c->effects[i])
                    ++i;
                const QStringList inputLines = c->trace.lines();
                QFAIL(qPrintable(QStringLiteral("effect %1 differs:\n  recorded: %2\n  replayed: %3\nlast inputs:\n%4")
                                     .arg(i)
                                     .arg(c->effects.value(i), again.value(i),
                                          inputLines.mid(std::max<qsizetype>(0, inputLines.size() - 20)).join(u'\n'))));
            }
        }
        QVERIFY(inputs > 0);
    }

    // A trace written as data (InputTrace::write) and read back replays to the effects
    // recorded in the run. With QSIMBA_REPLAY_TRACE set, the files named there are
    // replayed instead, each input printed with its effects, and replayed twice alike.
    void aTraceFileReplays_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("recorded"); // empty: a file from elsewhere
        const QString given = qEnvironmentVariable("QSIMBA_REPLAY_TRACE");
        if (!given.isEmpty()) {
            for (const QString &file : given.split(u',', Qt::SkipEmptyParts))
                QTest::newRow(qPrintable(file)) << file << QStringList();
            return;
        }
        QVERIFY(m_dir.isValid());
        for (quint64 seed : {3, 11}) {
            Run run(seed, QStringLiteral("replay-file-%1").arg(seed));
            run.run(400);
            auto &c = *run.clients().back();
            const QString file = m_dir.filePath(QStringLiteral("seed-%1.trace").arg(seed));
            QString error;
            QVERIFY2(c.trace.write(file, c.options, &error), qPrintable(error));
            QTest::addRow("seed %llu", seed) << file << c.effects;
        }
    }

    void aTraceFileReplays()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, recorded);
        InputTrace trace;
        Options options;
        const auto error = trace.read(file, options);
        QVERIFY2(!error, qPrintable(error.value_or(QString())));
        QVERIFY(!trace.entries.empty());
        const bool print = recorded.isEmpty();
        const auto replay = [&](bool show) {
            Core core(options);
            QStringList out;
            for (const auto &e : trace.entries) {
                core.handle(e.now, e.input);
                if (show)
                    qInfo().noquote() << e.now.count() << describe(e.input);
                for (const auto &effect : core.takeEffects()) {
                    out.append(describeEffect(effect));
                    if (show)
                        qInfo().noquote() << "    ->" << out.last();
                }
            }
            return out;
        };
        const QStringList once = replay(print);
        if (print)
            QCOMPARE(replay(false), once);
        else
            QCOMPARE(once, recorded);
    }

    // The comparison can fail: a core told one thing less, or with other jitter, diverges.
    void aTraceWithAnInputLeftOutDoesNotReplay()
    {
        Run run(7, QStringLiteral("replay-cut"));
        run.run(400);
        auto &c = *run.clients().front();
        InputTrace cut = c.trace;
        const auto acquire = std::find_if(cut.entries.begin(), cut.entries.end(), [](const InputTrace::Entry &e) {
            return std::holds_alternative<In::AcquireLock>(e.input) || std::holds_alternative<In::StartElection>(e.input);
        });
        QVERIFY(acquire != cut.entries.end());
        cut.entries.erase(acquire);
        QVERIFY(cut.replayedEffects(c.options) != c.effects);
        // So can the file's: a trace read back with one input changed replays otherwise.
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("cut.trace"));
        QVERIFY(c.trace.write(file, c.options));
        InputTrace read;
        Options readOptions;
        QVERIFY(!read.read(file, readOptions));
        QCOMPARE(read.replayedEffects(readOptions), c.effects);
        readOptions.seed += 1;
        QVERIFY(read.replayedEffects(readOptions) != c.effects);
        Options otherSeed = c.options;
        otherSeed.seed += 1000;
        QVERIFY(c.trace.replayedEffects(otherSeed) != c.effects);
    }

    // The core reads no clock: an event's wall-clock time comes from the input that made it
    // (Options::wallClock maps the ticker's time to wall time), so on a fake clock the
    // events are as far apart as the fake time, although no real time passed.
    void eventsAreStampedWithTheTimeOfTheirInput()
    {
        const auto ticker = std::make_shared<QSimbaManualTicker>();
        const QDateTime origin(QDate(2030, 1, 2), QTime(3, 4, 5), Qt::UTC);
        Options options;
        options.config = QSimbaConfig::builder().leaseDuration(3s).build();
        options.ticker = ticker;
        options.wallClock = {ticker->now() - 2s, origin};
        QSimbaMemoryLeaseBackend backend(QStringLiteral("replay-time"), ticker);
        Core core(options);
        QList<QSimbaEvent> events;
        const auto settle = [&] {
            for (auto effects = core.takeEffects(); !effects.empty(); effects = core.takeEffects())
                for (auto &e : effects) {
                    if (e.type == Effect::Type::CallBackend)
                        core.backendReplied(ticker->now(), e.callId, execute(backend, e.call));
                    else if (e.type == Effect::Type::RunTask) {
                        if (e.task.type == Task::Type::Event)
                            events.append(e.task.event);
                        core.taskFinished(ticker->now(), e.stream, false);
                    }
                }
        };
        core.start(ticker->now());
        settle();
        ticker->advance(1500ms); // past the renewal, within the lease
        core.tick(ticker->now());
        settle();
        const auto first = [&](QSimbaEvent::Type type) {
            auto it = std::find_if(events.cbegin(), events.cend(), [&](const QSimbaEvent &e) { return e.type() == type; });
            return it == events.cend() ? QSimbaEvent() : *it;
        };
        QCOMPARE(first(QSimbaEvent::Type::SessionOpened).time(), origin.addSecs(2));
        QCOMPARE(first(QSimbaEvent::Type::SessionRenewed).time(), origin.addMSecs(3500));
    }

    // The runtime feeds its own inputs (Start, its timer's Tick, the backend thread's
    // BackendReplied and Hint, the executor's Delivered) through Core::handle() like the
    // API's: the trace of a run on real threads holds them all, and a core fed that trace
    // alone hands out the same deliveries and resolves the same promises.
    void aRuntimeTraceReplaysToTheSameDeliveries()
    {
        Options options;
        options.config = QSimbaConfig::builder().leaseDuration(600ms).renewInterval(200ms).build();
        options.ticker = QSimbaTicker::system();
        options.seed = 42;
        InputTrace trace;
        trace.recordInto(options); // grows under the runtime's lock: read through query()

        struct Seen
        {
            QMutex mutex;
            QStringList tasks, resolves;
            QHash<quint64, TermPtr> resolved;
        };
        auto seen = std::make_shared<Seen>();
        QSimbaRuntime::Hooks hooks;
        hooks.executor = [](std::function<void()> task) {
            task();
            return true;
        };
        hooks.perform = [seen](const Task &task) {
            QMutexLocker lock(&seen->mutex);
            seen->tasks.append(describeEffect(Effect::runTask(QString(), task)));
            return Taken::Yes;
        };
        hooks.resolve = [seen](quint64 promise, const TermPtr &term, Failure failure) {
            QMutexLocker lock(&seen->mutex);
            seen->resolves.append(describeEffect(Effect::resolve(promise, term, failure)));
            seen->resolved.insert(promise, term);
        };
        const auto resolvedTerm = [seen](quint64 promise) -> std::optional<TermPtr> {
            QMutexLocker lock(&seen->mutex);
            if (!seen->resolved.contains(promise))
                return std::nullopt;
            return seen->resolved.value(promise);
        };

        QSimbaRuntime runtime(options, std::make_unique<QSimbaMemoryLeaseBackend>(QStringLiteral("replay-runtime")), hooks);
        runtime.start();
        const auto lock = QSimbaLeaseName::of(QStringLiteral("lock"));
        const quint64 waiter = DirectPromise | 1;
        runtime.post(In::AcquireLock{lock, waiter, Core::Never, /*tryOnce=*/false});
        QTRY_VERIFY_WITH_TIMEOUT(resolvedTerm(waiter).has_value(), 10000);
        const TermPtr term = *resolvedTerm(waiter);
        QVERIFY(term);
        const quint64 released = DirectPromise | 2;
        runtime.post(In::ReleaseLock{lock, term->token, Completion{0, released}});
        QTRY_VERIFY_WITH_TIMEOUT(resolvedTerm(released).has_value(), 10000);
        QVERIFY(runtime.handleNow(In::StartElection{QSimbaLeaseName::of(QStringLiteral("e"))}));
        const auto has = [&](auto type) {
            bool found = false;
            runtime.query([&](const Core &, Nanos) {
                found = std::any_of(trace.entries.cbegin(), trace.entries.cend(), [](const InputTrace::Entry &e) {
                    return std::holds_alternative<decltype(type)>(e.input);
                });
            });
            return found;
        };
        QTRY_VERIFY_WITH_TIMEOUT(has(In::Tick{}), 10000); // the renewal timer fired
        const quint64 closed = DirectPromise | 3;
        runtime.post(In::Close{{4, closed}});
        QTRY_VERIFY_WITH_TIMEOUT(resolvedTerm(closed).has_value(), 10000);
        runtime.shutdown();

        for (const bool found : {has(In::Start{}), has(In::Tick{}), has(In::BackendReplied{}), has(In::Hint{}),
                                 has(In::Delivered{}), has(In::AcquireLock{}), has(In::ReleaseLock{}),
                                 has(In::StartElection{}), has(In::Close{})})
            QVERIFY2(found, qPrintable(trace.lines().join(u'\n')));

        options.onInput = nullptr;
        Core core(options);
        QStringList tasks, resolves;
        trace.replay(core, [&](const std::vector<Effect> &effects) {
            for (const auto &e : effects) {
                if (e.type == Effect::Type::RunTask)
                    tasks.append(describeEffect(Effect::runTask(QString(), e.task)));
                else if (e.type == Effect::Type::Resolve)
                    resolves.append(describeEffect(e));
            }
        });
        QMutexLocker l(&seen->mutex);
        QVERIFY(seen->tasks.size() > 5);
        QCOMPARE(tasks, seen->tasks);
        QCOMPARE(resolves, seen->resolves);
    }

private:
    QTemporaryDir m_dir; // the trace files of aTraceFileReplays
};

QSIMBA_TEST_GUILESS_MAIN(tst_Replay)
#include "tst_replay.moc"
