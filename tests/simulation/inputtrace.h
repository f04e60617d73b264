// SPDX-License-Identifier: Apache-2.0
// Test support: an engine core's inputs recorded as data, replayed, and its effects as text.
#pragma once

#include "engine/qsimbaengine_p.h"

#include <QtCore/QStringList>

#include <vector>

/*
 * A trace of one core's inputs: every (now, Input) pair Core::handle() saw, in order, taken
 * from Options::onInput. Replayed into a core built with the same options (config, seed,
 * metadata), it produces the same effects: the trace is all the core was told, and the core
 * reads no clock of its own. A driver (the simulation, an engine test) records with
 * recordInto() and keeps the trace as long as the core lives.
 */
struct InputTrace
{
    struct Entry
    {
        QSimbaEngine::Nanos now;
        QSimbaEngine::Input input;
    };
    std::vector<Entry> entries;

    void recordInto(QSimbaEngine::Options &options)
    {
        options.onInput = [this](QSimbaEngine::Nanos now, const QSimbaEngine::Input &input) {
            entries.push_back({now, input});
        };
    }

    //! One line per input: "<now in ns> <input>", for logs and failure reports.
    QStringList lines() const
    {
        QStringList out;
        for (const auto &e : entries)
            out.append(QString::number(e.now.count()) + QLatin1Char(' ') + QSimbaEngine::describe(e.input));
        return out;
    }

    //! Feeds every input to \a core, in order; \a effects gets what each one produced.
    template<class F>
    void replay(QSimbaEngine::Core &core, F &&effects) const
    {
        for (const auto &e : entries) {
            core.handle(e.now, e.input);
            effects(core.takeEffects());
        }
    }
};

//! One line with everything a driver acts on in \a effect (not the events' wall-clock time).
inline QString describeEffect(const QSimbaEngine::Effect &effect)
{
    using namespace QSimbaEngine;
    const auto token = [](const TermPtr &t) { return t ? t->token : 0; };
    switch (effect.type) {
    case Effect::Type::CallBackend:
        return QStringLiteral("call %1 %2").arg(effect.callId).arg(describe(effect.call));
    case Effect::Type::RunTask: {
        const Task &t = effect.task;
        return QStringLiteral("task [%1] type %2 %3 token %4 status %5 reason %6 event %7 promise %8 failure %9")
            .arg(effect.stream)
            .arg(int(t.type))
            .arg(t.name.toString())
            .arg(token(t.term))
            .arg(int(t.status))
            .arg(int(t.reason))
            .arg(t.type == Task::Type::Event ? t.event.typeName() : QString())
            .arg(t.promise)
            .arg(int(t.failure));
    }
    case Effect::Type::Resolve:
        return QStringLiteral("resolve %1 token %2 failure %3").arg(effect.promise).arg(token(effect.term)).arg(int(effect.failure));
    }
    return {};
}
