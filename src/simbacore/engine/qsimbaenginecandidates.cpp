// SPDX-License-Identifier: Apache-2.0
// Contending: when each candidate name is tried next (timers and the try index), which
// names go into one batched acquire, what its answer does, and release hints.
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

using namespace std::chrono;
using namespace std::chrono_literals;

namespace QSimbaEngine {

void Core::setNextTry(Slot &e, Nanos when)
{
    e.nextTry = when;
    m_tries.push({when, e.name});
}

void Core::addTimer(const Slot &e, Nanos when)
{
    if (when != Never)
        m_timers.push({when, e.name});
}

void Core::dueTimers(Nanos now)
{
    while (!m_timers.empty() && m_timers.top().first <= now) {
        const QSimbaLeaseName name = m_timers.top().second;
        m_timers.pop();
        auto it = m_slots.find(name);
        if (it == m_slots.end())
            continue;
        auto &e = it->second;
        if (e.phase == Status::Handover && e.handover == Handover::AwaitingWork && now >= e.handoverDeadline) {
            qCWarning(lcSimbaElection) << "leader work of" << name << "did not exit before the term's deadline";
            e.workRunning = false;
            continueHandover(now, e);
        }
        if (e.phase == Status::Cooldown && now >= e.cooldownUntil) {
            setPhase(e, Status::Candidate);
            setNextTry(e, now);
        }
        expireWaiters(now, e);
    }
}

QSet<QSimbaLeaseName> Core::dueCandidates(Nanos now)
{
    // Jitter spreads one client's tries against other clients', not into many small
    // batches: once one candidate is due, those due within the window go along.
    const Nanos window = m_options.config.retryJitter();
    QSet<QSimbaLeaseName> names;
    while (!m_tries.empty() && names.size() < Backend::MaxBatch) {
        const auto &[when, name] = m_tries.top();
        if (when > now && (names.isEmpty() || when > now + window))
            break;
        const QSimbaLeaseName n = name;
        const Nanos t = when;
        m_tries.pop();
        auto it = m_slots.find(n);
        if (it == m_slots.end() || it->second.phase != Status::Candidate || it->second.acquiring
            || it->second.nextTry != t)
            continue; // stale
        names.insert(n);
    }
    return names;
}

void Core::on(Nanos now, const In::Hint &in)
{
    const Backend::Hint &hint = in.hint;
    if (hint.kind == Backend::Hint::Kind::Released) {
        const QString error = QSimbaLeaseName::validate(hint.name);
        if (!error.isEmpty())
            return;
        auto it = m_slots.find(QSimbaLeaseName::of(hint.name));
        if (it != m_slots.end() && it->second.phase == Status::Candidate) {
            auto &e = it->second;
            if (e.acquiring)
                e.retryAfterReply = true; // its answer may predate the release
            else if (e.nextTry > now)
                setNextTry(e, now);
        }
    } else {
        auto g = m_groups.find(hint.name);
        if (g != m_groups.end())
            g->second.nextRefresh = std::min(g->second.nextRefresh, now);
    }
    pump(now);
}

void Core::onAcquired(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Acquire>(call.call);
    auto &s = m_session;
    for (const auto &name : sent.names) {
        auto it = m_slots.find(name);
        if (it != m_slots.end())
            it->second.acquiring = false;
    }
    if (reply.error == Reply::Error::SessionExpired) {
        if (sent.session == s.id && (s.status == SessionStatus::Live || s.status == SessionStatus::Suspended))
            loseSession(now, Reason::SessionExpired);
        return;
    }
    if (reply.error == Reply::Error::Failed) {
        for (const auto &name : sent.names) {
            auto it = m_slots.find(name);
            if (it == m_slots.end())
                continue;
            auto &e = it->second;
            if (e.phase != Status::Candidate)
                continue; // an orphan, or no longer contending: nothing failed for the user
            e.backoff = backoffStep(e.backoff);
            setNextTry(e, e.retryAfterReply ? now : now + e.backoff);
            publish(QSimbaEvent::acquireFailed(sent.session, name, e.policy.kind, reply.message));
        }
        return;
    }
    const auto results = std::get<QHash<QSimbaLeaseName, Backend::AcquireResult>>(reply.value);
    const bool current = sent.session == s.id && s.status == SessionStatus::Live;
    const Nanos poll = m_options.config.renewInterval();
    for (auto r = results.cbegin(); r != results.cend(); ++r) {
        const auto &name = r.key();
        auto it = m_slots.find(name);
        const bool wanted = current && it != m_slots.end() && it->second.phase == Status::Candidate;
        if (r->isGranted) {
            if (wanted && r->token > it->second.lastToken) {
                win(now, it->second, r->token);
            } else if (it != m_slots.end() && it->second.term && it->second.term->token == r->token
                       && it->second.termSession == sent.session) {
                // The lease of this slot's own term (an orphan acquire of a name won since):
                // it is released by the term's handover, never here while the term is valid.
            } else {
                // Not wanted any more, or a lease this client still owns from an ended term
                // (its release was lost): a new term needs a new token, so release first.
                // Until that release is done, a grant of this token is no win either (the
                // pending release would end the new term's lease under it).
                m_releases.push_back({sent.session, name, r->token});
                if (it != m_slots.end())
                    it->second.lastToken = std::max(it->second.lastToken, r->token);
                if (wanted)
                    setNextTry(it->second, now);
            }
            continue;
        }
        if (!wanted)
            continue;
        auto &e = it->second;
        e.backoff = 0ns;
        if (e.policy.termsGoToWaiters()) {
            // tryAcquire: one answered attempt, and the lease is held elsewhere.
            for (auto w = e.waiters.begin(); w != e.waiters.end();) {
                if (w->tryOnce && !w->granted) {
                    answerWaiter(e, *w, nullptr, Failure::None);
                    w = e.waiters.erase(w);
                } else {
                    if (!w->attempted) {
                        w->attempted = true; // its timeout may end it now
                        addTimer(e, w->deadline);
                    }
                    ++w;
                }
            }
            if (e.waiters.empty()) {
                dropIdleLock(e);
                continue;
            }
        }
        if (std::exchange(e.retryAfterReply, false)) {
            setNextTry(e, now); // released while this answer was on its way
            continue;
        }
        Nanos next = now + poll + jitter(m_options.config.retryJitter());
        if (r->holderRemaining) {
            // Try again the moment the holder's lease ends on the backend's clock.
            const Nanos end = call.sent + duration_cast<Nanos>(*r->holderRemaining) + 1ms + jitter(4ms);
            next = std::min(next, std::max(end, now + 1ms));
        }
        setNextTry(e, next);
    }
}

bool Core::sendAcquire(Nanos now)
{
    if (m_session.status != SessionStatus::Live || m_closing)
        return false;
    QSet<QSimbaLeaseName> names = dueCandidates(now);
    for (auto it = m_orphans.begin(); it != m_orphans.end() && names.size() < Backend::MaxBatch;) {
        names.insert(*it);
        it = m_orphans.erase(it);
    }
    if (names.isEmpty())
        return false;
    for (const auto &n : std::as_const(names)) {
        auto it = m_slots.find(n);
        if (it != m_slots.end() && it->second.phase == Status::Candidate) {
            it->second.acquiring = true;
            it->second.retryAfterReply = false;
        }
    }
    send(now, Acquire{m_session.id, names});
    return true;
}

} // namespace QSimbaEngine
