// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbazookeeperleasebackend.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QMutex>
#include <QtCore/QStringList>
#include <QtCore/QWaitCondition>

#include <zookeeper/zookeeper.h>

#include <memory>

class QSimbaZookeeperHints;

/*
 * The ZooKeeper handle of one backend instance (RAII around zhandle_t) and the one place
 * where ZooKeeper error codes become QSimbaBackendError. handle() connects lazily, waits
 * for the connection at most the configured timeout, and replaces a handle whose
 * ZooKeeper session expired (or whose authentication failed) by a new one, re-creating the
 * base layout and re-arming the hint watches.
 *
 * Used on the backend's thread; the C client's watcher only records the session state.
 */
class QSimbaZookeeperConnection
{
public:
    using Options = QSimbaZookeeperLeaseBackend::Options;

    //! One SPI call: connecting and all its round trips share one deadline, the timeout.
    class Call
    {
    public:
        explicit Call(QSimbaZookeeperConnection &connection);
        ~Call();
        Call(const Call &) = delete;
        Call &operator=(const Call &) = delete;

    private:
        QSimbaZookeeperConnection &m_connection;
        bool m_outer;
    };

    QSimbaZookeeperConnection(const Options &options, std::shared_ptr<QSimbaZookeeperHints> hints);
    ~QSimbaZookeeperConnection();

    //! The connected handle. Blocks up to timeout(); throws QSimbaBackendError.
    zhandle_t *handle();
    //! The handle if one is connected now, else nullptr. Never blocks.
    zhandle_t *connectedHandle();

    const Options &options() const { return m_options; }
    std::chrono::milliseconds timeout() const { return m_options.timeout; }
    //! The deadline of the current call (a fresh timeout outside a Call).
    QDeadlineTimer deadline() const;
    QString describe() const { return m_description; }
    //! The ACL of every znode this backend creates.
    const ACL_vector *acl() const;
    //! The clock's ACL: anyone may write it (a write only tells the time), so that clients
    //! allowed to read can judge liveness too.
    const ACL_vector *clockAcl() const;
    //! The absolute path of \a relative ("sessions/x") under the base path.
    QString path(const QString &relative) const;

    //! The choke point: throws a QSimbaBackendError naming the server, what was done and
    //! the cause of \a rc.
    [[noreturn]] void raise(int rc, const QString &what) const;

private:
    struct State
    {
        QMutex mutex;
        QWaitCondition changed;
        int state = 0;
        bool ready = false; // the layout exists: the watches can be armed
        QSimbaZookeeperHints *hints = nullptr; // outlives every handle
    };
    struct Closer
    {
        void operator()(zhandle_t *zh) const;
    };

    static void watcher(zhandle_t *zh, int type, int state, const char *path, void *context);
    static void log(const char *message);
    void connect();
    QString connectError(int state) const;
    QString lastClientError() const;
    QString resolvedHosts();
    void ensureLayout();

    Options m_options;
    QString m_description;
    QStringList m_addresses; // the hosts' addresses of the last connect
    std::shared_ptr<QSimbaZookeeperHints> m_hints;
    ACL_vector m_creatorRead{};
    std::vector<ACL> m_creatorReadAcl;
    ACL_vector m_clock{};
    std::vector<ACL> m_clockAcl;
    // m_state outlives m_handle: the watcher writes to it until the handle is closed.
    std::unique_ptr<State> m_state;
    std::unique_ptr<zhandle_t, Closer> m_handle;
    bool m_inCall = false;
    QDeadlineTimer m_callDeadline;
    bool m_ready = false;     // the handle's layout exists and its watches are armed
    bool m_preparing = false; // ensureLayout() runs on the handle
};
