// SPDX-License-Identifier: Apache-2.0
#include "qsimbazookeeperbatch_p.h"

#include "qsimbazookeeperconnection_p.h"
#include "qsimbazookeeperlogging_p.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QMutex>
#include <QtCore/QWaitCondition>

#include <time.h>

// CLOCK_MONOTONIC in ns: the clock of the engine's Ticker and of the fault suite's records,
// so a trace of the requests lines up with the terms.
qint64 QSimbaZookeeperBatch::monotonicNow()
{
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/*!
    \class QSimbaZookeeperBatch
    \internal
    \brief Pipelined asynchronous ZooKeeper requests with one bounded wait.
*/

struct QSimbaZookeeperBatch::State
{
    QMutex mutex;
    QWaitCondition woken;
    int pending = 0;
    std::deque<Reply> replies; // push_back keeps the addresses the completions hold
};

// Owned by the C client from a successful send until its completion ran.
struct QSimbaZookeeperBatch::Context
{
    std::shared_ptr<State> state;
    Reply *reply;
};

int QSimbaZookeeperBatch::Multi::add(Op op)
{
    m_ops.append(std::move(op));
    return int(m_ops.size()) - 1;
}

int QSimbaZookeeperBatch::Multi::create(const QString &path, const QByteArray &data)
{
    return add({ZOO_CREATE_OP, path.toUtf8(), data, -1});
}

int QSimbaZookeeperBatch::Multi::remove(const QString &path, int version)
{
    return add({ZOO_DELETE_OP, path.toUtf8(), {}, version});
}

int QSimbaZookeeperBatch::Multi::set(const QString &path, const QByteArray &data, int version)
{
    return add({ZOO_SETDATA_OP, path.toUtf8(), data, version});
}

int QSimbaZookeeperBatch::Multi::check(const QString &path, int version)
{
    return add({ZOO_CHECK_OP, path.toUtf8(), {}, version});
}

QSimbaZookeeperBatch::QSimbaZookeeperBatch(QSimbaZookeeperConnection &connection)
    : m_connection(connection), m_handle(connection.handle()), m_state(std::make_shared<State>())
{
}

QSimbaZookeeperBatch::~QSimbaZookeeperBatch() = default;

QSimbaZookeeperBatch::Reply &QSimbaZookeeperBatch::add(const QString &what, Context *&context)
{
    QMutexLocker lock(&m_state->mutex);
    Reply &reply = m_state->replies.emplace_back();
    reply.what = what;
    reply.sentAt = monotonicNow();
    ++m_state->pending;
    context = new Context{m_state, &reply};
    return reply;
}

// A request the C client refused to send never completes: answer it here.
void QSimbaZookeeperBatch::sent(int rc, Context *context)
{
    if (rc == ZOK)
        return;
    QMutexLocker lock(&m_state->mutex);
    context->reply->rc = rc;
    context->reply->answered = true;
    --m_state->pending;
    delete context;
}

void QSimbaZookeeperBatch::onData(int rc, const char *value, int length, const Stat *stat, const void *data)
{
    auto *context = static_cast<Context *>(const_cast<void *>(data));
    {
        QMutexLocker lock(&context->state->mutex);
        Reply &reply = *context->reply;
        reply.rc = rc;
        reply.answered = true;
        reply.answeredAt = monotonicNow();
        if (rc == ZOK) {
            if (value && length > 0)
                reply.data = QByteArray(value, length);
            if (stat)
                reply.stat = *stat;
        }
        if (--context->state->pending == 0)
            context->state->woken.wakeAll(); // the waiter needs every answer: wake it once
    }
    delete context;
}

void QSimbaZookeeperBatch::onStat(int rc, const Stat *stat, const void *data)
{
    onData(rc, nullptr, 0, stat, data);
}

void QSimbaZookeeperBatch::onString(int rc, const char *value, const void *data)
{
    onData(rc, value, value ? int(qstrlen(value)) : 0, nullptr, data); // the path created
}

void QSimbaZookeeperBatch::onStringStat(int rc, const char *value, const Stat *stat, const void *data)
{
    onData(rc, value, value ? int(qstrlen(value)) : 0, stat, data); // the path created, its Stat
}

void QSimbaZookeeperBatch::onVoid(int rc, const void *data)
{
    onData(rc, nullptr, 0, nullptr, data);
}

void QSimbaZookeeperBatch::onStrings(int rc, const String_vector *strings, const void *data)
{
    auto *context = static_cast<Context *>(const_cast<void *>(data));
    {
        QMutexLocker lock(&context->state->mutex);
        Reply &reply = *context->reply;
        reply.rc = rc;
        reply.answered = true;
        reply.answeredAt = monotonicNow();
        if (rc == ZOK && strings)
            for (int i = 0; i < strings->count; ++i)
                reply.children.append(QString::fromUtf8(strings->data[i]));
        if (--context->state->pending == 0)
            context->state->woken.wakeAll(); // the waiter needs every answer: wake it once
    }
    delete context;
}

int QSimbaZookeeperBatch::get(const QString &path)
{
    Context *context;
    add(QStringLiteral("get ") + path, context);
    sent(zoo_aget(m_handle, path.toUtf8().constData(), 0, onData, context), context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::exists(const QString &path)
{
    Context *context;
    add(QStringLiteral("exists ") + path, context);
    sent(zoo_aexists(m_handle, path.toUtf8().constData(), 0, onStat, context), context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::children(const QString &path)
{
    Context *context;
    add(QStringLiteral("list ") + path, context);
    sent(zoo_aget_children(m_handle, path.toUtf8().constData(), 0, onStrings, context), context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::children(const QString &path, watcher_fn watcher, void *watcherContext)
{
    Context *context;
    add(QStringLiteral("list ") + path, context);
    sent(zoo_awget_children(m_handle, path.toUtf8().constData(), watcher, watcherContext, onStrings, context),
         context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::set(const QString &path, const QByteArray &data, int version)
{
    Context *context;
    add(QStringLiteral("set ") + path, context);
    sent(zoo_aset(m_handle, path.toUtf8().constData(), data.constData(), int(data.size()), version, onStat,
                  context),
         context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::create(const QString &path, const QByteArray &data, const ACL_vector *acl)
{
    Context *context;
    add(QStringLiteral("create ") + path, context);
    sent(zoo_acreate(m_handle, path.toUtf8().constData(), data.constData(), int(data.size()),
                     acl ? acl : m_connection.acl(), ZOO_PERSISTENT, onString, context),
         context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::createWithStat(const QString &path, const QByteArray &data)
{
    Context *context;
    add(QStringLiteral("create ") + path, context);
    sent(zoo_acreate2(m_handle, path.toUtf8().constData(), data.constData(), int(data.size()), m_connection.acl(),
                      ZOO_PERSISTENT, onStringStat, context),
         context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::createSequential(const QString &path, const QByteArray &data)
{
    Context *context;
    add(QStringLiteral("create ") + path, context);
    sent(zoo_acreate(m_handle, path.toUtf8().constData(), data.constData(), int(data.size()), m_connection.acl(),
                     ZOO_PERSISTENT_SEQUENTIAL, onString, context),
         context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::remove(const QString &path, int version)
{
    Context *context;
    add(QStringLiteral("delete ") + path, context);
    sent(zoo_adelete(m_handle, path.toUtf8().constData(), version, onVoid, context), context);
    return int(m_state->replies.size()) - 1;
}

int QSimbaZookeeperBatch::multi(const Multi &multi)
{
    Context *context;
    QString what = QStringLiteral("multi");
    for (const auto &op : multi.m_ops)
        what += QLatin1Char(' ') + QString::fromUtf8(op.path);
    Reply &reply = add(what, context);
    const size_t n = size_t(multi.m_ops.size());
    reply.ops = multi.m_ops;
    reply.zops.resize(n);
    reply.results.resize(n);
    reply.stats.resize(n);
    reply.createdPaths.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const auto &op = reply.ops[qsizetype(i)];
        zoo_op_t &z = reply.zops[i];
        switch (op.type) {
        case ZOO_CREATE_OP:
            reply.createdPaths[i] = QByteArray(op.path.size() + 16, '\0');
            zoo_create_op_init(&z, op.path.constData(), op.data.constData(), int(op.data.size()),
                               m_connection.acl(), ZOO_PERSISTENT, reply.createdPaths[i].data(),
                               int(reply.createdPaths[i].size()));
            break;
        case ZOO_DELETE_OP:
            zoo_delete_op_init(&z, op.path.constData(), op.version);
            break;
        case ZOO_SETDATA_OP:
            zoo_set_op_init(&z, op.path.constData(), op.data.constData(), int(op.data.size()), op.version,
                            &reply.stats[i]);
            break;
        default:
            zoo_check_op_init(&z, op.path.constData(), op.version);
            break;
        }
    }
    sent(zoo_amulti(m_handle, int(n), reply.zops.data(), reply.results.data(), onVoid, context), context);
    return int(m_state->replies.size()) - 1;
}

void QSimbaZookeeperBatch::wait()
{
    const QDeadlineTimer deadline = m_connection.deadline();
    QMutexLocker lock(&m_state->mutex);
    while (m_state->pending > 0) {
        if (!m_state->woken.wait(&m_state->mutex, deadline) && m_state->pending > 0) {
            const auto unanswered = std::find_if(m_state->replies.cbegin(), m_state->replies.cend(),
                                                 [](const Reply &r) { return !r.answered; });
            QString what = unanswered->what;
            if (m_state->pending > 1)
                what += QStringLiteral(" (and %1 more requests)").arg(m_state->pending - 1);
            trace("timed out");
            lock.unlock();
            m_connection.raise(ZOPERATIONTIMEOUT, what);
        }
    }
    trace("answered");
    for (const Reply &reply : m_state->replies) {
        switch (reply.rc) {
        case ZOK:
        case ZNONODE:
        case ZNODEEXISTS:
        case ZBADVERSION:
        case ZNOTEMPTY:
            break;
        default: {
            const int rc = reply.rc;
            const QString what = reply.what;
            lock.unlock();
            m_connection.raise(rc, what);
        }
        }
    }
}

// One debug line per request (qsimba.backend.zookeeper at debug level): when it was sent and
// answered on CLOCK_MONOTONIC, its outcome, and the zxids and mtimes of what it read or wrote.
// Called with the state's mutex held.
void QSimbaZookeeperBatch::trace(const char *outcome) const
{
    if (!lcSimbaZookeeper().isDebugEnabled())
        return;
    for (const Reply &r : m_state->replies) {
        QString line = QStringLiteral("%1 sent %2 answered %3 rc %4").arg(r.what).arg(r.sentAt).arg(r.answeredAt).arg(r.rc);
        if (!r.answered) {
            qCDebug(lcSimbaZookeeper, "%s: batch %s: %s", qPrintable(m_connection.describe()), outcome, qPrintable(line));
            continue; // the C client may still be writing its results
        }
        if (r.rc == ZOK && r.stat.mzxid != 0)
            line += QStringLiteral(" mzxid %1 mtime %2 version %3").arg(r.stat.mzxid).arg(r.stat.mtime).arg(r.stat.version);
        for (size_t i = 0; i < r.results.size(); ++i) {
            line += QStringLiteral(" [op%1 err %2").arg(i).arg(r.results[i].err);
            if (r.stats[i].mzxid != 0)
                line += QStringLiteral(" mzxid %1 mtime %2 version %3").arg(r.stats[i].mzxid).arg(r.stats[i].mtime).arg(r.stats[i].version);
            line += QLatin1Char(']');
        }
        if (!r.data.isEmpty())
            line += QStringLiteral(" data ") + QString::fromUtf8(r.data.left(160));
        qCDebug(lcSimbaZookeeper, "%s: batch %s: %s", qPrintable(m_connection.describe()), outcome, qPrintable(line));
    }
}

const QSimbaZookeeperBatch::Reply &QSimbaZookeeperBatch::operator[](int i) const
{
    return m_state->replies[size_t(i)];
}
