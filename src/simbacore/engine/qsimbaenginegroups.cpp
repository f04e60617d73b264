// SPDX-License-Identifier: Apache-2.0
// Partition groups: join with the session, follow the members, contend for the partitions
// assigned here (QSimbaPartitionAssignment), hand over the others, leave when stopped.
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"
#include "qsimbapartitionassignment.h"

using namespace std::chrono_literals;

namespace QSimbaEngine {

void Core::on(Nanos now, const In::StartGroup &in)
{
    const auto &[group, partitions] = in;
    if (m_closing)
        return;
    auto &g = m_groups[group];
    g.name = group;
    g.partitions = partitions;
    g.stopping = false;
    for (quint64 p : std::exchange(g.promises, {}))
        complete(QString(), p); // a stop superseded by this start
    g.nextJoin = now;
    g.nextRefresh = now;
    pump(now);
}

void Core::on(Nanos now, const In::StopGroup &in)
{
    const QString &group = in.group;
    auto it = m_groups.find(group);
    if (it == m_groups.end()) {
        complete(QString(), in.done);
        pump(now);
        return;
    }
    auto &g = it->second;
    g.stopping = true;
    waitFor(g.promises, in.done);
    g.owned.clear();
    for (auto &[name, e] : m_slots) {
        if (e.group == group) {
            e.restart.reset(); // a partition that moved back while handing over stops too
            stopContending(now, e);
        }
    }
    checkGroupStopped(now, g);
    pump(now);
}

QSet<int> Core::groupPartitions(const QString &group) const
{
    auto it = m_groups.find(group);
    return it == m_groups.end() ? QSet<int>() : it->second.owned;
}

QSimbaLeaseName Core::partitionName(const Group &g, int p) const
{
    return QSimbaLeaseName::of(g.name + QLatin1Char('.') + QString::number(p));
}

void Core::onJoined(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Join>(call.call);
    auto it = m_groups.find(sent.group);
    if (reply.error == Reply::Error::SessionExpired) {
        if (sent.session == m_session.id && m_session.status == SessionStatus::Live)
            loseSession(now, Reason::SessionExpired);
        return;
    }
    if (it == m_groups.end())
        return;
    auto &g = it->second;
    if (reply.error != Reply::Error::None) {
        g.nextJoin = retryAt(now, g.backoff);
        return;
    }
    g.backoff = 0ns;
    g.joined = sent.session;
    g.nextRefresh = now;
    if (g.stopping)
        checkGroupStopped(now, g);
}

void Core::onLeft(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Leave>(call.call);
    auto it = m_groups.find(sent.group);
    if (it == m_groups.end())
        return;
    auto &g = it->second;
    if (reply.error == Reply::Error::SessionExpired) {
        if (sent.session == m_session.id && m_session.status == SessionStatus::Live)
            loseSession(now, Reason::SessionExpired);
    } else if (reply.error == Reply::Error::Failed && sent.session == m_session.id) {
        // Retried with a backoff: a member left behind would own partitions nobody runs.
        qCInfo(lcSimbaEngine) << "leave of group" << g.name << "failed, retrying:" << reply.message;
        g.nextLeave = retryAt(now, g.backoff);
        g.leaveRetry = true;
        return;
    }
    g.backoff = 0ns;
    if (g.joinSent == sent.session)
        g.joinSent = QSimbaSessionId();
    if (g.joined == sent.session)
        g.joined = QSimbaSessionId();
    checkGroupStopped(now, g);
}

void Core::onMembers(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Members>(call.call);
    auto it = m_groups.find(sent.group);
    if (it == m_groups.end() || it->second.stopping)
        return;
    auto &g = it->second;
    if (reply.error != Reply::Error::None) {
        g.nextRefresh = retryAt(now, g.backoff);
        return;
    }
    g.backoff = 0ns;
    g.nextRefresh = now + m_options.config.renewInterval();
    const auto members = std::get<QList<QSimbaSessionId>>(reply.value);
    if (!members.contains(m_session.id)) {
        g.joined = QSimbaSessionId(); // not (or no longer) a member: join again
        g.nextJoin = now;
        return;
    }
    g.members = members;
    assign(now, g);
}

void Core::assign(Nanos now, Group &g)
{
    g.owned = QSimbaPartitionAssignment::partitionsOf(m_session.id, g.partitions, g.members);
    for (int p = 0; p < g.partitions; ++p) {
        const auto name = partitionName(g, p);
        auto &e = m_slots[name];
        e.name = name;
        e.group = g.name;
        e.partition = p;
        if (g.owned.contains(p)) {
            if (e.phase == Status::Idle) {
                startContending(now, e, Policy::partition());
            } else if (e.phase == Status::Handover && e.after == After::Idle) {
                e.restart = Policy::partition(); // moved back here while handing over
            }
        } else {
            // Moved away: hand over (work first, then the lease).
            e.restart.reset();
            stopContending(now, e);
        }
    }
}

void Core::checkGroupStopped(Nanos, Group &g)
{
    if (!g.stopping)
        return;
    const bool handedOver = groupHandedOver(g.name);
    const bool live = m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended;
    // Leaving needs a live session; without one, membership ends with the session. A join
    // sent in this session (answered or not, failed or not) is undone by a leave first.
    if (handedOver && (g.joinSent.isNull() || g.joinSent != m_session.id || !live || m_closing)) {
        for (quint64 p : std::exchange(g.promises, {}))
            complete(QString(), p);
        const QString name = g.name;
        m_groups.erase(name);
    }
}

bool Core::groupHandedOver(const QString &name) const
{
    return std::none_of(m_slots.cbegin(), m_slots.cend(), [&](const auto &p) {
        return p.second.group == name && p.second.phase != Status::Idle;
    });
}

bool Core::sendGroupCall(Nanos now)
{
    const auto &s = m_session;
    if (s.status != SessionStatus::Live)
        return false;
    for (auto &[name, g] : m_groups) {
        if (g.stopping) {
            // A join sent in this session may have been applied even if its answer
            // failed: leave, retried, until it succeeds or the session ends.
            if (groupHandedOver(name) && g.joinSent == s.id && !m_closing && now >= g.nextLeave) {
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
    return false;
}

} // namespace QSimbaEngine
