// SPDX-License-Identifier: Apache-2.0
// The engine's session: opened, renewed within the local deadline, lost (every term of it
// ends), closed. The session's deadline is what every term's isValid() reads.
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

using namespace std::chrono;
using namespace std::chrono_literals;

namespace QSimbaEngine {

Millis Core::leaseMillis() const
{
    return duration_cast<Millis>(m_options.config.leaseDuration());
}

Nanos Core::localDeadline(Nanos sent, Millis remaining) const
{
    const double scaled = double(duration_cast<Nanos>(remaining).count()) * (1.0 - m_options.config.drift());
    return sent + Nanos(qint64(scaled)) - m_options.config.margin();
}

Nanos Core::renewAfter(Nanos sent, Millis remaining) const
{
    // A backend may grant less than asked (Redis maxLease): the renewal then keeps the
    // config's ratio of renewal period to lease, so it comes well before the local deadline.
    const Nanos renew = m_options.config.renewInterval();
    const Nanos lease = m_options.config.leaseDuration();
    const Nanos granted = duration_cast<Nanos>(remaining);
    if (granted >= lease || lease <= 0ns)
        return sent + renew;
    const double ratio = double(renew.count()) / double(lease.count());
    return sent + std::max(Nanos(0), std::min(renew, Nanos(qint64(double(granted.count()) * ratio))));
}

bool Core::shortened(Millis remaining, Nanos rtt) const
{
    // The backend measures the remaining time a little after it set it (SQL: in a second
    // statement): only a shortfall beyond the margin and the round trip is news.
    const Nanos slack = std::max(m_options.config.margin(), rtt);
    return duration_cast<Nanos>(remaining) < m_options.config.leaseDuration() - slack;
}

void Core::checkDeadline(Nanos now)
{
    if ((m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended)
        && now.count() >= m_session.deadline->load())
        loseSession(now, Reason::DeadlinePassed);
}

void Core::onOpened(Nanos now, const Inflight &call, const Reply &reply)
{
    auto &s = m_session;
    if (reply.error != Reply::Error::None) {
        s.nextOpen = retryAt(now, s.backoff);
        qCInfo(lcSimbaSession) << "openSession failed:" << reply.message;
        return;
    }
    const auto grant = std::get<Backend::SessionGrant>(reply.value);
    if (m_sessionClosing) {
        // Closed locally while this open was in flight: close the new session too.
        m_staleSessions.push_back(grant.id);
        return;
    }
    s.id = grant.id;
    s.backoff = 0ns;
    s.openedAt = call.sent;
    s.deadline = std::make_shared<std::atomic<qint64>>(localDeadline(call.sent, grant.remaining).count());
    s.nextRenew = renewAfter(call.sent, grant.remaining);
    setSessionStatus(now, SessionStatus::Live);
    publish(QSimbaEvent::sessionOpened(s.id, grant.remaining));
    if (shortened(grant.remaining, now - call.sent))
        publish(QSimbaEvent::sessionLeaseShortened(s.id, grant.remaining, leaseMillis()));
    if (m_closing)
        return; // sendNext closes it
    for (auto &[name, e] : m_slots)
        if (e.phase == Status::Candidate)
            setNextTry(e, now);
}

void Core::onKeepAlive(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<KeepAlive>(call.call);
    auto &s = m_session;
    if (sent.session != s.id || !(s.status == SessionStatus::Live || s.status == SessionStatus::Suspended))
        return; // an answer about a session already given up
    if (reply.error == Reply::Error::SessionExpired) {
        loseSession(now, Reason::SessionExpired);
        return;
    }
    if (reply.error == Reply::Error::Failed) {
        s.nextRenew = retryAt(now, s.backoff);
        if (s.status == SessionStatus::Live) {
            setSessionStatus(now, SessionStatus::Suspended);
            publish(QSimbaEvent::sessionSuspended(s.id, reply.message));
        }
        return;
    }
    const auto result = std::get<Backend::KeepAliveResult>(reply.value);
    if (!result.isLive) {
        loseSession(now, Reason::SessionExpired);
        return;
    }
    s.deadline->store(localDeadline(call.sent, result.remaining).count(), std::memory_order_release);
    s.backoff = 0ns;
    s.reopenBackoff = 0ns;
    s.nextRenew = renewAfter(call.sent, result.remaining);
    setSessionStatus(now, SessionStatus::Live);
    publish(QSimbaEvent::sessionRenewed(s.id, result.remaining));
    if (shortened(result.remaining, now - call.sent))
        publish(QSimbaEvent::sessionLeaseShortened(s.id, result.remaining, leaseMillis()));
    for (auto &[name, e] : m_slots)
        if (e.phase == Status::Leader && sent.held.contains(name) && !result.owned.contains(name)
            && e.termSession == s.id)
            loseTerm(now, e, Reason::TakenOver);
    // Leases the session owns without a term (an acquire whose answer was lost): take
    // their token with an acquire, then release them.
    for (const auto &name : result.owned) {
        if (sent.held.contains(name))
            continue;
        auto it = m_slots.find(name);
        const bool candidate = it != m_slots.end() && it->second.phase == Status::Candidate;
        if (candidate) {
            if (!it->second.acquiring && it->second.nextTry > now)
                setNextTry(it->second, now);
        } else
            m_orphans.insert(name);
    }
}

void Core::onClosedSession(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<CloseSession>(call.call);
    if (reply.error != Reply::Error::None)
        qCInfo(lcSimbaSession) << "closeSession failed (the session will expire):" << reply.message;
    if (m_sessionClosing && sent.session == m_session.id && m_session.status != SessionStatus::Closed) {
        setSessionStatus(now, SessionStatus::Closed);
        publish(QSimbaEvent::sessionClosed(m_session.id));
    }
}

void Core::setSessionStatus(Nanos now, SessionStatus status)
{
    auto &s = m_session;
    if (s.status == SessionStatus::Live && status != SessionStatus::Live)
        s.notLiveSince = now;
    s.status = status;
}

void Core::loseSession(Nanos now, Reason reason)
{
    auto &s = m_session;
    const QSimbaSessionId lost = s.id;
    qCWarning(lcSimbaSession) << "session" << lost.toString() << "lost:" << QSimbaTerm::reasonName(reason);
    publish(QSimbaEvent::sessionExpired(lost, reason));
    // Pending releases of the lost session are moot: its leases end with it.
    m_releases.erase(std::remove_if(m_releases.begin(), m_releases.end(),
                                    [&](const PendingRelease &r) { return r.session == lost; }),
                     m_releases.end());
    m_orphans.clear();
    if (reason == Reason::DeadlinePassed && !m_closing)
        m_staleSessions.push_back(lost); // free its leases early if the backend still has it
    setSessionStatus(now, SessionStatus::Opening);
    s.backoff = 0ns;
    // Sessions lost right after they opened (a grant shorter than the margin, a backend
    // that expires at once) reopen with a growing backoff instead of in a hot loop.
    const bool quick = now - s.openedAt < m_options.config.renewInterval();
    s.reopenBackoff = quick ? backoffStep(s.reopenBackoff) : 0ns;
    s.nextOpen = now + s.reopenBackoff;
    // The old deadline stays with the old terms; the next session gets its own.
    s.deadline = std::make_shared<std::atomic<qint64>>(0);
    for (auto &[name, e] : m_slots) {
        if (e.phase == Status::Leader && e.termSession == lost)
            loseTerm(now, e, reason);
        else if (e.phase == Status::Handover && e.termSession == lost) {
            e.workRunning = false;
            if (e.handover == Handover::AwaitingWork)
                continueHandover(now, e); // queues revoked; there is nothing to release
            if (e.phase == Status::Handover)
                finishHandover(now, e);
        }
    }
}

bool Core::sendSessionCall(Nanos now)
{
    auto &s = m_session;
    const bool live = s.status == SessionStatus::Live || s.status == SessionStatus::Suspended;
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
    return false;
}

bool Core::sendStaleClose(Nanos now)
{
    if (m_staleSessions.empty())
        return false;
    const auto id = m_staleSessions.front();
    m_staleSessions.pop_front();
    send(now, CloseSession{id});
    return true;
}

bool Core::sendSessionClose(Nanos now)
{
    // Closing, and every slot handed over (sendNext checks).
    m_sessionClosing = true;
    if (m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended) {
        send(now, CloseSession{m_session.id});
        return true;
    }
    // No live session: closed without a call, and nothing else goes out.
    setSessionStatus(now, SessionStatus::Closed);
    checkClosed(now);
    return false;
}

} // namespace QSimbaEngine
