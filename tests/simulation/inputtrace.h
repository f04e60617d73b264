// SPDX-License-Identifier: Apache-2.0
// Test support: an engine core's inputs recorded as data, replayed, and its effects as text.
#pragma once

#include "engine/qsimbaengine_p.h"
#include "qsimbaterm_p.h"

#include <QtCore/QFile>
#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>
#include <QtCore/QStringList>

#include <array>
#include <optional>
#include <vector>

/*
 * A trace of one core's inputs: every (now, Input) pair Core::handle() saw, in order, taken
 * from Options::onInput. Replayed into a core built with the same options (config, seed,
 * metadata), it produces the same effects: the trace is all the core was told, and the core
 * reads no clock of its own. A driver (the simulation, an engine test) records with
 * recordInto() and keeps the trace as long as the core lives.
 *
 * One thing the core reads that is not an input: whether a term's leader work began
 * (QSimbaTermPrivate::beginWork(), called by whoever delivers elected, races the core's
 * skipWork() when a handover starts). A driver that starts work says so with workBegan();
 * the trace keeps where, between which inputs, and the replay begins the work of the
 * replayed term at that very point.
 */
struct InputTrace
{
    struct Entry
    {
        QSimbaEngine::Nanos now;
        QSimbaEngine::Input input;
    };
    std::vector<Entry> entries;
    //! The leader work of term (name, token) began before entry `before` was handled.
    struct WorkBegan
    {
        size_t before = 0;
        QSimbaLeaseName name;
        qint64 token = 0;
    };
    std::vector<WorkBegan> workBegun;

    //! The leader work of \a term began (its beginWork() returned true), after the inputs
    //! recorded so far.
    void workBegan(const QSimbaEngine::TermPtr &term) { workBegun.push_back({entries.size(), term->name, term->token}); }

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

    /*
     * As data: a file of JSON lines. The first holds what replaying needs of the options
     * (seed, config, metadata, wall clock); each further line is one input,
     * {"now": ns, "in": "<alternative>", …its fields}. 64-bit numbers are strings (JSON's
     * doubles would round them). Hash and set members are written in iteration order and
     * read back in that order. A term (WorkFinished) is written as its name, token and
     * session, and read back as a new term of those.
     */
    QByteArray toData(const QSimbaEngine::Options &options) const;
    //! Reads what toData() wrote: the trace, and into \a options what it says of them
    //! (with a manual ticker). Returns an error message naming the line, or nothing.
    std::optional<QString> fromData(const QByteArray &data, QSimbaEngine::Options &options);
    //! toData() into the file \a path; false (and \a error) when it cannot be written.
    bool write(const QString &path, const QSimbaEngine::Options &options, QString *error = nullptr) const
    {
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(toData(options)) < 0) {
            if (error)
                *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
            return false;
        }
        return true;
    }
    //! fromData() of the file \a path.
    std::optional<QString> read(const QString &path, QSimbaEngine::Options &options)
    {
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return QStringLiteral("cannot read %1: %2").arg(path, file.errorString());
        return fromData(file.readAll(), options);
    }

    //! The effects a fresh core built with \a options (its observers left out) produces
    //! from this trace, one line each (describeEffect()).
    QStringList replayedEffects(QSimbaEngine::Options options) const;

    //! Feeds every input to \a core, in order; \a effects gets what each one produced.
    template<class F>
    void replay(QSimbaEngine::Core &core, F &&effects) const
    {
        QHash<std::pair<QSimbaLeaseName, qint64>, QSimbaEngine::TermPtr> terms; // handed out so far
        auto began = workBegun.cbegin();
        for (size_t i = 0; i < entries.size(); ++i) {
            for (; began != workBegun.cend() && began->before <= i; ++began)
                if (const auto term = terms.value({began->name, began->token}))
                    term->beginWork();
            core.handle(entries[i].now, entries[i].input);
            auto out = core.takeEffects();
            for (const auto &e : out)
                if (e.type == QSimbaEngine::Effect::Type::RunTask && e.task.term)
                    terms.insert({e.task.term->name, e.task.term->token}, e.task.term);
            effects(std::move(out));
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

inline QStringList InputTrace::replayedEffects(QSimbaEngine::Options options) const
{
    options.onInput = nullptr;
    options.onTermGranted = nullptr;
    QSimbaEngine::Core core(options);
    QStringList out;
    replay(core, [&](const std::vector<QSimbaEngine::Effect> &effects) {
        for (const auto &e : effects)
            out.append(describeEffect(e));
    });
    return out;
}

namespace InputTraceData {

using namespace QSimbaEngine;
using namespace Qt::StringLiterals;

inline QJsonValue big(qint64 v) { return QString::number(v); }
inline qint64 big(const QJsonValue &v) { return v.toString().toLongLong(); }
inline quint64 ubig(const QJsonValue &v) { return v.toString().toULongLong(); }
inline QJsonValue ubig(quint64 v) { return QString::number(v); }
inline QJsonValue ns(Nanos v) { return big(v.count()); }
inline Nanos ns(const QJsonValue &v) { return Nanos(big(v)); }
inline QSimbaLeaseName lease(const QJsonValue &v) { return QSimbaLeaseName::of(v.toString()); }
inline QSimbaSessionId session(const QJsonValue &v)
{
    return v.toString().isEmpty() ? QSimbaSessionId() : QSimbaSessionId::of(v.toString());
}
inline QJsonObject completion(const Completion &c) { return {{u"async"_s, ubig(c.async)}, {u"direct"_s, ubig(c.direct)}}; }
inline Completion completion(const QJsonValue &v)
{
    return {ubig(v[u"async"_s]), ubig(v[u"direct"_s])};
}
template<class Names>
QJsonArray names(const Names &names)
{
    QJsonArray out;
    for (const auto &n : names)
        out.append(n.toString());
    return out;
}

inline QJsonObject reply(const Reply &r)
{
    QJsonObject o{{u"error"_s, int(r.error)}, {u"message"_s, r.message}};
    std::visit(Overloaded{
                   [](const std::monostate &) {},
                   [&](const Backend::SessionGrant &g) {
                       o[u"grant"_s] = QJsonObject{{u"id"_s, g.id.toString()}, {u"remaining"_s, big(g.remaining.count())}};
                   },
                   [&](const Backend::KeepAliveResult &k) {
                       o[u"keepAlive"_s] = QJsonObject{{u"isLive"_s, k.isLive},
                                                        {u"remaining"_s, big(k.remaining.count())},
                                                        {u"owned"_s, names(k.owned)}};
                   },
                   [&](const QHash<QSimbaLeaseName, Backend::AcquireResult> &results) {
                       QJsonArray a;
                       for (auto r = results.cbegin(); r != results.cend(); ++r) {
                           QJsonObject x{{u"name"_s, r.key().toString()},
                                         {u"isGranted"_s, r->isGranted},
                                         {u"token"_s, big(r->token)},
                                         {u"holder"_s, r->holder.toString()}};
                           if (r->holderRemaining)
                               x[u"holderRemaining"_s] = big(r->holderRemaining->count());
                           a.append(x);
                       }
                       o[u"acquired"_s] = a;
                   },
                   [&](const QList<QSimbaSessionId> &members) { o[u"members"_s] = names(members); },
               },
               r.value);
    return o;
}

inline Reply reply(const QJsonObject &o)
{
    Reply r;
    r.error = Reply::Error(o[u"error"_s].toInt());
    r.message = o[u"message"_s].toString();
    if (o.contains(u"grant"_s)) {
        const auto g = o[u"grant"_s];
        r.value = Backend::SessionGrant{session(g[u"id"_s]), Millis(big(g[u"remaining"_s]))};
    } else if (o.contains(u"keepAlive"_s)) {
        const auto k = o[u"keepAlive"_s];
        QSet<QSimbaLeaseName> owned;
        for (const auto &n : k[u"owned"_s].toArray())
            owned.insert(lease(n));
        r.value = Backend::KeepAliveResult{k[u"isLive"_s].toBool(), Millis(big(k[u"remaining"_s])), owned};
    } else if (o.contains(u"acquired"_s)) {
        QHash<QSimbaLeaseName, Backend::AcquireResult> results;
        for (const auto &v : o[u"acquired"_s].toArray()) {
            Backend::AcquireResult a{v[u"isGranted"_s].toBool(), big(v[u"token"_s]), session(v[u"holder"_s]), std::nullopt};
            if (v.toObject().contains(u"holderRemaining"_s))
                a.holderRemaining = Millis(big(v[u"holderRemaining"_s]));
            results.insert(lease(v[u"name"_s]), a);
        }
        r.value = results;
    } else if (o.contains(u"members"_s)) {
        QList<QSimbaSessionId> members;
        for (const auto &m : o[u"members"_s].toArray())
            members.append(session(m));
        r.value = members;
    }
    return r;
}

//! The alternatives of Input by name, in the variant's order.
inline const std::array<QString, std::variant_size_v<Input>> &inputNames()
{
    static const std::array<QString, std::variant_size_v<Input>> names{
        u"Start"_s, u"Tick"_s, u"StartElection"_s, u"StopElection"_s, u"StepDown"_s, u"Close"_s,
        u"BackendReplied"_s, u"Hint"_s, u"Delivered"_s, u"WorkExited"_s, u"WorkFinished"_s,
        u"AcquireLock"_s, u"CancelLock"_s, u"ReleaseLock"_s, u"StartGroup"_s, u"StopGroup"_s};
    return names;
}

inline QJsonObject input(Nanos now, const Input &in)
{
    QJsonObject o{{u"now"_s, ns(now)}, {u"in"_s, inputNames()[in.index()]}};
    std::visit(Overloaded{
                   [](const In::Start &) {},
                   [](const In::Tick &) {},
                   [&](const In::StartElection &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"kind"_s] = int(x.kind);
                       o[u"oneTerm"_s] = x.oneTerm;
                       o[u"withWork"_s] = x.withWork;
                   },
                   [&](const In::StopElection &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"done"_s] = completion(x.done);
                   },
                   [&](const In::StepDown &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"cooldown"_s] = ns(x.cooldown);
                       o[u"done"_s] = completion(x.done);
                   },
                   [&](const In::Close &x) { o[u"done"_s] = completion(x.done); },
                   [&](const In::BackendReplied &x) {
                       o[u"callId"_s] = ubig(x.callId);
                       o[u"reply"_s] = reply(x.reply);
                   },
                   [&](const In::Hint &x) {
                       o[u"kind"_s] = int(x.hint.kind);
                       o[u"name"_s] = x.hint.name;
                   },
                   [&](const In::Delivered &x) {
                       o[u"stream"_s] = x.stream;
                       o[u"rejected"_s] = x.rejected;
                       o[u"taken"_s] = int(x.taken);
                   },
                   [&](const In::WorkExited &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"token"_s] = big(x.token);
                   },
                   [&](const In::WorkFinished &x) {
                       o[u"name"_s] = x.term->name.toString();
                       o[u"token"_s] = big(x.term->token);
                       o[u"session"_s] = x.term->session.toString();
                       o[u"outcome"_s] = int(x.outcome);
                       o[u"error"_s] = x.error;
                       o[u"exited"_s] = x.exited;
                   },
                   [&](const In::AcquireLock &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"waiter"_s] = ubig(x.waiter);
                       o[u"timeout"_s] = ns(x.timeout);
                       o[u"tryOnce"_s] = x.tryOnce;
                   },
                   [&](const In::CancelLock &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"waiter"_s] = ubig(x.waiter);
                   },
                   [&](const In::ReleaseLock &x) {
                       o[u"name"_s] = x.name.toString();
                       o[u"token"_s] = big(x.token);
                       o[u"done"_s] = completion(x.done);
                   },
                   [&](const In::StartGroup &x) {
                       o[u"group"_s] = x.group;
                       o[u"partitions"_s] = x.partitions;
                   },
                   [&](const In::StopGroup &x) {
                       o[u"group"_s] = x.group;
                       o[u"done"_s] = completion(x.done);
                   },
               },
               in);
    return o;
}

inline std::optional<Input> input(const QJsonObject &o, const Options &options)
{
    const QString kind = o[u"in"_s].toString();
    const auto &all = inputNames();
    const auto at = std::find(all.cbegin(), all.cend(), kind);
    if (at == all.cend())
        return std::nullopt;
    const auto name = [&] { return lease(o[u"name"_s]); };
    switch (at - all.cbegin()) {
    case 0: return In::Start{};
    case 1: return In::Tick{};
    case 2: return In::StartElection{name(), Kind(o[u"kind"_s].toInt()), o[u"oneTerm"_s].toBool(), o[u"withWork"_s].toBool()};
    case 3: return In::StopElection{name(), completion(o[u"done"_s])};
    case 4: return In::StepDown{name(), ns(o[u"cooldown"_s]), completion(o[u"done"_s])};
    case 5: return In::Close{completion(o[u"done"_s])};
    case 6: return In::BackendReplied{ubig(o[u"callId"_s]), reply(o[u"reply"_s].toObject())};
    case 7: return In::Hint{{Backend::Hint::Kind(o[u"kind"_s].toInt()), o[u"name"_s].toString()}};
    case 8: return In::Delivered{o[u"stream"_s].toString(), o[u"rejected"_s].toBool(), Taken(o[u"taken"_s].toInt())};
    case 9: return In::WorkExited{name(), big(o[u"token"_s])};
    case 10: {
        auto term = std::make_shared<QSimbaTermPrivate>(name(), big(o[u"token"_s]), options.ticker,
                                                        std::make_shared<std::atomic<qint64>>(0));
        term->session = session(o[u"session"_s]);
        return In::WorkFinished{term, QSimbaEvent::WorkOutcome(o[u"outcome"_s].toInt()), o[u"error"_s].toString(),
                                o[u"exited"_s].toBool()};
    }
    case 11: return In::AcquireLock{name(), ubig(o[u"waiter"_s]), ns(o[u"timeout"_s]), o[u"tryOnce"_s].toBool()};
    case 12: return In::CancelLock{name(), ubig(o[u"waiter"_s])};
    case 13: return In::ReleaseLock{name(), big(o[u"token"_s]), completion(o[u"done"_s])};
    case 14: return In::StartGroup{o[u"group"_s].toString(), o[u"partitions"_s].toInt()};
    case 15: return In::StopGroup{o[u"group"_s].toString(), completion(o[u"done"_s])};
    }
    return std::nullopt;
}

} // namespace InputTraceData

inline QByteArray InputTrace::toData(const QSimbaEngine::Options &options) const
{
    using namespace InputTraceData;
    using namespace Qt::StringLiterals;
    const QSimbaConfig &c = options.config;
    QJsonObject metadata;
    for (auto it = options.metadata.cbegin(); it != options.metadata.cend(); ++it)
        metadata[it.key()] = it.value();
    const QJsonObject head{
        {u"trace"_s, u"qsimba engine inputs"_s},
        {u"seed"_s, ubig(options.seed)},
        {u"config"_s, QJsonObject{{u"leaseDuration"_s, ns(c.leaseDuration())},
                                   {u"renewInterval"_s, ns(c.renewInterval())},
                                   {u"drift"_s, c.drift()},
                                   {u"margin"_s, ns(c.margin())},
                                   {u"retryJitter"_s, ns(c.retryJitter())},
                                   {u"minBackoff"_s, ns(c.minBackoff())}}},
        {u"metadata"_s, metadata},
        {u"wallClock"_s, QJsonObject{{u"ticks"_s, ns(options.wallClock.ticks)},
                                      {u"wall"_s, options.wallClock.wall.toString(Qt::ISODateWithMs)}}},
    };
    QByteArray out = QJsonDocument(head).toJson(QJsonDocument::Compact) + '\n';
    auto began = workBegun.cbegin();
    for (size_t i = 0; i <= entries.size(); ++i) {
        for (; began != workBegun.cend() && began->before <= i; ++began) {
            const QJsonObject o{{u"workBegan"_s, began->name.toString()}, {u"token"_s, big(began->token)}};
            out += QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
        }
        if (i < entries.size())
            out += QJsonDocument(input(entries[i].now, entries[i].input)).toJson(QJsonDocument::Compact) + '\n';
    }
    return out;
}

inline std::optional<QString> InputTrace::fromData(const QByteArray &data, QSimbaEngine::Options &options)
{
    using namespace InputTraceData;
    using namespace Qt::StringLiterals;
    entries.clear();
    workBegun.clear();
    const QList<QByteArray> lines = data.split('\n');
    int number = 0;
    for (const QByteArray &line : lines) {
        ++number;
        if (line.trimmed().isEmpty())
            continue;
        QJsonParseError error;
        const QJsonObject o = QJsonDocument::fromJson(line, &error).object();
        if (error.error != QJsonParseError::NoError)
            return QStringLiteral("line %1: %2").arg(number).arg(error.errorString());
        if (number == 1) {
            if (o[u"trace"_s].toString() != u"qsimba engine inputs"_s)
                return QStringLiteral("line 1: not an engine input trace (its first line names no \"trace\")");
            const auto c = o[u"config"_s];
            options.config = QSimbaConfig::builder()
                                  .leaseDuration(ns(c[u"leaseDuration"_s]))
                                  .renewInterval(ns(c[u"renewInterval"_s]))
                                  .drift(c[u"drift"_s].toDouble())
                                  .margin(ns(c[u"margin"_s]))
                                  .retryJitter(ns(c[u"retryJitter"_s]))
                                  .minBackoff(ns(c[u"minBackoff"_s]))
                                  .build();
            options.seed = ubig(o[u"seed"_s]);
            options.metadata.clear();
            const QJsonObject metadata = o[u"metadata"_s].toObject();
            for (auto it = metadata.begin(); it != metadata.end(); ++it)
                options.metadata.insert(it.key(), it.value().toString());
            options.wallClock = {ns(o[u"wallClock"_s][u"ticks"_s]),
                                 QDateTime::fromString(o[u"wallClock"_s][u"wall"_s].toString(), Qt::ISODateWithMs)};
            if (!options.ticker)
                options.ticker = std::make_shared<QSimbaManualTicker>();
            continue;
        }
        if (o.contains(u"workBegan"_s)) {
            workBegun.push_back({entries.size(), lease(o[u"workBegan"_s]), big(o[u"token"_s])});
            continue;
        }
        auto in = input(o, options);
        if (!in)
            return QStringLiteral("line %1: unknown input \"%2\"").arg(number).arg(o[u"in"_s].toString());
        entries.push_back({ns(o[u"now"_s]), std::move(*in)});
    }
    if (number == 0 || lines.first().trimmed().isEmpty())
        return QStringLiteral("line 1: empty trace");
    return std::nullopt;
}
