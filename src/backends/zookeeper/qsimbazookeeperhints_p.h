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
 * Hints from ZooKeeper watches. A child watch on <base>/leases turns a lease znode that
 * disappeared (release, closeSession) into a Released hint; a lease created and deleted
 * between a child event and the listing it triggers (the one-shot watch's gap) shows in the
 * parent's child version, and is hinted Released for each absent name this instance asked
 * for (noteInterest()); a child watch on <base>/groups
 * discovers groups, and a child watch on each group turns a member that came or went into a
 * MembersChanged hint. Watches are one-shot: each is re-armed when it fires; the C client
 * re-registers them after a reconnect; a watch whose re-arming failed (the connection
 * dropped at that moment) and a new handle are armed again by arm(), which the connection
 * calls on every reconnect and every call (a no-op while all is armed).
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
    //! False when the lease watch knows lease \a name is held (acquire then reads before it
    //! writes); true when it may be free, or nobody listens.
    bool mayBeFree(const QString &name) const;
    //! A waiter's watch on lease \a name (held by another session, read at \a mzxid): its
    //! deletion, or a change of its data (a handover, a takeover), is hinted Released at
    //! once, one round trip before the lease list's watch could tell; so is a change since
    //! \a mzxid found when the watch is set. Never blocks; a no-op when nobody listens or
    //! the name is watched already.
    void watchLease(zhandle_t *zh, const QString &name, qint64 mzxid);
    //! Names this instance acquires: a release hidden in the lease list watch's gap is
    //! hinted for them (bounded: the names of one client).
    void noteInterest(const QSet<QString> &names);

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
    static void onLeasesChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onLeasesListed(int rc, const String_vector *children, const Stat *stat, const void *data);
    static void onGroupsChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onGroupsListed(int rc, const String_vector *children, const void *data);
    static void onMembersChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onMembersListed(int rc, const String_vector *children, const void *data);
    static void onLeaseChanged(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void onWaitersListed(int rc, const String_vector *children, const void *data);
    static void onLeaseRead(int rc, const char *value, int length, const Stat *stat, const void *data);
    void watchChildren(zhandle_t *zh, const QString &path, watcher_fn changed, strings_completion_t listed);
    void listLeases(zhandle_t *zh);
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
    bool m_leasesKnown = false;
    QSet<QString> m_leases;
    QSet<QString> m_listed;    // the last listing of the leases, as listed
    int m_listedVersion = 0;   // the leases parent's cversion at that listing
    QSet<QString> m_interest;  // names this instance acquires (noteInterest)
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
