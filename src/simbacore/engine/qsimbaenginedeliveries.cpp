// SPDX-License-Identifier: Apache-2.0
// Callback streams: deliveries (status, elected, revoked, events, completed promises) run
// one at a time per stream, in order, and are acknowledged by Delivered.
#include "qsimbaengine_p.h"

#include "qsimbalogging_p.h"

namespace QSimbaEngine {

void Core::on(Nanos now, const In::Delivered &in)
{
    const auto &[stream, rejected, taken] = in;
    auto sit = m_streams.find(stream);
    if (sit == m_streams.end() || !sit->running)
        return;
    const Task task = std::move(sit->current);
    sit->running = false;
    sit->current = Task();
    setStreamBusy(stream, true);
    if (task.lockResult && task.term) {
        lockResultDelivered(now, task, rejected, taken);
    } else if (task.type == Task::Type::Elected && task.term) {
        if (!rejected) {
            task.term->electedDelivered.store(true, std::memory_order_release);
        } else {
            // The executor refused the elected callback: the term is not delivered, and the
            // election steps down for one lease duration.
            qCWarning(lcSimbaElection) << "callback executor rejected elected of" << task.name
                                       << "- stepping down for one lease duration";
            auto it = m_slots.find(task.name);
            if (it != m_slots.end() && it->second.term == task.term && it->second.policy.deliveredByElected()) {
                auto &e = it->second;
                e.workRunning = false; // its work never starts
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

void Core::setStreamBusy(const QString &stream, bool before)
{
    if (stream.isEmpty())
        return;
    const auto &s = m_streams[stream];
    const bool after = s.running || !s.queue.empty();
    m_busyStreams += int(after) - int(before);
}

void Core::publish(const QSimbaEvent &event)
{
    if (m_options.eventsWanted && !m_options.eventsWanted->load(std::memory_order_acquire))
        return;
    Task t;
    t.type = Task::Type::Event;
    t.event = event;
    const auto &clock = m_options.wallClock;
    if (clock.wall.isValid())
        t.event.setTime(clock.wall.addMSecs(std::chrono::duration_cast<Millis>(m_now - clock.ticks).count()));
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

void Core::complete(const QString &stream, const Completion &done)
{
    complete(stream, done.async);
    complete(stream, done.direct);
}

void Core::waitFor(std::vector<quint64> &promises, const Completion &done)
{
    for (quint64 p : {done.async, done.direct})
        if (p)
            promises.push_back(p);
}

} // namespace QSimbaEngine
