// SPDX-License-Identifier: Apache-2.0
// Model update time and memory of the monitor for 10,000 leases and 1,000 events per second.
//   bench_monitor [leases=10000] [events-per-second=1000] [seconds=10]
// Prints each figure and, for the lease refresh, the ratio to a model that resets itself
// on every refresh (the baseline the monitor avoids), both behind the same sorting proxy.
// Then the same load through the real window (offscreen, software rendering): the time of a
// refresh plus the frame that shows it, against an idle frame.
#include "eventmodel.h"
#include "leasemodel.h"
#include "monitorapplication.h"
#include "monitorcontroller.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QElapsedTimer>
#include <QtCore/QFile>
#include <QtCore/QRandomGenerator>
#include <QtCore/QSortFilterProxyModel>
#include <QtQml/QQmlApplicationEngine>
#include <QtQuick/QQuickWindow>
#include <QtWidgets/QApplication>

#include <algorithm>
#include <cstdio>

namespace {

qint64 rssKiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

MonitorSnapshot makeSnapshot(int leases, int sessions)
{
    MonitorSnapshot s;
    for (int i = 0; i < sessions; ++i)
        s.sessions.append({QStringLiteral("session-%1").arg(i), 15000,
                           {{QStringLiteral("host"), QStringLiteral("worker-%1").arg(i % 40)},
                            {QStringLiteral("pid"), QString::number(1000 + i)}}});
    for (int i = 0; i < leases; ++i)
        s.leases.append({QStringLiteral("orders.%1").arg(i), QStringLiteral("session-%1").arg(i % sessions), i + 1,
                         5000 + i % 10000, {}});
    return s;
}

// One refresh as a backend shows it 2 s later: a third of the leases renewed (their
// remaining went up), 1 % changed holder with a new token, everything else counted down.
void evolve(MonitorSnapshot &s, int sessions, QRandomGenerator &rng)
{
    for (auto &l : s.leases) {
        const quint32 r = rng.bounded(100u);
        if (r < 1) {
            l.holder = QStringLiteral("session-%1").arg(rng.bounded(sessions));
            l.token += 1000;
            l.remainingMs = 15000;
        } else if (r < 34) {
            l.remainingMs = 15000;
        } else {
            l.remainingMs = std::max<qint64>(1, l.remainingMs - 2000);
        }
    }
}

// The baseline: the same rows, replaced by a reset on every refresh.
class ResetModel : public QAbstractTableModel
{
public:
    int rowCount(const QModelIndex &p = {}) const override { return p.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &p = {}) const override { return p.isValid() ? 0 : 7; }
    QVariant data(const QModelIndex &i, int role) const override
    {
        if (role != Qt::DisplayRole)
            return {};
        const auto &l = m_rows.at(i.row());
        switch (i.column()) {
        case 1: return l.name;
        case 4: return l.token;
        default: return l.holder;
        }
    }
    void apply(const MonitorSnapshot &s)
    {
        beginResetModel();
        m_rows = s.leases;
        endResetModel();
    }

private:
    QList<MonitorLease> m_rows;
};

double median(QList<double> v)
{
    std::sort(v.begin(), v.end());
    return v.isEmpty() ? 0 : v.at(v.size() / 2);
}

} // namespace

int main(int argc, char *argv[])
{
    qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    const QStringList args = app.arguments();
    const int leases = args.value(1, QStringLiteral("10000")).toInt();
    const int eventsPerSecond = args.value(2, QStringLiteral("1000")).toInt();
    const int seconds = args.value(3, QStringLiteral("10")).toInt();
    const int sessions = std::max(1, leases / 20);
    const int refreshes = 20;
    QRandomGenerator rng(42);

    std::printf("monitor models: %d leases over %d sessions, %d events/s for %d s\n", leases, sessions,
                eventsPerSecond, seconds);
    const qint64 rss0 = rssKiB();

    // Leases: incremental model behind a sorting proxy (as the view uses it).
    LeaseModel model;
    LeaseFilterModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(LeaseModel::NameColumn);
    MonitorSnapshot snapshot = makeSnapshot(leases, sessions);
    QElapsedTimer t;
    t.start();
    model.apply(QStringLiteral("sqlite:///bench.db"), snapshot, model.now());
    const double firstMs = t.nsecsElapsed() / 1e6;
    QList<double> refreshMs, tickMs;
    MonitorSnapshot evolving = snapshot;
    QRandomGenerator rngA(7);
    for (int i = 0; i < refreshes; ++i) {
        evolve(evolving, sessions, rngA);
        t.restart();
        model.apply(QStringLiteral("sqlite:///bench.db"), evolving, model.now());
        refreshMs << t.nsecsElapsed() / 1e6;
        t.restart();
        model.tick();
        tickMs << t.nsecsElapsed() / 1e6;
    }
    const qint64 rssLeases = rssKiB();

    // Baseline: reset per refresh, same proxy, same snapshots.
    ResetModel reset;
    QSortFilterProxyModel resetProxy;
    resetProxy.setSourceModel(&reset);
    resetProxy.sort(1);
    reset.apply(snapshot);
    QList<double> resetMs;
    MonitorSnapshot evolvingB = snapshot;
    QRandomGenerator rngB(7);
    for (int i = 0; i < refreshes; ++i) {
        evolve(evolvingB, sessions, rngB);
        t.restart();
        reset.apply(evolvingB);
        resetMs << t.nsecsElapsed() / 1e6;
    }

    std::printf("leases: first load %.1f ms; refresh median %.2f ms (reset baseline %.2f ms, ratio %.2f); "
                "countdown tick median %.3f ms\n",
                firstMs, median(refreshMs), median(resetMs), median(refreshMs) / std::max(1e-9, median(resetMs)),
                median(tickMs));

    // Events: 1,000/s arrive, flushed every 100 ms into a filtered timeline holding 5,000.
    EventModel events;
    EventFilterModel filter;
    filter.setSourceModel(&events);
    filter.setType(QStringLiteral("ELECTED"));
    const QStringList types{QStringLiteral("ELECTED"), QStringLiteral("REVOKED"), QStringLiteral("SESSION_RENEWED")};
    const int perFlush = std::max(1, eventsPerSecond / 10);
    QList<double> flushMs;
    qint64 addNs = 0;
    for (int f = 0; f < seconds * 10; ++f) {
        t.restart();
        for (int i = 0; i < perFlush; ++i) {
            MonitorEvent e;
            e.sequence = qint64(f) * perFlush + i;
            e.time = QDateTime::currentDateTimeUtc();
            e.connection = QStringLiteral("http://127.0.0.1:8080");
            e.type = types.at(i % types.size());
            e.name = QStringLiteral("orders.%1").arg(i % 64);
            e.token = e.sequence;
            e.fields = QJsonObject{{QStringLiteral("type"), e.type}, {QStringLiteral("name"), e.name}};
            events.add(e);
        }
        addNs += t.nsecsElapsed();
        t.restart();
        events.flush();
        flushMs << t.nsecsElapsed() / 1e6;
    }
    const qint64 rssAll = rssKiB();
    std::printf("events: %d per 100 ms flush, flush median %.2f ms, max %.2f ms; add %.2f us/event; "
                "timeline holds %d (%d shown by the type filter)\n",
                perFlush, median(flushMs), *std::max_element(flushMs.cbegin(), flushMs.cend()),
                addNs / 1e3 / (seconds * 10.0 * perFlush), events.count(), filter.rowCount());
    std::printf("memory (RSS): start %lld KiB, with %d leases in the model %lld KiB, then with %d events (and the baseline model) %lld KiB\n",
                rss0, leases, rssLeases, events.count(), rssAll);
    std::printf("per 2 s poll: GUI thread busy %.2f ms for leases + %.2f ms for 20 event flushes = %.1f %%\n",
                median(refreshMs) + 4 * median(tickMs), 20 * median(flushMs),
                (median(refreshMs) + 4 * median(tickMs) + 20 * median(flushMs)) / 20.0);

    // The window: the leases view, then the events view, under the same load.
    MonitorController controller(nullptr);
    controller.setLanguage(QStringLiteral("en"));
    MonitorApplication::prepare(&controller);
    auto engine = MonitorApplication::load(&controller);
    if (!engine)
        return 1;
    auto *window = qobject_cast<QQuickWindow *>(engine->rootObjects().value(0));
    window->resize(1280, 800);
    window->setProperty("currentView", 1);
    auto frame = [window] {
        QElapsedTimer f;
        f.start();
        const QImage image = window->grabWindow(); // polish, sync and render one frame
        Q_UNUSED(image);
        return f.nsecsElapsed() / 1e6;
    };
    frame();
    QList<double> idleMs, viewRefreshMs;
    MonitorSnapshot viewSnapshot = snapshot;
    QRandomGenerator rngC(7);
    controller.leaseModel()->apply(QStringLiteral("sqlite:///bench.db"), viewSnapshot, controller.leaseModel()->now());
    frame();
    for (int i = 0; i < refreshes; ++i) {
        idleMs << frame();
        evolve(viewSnapshot, sessions, rngC);
        t.restart();
        controller.leaseModel()->apply(QStringLiteral("sqlite:///bench.db"), viewSnapshot, controller.leaseModel()->now());
        QCoreApplication::processEvents();
        const double apply = t.nsecsElapsed() / 1e6;
        viewRefreshMs << apply + frame();
    }
    window->setProperty("currentView", 3);
    frame();
    QList<double> eventFrameMs;
    for (int f = 0; f < 50; ++f) {
        t.restart();
        for (int i = 0; i < perFlush; ++i) {
            MonitorEvent e;
            e.time = QDateTime::currentDateTimeUtc();
            e.connection = QStringLiteral("http://127.0.0.1:8080");
            e.type = types.at(i % types.size());
            e.name = QStringLiteral("orders.%1").arg(i % 64);
            e.token = f * perFlush + i;
            controller.eventModel()->add(e);
        }
        controller.eventModel()->flush();
        QCoreApplication::processEvents();
        const double add = t.nsecsElapsed() / 1e6;
        eventFrameMs << add + frame();
    }
    std::printf("window (1280x800, software): idle frame median %.1f ms; lease refresh + its frame median %.1f ms, "
                "max %.1f ms; 100 events + their frame median %.1f ms, max %.1f ms\n",
                median(idleMs), median(viewRefreshMs), *std::max_element(viewRefreshMs.cbegin(), viewRefreshMs.cend()),
                median(eventFrameMs), *std::max_element(eventFrameMs.cbegin(), eventFrameMs.cend()));
    std::printf("memory (RSS) with the window, its %d leases and %d events: %lld KiB\n", controller.leaseModel()->count(),
                controller.eventModel()->count(), rssKiB());
    return 0;
}
