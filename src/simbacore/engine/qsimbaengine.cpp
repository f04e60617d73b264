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
    const auto &[callId, reply] = in;
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
    if (m_closed) { // only sessions opened behind the close are left to close
        if (m_staleSessions.empty())
            return false;
        send(now, CloseSession{m_staleSessions.front()});
        m_staleSessions.pop_front();
        return true;
    }
    auto &s = m_session;
    const bool live = s.status == SessionStatus::Live || s.status == SessionStatus::Suspended;

    // 1. The session.
    if (s.status == SessionStatus::Opening && !m_closing && now >= s.nextOpen) {
        send(now, OpenSession{leaseMillis(), m_options.metadata});
        return true;
    }
    if (live && now >= s.nextRenew && !m_sessionClosing) {
        QSet<QSimbaLeaseName> held;
        for (const auto &[name, e] : m_slots)
            if (e.term && e.termSession == s.id && (e.phase == Status::Leader || e.phase == Status::Handover))
                held.insert(name);
        send(now, KeepAlive{s.id, leaseMillis(), held});
        return true;
    }
    // 2. Releases, which let the next leader in.
    const auto due = std::find_if(m_releases.cbegin(), m_releases.cend(),
                                  [&](const PendingRelease &r) { return r.notBefore <= now; });
    if (due != m_releases.cend()) {
        const QSimbaSessionId session = due->session;
        QHash<QSimbaLeaseName, qint64> leases;
        for (auto it = m_releases.begin(); it != m_releases.end();) {
            if (it->session == session && it->notBefore <= now && leases.size() < Backend::MaxBatch) {
                leases.insert(it->name, it->token);
                it = m_releases.erase(it);
            } else {
                ++it;
            }
        }
        send(now, Release{session, leases});
        return true;
    }
    // 3. Sessions given up locally that may still be alive on the backend.
    if (!m_staleSessions.empty()) {
        const auto id = m_staleSessions.front();
        m_staleSessions.pop_front();
        send(now, CloseSession{id});
        return true;
    }
    // 4. Closing the client: once every election handed over, close the session.
    if (m_closing && !m_sessionClosing) {
        if (m_active == 0) {
            m_sessionClosing = true;
            if (live) {
                send(now, CloseSession{s.id});
                return true;
            }
            setSessionStatus(now, SessionStatus::Closed);
            checkClosed(now);
            return false;
        }
    }
    // 5. Groups: join with the current session, leave when stopped, follow the members.
    if (s.status == SessionStatus::Live) {
        for (auto &[name, g] : m_groups) {
            if (g.stopping) {
                const bool handedOver = std::none_of(m_slots.cbegin(), m_slots.cend(), [&](const auto &p) {
                    return p.second.group == name && p.second.phase != Status::Idle;
                });
                // A join sent in this session may have been applied even if its answer
                // failed: leave, retried, until it succeeds or the session ends.
                if (handedOver && g.joinSent == s.id && !m_closing && now >= g.nextLeave) {
                    g.leaveRetry = false;
                    send(now, Leave{s.id, name});
                    return true;
                }
                continue;
            }
            if (g.joined != s.id && now >= g.nextJoin) {
                g.joinSent = s.id;
                send(now, Join{s.id, name});
                return true;
            }
            if (g.joined == s.id && now >= g.nextRefresh) {
                send(now, Members{name});
                return true;
            }
        }
    }
    // 6. Candidates whose time has come, batched.
    if (s.status == SessionStatus::Live && !m_closing) {
        QSet<QSimbaLeaseName> names = dueCandidates(now);
        for (auto it = m_orphans.begin(); it != m_orphans.end() && names.size() < Backend::MaxBatch;) {
            names.insert(*it);
            it = m_orphans.erase(it);
        }
        if (!names.isEmpty()) {
            for (const auto &n : std::as_const(names)) {
                auto it = m_slots.find(n);
                if (it != m_slots.end() && it->second.phase == Status::Candidate) {
                    it->second.acquiring = true;
                    it->second.retryAfterReply = false;
                }
            }
            send(now, Acquire{s.id, names});
            return true;
        }
    }
    return false;
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
            else if (g.leaveRetry && g.joinSent == s.id && !m_closing)
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
