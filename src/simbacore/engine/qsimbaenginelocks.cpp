// SPDX-License-Identifier: Apache-2.0
// Locks: the waiters of one name take its terms one at a time, in order; a term goes to a
// waiter by a direct resolve (blocking acquire) or a lock result delivery (futures).
#include "qsimbaengine_p.h"

using namespace std::chrono_literals;

namespace QSimbaEngine {

void Core::on(Nanos now, const In::AcquireLock &in)
{
    const auto &[name, waiter, timeout, tryOnce] = in;
    auto &e = m_slots[name];
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
    const Policy asLock = Policy::lock();
    const bool stopping = e.phase == Status::Handover && e.after == After::Idle;
    if (e.phase != Status::Idle && e.policy.excludes(asLock) && !(stopping && (!e.restart || !e.restart->excludes(asLock)))) {
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
    } else if (e.policy.excludes(asLock)) {
        // An election of this name is stopping: contend as a lock once it handed over.
        e.restart = asLock;
    } else if (tryOnce && e.phase == Status::Candidate && !e.acquiring && e.nextTry > now) {
        setNextTry(e, now);
    }
    pump(now);
}

void Core::on(Nanos now, const In::CancelLock &in)
{
    const auto &name = in.name;
    const quint64 waiter = in.waiter; // captured below: not a structured binding (Clang 14)
    auto it = m_slots.find(name);
    if (it == m_slots.end())
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

void Core::on(Nanos now, const In::ReleaseLock &in)
{
    const auto &[name, token, done] = in;
    auto it = m_slots.find(name);
    if (it == m_slots.end() || !it->second.term || it->second.term->token != token) {
        complete(name.toString(), done); // ended already: nothing to wait for
        pump(now);
        return;
    }
    auto &e = it->second;
    waitFor(e.promises, done);
    if (e.phase == Status::Leader)
        beginHandover(now, e, Reason::Stopped, After::Idle);
    pump(now);
}

bool Core::lockWaiting(const Slot &e) const
{
    return std::any_of(e.waiters.cbegin(), e.waiters.cend(), [](const Waiter &w) { return !w.granted && !w.cancelled; });
}

void Core::grantWaiter(Nanos now, Slot &e)
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

void Core::answerWaiter(Slot &e, const Waiter &w, const TermPtr &term, Failure failure)
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

void Core::resumeLock(Nanos now, Slot &e, std::deque<Waiter>::iterator w, Nanos cooldown)
{
    w->granted = false;
    if (m_closing) {
        answerWaiter(e, *w, nullptr, Failure::Closed);
        e.waiters.erase(w);
        return;
    }
    if (e.phase == Status::Idle) {
        startContending(now, e, Policy::lock());
        if (cooldown > 0ns) {
            e.cooldownUntil = now + cooldown;
            setPhase(e, Status::Cooldown);
            addTimer(e, e.cooldownUntil);
        }
    } else if (e.policy.excludes(Policy::lock()) && !(e.restart && !e.restart->excludes(Policy::lock()))) {
        answerWaiter(e, *w, nullptr, Failure::Busy); // an election took the name meanwhile
        e.waiters.erase(w);
    }
    addTimer(e, now); // its timeout may have passed while the term was on its way
}

void Core::dropIdleLock(Slot &e)
{
    if (!e.policy.termsGoToWaiters() || lockWaiting(e))
        return;
    if (e.phase == Status::Candidate || e.phase == Status::Cooldown)
        setPhase(e, Status::Idle);
    if (e.phase == Status::Idle && e.waiters.empty())
        e.policy = Policy(); // the name is free for either use again
}

void Core::expireWaiters(Nanos now, Slot &e)
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

void Core::lockResultDelivered(Nanos now, const Task &task, bool rejected, Taken taken)
{
    auto it = m_slots.find(task.name);
    if (it == m_slots.end())
        return;
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

} // namespace QSimbaEngine
