// SPDX-License-Identifier: Apache-2.0
// A partition group: simba->group("billing", 8).schedule(fixedDelay, work). Two clients
// ("nodes") on one SQLite file join the group; rendezvous hashing splits the 8 partitions
// between them, and each node runs only its own. Every second the program prints which
// partitions each node runs; at the end, which partitions ran where. It runs --duration
// seconds, and on until both nodes hold partitions. When it fails, it prints what each node
// heard (its events) and saw last (its snapshot), so a failure says why a node stayed out.
//
//   partitioned-job [--duration SECONDS] [--database FILE]
#include "qsimbaexample.h"

#include <qsimbagrouptask.h>
#include <qsimbapartitionassignment.h>
#include <qsimbapartitiongroup.h>
#include <qsimbaschedule.h>

#include <QtCore/QElapsedTimer>
#include <QtCore/QJsonDocument>
#include <QtCore/QSet>
#include <QtCore/QTimer>

#include <algorithm>

using namespace std::chrono_literals;
using QSimbaExample::say;

namespace {

constexpr int Partitions = 8;

QString sorted(const QSet<int> &set)
{
    QList<int> list(set.begin(), set.end());
    std::sort(list.begin(), list.end());
    QStringList parts;
    for (int p : list)
        parts << QString::number(p);
    return QStringLiteral("{") + parts.join(QStringLiteral(", ")) + QStringLiteral("}");
}

struct Node
{
    QString label;
    std::unique_ptr<QSimba> client;
    std::unique_ptr<QSimbaGroupTask> task;
    QMutex mutex;
    QSet<int> ran; // partitions whose work ran here
    QStringList events; // what the client published, renewals counted only
    int renewals = 0;

    void heard(const QSimbaEvent &event)
    {
        QMutexLocker lock(&mutex);
        if (event.type() == QSimbaEvent::Type::SessionRenewed) {
            ++renewals;
            return;
        }
        events << QString::fromUtf8(QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact));
    }

    void dump()
    {
        QMutexLocker lock(&mutex);
        say(QStringLiteral("%1 events (%2 renewals not shown):").arg(label).arg(renewals));
        for (const auto &line : std::as_const(events))
            say(QStringLiteral("  ") + line);
        say(QStringLiteral("%1 snapshot: %2")
                .arg(label, QString::fromUtf8(QJsonDocument(client->snapshot().toJson()).toJson(QJsonDocument::Compact))));
    }
};

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Partitioned work over a partition group"));
    parser.addOption(QSimbaExample::durationOption(QStringLiteral("3")));
    QTemporaryDir dir;
    const QString path = QSimbaExample::processCommandLine(parser, app, dir, QStringLiteral("partitioned-job.db"));
    const auto duration = QSimbaExample::duration(parser);
    say(QStringLiteral("database %1").arg(path));

    Node nodes[2];
    for (int i = 0; i < 2; ++i) {
        Node &node = nodes[i];
        node.label = QStringLiteral("node-%1").arg(i + 1);
        node.client = QSimbaExample::sqliteClient(path, node.label, [&node](const QSimbaEvent &e) { node.heard(e); });
        // Each partition's work runs on a thread of its own while this node holds it.
        node.task = node.client->group(QStringLiteral("billing"), Partitions)
                        ->schedule(QSimbaSchedule::fixedDelay(250ms), [&node](const QSimbaTerm &term, int partition) {
                            QMutexLocker lock(&node.mutex);
                            if (!node.ran.contains(partition))
                                say(QStringLiteral("%1: runs billing partition %2 (lease %3, token %4)")
                                        .arg(node.label)
                                        .arg(partition)
                                        .arg(term.name().toString())
                                        .arg(term.token()));
                            node.ran.insert(partition);
                        });
    }

    QTimer report;
    QObject::connect(&report, &QTimer::timeout, &app, [&] {
        for (auto &n : nodes)
            say(QStringLiteral("%1 partitions: %2").arg(n.label, sorted(n.task->partitions())));
    });
    report.start(1s);
    // Runs at least --duration, and until the nodes agree (at most 15 s more): both see both
    // sessions as members and each holds what rendezvous hashing gives its session. The first
    // node to join takes every partition until it sees the other member. For 1 pair of
    // sessions in 128 (8 partitions, 2 members: 2 / 2^8) hashing gives one node all 8 and
    // the other none: that is the assignment, not a node left out.
    QElapsedTimer elapsed;
    elapsed.start();
    QTimer check;
    bool split = false;
    const auto agreed = [&] {
        QList<QSimbaSessionId> sessions;
        for (auto &n : nodes)
            sessions << n.client->snapshot().session.id;
        std::sort(sessions.begin(), sessions.end());
        for (auto &n : nodes) {
            const auto snapshot = n.client->snapshot();
            if (snapshot.groups.size() != 1 || snapshot.groups.first().members != sessions
                || n.task->partitions() != QSimbaPartitionAssignment::partitionsOf(snapshot.session.id, Partitions, sessions))
                return false;
        }
        return true;
    };
    QObject::connect(&check, &QTimer::timeout, &app, [&] {
        if (!split && agreed()) {
            split = true;
            say(QStringLiteral("the nodes split the partitions as rendezvous hashing says after %1 ms: %2 %3, %4 %5")
                    .arg(elapsed.elapsed())
                    .arg(nodes[0].label, sorted(nodes[0].task->partitions()), nodes[1].label,
                         sorted(nodes[1].task->partitions())));
        }
        if (std::chrono::milliseconds(elapsed.elapsed()) >= duration && (split || elapsed.elapsed() > 15000 + duration.count()))
            app.quit();
    });
    check.start(50ms);
    app.exec();

    if (!split)
        for (auto &n : nodes)
            n.dump();
    for (auto &n : nodes)
        n.task->close();
    QSet<int> all;
    for (auto &n : nodes) {
        QMutexLocker lock(&n.mutex);
        say(QStringLiteral("%1 ran partitions %2").arg(n.label, sorted(n.ran)));
        all.unite(n.ran);
    }
    say(QStringLiteral("%1 of %2 partitions ran").arg(all.size()).arg(Partitions));
    const bool ok = all.size() == Partitions && split;
    if (split && !ok)
        for (auto &n : nodes)
            n.dump();
    for (auto &n : nodes)
        n.client->close();
    return ok ? 0 : 1;
}
