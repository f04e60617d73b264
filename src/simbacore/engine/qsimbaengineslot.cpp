// SPDX-License-Identifier: Apache-2.0
// One lease name's slot: started, stopped or stepped down, a term won or lost, and the
// handover in its fixed order — (1) revoke, (2) wait for the leader work, (3) deliver
// revoked, (4) release — then what comes after (candidate, cooldown or idle).
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

using namespace std::chrono_literals;

namespace QSimbaEngine {

bool Core::on(Nanos now, const In::StartElection &in)
{
    const auto &[name, kind, oneTerm, withWork] = in;
    if (m_closing)
        return true;
    auto &e = m_slots[name];
    e.name = name;
    const Policy wanted{kind, oneTerm, withWork};
    if (e.phase != Status::Idle) {
        const bool stopping = e.phase == Status::Handover && e.after == After::Idle;
        if (e.policy.kind == Kind::Lock && kind != Kind::Lock && (!stopping || lockWaiting(e)))
            return false; // a lock of this client holds or wants the name
        if (stopping) {
            // Contend again once the handover is done, as this start asks (work, kind).
            e.restart = wanted;
        } else {
            e.policy.withWork = withWork; // a partition moved back while contending
        }
        return true;
    }
    startContending(now, e, wanted);
    pump(now);
    return true;
}

void Core::on(Nanos now, const In::StopElection &in)
{
    const auto &[name, done] = in;
    auto it = m_slots.find(name);
    if (it == m_slots.end()) {
        complete(name.toString(), done);
        return;
    }
    auto &e = it->second;
    e.restart.reset();
    const bool handingOver = e.phase == Status::Leader || e.phase == Status::Handover;
    if (handingOver)
        waitFor(e.promises, done); // completed when the handover is done
    stopContending(now, e);
    if (!handingOver)
        complete(name.toString(), done);
    pump(now);
}

void Core::on(Nanos now, const In::StepDown &in)
{
    const auto &[name, cooldown, done] = in;
    auto it = m_slots.find(name);
    if (it == m_slots.end()) {
        complete(name.toString(), done);
        return;
    }
    auto &e = it->second;
    switch (e.phase) {
    case Status::Idle:
        complete(name.toString(), done);
        break;
    case Status::Candidate:
    case Status::Cooldown:
        e.cooldownUntil = std::max(e.phase == Status::Cooldown ? e.cooldownUntil : now, now + cooldown);
        setPhase(e, Status::Cooldown);
        addTimer(e, e.cooldownUntil);
        complete(name.toString(), done);
        break;
    case Status::Leader:
        waitFor(e.promises, done);
        beginHandover(now, e, Reason::SteppedDown, After::Cooldown, cooldown);
        break;
    case Status::Handover:
        waitFor(e.promises, done);
        if (e.after != After::Idle) {
            e.after = After::Cooldown;
            e.afterCooldown = std::max(e.afterCooldown, cooldown);
        }
        break;
    }
    pump(now);
}

void Core::on(Nanos now, const In::WorkExited &in)
{
    const auto &[name, token] = in;
    auto it = m_slots.find(name);
    if (it == m_slots.end() || !it->second.term || it->second.term->token != token)
        return;
    auto &e = it->second;
    e.workRunning = false;
    if (e.phase == Status::Handover)
        continueHandover(now, e);
    pump(now);
}

void Core::on(Nanos now, const In::WorkFinished &in)
{
    const auto &[term, outcome, error, exited] = in;
    auto it = m_slots.find(term->name);
    const Kind kind = it != m_slots.end() ? it->second.policy.kind : Kind::Election;
    publish(QSimbaEvent::workCompleted(term->session, QSimbaTermPrivate::handle(term), kind, outcome, error));
    if (exited)
        on(now, In::WorkExited{term->name, term->token});
}

void Core::startContending(Nanos now, Slot &e, const Policy &c)
{
    e.policy = c;
    e.backoff = 0ns;
    setPhase(e, Status::Candidate);
    setNextTry(e, now);
}

void Core::stopContending(Nanos now, Slot &e)
{
    switch (e.phase) {
    case Status::Idle:
        break;
    case Status::Candidate:
    case Status::Cooldown:
        setPhase(e, Status::Idle);
        break;
    case Status::Leader:
        beginHandover(now, e, Reason::Stopped, After::Idle);
        break;
    case Status::Handover:
        e.after = After::Idle;
        break;
    }
}

void Core::setPhase(Slot &e, Status phase)
{
    if (e.phase == phase)
        return;
    if (e.phase == Status::Idle)
        ++m_active;
    else if (phase == Status::Idle)
        --m_active;
    e.phase = phase;
    Task t;
    t.type = Task::Type::Status;
    t.name = e.name;
    t.status = phase;
    if (phase == Status::Leader)
        t.term = e.term; // status() and currentTerm() turn together (win() set it first)
    enqueue(e.name.toString(), t);
}

void Core::win(Nanos now, Slot &e, qint64 token)
{
    e.term = std::make_shared<QSimbaTermPrivate>(e.name, token, m_options.ticker, m_session.deadline);
    e.term->session = m_session.id;
    e.term->began = now;
    e.lastToken = token;
    e.grantedTo = 0;
    e.termSession = m_session.id;
    if (m_options.onTermGranted)
        m_options.onTermGranted(e.term);
    e.workRunning = e.policy.withWork;
    e.handover = Handover::None;
    setPhase(e, Status::Leader);
    Task t;
    t.type = Task::Type::Elected;
    t.name = e.name;
    t.term = e.term;
    t.withWork = e.policy.withWork;
    t.group = e.group;
    t.partition = e.partition;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::elected(m_session.id, QSimbaTermPrivate::handle(e.term), e.policy.kind));
    if (e.policy.kind == Kind::Lock)
        grantWaiter(now, e);
}

void Core::loseTerm(Nanos now, Slot &e, Reason reason)
{
    // A loss: nothing to release, no work to wait for (it is interrupted by the revocation).
    e.term->revoke(reason);
    e.handoverReason = reason;
    e.handover = Handover::None;
    Task t;
    t.type = Task::Type::Revoked;
    t.name = e.name;
    t.term = e.term;
    t.reason = reason;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::revoked(e.termSession, QSimbaTermPrivate::handle(e.term), e.policy.kind, reason));
    e.term.reset();
    e.workRunning = false;
    afterTerm(now, e, After::Candidate, 0ns);
}

void Core::beginHandover(Nanos now, Slot &e, Reason reason, After after, Nanos cooldown)
{
    // Handover order: (1) revoke, (2) wait for the work, (3) deliver revoked, (4) release.
    e.term->revoke(reason);
    e.handoverReason = reason;
    e.handoverDeadline = e.term->deadline();
    addTimer(e, e.handoverDeadline);
    // Work whose elected is still queued (say, to an owner thread blocked in close()) never
    // starts: the handover need not wait for it.
    if (e.workRunning && e.term->skipWork())
        e.workRunning = false;
    e.handover = Handover::AwaitingWork;
    e.after = after;
    e.afterCooldown = cooldown;
    setPhase(e, Status::Handover);
    continueHandover(now, e);
}

void Core::continueHandover(Nanos now, Slot &e)
{
    if (e.handover != Handover::AwaitingWork || (e.workRunning && now < e.handoverDeadline))
        return;
    e.handover = Handover::Releasing; // (3) now, then (4)
    Task t;
    t.type = Task::Type::Revoked;
    t.name = e.name;
    t.term = e.term;
    t.reason = e.handoverReason;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::revoked(e.termSession, QSimbaTermPrivate::handle(e.term), e.policy.kind, e.handoverReason));
    const bool sessionAlive = e.termSession == m_session.id
                              && (m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended);
    if (sessionAlive)
        m_releases.push_back({e.termSession, e.name, e.term->token});
    else
        finishHandover(now, e); // the lease ended with its session: nothing to release
}

void Core::onReleased(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Release>(call.call);
    if (reply.error == Reply::Error::Failed && sent.session == m_session.id
        && (m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended)) {
        // Retried until it succeeds or the session ends: the handover is not over before.
        qCInfo(lcSimbaElection) << "release failed, retrying:" << reply.message;
        m_releaseBackoff = backoffStep(m_releaseBackoff);
        for (auto l = sent.leases.cbegin(); l != sent.leases.cend(); ++l)
            m_releases.push_back({sent.session, l.key(), l.value(), now + m_releaseBackoff});
        return;
    }
    m_releaseBackoff = 0ns;
    for (auto l = sent.leases.cbegin(); l != sent.leases.cend(); ++l) {
        auto it = m_slots.find(l.key());
        if (it == m_slots.end())
            continue;
        auto &e = it->second;
        if (e.phase == Status::Handover && e.handover == Handover::Releasing && e.term && e.term->token == l.value())
            finishHandover(now, e);
    }
}

void Core::finishHandover(Nanos now, Slot &e)
{
    e.term.reset();
    e.handover = Handover::None;
    e.workRunning = false;
    afterTerm(now, e, e.after, e.afterCooldown);
}

void Core::afterTerm(Nanos now, Slot &e, After after, Nanos cooldown)
{
    after = m_closing ? After::Idle : e.policy.afterTerm(after);
    e.grantedTo = 0;
    if (e.restart && !m_closing) {
        // Started again while stopping: contend as the new start asked.
        const Policy as = *std::exchange(e.restart, std::nullopt);
        after = After::Candidate;
        if (e.policy.kind == Kind::Lock && as.kind != Kind::Lock)
            for (const auto &w : std::exchange(e.waiters, {}))
                if (!w.granted)
                    answerWaiter(e, w, nullptr, Failure::Busy);
        e.policy = as;
    }
    if (!m_closing)
        after = e.policy.whileWaiting(after, lockWaiting(e));
    enterAfter(now, e, after, cooldown);
    for (quint64 p : std::exchange(e.promises, {}))
        complete(e.name.toString(), p);
    if (!e.group.isEmpty()) {
        auto g = m_groups.find(e.group);
        if (g != m_groups.end())
            checkGroupStopped(now, g->second);
    }
}

void Core::enterAfter(Nanos now, Slot &e, After after, Nanos cooldown)
{
    switch (after) {
    case After::Idle:
        setPhase(e, Status::Idle);
        if (e.policy.kind == Kind::Lock && e.waiters.empty())
            e.policy.kind = Kind::Election; // the name is free for either use again
        break;
    case After::Cooldown:
        e.cooldownUntil = now + cooldown;
        setPhase(e, Status::Cooldown);
        addTimer(e, e.cooldownUntil);
        break;
    case After::Candidate:
        setPhase(e, Status::Candidate);
        setNextTry(e, now);
        break;
    }
    e.after = After::Candidate;
    e.afterCooldown = 0ns;
}

bool Core::sendRelease(Nanos now)
{
    // Handover step (4): the leases of one session that are due, in one call.
    const auto due = std::find_if(m_releases.cbegin(), m_releases.cend(),
                                  [&](const PendingRelease &r) { return r.notBefore <= now; });
    if (due == m_releases.cend())
        return false;
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

} // namespace QSimbaEngine
