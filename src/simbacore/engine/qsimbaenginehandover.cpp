// SPDX-License-Identifier: Apache-2.0
// One name's handover, in its fixed order: (1) the term is revoked, (2) the leader work may
// run until it exits or the term's deadline (Handover::AwaitingWork), (3) revoked is
// delivered and (4) the lease is released (Handover::Releasing); then afterTerm()
// (qsimbaengineslot.cpp) decides what follows.
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

using namespace std::chrono_literals;

namespace QSimbaEngine {

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
            if (it->token != 0 || !leases.contains(it->name)) // a withdrawal never hides a release
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
