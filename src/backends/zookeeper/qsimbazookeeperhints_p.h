// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaleasebackend.h"

#include <QtCore/QMutex>
#include <QtCore/QSet>

#include <zookeeper/zookeeper.h>

#include <list>
#include <map>

/*
 * Hints from ZooKeeper watches. Leases are watched one name at a time, and only the names
 * this instance waits for: a candidate answered HeldBy leaves a data watch on the lease
 * (watchLease()), whose deletion (release, closeSession, a sweep of an expired holder) is
 * hinted Released, and whose change of data, for a waiter queued here, is read and hinted
 * when it names the waiter (a handover). Nothing watches the list of leases: a create or
 * delete of another lease costs this instance nothing. The watch is one-shot; a lease
 * released (or changed) between the waiter's read and its watch shows in the watch's own
 * read (gone, or another mzxid), and is hinted then. A child watch on <base>/groups
 * discovers groups, and a child watch on each group turns a member that came or went into a
 * MembersChanged hint. Watches are re-armed when they fire; the C client re-registers them
 * after a reconnect; a watch whose arming failed (the connection dropped at that moment)
 * and a new handle are armed again by arm(), which the connection calls on every reconnect
 * and every call (a no-op while all is armed): the lease watches of every name known held
 * are set again, each read telling a release missed meanwhile.
 *
 * Thread-safe. Watches and completions run on the C client's thread: they only send
 * asynchronous requests and call the listeners, which must not block. Listeners are called
 * with the mutex held, so a Subscription's destructor waits for a call in progress.
 */
class QSimbaZookeeperHints
{
public:
    using Hint = QSimbaLeaseBackend::Hint;

    QSimbaZookeeperHints(const QString &leasesPath, const QString &groupsPath);

    quint64 add(QSimbaLeaseBackend::HintListener listener);
    void remove(quint64 id);
    bool hasListeners() const;
    //! Arms every watch on \a zh when somebody listens and they are not armed on it yet.
    //! Never blocks.
    void arm(zhandle_t *zh);
    //! The handle is about to close: the next arm() arms again.
    void disarm();
    //! False when lease \a name is known held by another session (answered HeldBy, or
    //! handed over by a release here) and no watch has told its release since: acquire then
    //! reads before it writes. True when it may be free, or nobody listens.
    bool mayBeFree(const QString &name) const;
    //! Lease \a name was handed over by a release of this instance: held by another session
    //! (mayBeFree() is false until a read or a watch finds it free).
    void noteHeld(const QString &name);
    //! Lease \a name was granted here, or read free: not known held any longer.
    void noteFree(const QString &name);
    //! A waiter's watch on lease \a name (held by another session, read at \a mzxid): its
    //! deletion is hinted Released, a change of its data as setWaitingAs() says; so is a
    //! deletion or change since \a mzxid found when the watch is set (the read that sets
    //! it). The name is known held (mayBeFree()) until then, and watched again by arm() on a
    //! new handle. Never blocks; a no-op when nobody listens; only records \a mzxid when
    //! the name is watched already.
    void watchLease(zhandle_t *zh, const QString &name, qint64 mzxid);

    //! The waiter queue of lease \a name, held here: \a children of <base>/waiters/<name> as
    //! listed with waitersWatcher() left on it. Each change of the queue lists it again
    //! while the name is held here (until forgetWaiters()).
    void setWaiters(const QString &name, const QStringList &children);
    //! No queue of lease \a name (held here) exists yet at \a path: its creation is watched,
    //! and then it is listed with its watch.
    void watchQueueCreation(zhandle_t *zh, const QString &name, const QString &path);
    //! The waiter nodes of lease \a name as last listed, first come first.
    QStringList waitersOf(const QString &name) const;
    void forgetWaiters(const QString &name);
    //! This instance waits in the queue of lease \a name as \a session (empty: no longer),
    //! with \a ahead waiters before it (-1: unknown) when the lease was at data \a version.
    //! A change of such a lease's data is hinted only when it names \a session (the release
    //! handed it over to this waiter): the other waiters of the queue sleep on. The lease is
    //! read to know, except by a waiter that is likely first (each change of the lease's
    //! data since \a version served one waiter ahead), which is hinted at once: its acquire
    //! reads the lease anyway. A wrong guess costs a read either way.
    void setWaitingAs(const QString &name, const QString &session, int ahead, int version);
    //! The watcher to leave on a waiter queue listed for setWaiters() (context: this).
    static void waitersWatcher(zhandle_t *zh, int type, int state, const char *path, void *context);

private:
    static void onGroupsChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onGroupsListed(int rc, const String_vector *children, const void *data);
    static void onMembersChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onMembersListed(int rc, const String_vector *children, const void *data);
    static void onLeaseChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onWaitersListed(int rc, const String_vector *children, const void *data);
    static void onLeaseRead(int rc, const char *value, int length, const Stat *stat, const void *data);
    void watchChildren(zhandle_t *zh, const QString &path, watcher_fn changed, strings_completion_t listed);
    // Sends the watch of lease \a name (a read with the watch left on it); called without
    // the mutex, with \a name recorded in m_watchedLeases.
    void sendLeaseWatch(zhandle_t *zh, const QString &name, qint64 mzxid);
    void listGroups(zhandle_t *zh);
    void listMembers(zhandle_t *zh, const QString &group);
    void broken(int rc);
    // Called with m_mutex held.
    void publish(Hint::Kind kind, const QString &name);

    const QString m_leasesPath;
    const QString m_groupsPath;
    mutable QMutex m_mutex;
    std::map<quint64, QSimbaLeaseBackend::HintListener> m_listeners;
    quint64 m_nextId = 1;
    zhandle_t *m_handle = nullptr; // the handle the watches are armed on
    // Leases known held by another session, with the mzxid read (0: unknown): answered
    // HeldBy here (watchLease()) or handed over by a release here (noteHeld()). Bounded by
    // the names of one client.
    QHash<QString, qint64> m_held;
    QSet<QString> m_watchedLeases; // names with a waiter's watch (watchLease) on m_handle
    // A waiter's watch request until its completion: the completion's context. Kept here,
    // not allocated per request: zookeeper_close() may drop completions (ZOOKEEPER-3868);
    // those of a closed handle are dropped by arm().
    struct LeaseWatch
    {
        QSimbaZookeeperHints *hints;
        zhandle_t *zh;
        QString name;
        qint64 mzxid = 0; // the lease as the waiter read it (watchLease())
    };
    std::list<LeaseWatch> m_leaseWatches;
    QHash<QString, QStringList> m_waiters; // the waiter queues of the leases held here
    struct Waiting
    {
        QString session;
        int ahead = -1; // waiters before it in the queue at `version`, -1: unknown
        int version = 0;
        int seen = 0;   // the lease's data version as last read
        // The change to data version \a next is most likely the handover to this waiter.
        bool first(int next) const { return ahead >= 0 && ahead < next - version; }
    };
    QHash<QString, Waiting> m_waitingAs; // lease name → the session queued for it here
    bool m_groupsKnown = false;
    QSet<QString> m_groups;
    QSet<QString> m_armedGroups;
};
