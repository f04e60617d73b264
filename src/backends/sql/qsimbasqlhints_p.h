// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbasqldialect_p.h"

#include <QtCore/QMutex>
#include <QtCore/QThread>
#include <QtCore/QWaitCondition>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>

/*
 * Release and membership hints where the database has no notifications. Hints only make a
 * waiting client try earlier: a lost, late or spurious hint changes nothing but the delay,
 * because every decision is still taken by an SPI call under the call's lock.
 *
 * SQLite (QSimbaSqlHintFile, QSimbaSqlHintWatcher): a side file beside the database,
 * "<database>-<prefix>hints". After a call that freed leases or changed a group commits, its
 * process appends one line per name ("R:<lease>" or "M:<group>", the PostgreSQL payloads)
 * with O_APPEND; every subscribed process watches the file and its directory (inotify,
 * through QFileSystemWatcher) and reads the lines added since it last looked. A crashed
 * process writes nothing: its leases are freed by the next call that sweeps it, and the
 * waiters take them at the holder's lease end, as without hints. The file is truncated when
 * it passes HintFileLimit; deleted, it is created again by the next writer and watched again.
 *
 * MySQL/MariaDB (QSimbaSqlInterest, QSimbaSqlHintPoller): no notifications, so the waiting
 * client reads the rows it waits for. The backend notes every name an acquire answered
 * HeldBy (with the holder and token seen) and every group one of its sessions joined; while
 * there is any, the subscription's own connection reads those lease rows by primary key
 * every hintInterval (and the groups' membership signature every GroupPollEvery polls) and
 * publishes a hint when a row changed. Nothing is read while nothing is waited for.
 *
 * PostgreSQL notes the same (QSimbaSqlInterest): a NOTIFY sent while the LISTEN connection
 * is not yet up, or down, is lost, so once LISTEN succeeds the listener publishes a hint for
 * everything waited for (catchUp()), and the engine tries again at once.
 */
namespace QSimbaSqlHints {
using Clock = std::chrono::steady_clock;
//! Groups' membership is read every this many polls (of Options::hintInterval).
constexpr int GroupPollEvery = 10;
//! A waited name is forgotten this long after its holder's lease would end.
constexpr std::chrono::milliseconds InterestSlack{1000};
//! The side file is truncated by the writer that finds it this large.
constexpr qint64 HintFileLimit = 1 << 20;

//! The side file of \a options' database and prefix (SQLite).
QString sideFile(const QSimbaSqlLeaseBackend::Options &options);
//! Appends \a hints to \a path, one line each; failures are logged and otherwise ignored.
void append(const QString &path, const QList<QSimbaLeaseBackend::Hint> &hints);
} // namespace QSimbaSqlHints

//! What a MySQL/MariaDB backend waits for, shared with its subscription. Thread-safe.
class QSimbaSqlInterest
{
public:
    struct Seen
    {
        QString holder; // empty: free
        qint64 token = 0;
    };

    //! \a name is held by \a holder with \a token for \a remaining on the database's clock.
    void waitFor(const QString &name, const QString &holder, qint64 token, std::chrono::milliseconds remaining);
    void granted(const QString &name);
    void joined(const QString &session, const QString &group);
    void left(const QString &session, const QString &group);
    void ended(const QString &session);

    //! Pauses \a pause, then blocks until something is waited for; answers the names and
    //! groups waited for, or false once \a stop is set (and wake() called).
    bool next(QStringList *names, QStringList *groups, std::chrono::milliseconds pause, const std::atomic<bool> &stop);
    //! The hints that would tell this backend of every change to what it waits for: one
    //! Released per waited name, one MembersChanged per group joined. Published after hints
    //! may have been lost (a subscription's connection was down), so nobody waits for a poll.
    QList<QSimbaLeaseBackend::Hint> catchUp();
    //! Records \a seen for \a name; true when it differs from what was recorded (a hint).
    bool observe(const QString &name, const Seen &seen);
    //! Wakes next(), e.g. to see its stop flag.
    void wake();

private:
    struct Waited
    {
        Seen seen;
        QSimbaSqlHints::Clock::time_point until;
    };
    QMutex m_mutex;
    QWaitCondition m_changed;
    std::map<QString, Waited> m_names;
    std::map<QString, std::set<QString>> m_groups; // group → this backend's sessions in it
    bool m_stopping = false;
};

//! SQLite: watches the side file on a thread of its own. The destructor stops the thread.
class QSimbaSqlHintWatcher final : public QThread, public QSimbaLeaseBackend::Subscription
{
public:
    QSimbaSqlHintWatcher(const QString &path, QSimbaLeaseBackend::HintListener listener);
    ~QSimbaSqlHintWatcher() override;

protected:
    void run() override;

private:
    void readNew();

    QString m_path;
    QSimbaLeaseBackend::HintListener m_listener;
    // Of the thread, after the constructor: the file read and how far.
    quint64 m_inode = 0;
    qint64 m_offset = 0;
};

//! MySQL/MariaDB: reads the waited rows on a thread and connection of its own while there
//! are any. The destructor stops the thread (aborting a statement in flight).
class QSimbaSqlHintPoller final : public QThread, public QSimbaLeaseBackend::Subscription
{
public:
    QSimbaSqlHintPoller(const QSimbaSqlDialect &dialect, const QString &description,
                        std::shared_ptr<QSimbaSqlInterest> interest, QSimbaLeaseBackend::HintListener listener);
    ~QSimbaSqlHintPoller() override;

protected:
    void run() override;

private:
    QSimbaSqlDialect m_dialect;
    QString m_description;
    std::shared_ptr<QSimbaSqlInterest> m_interest;
    QSimbaLeaseBackend::HintListener m_listener;
    QMutex m_mutex;    // guards the two below
    int m_socket = -1; // the open connection's socket, while open
    bool m_stopping = false;
    std::atomic<bool> m_stop{false};
};
