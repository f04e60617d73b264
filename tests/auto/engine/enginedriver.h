// SPDX-License-Identifier: Apache-2.0
// Test support: drives one engine core by hand against an in-memory backend, on a fake clock.
#pragma once

#include "engine/qsimbaengine_p.h"
#include "qsimbamemoryleasebackend.h"

#include <functional>
#include <optional>

/*
 * Carries out a core's effects at once: backend calls run synchronously on the shared
 * memory store (whose clock is the same fake ticker), tasks are recorded and finished
 * (or rejected when `reject` says so), promises are recorded as resolved.
 */
struct EngineDriver
{
    struct Callback
    {
        QSimbaEngine::Task::Type type;
        QString name;
        qint64 token = 0;
        QSimbaEngine::Reason reason = QSimbaEngine::Reason::Stopped;
        QSimbaEngine::Status status = QSimbaEngine::Status::Idle;
        QSimbaEvent event;
    };

    EngineDriver(std::shared_ptr<QSimbaManualTicker> t, const QString &store, const QSimbaConfig &config,
                 quint64 seed = 1, bool withdrawals = false)
        : ticker(std::move(t)), backend(store, ticker), core([&] {
              QSimbaEngine::Options o;
              o.config = config;
              o.ticker = ticker;
              o.seed = seed;
              o.withdrawals = withdrawals;
              o.eventsWanted = eventsWanted;
              return o;
          }())
    {
    }

    QSimbaEngine::Nanos now() const { return ticker->now(); }

    //! The core's Options::eventsWanted (true unless a test says otherwise).
    std::shared_ptr<std::atomic<bool>> eventsWanted = std::make_shared<std::atomic<bool>>(true);

    //! Carries out every effect until none is left.
    void settle()
    {
        for (;;) {
            auto effects = core.takeEffects();
            if (effects.empty())
                return;
            for (auto &e : effects) {
                switch (e.type) {
                case QSimbaEngine::Effect::Type::CallBackend: {
                    calls.append(QSimbaEngine::describe(e.call));
                    callTimes.append(now());
                    if (std::holds_alternative<QSimbaEngine::Acquire>(e.call))
                        acquireSizes.append(std::get<QSimbaEngine::Acquire>(e.call).names.size());
                    if (std::holds_alternative<QSimbaEngine::Release>(e.call))
                        releases.append(std::get<QSimbaEngine::Release>(e.call).leases);
                    if (hold) {
                        held.append({e.callId, e.call});
                        break;
                    }
                    const auto reply = QSimbaEngine::execute(backend, e.call);
                    core.backendReplied(now(), e.callId, reply);
                    break;
                }
                case QSimbaEngine::Effect::Type::RunTask: {
                    if (holdTasks) {
                        heldTasks.append({e.stream, e.task});
                        break;
                    }
                    runTask(e.stream, e.task);
                    break;
                }
                case QSimbaEngine::Effect::Type::Resolve:
                    resolved.append(e.promise);
                    resolvedTerms.append(e.term);
                    break;
                }
            }
        }
    }

    //! Runs one callback task as the runtime does, and tells the core it finished. A lock
    //! result whose term already ended is declined (Retry), as QSimbaLock's completer does.
    void runTask(const QString &stream, const QSimbaEngine::Task &task, std::optional<QSimbaEngine::Taken> answer = {})
    {
        const auto taken = answer.value_or(task.lockResult && task.term && !task.term->isValid()
                                               ? QSimbaEngine::Taken::Retry
                                               : QSimbaEngine::Taken::Yes);
        const bool rejected = reject && reject(task);
        if (!rejected) {
            Callback c{task.type, task.name.toString(), task.term ? task.term->token : 0, task.reason, task.status,
                       task.event};
            if (task.type == QSimbaEngine::Task::Type::Complete)
                completed.append(task.promise);
            else
                callbacks.append(c);
            if (task.type == QSimbaEngine::Task::Type::Elected) {
                terms.append(QSimbaTermPrivate::handle(task.term));
                if (task.withWork)
                    workStarted.append(task.term->beginWork()); // as the runtime does
            }
            if (task.type == QSimbaEngine::Task::Type::Complete && task.lockResult)
                lockResults.append(task.term);
        }
        core.taskFinished(now(), stream, rejected, taken);
    }

    //! Answers the held backend calls, in order, and stops holding.
    void answerHeld()
    {
        hold = false;
        while (!held.isEmpty()) {
            auto [id, call] = held.takeFirst();
            core.backendReplied(now(), id, QSimbaEngine::execute(backend, call));
            settle();
        }
    }

    //! Runs the held tasks (in order), and those they let through, until none is left.
    void runHeldTasks()
    {
        holdTasks = false;
        while (!heldTasks.isEmpty()) {
            auto [stream, task] = heldTasks.takeFirst();
            runTask(stream, task);
            settle();
        }
    }

    //! Moves the clock to each wake-up the core asks for, up to \a d from now.
    void advance(QSimbaEngine::Nanos d)
    {
        const auto end = now() + d;
        settle();
        for (;;) {
            const auto wake = core.nextWakeup();
            if (wake > end)
                break;
            ticker->set(std::max(wake, now()));
            core.tick(now());
            settle();
        }
        ticker->set(end);
        core.tick(now());
        settle();
    }

    //! Advances several clients on one clock, each handling its own wake-ups in time order.
    static void advance(const QList<EngineDriver *> &drivers, QSimbaEngine::Nanos d)
    {
        const auto ticker = drivers.first()->ticker;
        const auto end = ticker->now() + d;
        for (auto *x : drivers)
            x->settle();
        for (;;) {
            EngineDriver *next = nullptr;
            for (auto *x : drivers)
                if (!next || x->core.nextWakeup() < next->core.nextWakeup())
                    next = x;
            const auto wake = next->core.nextWakeup();
            if (wake > end)
                break;
            ticker->set(std::max(wake, ticker->now()));
            next->core.tick(ticker->now());
            next->settle();
        }
        ticker->set(end);
        for (auto *x : drivers) {
            x->core.tick(ticker->now());
            x->settle();
        }
    }

    QList<QSimbaEvent::Type> eventTypes() const
    {
        QList<QSimbaEvent::Type> out;
        for (const auto &c : callbacks)
            if (c.type == QSimbaEngine::Task::Type::Event)
                out.append(c.event.type());
        return out;
    }
    QList<Callback> of(QSimbaEngine::Task::Type type) const
    {
        QList<Callback> out;
        for (const auto &c : callbacks)
            if (c.type == type)
                out.append(c);
        return out;
    }

    std::shared_ptr<QSimbaManualTicker> ticker;
    QSimbaMemoryLeaseBackend backend;
    QSimbaEngine::Core core;
    std::function<bool(const QSimbaEngine::Task &)> reject;
    bool hold = false; // keep backend calls unanswered (a hung backend)
    bool holdTasks = false; // keep callback tasks queued (a blocked callback executor)
    QList<std::pair<QString, QSimbaEngine::Task>> heldTasks;
    QList<QSimbaEngine::TermPtr> resolvedTerms;
    QList<QSimbaEngine::TermPtr> lockResults; // terms of lock results delivered (null: none)
    QList<bool> workStarted;
    QList<std::pair<quint64, QSimbaEngine::Call>> held;
    QStringList calls;
    QList<QSimbaEngine::Nanos> callTimes;
    QList<int> acquireSizes;
    QList<QHash<QSimbaLeaseName, qint64>> releases; // each release call's leases and tokens
    QList<Callback> callbacks;
    QList<QSimbaTerm> terms;
    QList<quint64> completed;
    QList<quint64> resolved;
};
