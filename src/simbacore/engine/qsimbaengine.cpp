// SPDX-License-Identifier: Apache-2.0
// The engine's router: construction, the inputs that concern the whole client (start,
// close, backend replies, ticks), the pump that runs after every input, the choice of the
// next backend call, and the snapshot. The other inputs are routed to the file of their
// concept (see qsimbaengine_p.h).
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

#include <stdexcept>

using namespace std::chrono_literals;

namespace QSimbaEngine {

Core::Core(Options options) : m_options(std::move(options)), m_random(m_options.seed)
{
    // The core reads no clock: time comes with each input. The ticker is only handed to the
    // terms it grants, whose isValid() reads it on the user's threads.
    if (!m_options.ticker)
        throw std::invalid_argument("QSimbaEngine::Options::ticker is required (the terms read it)");
    m_session.deadline = std::make_shared<std::atomic<qint64>>(0);
}

Core::~Core() = default;

Nanos Core::jitter(Nanos range)
{
    if (range <= 0ns)
        return 0ns;
    return Nanos(qint64(m_random() % quint64(range.count())));
}

Nanos Core::backoffStep(Nanos current) const
{
    const Nanos min = m_options.config.minBackoff(), max = m_options.config.renewInterval();
    return current <= 0ns ? min : std::min(current * 2, max);
}

Nanos Core::retryAt(Nanos now, Nanos &backoff) const
{
    backoff = backoffStep(backoff);
    return now + backoff;
}

bool Core::handle(Nanos now, const Input &input)
{
    if (m_options.onInput)
        m_options.onInput(now, input);
    m_now = now;
    return std::visit(Overloaded{
                          [&](const In::StartElection &in) { return on(now, in); },
                          [&](const auto &in) {
                              on(now, in);
                              return true;
                          },
                      },
                      input);
}

void Core::on(Nanos now, const In::Start &)
{
    if (m_started)
        return;
    m_started = true;
    m_session.nextOpen = now;
    m_session.notLiveSince = now;
    pump(now);
}

void Core::on(Nanos now, const In::Tick &)
{
    pump(now);
}

void Core::on(Nanos now, const In::Close &in)
{
    const quint64 closed = in.done.direct, afterCallbacks = in.done.async;
    if (m_closing) {
        // A second close completes with the first.
        m_extraClosed.push_back(closed);
        m_extraAfter.push_back(afterCallbacks);
        checkClosed(now);
        return;
    }
    m_closing = true;
    m_closedPromise = closed;
    m_afterCallbacksPromise = afterCallbacks;
    for (auto &[name, g] : m_groups)
        g.stopping = true;
    for (auto &[name, e] : m_slots) {
        e.restart.reset();
        for (const auto &w : std::exchange(e.waiters, {}))
            if (!w.granted)
                answerWaiter(e, w, nullptr, Failure::Closed);
        stopContending(now, e);
    }
    pump(now);
}

void Core::on(Nanos now, const In::BackendReplied &in)
{
    // Named references, not a structured binding: lambdas below capture reply (Clang 14
    // cannot capture a binding).
    const quint64 callId = in.callId;
    const auto &reply = in.reply;
    if (!m_inflight || m_inflight->id != callId) {
        qCWarning(lcSimbaEngine) << "reply to an unknown call" << callId;
        return;
    }
    const Inflight call = std::move(*m_inflight);
    m_inflight.reset();
    // The deadline first: an answer that comes after the local deadline passed cannot make
    // a term that already read invalid valid again.
    checkDeadline(now);
    std::visit(Overloaded{
                   [&](const OpenSession &) { onOpened(now, call, reply); },
                   [&](const KeepAlive &) { onKeepAlive(now, call, reply); },
                   [&](const Acquire &) { onAcquired(now, call, reply); },
                   [&](const Release &) { onReleased(now, call, reply); },
                   [&](const CloseSession &) { onClosedSession(now, call, reply); },
                   [&](const Join &) { onJoined(now, call, reply); },
                   [&](const Leave &) { onLeft(now, call, reply); },
                   [&](const Members &) { onMembers(now, call, reply); },
               },
               call.call);
    pump(now);
}

void Core::pump(Nanos now)
{
    checkDeadline(now);
    dueTimers(now);
    QStringList stopping;
    for (const auto &[name, g] : m_groups)
        if (g.stopping)
            stopping.append(name);
    for (const auto &name : std::as_const(stopping))
        checkGroupStopped(now, m_groups[name]);
    while (!m_inflight && sendNext(now)) {
    }
    // Closing with no live session needs no backend call: a hung call does not hold it up.
    if (m_closing && !m_sessionClosing && m_active == 0 && m_inflight
        && !(m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended)) {
        m_sessionClosing = true;
        setSessionStatus(now, SessionStatus::Closed);
    }
    checkClosed(now);
}

bool Core::sendNext(Nanos now)
{
    if (!m_started)
        return false;
    if (m_closed) // only sessions opened behind the close are left to close
        return sendStaleClose(now);
    // In priority order; each sends at most one call and says whether it did.
    if (sendSessionCall(now)    // 1. open or renew the session
        || sendRelease(now)     // 2. releases, which let the next leader in
        || sendStaleClose(now)) // 3. sessions given up locally, maybe alive on the backend
        return true;
    if (m_closing && !m_sessionClosing && m_active == 0)
        return sendSessionClose(now); // 4. closing, every slot handed over: nothing else goes out
    return sendGroupCall(now) // 5. join, follow the members, leave
           || sendAcquire(now); // 6. candidates whose time has come, batched
}

void Core::send(Nanos now, Call call)
{
    const quint64 id = m_nextCallId++;
    m_inflight = Inflight{id, call, now};
    m_effects.push_back(Effect::callBackend(id, std::move(call)));
}

Nanos Core::nextWakeup() const
{
    if (m_closed || !m_started)
        return Never;
    Nanos next = Never;
    const auto &s = m_session;
    const bool live = s.status == SessionStatus::Live || s.status == SessionStatus::Suspended;
    if (live)
        next = std::min(next, Nanos(s.deadline->load()));
    if (!m_timers.empty())
        next = std::min(next, m_timers.top().first);
    if (!m_inflight && s.status == SessionStatus::Live)
        for (const auto &[name, g] : m_groups) {
            if (!g.stopping)
                next = std::min(next, g.joined == s.id ? g.nextRefresh : g.nextJoin);
            else if (g.leaveRetry && g.joinSent == s.id && !m_closing && groupHandedOver(name))
                // A leave waits for its partitions' handovers too (sendGroupCall): until
                // then its retry time is no wake-up (it was one, due again at once: a spin).
                next = std::min(next, g.nextLeave);
        }
    if (!m_inflight) {
        for (const auto &r : m_releases)
            next = std::min(next, r.notBefore);
        if (s.status == SessionStatus::Opening && !m_closing)
            next = std::min(next, s.nextOpen);
        if (live && !m_sessionClosing)
            next = std::min(next, s.nextRenew);
        if (s.status == SessionStatus::Live && !m_closing && !m_tries.empty())
            next = std::min(next, m_tries.top().first);
    }
    return next;
}

std::vector<Effect> Core::takeEffects()
{
    std::vector<Effect> out;
    out.swap(m_effects);
    return out;
}

void Core::checkClosed(Nanos)
{
    if (!m_closing || m_session.status != SessionStatus::Closed)
        return;
    if (!m_closed) {
        m_closed = true;
        if (m_closedPromise)
            m_effects.push_back(Effect::resolve(m_closedPromise));
        for (quint64 p : std::exchange(m_extraClosed, {}))
            if (p)
                m_effects.push_back(Effect::resolve(p));
    }
    // The close future completes after the last callback of every election ran.
    if (m_afterCallbacksPromise == 0 && m_extraAfter.empty())
        return;
    if (m_busyStreams > 0)
        return;
    if (m_afterCallbacksPromise)
        complete(QString(), std::exchange(m_afterCallbacksPromise, 0));
    for (quint64 p : std::exchange(m_extraAfter, {}))
        complete(QString(), p);
}

bool Core::isStarted(const QSimbaLeaseName &name) const
{
    auto it = m_slots.find(name);
    return it != m_slots.end() && it->second.phase != Status::Idle;
}

QSimbaSnapshot Core::snapshot(Nanos now) const
{
    QSimbaSnapshot snap;
    const auto &s = m_session;
    snap.session.id = s.id;
    snap.session.status = s.status;
    snap.session.metadata = m_options.metadata;
    const bool live = s.status == SessionStatus::Live || s.status == SessionStatus::Suspended;
    if (live)
        snap.session.validFor = std::max(0ns, Nanos(s.deadline->load()) - now);
    if (s.status != SessionStatus::Live)
        snap.session.notLiveFor = std::max(0ns, now - s.notLiveSince);
    for (const auto &[name, e] : m_slots) {
        if (e.phase == Status::Idle)
            continue;
        QSimbaElectionSnapshot es;
        es.name = name;
        es.status = e.phase;
        es.kind = e.policy.kind;
        if (e.term) {
            es.token = e.term->token;
            if (!e.term->isRevoked() && now < e.term->deadline())
                es.remaining = std::max(0ns, e.term->deadline() - now);
        }
        snap.elections.append(es);
    }
    snap.leaseDuration = m_options.config.leaseDuration();
    snap.healthy = s.status == SessionStatus::Live;
    for (const auto &[name, g] : m_groups) {
        QSimbaGroupSnapshot gs{name, g.partitions, g.members, g.owned.values()};
        std::sort(gs.owned.begin(), gs.owned.end());
        snap.groups.append(gs);
    }
    return snap;
}

} // namespace QSimbaEngine
