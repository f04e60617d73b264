// SPDX-License-Identifier: Apache-2.0
#include "qsimbazookeeperhints_p.h"

#include "qsimbazookeeperbatch_p.h"
#include "qsimbazookeeperlogging_p.h"

#include <algorithm>

/*!
    \class QSimbaZookeeperHints
    \internal
    \brief Released hints from one-shot watches on the leases waited for, MembersChanged
    hints from child watches on the groups.
*/

namespace {
QSet<QString> toSet(const String_vector *children)
{
    QSet<QString> set;
    if (children)
        for (int i = 0; i < children->count; ++i)
            set.insert(QString::fromUtf8(children->data[i]));
    return set;
}
} // namespace

QSimbaZookeeperHints::QSimbaZookeeperHints(const QString &leasesPath, const QString &groupsPath)
    : m_leasesPath(leasesPath), m_groupsPath(groupsPath)
{
}

quint64 QSimbaZookeeperHints::add(QSimbaLeaseBackend::HintListener listener)
{
    QMutexLocker lock(&m_mutex);
    const quint64 id = m_nextId++;
    m_listeners.emplace(id, std::move(listener));
    return id;
}

void QSimbaZookeeperHints::remove(quint64 id)
{
    QMutexLocker lock(&m_mutex);
    m_listeners.erase(id);
}

bool QSimbaZookeeperHints::hasListeners() const
{
    QMutexLocker lock(&m_mutex);
    return !m_listeners.empty();
}

void QSimbaZookeeperHints::publish(Hint::Kind kind, const QString &name)
{
    const Hint hint{kind, name};
    for (const auto &[id, listener] : m_listeners)
        listener(hint);
}

void QSimbaZookeeperHints::arm(zhandle_t *zh)
{
    QList<std::pair<QString, qint64>> leases;
    {
        QMutexLocker lock(&m_mutex);
        if (m_listeners.empty() || m_handle == zh)
            return;
        m_handle = zh;
        m_armedGroups.clear();
        m_watchedLeases.clear();
        m_leaseWatches.remove_if([zh](const LeaseWatch &w) { return w.zh != zh; }); // closed handles'
        // The leases known held: watched again, and each read tells a release (or a
        // handover) that came while nothing watched.
        for (auto it = m_held.cbegin(); it != m_held.cend(); ++it) {
            m_watchedLeases.insert(it.key());
            leases.append({it.key(), it.value()});
        }
    }
    for (const auto &[name, mzxid] : std::as_const(leases))
        sendLeaseWatch(zh, name, mzxid);
    listGroups(zh);
}

void QSimbaZookeeperHints::disarm()
{
    QMutexLocker lock(&m_mutex);
    m_handle = nullptr;
}

// A watch that could not be (re-)armed, typically because the connection dropped just then:
// the next arm() (the next call, or the reconnect) arms everything again.
void QSimbaZookeeperHints::broken(int rc)
{
    qCDebug(lcSimbaZookeeper, "a hint watch is lost (%s): re-arming at the next call", zerror(rc));
    disarm();
}

// No allocation rides on a watch request: zookeeper_close() may drop the completions of
// requests in flight (ZOOKEEPER-3868).
void QSimbaZookeeperHints::watchChildren(zhandle_t *zh, const QString &path, watcher_fn changed,
                                         strings_completion_t listed)
{
    const int rc = zoo_awget_children(zh, path.toUtf8().constData(), changed, this, listed, this);
    if (rc != ZOK)
        broken(rc);
}

bool QSimbaZookeeperHints::mayBeFree(const QString &name) const
{
    QMutexLocker lock(&m_mutex);
    return m_listeners.empty() || !m_held.contains(name);
}

void QSimbaZookeeperHints::noteHeld(const QString &name)
{
    QMutexLocker lock(&m_mutex);
    if (!m_listeners.empty() && !m_held.contains(name))
        m_held.insert(name, 0);
}

void QSimbaZookeeperHints::noteFree(const QString &name)
{
    QMutexLocker lock(&m_mutex);
    m_held.remove(name);
}

void QSimbaZookeeperHints::watchLease(zhandle_t *zh, const QString &name, qint64 mzxid)
{
    {
        QMutexLocker lock(&m_mutex);
        if (m_listeners.empty())
            return;
        m_held.insert(name, mzxid);
        // Not armed on this handle yet: arm() sets it with the others.
        if (m_handle != zh || m_watchedLeases.contains(name))
            return;
        m_watchedLeases.insert(name);
    }
    sendLeaseWatch(zh, name, mzxid);
}

void QSimbaZookeeperHints::sendLeaseWatch(zhandle_t *zh, const QString &name, qint64 mzxid)
{
    LeaseWatch *watch;
    {
        QMutexLocker lock(&m_mutex);
        watch = &m_leaseWatches.emplace_back(LeaseWatch{this, zh, name, mzxid});
    }
    const QByteArray path = (m_leasesPath + QLatin1Char('/') + name).toUtf8();
    const int rc = zoo_awget(zh, path.constData(), onLeaseChanged, this, onLeaseRead, watch);
    if (rc != ZOK) {
        {
            QMutexLocker lock(&m_mutex);
            m_watchedLeases.remove(name);
            m_leaseWatches.remove_if([watch](const LeaseWatch &w) { return &w == watch; });
        }
        broken(rc); // the next arm() watches it again
    }
}

// The waiter's watch fired: a deletion is the release it waits for; a change of the data,
// for a waiter queued here, may be the release that handed the lease to it (read below).
void QSimbaZookeeperHints::onLeaseChanged(zhandle_t *zh, int type, int, const char *path, void *context)
{
    if (type == ZOO_SESSION_EVENT || !path)
        return; // the watch stays registered (the C client re-registers it on a reconnect)
    auto *self = static_cast<QSimbaZookeeperHints *>(context);
    const QString name = QString::fromUtf8(path).section(QLatin1Char('/'), -1);
    QMutexLocker lock(&self->m_mutex);
    self->m_watchedLeases.remove(name); // one-shot
    const auto waiting = self->m_waitingAs.constFind(name);
    if (type == ZOO_CHANGED_EVENT && waiting != self->m_waitingAs.cend() && waiting->first(waiting->seen + 1)) {
        qCDebug(lcSimbaZookeeper, "lease %s handed over, first waiter: hinted at %lld", qPrintable(name),
                qlonglong(QSimbaZookeeperBatch::monotonicNow()));
        self->publish(Hint::Kind::Released, name); // its acquire reads whether it is its own
        return;
    }
    if (type == ZOO_CHANGED_EVENT && waiting != self->m_waitingAs.cend() && self->m_handle == zh) {
        // Handed over, to this waiter or another of the queue: read whom, and watch again
        // (a data watch: it fires on the next change or the deletion alike).
        self->m_watchedLeases.insert(name);
        auto *watch = &self->m_leaseWatches.emplace_back(LeaseWatch{self, zh, name});
        if (zoo_awget(zh, path, onLeaseChanged, self, onLeaseRead, watch) == ZOK)
            return;
        self->m_watchedLeases.remove(name);
        self->m_leaseWatches.remove_if([watch](const LeaseWatch &w) { return &w == watch; });
    }
    if (type == ZOO_DELETED_EVENT) {
        // On the request trace's clock (CLOCK_MONOTONIC ns): where a handoff's time goes.
        qCDebug(lcSimbaZookeeper, "lease %s deleted: hinted at %lld", qPrintable(name),
                qlonglong(QSimbaZookeeperBatch::monotonicNow()));
        self->m_held.remove(name);
        self->publish(Hint::Kind::Released, name);
    }
    // A change that no queued waiter of this instance reads (a takeover, a handover seen by
    // a client not queued): no hint, as before there were queues. The lease's holder
    // expiring is no hint either: candidates retry at the holder's remaining time.
}

// The answer of a waiter's watch request (watchLease(), or again after a change): the lease
// as it is now, with the watch left on it.
void QSimbaZookeeperHints::onLeaseRead(int rc, const char *value, int length, const Stat *stat, const void *data)
{
    const auto *watch = static_cast<const LeaseWatch *>(data);
    QSimbaZookeeperHints *self = watch->hints;
    QMutexLocker lock(&self->m_mutex);
    const auto waiting = self->m_waitingAs.find(watch->name);
    const QString waitingAs = waiting != self->m_waitingAs.end() ? waiting->session : QString();
    bool hint = false;
    if (rc == ZNONODE) {
        // Released (between the waiter's read and its watch, or since the change, or while
        // nothing watched). No watch is left on a missing node: the next HeldBy answer sets
        // one.
        hint = true;
        self->m_held.remove(watch->name);
    } else if (rc != ZOK) {
        qCDebug(lcSimbaZookeeper, "a lease watch is lost (%s)", zerror(rc));
    } else if (!waitingAs.isEmpty()) {
        // Queued here: only a handover to this waiter is worth its acquire; one to another
        // waiter of the queue leaves this one asleep, its watch armed.
        hint = QByteArray(value, std::max(length, 0)) == waitingAs.toUtf8();
        if (stat)
            waiting->seen = std::max(waiting->seen, stat->version);
    } else {
        // Written between the waiter's read and its watch, which will not tell it.
        hint = watch->mzxid != 0 && stat && stat->mzxid != watch->mzxid;
    }
    if (rc == ZOK && stat && !hint && self->m_held.contains(watch->name))
        self->m_held.insert(watch->name, stat->mzxid); // as the watch left it
    if (rc != ZOK)
        self->m_watchedLeases.remove(watch->name);
    if (hint) {
        qCDebug(lcSimbaZookeeper, "lease %s free or handed over to this waiter: hinted at %lld",
                qPrintable(watch->name), qlonglong(QSimbaZookeeperBatch::monotonicNow()));
        self->publish(Hint::Kind::Released, watch->name);
    }
    self->m_leaseWatches.remove_if([watch](const LeaseWatch &w) { return &w == watch; });
    if (rc != ZOK && rc != ZNONODE) {
        lock.unlock();
        self->broken(rc); // arm() sets it again (with the other leases known held)
    }
}

void QSimbaZookeeperHints::setWaitingAs(const QString &name, const QString &session, int ahead, int version)
{
    QMutexLocker lock(&m_mutex);
    if (session.isEmpty())
        m_waitingAs.remove(name);
    else
        m_waitingAs.insert(name, {session, ahead, version, version});
}

void QSimbaZookeeperHints::setWaiters(const QString &name, const QStringList &children)
{
    QMutexLocker lock(&m_mutex);
    m_waiters.insert(name, children);
}

void QSimbaZookeeperHints::watchQueueCreation(zhandle_t *zh, const QString &name, const QString &path)
{
    {
        QMutexLocker lock(&m_mutex);
        if (m_handle != zh)
            return;
        m_waiters.insert(name, {});
    }
    // The answer tells nothing the watch will not: no context rides on it.
    const int rc = zoo_awexists(zh, path.toUtf8().constData(), waitersWatcher, this,
                                [](int, const Stat *, const void *) {}, nullptr);
    if (rc != ZOK) {
        QMutexLocker lock(&m_mutex);
        m_waiters.remove(name);
    }
}

QStringList QSimbaZookeeperHints::waitersOf(const QString &name) const
{
    QStringList waiters;
    {
        QMutexLocker lock(&m_mutex);
        waiters = m_waiters.value(name);
    }
    // "<session>-<sequence>": first come first, by the sequence number ZooKeeper appended.
    std::sort(waiters.begin(), waiters.end(), [](const QString &a, const QString &b) {
        return QStringView(a).mid(a.lastIndexOf(QLatin1Char('-')) + 1)
            < QStringView(b).mid(b.lastIndexOf(QLatin1Char('-')) + 1);
    });
    return waiters;
}

void QSimbaZookeeperHints::forgetWaiters(const QString &name)
{
    QMutexLocker lock(&m_mutex);
    m_waiters.remove(name);
}

// A waiter queue of a lease held here changed: list it again (with the watch) while held.
void QSimbaZookeeperHints::waitersWatcher(zhandle_t *zh, int type, int, const char *path, void *context)
{
    if ((type != ZOO_CHILD_EVENT && type != ZOO_CREATED_EVENT) || !path)
        return;
    auto *self = static_cast<QSimbaZookeeperHints *>(context);
    const QString name = QString::fromUtf8(path).section(QLatin1Char('/'), -1);
    LeaseWatch *watch;
    {
        QMutexLocker lock(&self->m_mutex);
        if (!self->m_waiters.contains(name) || self->m_handle != zh)
            return;
        watch = &self->m_leaseWatches.emplace_back(LeaseWatch{self, zh, name});
    }
    const int rc = zoo_awget_children(zh, path, waitersWatcher, self, onWaitersListed, watch);
    if (rc != ZOK) {
        QMutexLocker lock(&self->m_mutex);
        self->m_waiters.remove(name); // unknown now: releases delete until the next grant lists it
        self->m_leaseWatches.remove_if([watch](const LeaseWatch &w) { return &w == watch; });
    }
}

void QSimbaZookeeperHints::onWaitersListed(int rc, const String_vector *children, const void *data)
{
    const auto *watch = static_cast<const LeaseWatch *>(data);
    QSimbaZookeeperHints *self = watch->hints;
    QMutexLocker lock(&self->m_mutex);
    if (self->m_waiters.contains(watch->name)) {
        if (rc == ZOK)
            self->m_waiters.insert(watch->name, toSet(children).values());
        else
            self->m_waiters.remove(watch->name);
    }
    self->m_leaseWatches.remove_if([watch](const LeaseWatch &w) { return &w == watch; });
}

void QSimbaZookeeperHints::listGroups(zhandle_t *zh)
{
    watchChildren(zh, m_groupsPath, onGroupsChanged, onGroupsListed);
}

void QSimbaZookeeperHints::onGroupsChanged(zhandle_t *zh, int type, int, const char *, void *context)
{
    if (type == ZOO_CHILD_EVENT)
        static_cast<QSimbaZookeeperHints *>(context)->listGroups(zh);
}

void QSimbaZookeeperHints::onGroupsListed(int rc, const String_vector *children, const void *data)
{
    auto *self = static_cast<QSimbaZookeeperHints *>(const_cast<void *>(data));
    if (rc != ZOK)
        return self->broken(rc);
    const QSet<QString> now = toSet(children);
    zhandle_t *zh;
    QList<QString> toArm;
    {
        QMutexLocker lock(&self->m_mutex);
        zh = self->m_handle;
        for (const auto &group : now) {
            // A group seen for the first time may have members its watch cannot report.
            if (self->m_groupsKnown && !self->m_groups.contains(group))
                self->publish(Hint::Kind::MembersChanged, group);
            if (!self->m_armedGroups.contains(group)) {
                self->m_armedGroups.insert(group);
                toArm.append(group);
            }
        }
        self->m_groups.unite(now);
        self->m_groupsKnown = true;
    }
    for (const auto &group : std::as_const(toArm))
        self->listMembers(zh, group);
}

void QSimbaZookeeperHints::listMembers(zhandle_t *zh, const QString &group)
{
    watchChildren(zh, m_groupsPath + QLatin1Char('/') + group, onMembersChanged, onMembersListed);
}

void QSimbaZookeeperHints::onMembersChanged(zhandle_t *zh, int type, int, const char *path, void *context)
{
    if (type != ZOO_CHILD_EVENT || !path)
        return;
    auto *self = static_cast<QSimbaZookeeperHints *>(context);
    const QString group = QString::fromUtf8(path).section(QLatin1Char('/'), -1);
    {
        QMutexLocker lock(&self->m_mutex);
        self->publish(Hint::Kind::MembersChanged, group);
    }
    self->listMembers(zh, group);
}

void QSimbaZookeeperHints::onMembersListed(int rc, const String_vector *, const void *data)
{
    if (rc != ZOK)
        static_cast<QSimbaZookeeperHints *>(const_cast<void *>(data))->broken(rc);
}
