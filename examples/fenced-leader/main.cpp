// SPDX-License-Identifier: Apache-2.0
// Leader work guarded by the fencing token. Two clients ("nodes") share a SQLite file for
// their leases and for a table, ledger, that keeps the highest token it has seen and
// rejects writes carrying a lower one. The leader writes every 200 ms; then it steps down,
// the other node takes over, and the old leader's late write (a paused node waking up
// after its term ended) is rejected by the table.
//
//   fenced-leader [--duration SECONDS] [--database FILE]
#include "qsimbaexample.h"

#include <qsimbaelection.h>
#include <qsimbaleadertask.h>
#include <qsimbaschedule.h>

#include <QtCore/QDeadlineTimer>
#include <QtCore/QEventLoop>
#include <QtCore/QTimer>
#include <QtCore/QUuid>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <atomic>
#include <functional>

using namespace std::chrono_literals;
using QSimbaExample::say;

namespace {

// One connection to the ledger for the calling thread (QSqlDatabase is thread-affine).
class Ledger
{
public:
    explicit Ledger(const QString &path)
        : m_name(QStringLiteral("ledger-") + QUuid::createUuid().toString(QUuid::WithoutBraces))
    {
        auto db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=2000"));
        if (!db.open())
            qFatal("cannot open %s: %s", qPrintable(path), qPrintable(db.lastError().text()));
    }
    ~Ledger()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }

    void create()
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        q.exec(QStringLiteral("CREATE TABLE IF NOT EXISTS ledger (id INTEGER PRIMARY KEY, "
                              "value INTEGER NOT NULL, fence INTEGER NOT NULL)"));
        q.exec(QStringLiteral("INSERT OR IGNORE INTO ledger (id, value, fence) VALUES (1, 0, 0)"));
    }

    //! The fenced write: accepted only when \a token is at least the highest seen.
    bool write(qint64 token)
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        q.prepare(QStringLiteral("UPDATE ledger SET value = value + 1, fence = :token "
                                 "WHERE id = 1 AND fence <= :token"));
        q.bindValue(QStringLiteral(":token"), token);
        if (!q.exec())
            qFatal("write failed: %s", qPrintable(q.lastError().text()));
        return q.numRowsAffected() == 1;
    }

    std::pair<qint64, qint64> valueAndFence()
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        q.exec(QStringLiteral("SELECT value, fence FROM ledger WHERE id = 1"));
        q.next();
        return {q.value(0).toLongLong(), q.value(1).toLongLong()};
    }

private:
    QString m_name;
};

// Runs the event loop until \a done or the timeout.
bool waitUntil(const std::function<bool()> &done, std::chrono::milliseconds timeout)
{
    QDeadlineTimer deadline(timeout);
    while (!done()) {
        if (deadline.hasExpired())
            return false;
        QEventLoop loop;
        QTimer::singleShot(20ms, &loop, &QEventLoop::quit);
        loop.exec();
    }
    return true;
}

struct Node
{
    QString label;
    std::unique_ptr<QSimba> client;
    std::unique_ptr<QSimbaLeaderTask> task;
    std::atomic<qint64> lastAccepted{0};

    bool isLeader() const { return task && task->election()->status() == QSimbaElection::Status::Leader; }
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Leader work writing with a fencing token"));
    parser.addOption(QSimbaExample::durationOption(QStringLiteral("2")));
    QTemporaryDir dir;
    const QString path = QSimbaExample::processCommandLine(parser, app, dir, QStringLiteral("fenced-leader.db"));
    const auto duration = QSimbaExample::duration(parser);
    Ledger ledger(path);
    ledger.create();
    say(QStringLiteral("database %1").arg(path));

    Node nodes[2];
    for (int i = 0; i < 2; ++i) {
        Node &node = nodes[i];
        node.label = QStringLiteral("node-%1").arg(i + 1);
        node.client = QSimbaExample::sqliteClient(path, node.label);
        // Leader work runs on a thread of its own per term: it opens its own connection.
        node.task = node.client->election(QStringLiteral("ledger-writer"))
                        ->schedule(QSimbaSchedule::fixedDelay(200ms), [&node, path](const QSimbaTerm &term) {
                            Ledger mine(path);
                            const bool accepted = mine.write(term.token());
                            say(QStringLiteral("%1: write with token %2 %3")
                                    .arg(node.label)
                                    .arg(term.token())
                                    .arg(accepted ? QStringLiteral("accepted") : QStringLiteral("REJECTED")));
                            if (accepted)
                                node.lastAccepted = term.token();
                        });
    }

    QDeadlineTimer minimum(duration);
    int failures = 0;
    // 1. One node leads and writes.
    Node *first = nullptr;
    if (!waitUntil([&] {
            for (auto &n : nodes) {
                if (n.isLeader() && n.lastAccepted > 0)
                    first = &n;
            }
            return first != nullptr;
        }, 10s)) {
        say(QStringLiteral("no leader wrote within 10 s"));
        return 1;
    }
    const qint64 staleToken = first->lastAccepted;
    Node *second = first == &nodes[0] ? &nodes[1] : &nodes[0];
    say(QStringLiteral("%1 leads with token %2; it steps down").arg(first->label).arg(staleToken));

    // 2. It steps down: the other node takes over with a higher token and writes.
    (void)first->task->election()->stepDown(5s);
    if (!waitUntil([&] { return second->lastAccepted > staleToken; }, 10s)) {
        say(QStringLiteral("%1 did not take over within 10 s").arg(second->label));
        return 1;
    }
    say(QStringLiteral("%1 took over with token %2").arg(second->label).arg(second->lastAccepted.load()));

    // 3. The old leader was paused mid-write; it wakes up and its write lands late.
    if (ledger.write(staleToken)) {
        say(QStringLiteral("stale write with token %1 ACCEPTED: the fence failed").arg(staleToken));
        ++failures;
    } else {
        say(QStringLiteral("stale write with token %1 rejected: the table's fence is %2")
                .arg(staleToken)
                .arg(ledger.valueAndFence().second));
    }

    waitUntil([&] { return minimum.hasExpired(); }, duration + 1s);
    for (auto &n : nodes)
        n.task->close();
    const auto [value, fence] = ledger.valueAndFence();
    say(QStringLiteral("ledger: %1 writes accepted, fence %2").arg(value).arg(fence));
    for (auto &n : nodes)
        n.client->close();
    return failures == 0 ? 0 : 1;
}
