// SPDX-License-Identifier: Apache-2.0
// One lease name's slot: started, stopped or stepped down, a term won or lost, and what
// comes after a term (candidate, cooldown or idle). The handover between the two is in
// qsimbaenginehandover.cpp.
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
        if (e.policy.excludes(wanted) && (!stopping || lockWaiting(e)))
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
    const Kind kind = (it != m_slots.end() ? it->second.policy : Policy()).kind;
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
    // A candidate that stops contending without a term leaves the backend's waiter queue
    // (Options::withdrawals): a release of token 0, which names no lease.
    if (e.phase == Status::Candidate && phase != Status::Leader && m_options.withdrawals
        && m_session.status == SessionStatus::Live)
        m_releases.push_back({m_session.id, e.name, 0});
    e.phase = phase;
    // Only an election has an object whose status() follows the phase; a lock's or a
    // partition's phase shows in snapshots, and a delivery of it would reach nobody.
    if (e.policy.kind != Kind::Election)
        return;
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
    m_orphans.remove(e.name); // owned with a term now: no orphan acquire of it
    e.lastToken = token;
    e.grantedTo = 0;
    e.termSession = m_session.id;
    if (m_options.onTermGranted)
        m_options.onTermGranted(e.term);
    e.workRunning = e.policy.withWork;
    e.handover = Handover::None;
    setPhase(e, Status::Leader);
    // A lock's term reaches its user as the lock's result (grantWaiter), and nothing of the
    // user runs on a lock's elected or revoked: no task for either (each was two thread hops
    // per lock cycle). Its revoked is dropped with it (dispatchQueued: no revoked without a
    // delivered elected).
    if (e.policy.deliveredByElected()) {
        Task t;
        t.type = Task::Type::Elected;
        t.name = e.name;
        t.term = e.term;
        t.withWork = e.policy.withWork;
        t.group = e.group;
        t.partition = e.partition;
        enqueue(e.name.toString(), t);
    }
    publish(QSimbaEvent::elected(m_session.id, QSimbaTermPrivate::handle(e.term), e.policy.kind));
    if (e.policy.termsGoToWaiters())
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

void Core::afterTerm(Nanos now, Slot &e, After after, Nanos cooldown)
{
    after = m_closing ? After::Idle : e.policy.afterTerm(after);
    e.grantedTo = 0;
    if (e.restart && !m_closing) {
        // Started again while stopping: contend as the new start asked.
        const Policy as = *std::exchange(e.restart, std::nullopt);
        after = After::Candidate;
        if (e.policy.termsGoToWaiters() && !as.termsGoToWaiters()) // an election takes the name
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
        if (e.policy.termsGoToWaiters() && e.waiters.empty())
            e.policy = Policy(); // the name is free for either use again
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

} // namespace QSimbaEngine
