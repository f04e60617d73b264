// SPDX-License-Identifier: Apache-2.0
#include "qsimbaengine_p.h"

#include "qsimbaerror.h"
#include "qsimbalogging_p.h"
#include "qsimbapartitionassignment.h"

using namespace std::chrono;
using namespace std::chrono_literals;

namespace QSimbaEngine {

namespace {
template<class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template<class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;
} // namespace

Reply execute(Backend &backend, const Call &call)
{
    Reply reply;
    try {
        std::visit(Overloaded{
                       [&](const OpenSession &c) { reply.value = backend.openSession(c.lease, c.metadata); },
                       [&](const KeepAlive &c) { reply.value = backend.keepAlive(c.session, c.lease, c.held); },
                       [&](const Acquire &c) { reply.value = backend.acquire(c.session, c.names); },
                       [&](const Release &c) { backend.release(c.session, c.leases); },
                       [&](const CloseSession &c) { backend.closeSession(c.session); },
                       [&](const Join &c) { backend.join(c.session, c.group); },
                       [&](const Leave &c) { backend.leave(c.session, c.group); },
                       [&](const Members &c) { reply.value = backend.members(c.group); },
                   },
                   call);
    } catch (const QSimbaSessionExpiredError &e) {
        reply.error = Reply::Error::SessionExpired;
        reply.message = e.message();
    } catch (const QSimbaError &e) {
        reply.error = Reply::Error::Failed;
        reply.message = e.message();
    } catch (const std::exception &e) {
        reply.error = Reply::Error::Failed;
        reply.message = QString::fromLocal8Bit(e.what());
    }
    return reply;
}

QString describe(const Call &call)
{
    return std::visit(Overloaded{
                          [](const OpenSession &) { return QStringLiteral("openSession"); },
                          [](const KeepAlive &) { return QStringLiteral("keepAlive"); },
                          [](const Acquire &c) { return QStringLiteral("acquire(%1 names)").arg(c.names.size()); },
                          [](const Release &c) { return QStringLiteral("release(%1 leases)").arg(c.leases.size()); },
                          [](const CloseSession &) { return QStringLiteral("closeSession"); },
                          [](const Join &c) { return QStringLiteral("join(%1)").arg(c.group); },
                          [](const Leave &c) { return QStringLiteral("leave(%1)").arg(c.group); },
                          [](const Members &c) { return QStringLiteral("members(%1)").arg(c.group); },
                      },
                      call);
}

Core::Core(Options options) : m_options(std::move(options)), m_random(m_options.seed)
{
    if (!m_options.ticker)
        m_options.ticker = QSimbaTicker::system();
    m_session.deadline = std::make_shared<std::atomic<qint64>>(0);
}

Core::~Core() = default;

Millis Core::leaseMillis() const
{
    return duration_cast<Millis>(m_options.config.leaseDuration());
}

Nanos Core::localDeadline(Nanos sent, Millis remaining) const
{
    const double scaled = double(duration_cast<Nanos>(remaining).count()) * (1.0 - m_options.config.drift());
    return sent + Nanos(qint64(scaled)) - m_options.config.margin();
}

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

void Core::setNextTry(Election &e, Nanos when)
{
    e.nextTry = when;
    m_tries.push({when, e.name});
}

void Core::addTimer(const Election &e, Nanos when)
{
    if (when != Never)
        m_timers.push({when, e.name});
}

bool Core::lockWaiting(const Election &e) const
{
    return std::any_of(e.waiters.cbegin(), e.waiters.cend(), [](const Waiter &w) { return !w.granted && !w.cancelled; });
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

// ---------------------------------------------------------------------------------------
// Inputs

void Core::start(Nanos now)
{
    if (m_started)
        return;
    m_started = true;
    m_session.nextOpen = now;
    m_session.notLiveSince = now;
    pump(now);
}

bool Core::startElection(Nanos now, const QSimbaLeaseName &name, Kind kind, bool oneTerm, bool withWork)
{
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

void Core::stopElection(Nanos now, const QSimbaLeaseName &name, quint64 promise)
{
    auto it = m_elections.find(name);
    if (it == m_elections.end()) {
        complete(name.toString(), promise);
        return;
    }
    auto &e = it->second;
    e.restart = false;
    const bool handingOver = e.phase == Status::Leader || e.phase == Status::Handover;
    if (handingOver && promise)
        e.promises.push_back(promise); // completed when the handover is done
    stopContending(now, e);
    if (!handingOver)
        complete(name.toString(), promise);
    pump(now);
}

void Core::stepDown(Nanos now, const QSimbaLeaseName &name, Nanos cooldown, quint64 promise)
{
    auto it = m_elections.find(name);
    if (it == m_elections.end()) {
        complete(name.toString(), promise);
        return;
    }
    auto &e = it->second;
    switch (e.phase) {
    case Status::Idle:
        complete(name.toString(), promise);
        break;
    case Status::Candidate:
    case Status::Cooldown:
        e.cooldownUntil = std::max(e.phase == Status::Cooldown ? e.cooldownUntil : now, now + cooldown);
        setPhase(e, Status::Cooldown);
        addTimer(e, e.cooldownUntil);
        complete(name.toString(), promise);
        break;
    case Status::Leader:
        if (promise)
            e.promises.push_back(promise);
        beginHandover(now, e, Reason::SteppedDown, After::Cooldown, cooldown);
        break;
    case Status::Handover:
        if (promise)
            e.promises.push_back(promise);
        if (e.after != After::Idle) {
            e.after = After::Cooldown;
            e.afterCooldown = std::max(e.afterCooldown, cooldown);
        }
        break;
    }
    pump(now);
}

void Core::close(Nanos now, quint64 closed, quint64 afterCallbacks)
{
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
    for (auto &[name, e] : m_elections) {
        e.restart = false;
        for (const auto &w : std::exchange(e.waiters, {}))
            if (!w.granted)
                answerWaiter(e, w, nullptr, Failure::Closed);
        stopContending(now, e);
    }
    pump(now);
}

void Core::backendReplied(Nanos now, quint64 callId, const Reply &reply)
{
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

void Core::hint(Nanos now, const Backend::Hint &hint)
{
    if (hint.kind == Backend::Hint::Kind::Released) {
        const QString error = QSimbaLeaseName::validate(hint.name);
        if (!error.isEmpty())
            return;
        auto it = m_elections.find(QSimbaLeaseName::of(hint.name));
        if (it != m_elections.end() && it->second.phase == Status::Candidate) {
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

void Core::taskFinished(Nanos now, const QString &stream, bool rejected, Taken taken)
{
    auto sit = m_streams.find(stream);
    if (sit == m_streams.end() || !sit->running)
        return;
    const Task task = std::move(sit->current);
    sit->running = false;
    sit->current = Task();
    setStreamBusy(stream, true);
    if (task.lockResult && task.term) {
        auto it = m_elections.find(task.name);
        if (it != m_elections.end()) {
            auto &e = it->second;
            auto w = std::find_if(e.waiters.begin(), e.waiters.end(), [&](const Waiter &x) { return x.id == task.promise; });
            const bool ours = e.term == task.term;
            if (!rejected && taken == Taken::Yes) {
                if (w != e.waiters.end())
                    e.waiters.erase(w); // delivered: the term is the caller's now
            } else if (rejected) {
                // Not delivered: the waiter does not see this term and goes on waiting, while
                // the lock steps down for one lease duration.
                if (ours && e.phase == Status::Leader) {
                    if (w != e.waiters.end())
                        w->granted = false;
                    beginHandover(now, e, Reason::SteppedDown, After::Cooldown, m_options.config.leaseDuration());
                } else if (w != e.waiters.end()) {
                    resumeLock(now, e, w, m_options.config.leaseDuration()); // the term ended first
                } else {
                    // Dropped by close() while its result was on its way: the future still
                    // completes, here, since its continuation cannot run where it should.
                    m_effects.push_back(Effect::resolve(task.promise, nullptr, Failure::Closed));
                }
            } else if (taken == Taken::Retry && w != e.waiters.end() && !w->cancelled) {
                // The term ended before it could be handed over: keep contending.
                resumeLock(now, e, w);
            } else {
                // Cancelled (or dropped by close): abandon the attempt and release the term
                // won for it. A waiter close() dropped still gets its answer.
                if (w != e.waiters.end()) {
                    e.waiters.erase(w);
                } else {
                    Waiter dropped;
                    dropped.id = task.promise;
                    answerWaiter(e, dropped, nullptr, Failure::Closed);
                }
                if (ours && e.phase == Status::Leader)
                    beginHandover(now, e, Reason::Stopped, After::Idle);
            }
        }
    } else if (task.type == Task::Type::Elected && task.term) {
        if (!rejected) {
            task.term->electedDelivered.store(true, std::memory_order_release);
        } else {
            // The executor refused the elected callback: the term is not delivered, and the
            // election steps down for one lease duration.
            qCWarning(lcSimbaElection) << "callback executor rejected elected of" << task.name
                                       << "- stepping down for one lease duration";
            auto it = m_elections.find(task.name);
            // A lock's term is delivered by its lock result, not by elected.
            if (it != m_elections.end() && it->second.term == task.term && it->second.kind != Kind::Lock) {
                auto &e = it->second;
                e.work = false; // its work never starts
                if (e.phase == Status::Leader)
                    beginHandover(now, e, Reason::SteppedDown, After::Cooldown, m_options.config.leaseDuration());
                else if (e.phase == Status::Handover)
                    continueHandover(now, e);
            }
        }
    } else if (rejected && task.type == Task::Type::Complete && task.promise) {
        // A future must complete even when its continuation cannot run where it should.
        m_effects.push_back(Effect::resolve(task.promise));
    }
    dispatch(stream);
    checkClosed(now);
    pump(now);
}

void Core::workExited(Nanos now, const QSimbaLeaseName &name, qint64 token)
{
    auto it = m_elections.find(name);
    if (it == m_elections.end() || !it->second.term || it->second.term->token != token)
        return;
    auto &e = it->second;
    e.work = false;
    if (e.phase == Status::Handover)
        continueHandover(now, e);
    pump(now);
}

void Core::tick(Nanos now)
{
    pump(now);
}

// ---------------------------------------------------------------------------------------
// The loop

void Core::checkDeadline(Nanos now)
{
    if ((m_session.status == SessionStatus::Live || m_session.status == SessionStatus::Suspended)
        && now.count() >= m_session.deadline->load())
        loseSession(now, Reason::DeadlinePassed);
}

void Core::dueTimers(Nanos now)
{
    while (!m_timers.empty() && m_timers.top().first <= now) {
        const QSimbaLeaseName name = m_timers.top().second;
        m_timers.pop();
        auto it = m_elections.find(name);
        if (it == m_elections.end())
            continue;
        auto &e = it->second;
        if (e.phase == Status::Handover && !e.revokedQueued && now >= e.handoverDeadline) {
            qCWarning(lcSimbaElection) << "leader work of" << name << "did not exit before the term's deadline";
            e.work = false;
            continueHandover(now, e);
        }
        if (e.phase == Status::Cooldown && now >= e.cooldownUntil) {
            setPhase(e, Status::Candidate);
            setNextTry(e, now);
        }
        expireWaiters(now, e);
    }
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
        for (const auto &[name, e] : m_elections)
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
                const bool handedOver = std::none_of(m_elections.cbegin(), m_elections.cend(), [&](const auto &p) {
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
                auto it = m_elections.find(n);
                if (it != m_elections.end() && it->second.phase == Status::Candidate) {
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
        auto it = m_elections.find(n);
        if (it == m_elections.end() || it->second.phase != Status::Candidate || it->second.acquiring
            || it->second.nextTry != t)
            continue; // stale
        names.insert(n);
    }
    return names;
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

// ---------------------------------------------------------------------------------------
// Replies

void Core::onOpened(Nanos now, const Inflight &call, const Reply &reply)
{
    auto &s = m_session;
    if (reply.error != Reply::Error::None) {
        s.backoff = backoffStep(s.backoff);
        s.nextOpen = now + s.backoff;
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
    for (auto &[name, e] : m_elections)
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
        s.backoff = backoffStep(s.backoff);
        s.nextRenew = now + s.backoff;
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
    for (auto &[name, e] : m_elections)
        if (e.phase == Status::Leader && sent.held.contains(name) && !result.owned.contains(name)
            && e.termSession == s.id)
            loseTerm(now, e, Reason::TakenOver);
    // Leases the session owns without a term (an acquire whose answer was lost): take
    // their token with an acquire, then release them.
    for (const auto &name : result.owned) {
        if (sent.held.contains(name))
            continue;
        auto it = m_elections.find(name);
        const bool candidate = it != m_elections.end() && it->second.phase == Status::Candidate;
        if (candidate) {
            if (!it->second.acquiring && it->second.nextTry > now)
                setNextTry(it->second, now);
        } else
            m_orphans.insert(name);
    }
}

void Core::onAcquired(Nanos now, const Inflight &call, const Reply &reply)
{
    const auto &sent = std::get<Acquire>(call.call);
    auto &s = m_session;
    for (const auto &name : sent.names) {
        auto it = m_elections.find(name);
        if (it != m_elections.end())
            it->second.acquiring = false;
    }
    if (reply.error == Reply::Error::SessionExpired) {
        if (sent.session == s.id && (s.status == SessionStatus::Live || s.status == SessionStatus::Suspended))
            loseSession(now, Reason::SessionExpired);
        return;
    }
    if (reply.error == Reply::Error::Failed) {
        for (const auto &name : sent.names) {
            auto it = m_elections.find(name);
            if (it == m_elections.end())
                continue;
            auto &e = it->second;
            if (e.phase != Status::Candidate)
                continue; // an orphan, or no longer contending: nothing failed for the user
            e.backoff = backoffStep(e.backoff);
            setNextTry(e, e.retryAfterReply ? now : now + e.backoff);
            publish(QSimbaEvent::acquireFailed(sent.session, name, e.kind, reply.message));
        }
        return;
    }
    const auto results = std::get<QHash<QSimbaLeaseName, Backend::AcquireResult>>(reply.value);
    const bool current = sent.session == s.id && s.status == SessionStatus::Live;
    const Nanos poll = m_options.config.renewInterval();
    for (auto r = results.cbegin(); r != results.cend(); ++r) {
        const auto &name = r.key();
        auto it = m_elections.find(name);
        const bool wanted = current && it != m_elections.end() && it->second.phase == Status::Candidate;
        if (r->isGranted) {
            if (wanted && r->token > it->second.lastToken) {
                win(now, it->second, r->token);
            } else {
                // Not wanted any more, or a lease this client still owns from an ended term
                // (its release was lost): a new term needs a new token, so release first.
                m_releases.push_back({sent.session, name, r->token});
                if (wanted)
                    setNextTry(it->second, now);
            }
            continue;
        }
        if (!wanted)
            continue;
        auto &e = it->second;
        e.backoff = 0ns;
        if (e.kind == Kind::Lock) {
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

// ---------------------------------------------------------------------------------------
// Sessions and terms

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
    for (auto &[name, e] : m_elections) {
        if (e.phase == Status::Leader && e.termSession == lost)
            loseTerm(now, e, reason);
        else if (e.phase == Status::Handover && e.termSession == lost) {
            e.releasing = false;
            e.work = false;
            if (!e.revokedQueued)
                continueHandover(now, e); // queues revoked; there is nothing to release
            if (e.phase == Status::Handover)
                finishHandover(now, e);
        }
    }
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

void Core::finishHandover(Nanos now, Election &e)
{
    e.term.reset();
    e.releasing = false;
    e.work = false;
    afterTerm(now, e, e.after, e.afterCooldown);
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

// ---------------------------------------------------------------------------------------
// Callback streams

void Core::setStreamBusy(const QString &stream, bool before)
{
    if (stream.isEmpty())
        return;
    const auto &s = m_streams[stream];
    const bool after = s.running || !s.queue.empty();
    m_busyStreams += int(after) - int(before);
}

void Core::enqueue(const QString &stream, Task task)
{
    auto &s = m_streams[stream];
    const bool before = s.running || !s.queue.empty();
    s.queue.push_back(std::move(task));
    if (!s.running)
        dispatchQueued(s, stream);
    setStreamBusy(stream, before);
}

void Core::dispatch(const QString &stream)
{
    auto &s = m_streams[stream];
    const bool before = s.running || !s.queue.empty();
    dispatchQueued(s, stream);
    setStreamBusy(stream, before);
}

void Core::dispatchQueued(Stream &s, const QString &stream)
{
    while (!s.running && !s.queue.empty()) {
        Task task = std::move(s.queue.front());
        s.queue.pop_front();
        // Every elected is followed by exactly one revoked: a term whose elected was not
        // delivered gets no revoked either.
        if (task.type == Task::Type::Revoked && !task.term->electedDelivered.load(std::memory_order_acquire))
            continue;
        s.running = true;
        s.current = task;
        m_effects.push_back(Effect::runTask(stream, std::move(task)));
    }
}

void Core::publish(const QSimbaEvent &event)
{
    Task t;
    t.type = Task::Type::Event;
    t.event = event;
    enqueue(QString(), t);
}

void Core::complete(const QString &stream, quint64 promise)
{
    if (!promise)
        return;
    if (promise & DirectPromise) {
        m_effects.push_back(Effect::resolve(promise));
        return;
    }
    Task t;
    t.type = Task::Type::Complete;
    t.promise = promise;
    enqueue(stream, t);
}


// ---------------------------------------------------------------------------------------
// Locks

void Core::acquireLock(Nanos now, const QSimbaLeaseName &name, quint64 waiter, Nanos timeout, bool tryOnce)
{
    auto &e = m_elections[name];
    e.name = name;
    Waiter w;
    w.id = waiter;
    w.timeout = timeout;
    w.tryOnce = tryOnce;
    w.deadline = timeout >= Never - now ? Never : now + timeout; // a huge timeout saturates
    if (m_closing) {
        answerWaiter(e, w, nullptr, Failure::Closed);
        return;
    }
    const Contention asLock{Kind::Lock, true, false};
    const bool stopping = e.phase == Status::Handover && e.after == After::Idle;
    if (e.phase != Status::Idle && e.kind != Kind::Lock && !(stopping && (!e.restart || e.restartAs.kind == Kind::Lock))) {
        answerWaiter(e, w, nullptr, Failure::Busy);
        return;
    }
    if (tryOnce && (e.phase == Status::Leader || e.phase == Status::Handover)) {
        answerWaiter(e, w, nullptr, Failure::None); // held by this client
        return;
    }
    e.waiters.push_back(w);
    addTimer(e, w.deadline);
    if (e.phase == Status::Idle) {
        startContending(now, e, asLock);
    } else if (e.kind != Kind::Lock) {
        // An election of this name is stopping: contend as a lock once it handed over.
        e.restart = true;
        e.restartAs = asLock;
    } else if (tryOnce && e.phase == Status::Candidate && !e.acquiring && e.nextTry > now) {
        setNextTry(e, now);
    }
    pump(now);
}

void Core::cancelLock(Nanos now, const QSimbaLeaseName &name, quint64 waiter)
{
    auto it = m_elections.find(name);
    if (it == m_elections.end())
        return;
    auto &e = it->second;
    auto w = std::find_if(e.waiters.begin(), e.waiters.end(), [&](const Waiter &x) { return x.id == waiter; });
    if (w == e.waiters.end()) {
        // A blocking waiter is forgotten the moment its term is resolved to it; when it was
        // interrupted just then, nobody holds the term: release it.
        if (e.grantedTo == waiter && e.phase == Status::Leader && e.term)
            beginHandover(now, e, Reason::Stopped, After::Idle);
        pump(now);
        return;
    }
    if (w->granted) {
        w->cancelled = true; // its result declines, which releases the term
    } else {
        answerWaiter(e, *w, nullptr, Failure::None); // completes the cancelled future
        e.waiters.erase(w);
    }
    dropIdleLock(e);
    pump(now);
}

void Core::releaseLock(Nanos now, const QSimbaLeaseName &name, qint64 token, quint64 promise)
{
    auto it = m_elections.find(name);
    if (it == m_elections.end() || !it->second.term || it->second.term->token != token) {
        complete(name.toString(), promise); // ended already: nothing to wait for
        pump(now);
        return;
    }
    auto &e = it->second;
    if (promise)
        e.promises.push_back(promise);
    if (e.phase == Status::Leader)
        beginHandover(now, e, Reason::Stopped, After::Idle);
    pump(now);
}

void Core::grantWaiter(Nanos now, Election &e)
{
    auto w = std::find_if(e.waiters.begin(), e.waiters.end(), [](const Waiter &x) { return !x.granted && !x.cancelled; });
    if (w == e.waiters.end()) {
        beginHandover(now, e, Reason::Stopped, After::Idle); // nobody waits any more
        return;
    }
    w->granted = true;
    answerWaiter(e, *w, e.term, Failure::None);
    if (w->id & DirectPromise) { // handed over at once: the caller owns the term
        e.grantedTo = w->id;
        e.waiters.erase(w);
    }
    // tryAcquire behind the winner: this client holds the lease now, so the answer is null.
    for (auto t = e.waiters.begin(); t != e.waiters.end();) {
        if (t->tryOnce && !t->granted && !t->cancelled) {
            answerWaiter(e, *t, nullptr, Failure::None);
            t = e.waiters.erase(t);
        } else {
            ++t;
        }
    }
}

void Core::resumeLock(Nanos now, Election &e, std::deque<Waiter>::iterator w, Nanos cooldown)
{
    w->granted = false;
    if (m_closing) {
        answerWaiter(e, *w, nullptr, Failure::Closed);
        e.waiters.erase(w);
        return;
    }
    if (e.phase == Status::Idle) {
        startContending(now, e, {Kind::Lock, true, false});
        if (cooldown > 0ns) {
            e.cooldownUntil = now + cooldown;
            setPhase(e, Status::Cooldown);
            addTimer(e, e.cooldownUntil);
        }
    } else if (e.kind != Kind::Lock && !(e.restart && e.restartAs.kind == Kind::Lock)) {
        answerWaiter(e, *w, nullptr, Failure::Busy); // an election took the name meanwhile
        e.waiters.erase(w);
    }
    addTimer(e, now); // its timeout may have passed while the term was on its way
}

void Core::dropIdleLock(Election &e)
{
    if (e.kind != Kind::Lock || lockWaiting(e))
        return;
    if (e.phase == Status::Candidate || e.phase == Status::Cooldown)
        setPhase(e, Status::Idle);
    if (e.phase == Status::Idle && e.waiters.empty())
        e.kind = Kind::Election;
}

void Core::answerWaiter(Election &e, const Waiter &w, const TermPtr &term, Failure failure)
{
    if (w.id & DirectPromise) {
        m_effects.push_back(Effect::resolve(w.id, term, failure));
        return;
    }
    Task t;
    t.type = Task::Type::Complete;
    t.name = e.name;
    t.promise = w.id;
    t.failure = failure;
    t.term = term;
    t.lockResult = true;
    enqueue(e.name.toString(), t);
}

void Core::expireWaiters(Nanos now, Election &e)
{
    if (e.waiters.empty())
        return;
    bool changed = false;
    const bool live = m_session.status == SessionStatus::Live;
    for (auto w = e.waiters.begin(); w != e.waiters.end();) {
        if (w->granted || now < w->deadline) {
            ++w;
        } else if (!w->attempted && live && e.phase == Status::Candidate) {
            // Even a zero timeout gets one answered attempt (acquire(0) on a free lock
            // succeeds); without a live session nothing is attempted and it times out.
            addTimer(e, now + m_options.config.minBackoff());
            ++w;
        } else {
            // tryAcquire answers null when no attempt was answered in time.
            answerWaiter(e, *w, nullptr, w->tryOnce ? Failure::None : Failure::Timeout);
            w = e.waiters.erase(w);
            changed = true;
        }
    }
    if (changed)
        dropIdleLock(e);
}

void Core::workFinished(Nanos now, const TermPtr &term, QSimbaEvent::WorkOutcome outcome, const QString &error,
                        bool exited)
{
    auto it = m_elections.find(term->name);
    const Kind kind = it != m_elections.end() ? it->second.kind : Kind::Election;
    publish(QSimbaEvent::workCompleted(term->session, QSimbaTerm(term), kind, outcome, error));
    if (exited)
        workExited(now, term->name, term->token);
}

// ---------------------------------------------------------------------------------------
// Partition groups

QSimbaLeaseName Core::partitionName(const Group &g, int p) const
{
    return QSimbaLeaseName::of(g.name + QLatin1Char('.') + QString::number(p));
}

void Core::startGroup(Nanos now, const QString &group, int partitions)
{
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

void Core::stopGroup(Nanos now, const QString &group, quint64 promise)
{
    auto it = m_groups.find(group);
    if (it == m_groups.end()) {
        complete(QString(), promise);
        pump(now);
        return;
    }
    auto &g = it->second;
    g.stopping = true;
    if (promise)
        g.promises.push_back(promise);
    g.owned.clear();
    for (auto &[name, e] : m_elections) {
        if (e.group == group) {
            e.restart = false; // a partition that moved back while handing over stops too
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

void Core::checkGroupStopped(Nanos, Group &g)
{
    if (!g.stopping)
        return;
    const bool handedOver = std::none_of(m_elections.cbegin(), m_elections.cend(), [&](const auto &p) {
        return p.second.group == g.name && p.second.phase != Status::Idle;
    });
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
        g.backoff = backoffStep(g.backoff);
        g.nextJoin = now + g.backoff;
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
        g.backoff = backoffStep(g.backoff);
        g.nextLeave = now + g.backoff;
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
        g.backoff = backoffStep(g.backoff);
        g.nextRefresh = now + g.backoff;
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
        auto &e = m_elections[name];
        e.name = name;
        e.group = g.name;
        e.partition = p;
        if (g.owned.contains(p)) {
            if (e.phase == Status::Idle) {
                startContending(now, e, {Kind::Group, false, true});
            } else if (e.phase == Status::Handover && e.after == After::Idle) {
                e.restart = true; // moved back here while handing over
                e.restartAs = {Kind::Group, false, true};
            }
        } else {
            // Moved away: hand over (work first, then the lease).
            e.restart = false;
            stopContending(now, e);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Snapshot

bool Core::isStarted(const QSimbaLeaseName &name) const
{
    auto it = m_elections.find(name);
    return it != m_elections.end() && it->second.phase != Status::Idle;
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
    for (const auto &[name, e] : m_elections) {
        if (e.phase == Status::Idle)
            continue;
        QSimbaElectionSnapshot es;
        es.name = name;
        es.status = e.phase;
        es.kind = e.kind;
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
