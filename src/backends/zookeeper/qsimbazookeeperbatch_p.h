// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QList>
#include <QtCore/QString>
#include <QtCore/QStringList>

#include <zookeeper/zookeeper.h>

#include <deque>
#include <memory>
#include <vector>

class QSimbaZookeeperConnection;

/*
 * A pipeline of asynchronous ZooKeeper requests on one connection: every request is sent at
 * once (ZooKeeper answers one client's requests in order), then wait() waits for all the
 * answers, bounded by the connection's timeout. Answers that arrive after a timeout land
 * in state the pending completions still own, never in freed memory.
 *
 * Used on the backend's thread; the completions run on the C client's thread and only
 * store their answer and wake the waiter.
 */
class QSimbaZookeeperBatch
{
public:
    //! The operations of one zoo_multi transaction, all or nothing.
    class Multi
    {
    public:
        int create(const QString &path, const QByteArray &data = {});
        int remove(const QString &path, int version = -1);
        int set(const QString &path, const QByteArray &data, int version = -1);
        int check(const QString &path, int version);
        int size() const { return int(m_ops.size()); }
        bool isEmpty() const { return m_ops.isEmpty(); }

    private:
        friend class QSimbaZookeeperBatch;
        struct Op
        {
            int type;
            QByteArray path;
            QByteArray data;
            int version;
        };
        int add(Op op);
        QList<Op> m_ops;
    };

    //! One answer; for a multi, results[i].err per operation and stats[i] for its sets.
    struct Reply
    {
        int rc = ZOK;
        bool answered = false;
        QString what; // "get /simba/leases/a", for messages
        QByteArray data;
        Stat stat{};
        QStringList children;
        // A multi's operations and results: they must outlive the request.
        QList<Multi::Op> ops;
        std::vector<zoo_op_t> zops;
        std::vector<zoo_op_result_t> results;
        std::vector<Stat> stats;
        std::vector<QByteArray> createdPaths;
        // CLOCK_MONOTONIC ns of the send and of the answer (0: none), for the trace.
        qint64 sentAt = 0;
        qint64 answeredAt = 0;

        //! The error of operation \a i of a multi (ZOK when it succeeded).
        int errorOf(int i) const { return i < int(results.size()) ? results[size_t(i)].err : rc; }
        bool ok() const { return rc == ZOK; }
    };

    explicit QSimbaZookeeperBatch(QSimbaZookeeperConnection &connection);
    ~QSimbaZookeeperBatch();
    QSimbaZookeeperBatch(const QSimbaZookeeperBatch &) = delete;
    QSimbaZookeeperBatch &operator=(const QSimbaZookeeperBatch &) = delete;

    int get(const QString &path);
    int exists(const QString &path);
    int children(const QString &path);
    //! Lists the children of \a path and leaves \a watcher (with \a watcherContext) on it.
    int children(const QString &path, watcher_fn watcher, void *watcherContext);
    int set(const QString &path, const QByteArray &data, int version = -1);
    //! Creates a persistent node with the connection's ACL, or \a acl.
    int create(const QString &path, const QByteArray &data = {}, const ACL_vector *acl = nullptr);
    //! Creates a persistent node with the connection's ACL; the reply's stat is the new node's.
    int createWithStat(const QString &path, const QByteArray &data = {});
    //! Creates a persistent sequential node: the reply's data is the path it got.
    int createSequential(const QString &path, const QByteArray &data = {});
    int remove(const QString &path, int version = -1);
    int multi(const Multi &ops);

    //! Waits for every answer, up to the connection's timeout. Throws QSimbaBackendError on
    //! a timeout and on every error except the expected outcomes of conditional writes
    //! (ZNONODE, ZNODEEXISTS, ZBADVERSION, ZNOTEMPTY), which the caller reads from the replies.
    void wait();
    const Reply &operator[](int i) const;
    //! CLOCK_MONOTONIC in ns, the clock of Reply::sentAt.
    static qint64 monotonicNow();

private:
    struct State;
    struct Context;
    Reply &add(const QString &what, Context *&context);
    void sent(int rc, Context *context);
    void trace(const char *outcome) const;
    static void onData(int rc, const char *value, int length, const Stat *stat, const void *data);
    static void onStat(int rc, const Stat *stat, const void *data);
    static void onStrings(int rc, const String_vector *strings, const void *data);
    static void onString(int rc, const char *value, const void *data);
    static void onStringStat(int rc, const char *value, const Stat *stat, const void *data);
    static void onVoid(int rc, const void *data);

    QSimbaZookeeperConnection &m_connection;
    zhandle_t *m_handle;
    std::shared_ptr<State> m_state;
};
