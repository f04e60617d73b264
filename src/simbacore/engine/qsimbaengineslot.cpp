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
    auto &e = m_elections[name];
    e.name = name;
    const Contention wanted{kind, oneTerm, withWork};
    if (e.phase != Status::Idle) {
        const bool stopping = e.phase == Status::Handover && e.after == After::Idle;
        if (e.kind == Kind::Lock && kind != Kind::Lock && (!stopping || lockWaiting(e)))
            return false; // a lock of this client holds or wants the name
        if (stopping) {
            // Contend again once the handover is done, as this start asks (work, kind).
            e.restart = true;
            e.restartAs = wanted;
        } else {
            e.withWork = withWork; // a partition moved back while contending
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
    auto it = m_elections.find(name);
    if (it == m_elections.end()) {
        complete(name.toString(), done);
        return;
    }
    auto &e = it->second;
    e.restart = false;
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
    auto it = m_elections.find(name);
    if (it == m_elections.end()) {
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
    auto it = m_elections.find(name);
    if (it == m_elections.end() || !it->second.term || it->second.term->token != token)
        return;
    auto &e = it->second;
    e.work = false;
    if (e.phase == Status::Handover)
        continueHandover(now, e);
    pump(now);
}

void Core::on(Nanos now, const In::WorkFinished &in)
{
    const auto &[term, outcome, error, exited] = in;
    auto it = m_elections.find(term->name);
    const Kind kind = it != m_elections.end() ? it->second.kind : Kind::Election;
    publish(QSimbaEvent::workCompleted(term->session, QSimbaTerm(term), kind, outcome, error));
    if (exited)
        on(now, In::WorkExited{term->name, term->token});
}

void Core::startContending(Nanos now, Election &e, const Contention &c)
{
    e.kind = c.kind;
    e.oneTerm = c.oneTerm;
    e.withWork = c.withWork;
    e.backoff = 0ns;
    setPhase(e, Status::Candidate);
    setNextTry(e, now);
}

void Core::stopContending(Nanos now, Election &e)
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

void Core::setPhase(Election &e, Status phase)
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
    enqueue(e.name.toString(), t);
}

void Core::win(Nanos now, Election &e, qint64 token)
{
    e.term = std::make_shared<QSimbaTermPrivate>(e.name, token, m_options.ticker, m_session.deadline);
    e.term->session = m_session.id;
    e.lastToken = token;
    e.grantedTo = 0;
    e.termSession = m_session.id;
    if (m_options.onTermGranted)
        m_options.onTermGranted(e.term);
    e.work = e.withWork;
    e.revokedQueued = false;
    e.releasing = false;
    setPhase(e, Status::Leader);
    Task t;
    t.type = Task::Type::Elected;
    t.name = e.name;
    t.term = e.term;
    t.withWork = e.withWork;
    t.group = e.group;
    t.partition = e.partition;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::elected(m_session.id, QSimbaTerm(e.term), e.kind));
    if (e.kind == Kind::Lock)
        grantWaiter(now, e);
}

void Core::loseTerm(Nanos now, Election &e, Reason reason)
{
    // A loss: nothing to release, no work to wait for (it is interrupted by the revocation).
    e.term->revoke(reason);
    e.handoverReason = reason;
    e.revokedQueued = false;
    Task t;
    t.type = Task::Type::Revoked;
    t.name = e.name;
    t.term = e.term;
    t.reason = reason;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::revoked(e.termSession, QSimbaTerm(e.term), e.kind, reason));
    e.term.reset();
    e.work = false;
    afterTerm(now, e, After::Candidate, 0ns);
}

void Core::beginHandover(Nanos now, Election &e, Reason reason, After after, Nanos cooldown)
{
    // Handover order: (1) revoke, (2) wait for the work, (3) deliver revoked, (4) release.
    e.term->revoke(reason);
    e.handoverReason = reason;
    e.handoverDeadline = e.term->deadline();
    addTimer(e, e.handoverDeadline);
    // Work whose elected is still queued (say, to an owner thread blocked in close()) never
    // starts: the handover need not wait for it.
    if (e.work && e.term->skipWork())
        e.work = false;
    e.revokedQueued = false;
    e.releasing = false;
    e.after = after;
    e.afterCooldown = cooldown;
    setPhase(e, Status::Handover);
    continueHandover(now, e);
}

void Core::continueHandover(Nanos now, Election &e)
{
    if (e.revokedQueued || (e.work && now < e.handoverDeadline))
        return;
    e.revokedQueued = true;
    Task t;
    t.type = Task::Type::Revoked;
    t.name = e.name;
    t.term = e.term;
    t.reason = e.handoverReason;
    enqueue(e.name.toString(), t);
    publish(QSimbaEvent::revoked(e.termSession, QSimbaTerm(e.term), e.kind, e.handoverReason));
    const bool sessionAlive = e.termSession == m_session.id
                              && (m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended);
    if (sessionAlive) {
        e.releasing = true;
        m_releases.push_back({e.termSession, e.name, e.term->token});
    } else {
        finishHandover(now, e);
    }
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
        auto it = m_elections.find(l.key());
        if (it == m_elections.end())
            continue;
        auto &e = it->second;
        if (e.phase == Status::Handover && e.releasing && e.term && e.term->token == l.value())
            finishHandover(now, e);
    }
}

void Core::finishHandover(Nanos now, Election &e)
{
    e.term.reset();
    e.releasing = false;
    e.work = false;
    afterTerm(now, e, e.after, e.afterCooldown);
}

void Core::afterTerm(Nanos now, Election &e, After after, Nanos cooldown)
{
    // A lock keeps the one-lease step-down of a rejected delivery while acquires wait.
    const bool lockCooldown = e.kind == Kind::Lock && after == After::Cooldown;
    if ((e.oneTerm && !lockCooldown) || m_closing)
        after = After::Idle;
    e.grantedTo = 0;
    if (e.restart && !m_closing) {
        // Started again while stopping: contend as the new start asked.
        e.restart = false;
        after = After::Candidate;
        if (e.kind == Kind::Lock && e.restartAs.kind != Kind::Lock)
            for (const auto &w : std::exchange(e.waiters, {}))
                if (!w.granted)
                    answerWaiter(e, w, nullptr, Failure::Busy);
        e.kind = e.restartAs.kind;
        e.oneTerm = e.restartAs.oneTerm;
        e.withWork = e.restartAs.withWork;
    }
    // A lock contends on while an acquire waits (after a cooldown, if any).
    if (e.kind == Kind::Lock && !m_closing) {
        const bool waiting = lockWaiting(e);
        if (waiting && after == After::Idle)
            after = After::Candidate;
        if (!waiting && after == After::Cooldown)
            after = After::Idle;
    }
    enterAfter(now, e, after, cooldown);
    for (quint64 p : std::exchange(e.promises, {}))
        complete(e.name.toString(), p);
    if (!e.group.isEmpty()) {
        auto g = m_groups.find(e.group);
        if (g != m_groups.end())
            checkGroupStopped(now, g->second);
    }
}

void Core::enterAfter(Nanos now, Election &e, After after, Nanos cooldown)
{
    switch (after) {
    case After::Idle:
        setPhase(e, Status::Idle);
        if (e.kind == Kind::Lock && e.waiters.empty())
            e.kind = Kind::Election; // the name is free for either use again
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
