// SPDX-License-Identifier: Apache-2.0
#include "qsimbascheduler.h"
#include "qsimbabackendfactorylogging_p.h"

#include "qsimba.h"
#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbasettings.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QMetaMethod>
#include <QtCore/QMutex>
#include <QtCore/QPointer>
#include <QtCore/QThread>
#include <QtCore/QTimer>
#include <QtCore/QWaitCondition>

#include <atomic>
#include <utility>
#include <vector>

/*!
    \class QSimbaScheduler
    \brief Declarative leader work, the counterpart of the seeds' @SimbaScheduled and
    @SimbaPartitioned: schedules registered once (by a call, or declared on a QObject's slots
    with Q_CLASSINFO), started together after the application is set up and stopped together
    before the client closes. Each run is delivered on the thread of its context object, only
    while this client holds the term, never after the term ended; the handover of a term waits
    for a run in progress (up to the term's deadline).

    Declarations on slots (strings accept ${VAR} placeholders; durations as 10s, 500ms, PT1M):
        Q_CLASSINFO("SimbaScheduled:generate", "name=report; fixedDelay=1m; initialDelay=10s")
        Q_CLASSINFO("SimbaPartitioned:bill", "group=billing; partitions=16; fixedRate=30s")
    generate() takes no argument or a QSimbaTerm; bill() takes (QSimbaTerm, int).

    Thread-affine: create and use it on the client's owner thread.
*/

namespace {

// One run handed from a term's work thread to the context object's thread.
struct OwnerCall
{
    enum State { Queued, Running, Done, Cancelled };
    std::atomic<int> state{Queued};
    QMutex mutex;
    QWaitCondition wake;
    bool finished = false; // Done, or the term ended while still Queued
};

/*
    Runs \a run on \a context's thread and waits for it, from the term's work thread. When
    the term ends before the run started, the run is cancelled and never starts: a blocked
    owner thread (closing the client, say) never delays the handover. A run already started
    is waited for, as the handover order requires. The run itself checks the term once more
    on the owner thread, so it never starts after the term ended.
*/
void runOnOwner(QObject *context, const QSimbaTerm &term, const std::shared_ptr<std::atomic<bool>> &live,
                std::function<void()> run)
{
    if (!context || !term.isValid() || !live->load())
        return;
    auto call = std::make_shared<OwnerCall>();
    const auto finish = [call] {
        QMutexLocker lock(&call->mutex);
        call->finished = true;
        call->wake.wakeAll();
    };
    QMetaObject::invokeMethod(
        context,
        [call, term, live, run = std::move(run), finish] {
            int expected = OwnerCall::Queued;
            if (!call->state.compare_exchange_strong(expected, OwnerCall::Running))
                return;
            // A stopped scheduler runs nothing more, even before the engine revoked the term.
            if (term.isValid() && live->load()) {
                try {
                    run();
                } catch (const std::exception &e) {
                    qCWarning(lcSimbaBackendFactory) << "scheduled run of" << term.name() << "threw:" << e.what();
                } catch (...) {
                    qCWarning(lcSimbaBackendFactory) << "scheduled run of" << term.name() << "threw";
                }
            }
            call->state = OwnerCall::Done;
            finish();
        },
        Qt::QueuedConnection);
    // The end of the term interrupts this thread without waking the wait: look often. (A
    // continuation on term.revoked() would replace the engine's own: a QFuture has one.)
    constexpr int sliceMs = 10;
    QMutexLocker lock(&call->mutex);
    while (!call->finished) {
        if (!term.isValid() || !live->load() || QThread::currentThread()->isInterruptionRequested()) {
            int expected = OwnerCall::Queued;
            if (call->state.compare_exchange_strong(expected, OwnerCall::Cancelled))
                return;
        }
        call->wake.wait(&call->mutex, QDeadlineTimer(sliceMs));
    }
}

} // namespace

class QSimbaSchedulerPrivate
{
public:
    struct Entry
    {
        QString name;    // the election, or the group
        int partitions = 0; // 0: a scheduled election
        QSimbaSchedule schedule = QSimbaSchedule::fixedDelay(std::chrono::seconds(1));
        QPointer<QObject> context;
        QSimbaScheduler::Work work;
        QSimbaScheduler::PartitionWork partitionWork;
        std::unique_ptr<QSimbaLeaderTask> leaderTask;
        std::unique_ptr<QSimbaGroupTask> groupTask;
    };

    QSimbaScheduler *q = nullptr;
    QPointer<QSimba> client;
    std::vector<Entry> entries;
    bool enabled = true;
    bool running = false;
    // Whether runs may start; each start() gets a fresh flag that stop() clears.
    std::shared_ptr<std::atomic<bool>> live = std::make_shared<std::atomic<bool>>(false);

    void checkStopped(const QString &what) const
    {
        if (running)
            throw QSimbaIllegalStateError(
                QStringLiteral("%1: the scheduler is running; register schedules before start()").arg(what));
    }
};

namespace {

// "name=report; fixedDelay=1m" -> {name: report, fixedDelay: 1m}, placeholders expanded.
QHash<QString, QString> attributesOf(const QString &declaration, const QString &where)
{
    static const QStringList known{QStringLiteral("name"),      QStringLiteral("group"),
                                   QStringLiteral("partitions"), QStringLiteral("fixedDelay"),
                                   QStringLiteral("fixedRate"), QStringLiteral("initialDelay")};
    QHash<QString, QString> out;
    const auto parts = declaration.split(QLatin1Char(';'), Qt::SkipEmptyParts);
    for (const QString &part : parts) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        const QString key = part.left(eq).trimmed();
        if (eq < 0 || !known.contains(key))
            throw QSimbaInvalidArgumentError(
                QStringLiteral("%1: \"%2\" is not an attribute; write key=value pairs separated by ';' with keys %3")
                    .arg(where, part.trimmed(), known.join(QLatin1String(", "))));
        out.insert(key, QSimbaSettings::expandPlaceholders(part.mid(eq + 1).trimmed(), where + QLatin1Char(' ') + key));
    }
    return out;
}

} // namespace

/*!
    A scheduler of \a client (which must outlive it), enabled. Owner thread.
*/
QSimbaScheduler::QSimbaScheduler(QSimba *client, QObject *parent)
    : QObject(parent), d_ptr(std::make_unique<QSimbaSchedulerPrivate>())
{
    Q_D(QSimbaScheduler);
    d->q = this;
    d->client = client;
    if (!client)
        throw QSimbaInvalidArgumentError(QStringLiteral("QSimbaScheduler needs a client"));
    // The seeds' shutdown order: leader work stops before the client closes.
    if (QCoreApplication::instance())
        connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, this, &QSimbaScheduler::stop);
    // A client closed first stopped every task already: the tasks only let go of it then.
    // (Stopping them on closedChanged would wait inside the client's close.)
    connect(client, &QObject::destroyed, this, [this] {
        Q_D(QSimbaScheduler);
        for (auto &entry : d->entries) {
            entry.leaderTask.reset();
            entry.groupTask.reset();
        }
        if (std::exchange(d->running, false))
            Q_EMIT runningChanged(false);
    });
}

QSimbaScheduler::~QSimbaScheduler()
{
    stop();
}

/*!
    The schedule of the annotation attributes \a fixedDelay, \a fixedRate and
    \a initialDelay (empty: absent), durations as "500ms", "10s", "PT1M". Throws
    QSimbaInvalidArgumentError naming the attribute and the rule: both or neither of
    fixedDelay and fixedRate, a malformed duration, a period that is not positive.
*/
QSimbaSchedule QSimbaScheduler::scheduleOf(const QString &fixedDelay, const QString &fixedRate,
                                           const QString &initialDelay)
{
    if (!fixedDelay.isEmpty() && !fixedRate.isEmpty())
        throw QSimbaInvalidArgumentError(
            QStringLiteral("fixedDelay and fixedRate are both set: set exactly one of them"));
    if (fixedDelay.isEmpty() && fixedRate.isEmpty())
        throw QSimbaInvalidArgumentError(
            QStringLiteral("neither fixedDelay nor fixedRate is set: set exactly one of them"));
    const auto parse = [](const QString &attribute, const QString &text) {
        const auto d = QSimbaDuration::parse(text);
        if (!d)
            throw QSimbaInvalidArgumentError(
                QStringLiteral("%1 \"%2\" is not a duration such as 500ms, 10s, 1m or PT1M").arg(attribute, text));
        return *d;
    };
    const bool rate = !fixedRate.isEmpty();
    const QString attribute = rate ? QStringLiteral("fixedRate") : QStringLiteral("fixedDelay");
    const auto period = parse(attribute, rate ? fixedRate : fixedDelay);
    if (period <= std::chrono::nanoseconds(0))
        throw QSimbaInvalidArgumentError(QStringLiteral("%1 \"%2\" is not positive").arg(attribute, rate ? fixedRate : fixedDelay));
    const auto initial = initialDelay.isEmpty() ? std::chrono::nanoseconds(0)
                                                : parse(QStringLiteral("initialDelay"), initialDelay);
    return rate ? QSimbaSchedule::fixedRate(period, initial) : QSimbaSchedule::fixedDelay(period, initial);
}

/*!
    Registers \a work, run on \a context's thread on \a schedule while this client leads
    \a name (start() starts it). Throws QSimbaInvalidArgumentError for a bad name or a null
    context, QSimbaIllegalStateError while running. Owner thread.
*/
void QSimbaScheduler::addScheduled(const QString &name, const QSimbaSchedule &schedule, QObject *context, Work work)
{
    Q_D(QSimbaScheduler);
    d->checkStopped(name);
    QSimbaLeaseName::of(name);
    if (!context || !work)
        throw QSimbaInvalidArgumentError(QStringLiteral("schedule %1: no context object or no work").arg(name));
    QSimbaSchedulerPrivate::Entry entry;
    entry.name = name;
    entry.schedule = schedule;
    entry.context = context;
    entry.work = std::move(work);
    d->entries.push_back(std::move(entry));
}

/*!
    Registers \a work, run on \a context's thread for each partition of \a group (with
    \a partitions partitions) this client holds, on \a schedule. Throws
    QSimbaInvalidArgumentError for a bad group or partition count. Owner thread.
*/
void QSimbaScheduler::addPartitioned(const QString &group, int partitions, const QSimbaSchedule &schedule,
                                     QObject *context, PartitionWork work)
{
    Q_D(QSimbaScheduler);
    d->checkStopped(group);
    QSimbaLeaseName::validateGroup(group, partitions);
    if (!context || !work)
        throw QSimbaInvalidArgumentError(QStringLiteral("group %1: no context object or no work").arg(group));
    QSimbaSchedulerPrivate::Entry entry;
    entry.name = group;
    entry.partitions = partitions;
    entry.schedule = schedule;
    entry.context = context;
    entry.partitionWork = std::move(work);
    d->entries.push_back(std::move(entry));
}

/*!
    Registers the schedules \a object declares with class info "SimbaScheduled:<slot>"
    (attributes name, fixedDelay or fixedRate, initialDelay) and "SimbaPartitioned:<slot>"
    (group, partitions, the same timing). The slot takes () or (QSimbaTerm) for the first,
    (QSimbaTerm, int) for the second, and runs on \a object's thread. Throws
    QSimbaInvalidArgumentError naming the class, the slot and the rule broken.
*/
void QSimbaScheduler::addObject(QObject *object)
{
    if (!object)
        throw QSimbaInvalidArgumentError(QStringLiteral("addObject: no object"));
    const QMetaObject *meta = object->metaObject();
    for (int i = 0; i < meta->classInfoCount(); ++i) {
        const QMetaClassInfo info = meta->classInfo(i);
        const QString key = QString::fromUtf8(info.name());
        const bool scheduled = key.startsWith(QLatin1String("SimbaScheduled:"));
        const bool partitioned = key.startsWith(QLatin1String("SimbaPartitioned:"));
        if (!scheduled && !partitioned)
            continue;
        const QString slot = key.mid(key.indexOf(QLatin1Char(':')) + 1);
        const QString where = QStringLiteral("%1::%2 (%3)").arg(QString::fromUtf8(meta->className()), slot,
                                                                 scheduled ? QStringLiteral("SimbaScheduled")
                                                                           : QStringLiteral("SimbaPartitioned"));
        try {
            const auto attrs = attributesOf(QString::fromUtf8(info.value()), where);
            const QSimbaSchedule schedule = scheduleOf(attrs.value(QStringLiteral("fixedDelay")),
                                                       attrs.value(QStringLiteral("fixedRate")),
                                                       attrs.value(QStringLiteral("initialDelay")));
            // Find the slot by name and argument types.
            const QByteArray name = slot.toUtf8();
            QMetaMethod method;
            int arity = -1;
            for (int m = 0; m < meta->methodCount(); ++m) {
                const QMetaMethod candidate = meta->method(m);
                if (candidate.name() != name)
                    continue;
                const int n = candidate.parameterCount();
                const bool fits = scheduled
                    ? (n == 0 || (n == 1 && candidate.parameterMetaType(0) == QMetaType::fromType<QSimbaTerm>()))
                    : (n == 2 && candidate.parameterMetaType(0) == QMetaType::fromType<QSimbaTerm>()
                       && candidate.parameterMetaType(1) == QMetaType::fromType<int>());
                if (fits && n > arity) {
                    method = candidate;
                    arity = n;
                }
            }
            if (!method.isValid())
                throw QSimbaInvalidArgumentError(
                    scheduled ? QStringLiteral("no slot %1() or %1(QSimbaTerm)").arg(slot)
                              : QStringLiteral("no slot %1(QSimbaTerm, int)").arg(slot));
            QPointer<QObject> target(object);
            if (scheduled) {
                if (!attrs.contains(QStringLiteral("name")))
                    throw QSimbaInvalidArgumentError(QStringLiteral("the attribute name is missing"));
                addScheduled(attrs.value(QStringLiteral("name")), schedule, object,
                             [target, method, arity](const QSimbaTerm &term) {
                                 if (!target)
                                     return;
                                 if (arity == 0)
                                     method.invoke(target.data(), Qt::DirectConnection);
                                 else
                                     method.invoke(target.data(), Qt::DirectConnection, Q_ARG(QSimbaTerm, term));
                             });
            } else {
                bool ok = false;
                const int partitions = attrs.value(QStringLiteral("partitions")).toInt(&ok);
                if (!attrs.contains(QStringLiteral("group")))
                    throw QSimbaInvalidArgumentError(QStringLiteral("the attribute group is missing"));
                if (!ok)
                    throw QSimbaInvalidArgumentError(
                        QStringLiteral("partitions \"%1\" is not a number of partitions")
                            .arg(attrs.value(QStringLiteral("partitions"))));
                addPartitioned(attrs.value(QStringLiteral("group")), partitions, schedule, object,
                               [target, method](const QSimbaTerm &term, int partition) {
                                   if (target)
                                       method.invoke(target.data(), Qt::DirectConnection, Q_ARG(QSimbaTerm, term),
                                                     Q_ARG(int, partition));
                               });
            }
        } catch (const QSimbaInvalidArgumentError &e) {
            if (e.message().startsWith(where))
                throw;
            throw QSimbaInvalidArgumentError(where + QLatin1String(": ") + e.message());
        }
    }
}

bool QSimbaScheduler::isEnabled() const
{
    return d_func()->enabled;
}

/*!
    Enables or disables the schedules. Disabling stops those running; enabling does not
    start them (call start()).
*/
void QSimbaScheduler::setEnabled(bool enabled)
{
    Q_D(QSimbaScheduler);
    if (d->enabled == enabled)
        return;
    d->enabled = enabled;
    if (!enabled)
        stop();
    Q_EMIT enabledChanged(enabled);
}

/*!
    setEnabled(QSimbaSettings::schedulingEnabled(\a settings)): \c{simba/scheduling/enabled}
    or \c SIMBA_SCHEDULING_ENABLED. Throws QSimbaInvalidArgumentError for a malformed value.
*/
void QSimbaScheduler::setEnabledFromSettings(const QSettings &settings)
{
    setEnabled(QSimbaSettings::schedulingEnabled(settings));
}

bool QSimbaScheduler::isRunning() const
{
    return d_func()->running;
}

/*!
    Starts every registered schedule; nothing when disabled, already running or the client
    closed. A schedule whose election (or group) cannot start — another part of the
    application started it already — is reported with a warning and skipped. Owner thread.
*/
void QSimbaScheduler::start()
{
    Q_D(QSimbaScheduler);
    if (d->running || !d->enabled || !d->client || d->client->isClosed())
        return;
    d->live = std::make_shared<std::atomic<bool>>(true);
    const auto live = d->live;
    for (auto &entry : d->entries) {
        try {
            if (entry.partitions == 0) {
                QPointer<QObject> context = entry.context;
                auto work = entry.work;
                entry.leaderTask = d->client->election(entry.name)->schedule(
                    entry.schedule, [context, work, live](const QSimbaTerm &term) {
                        runOnOwner(context.data(), term, live, [work, term] { work(term); });
                    });
            } else {
                QPointer<QObject> context = entry.context;
                auto work = entry.partitionWork;
                entry.groupTask = d->client->group(entry.name, entry.partitions)
                                      ->schedule(entry.schedule, [context, work, live](const QSimbaTerm &term, int p) {
                                          runOnOwner(context.data(), term, live, [work, term, p] { work(term, p); });
                                      });
            }
        } catch (const QSimbaError &e) {
            qCWarning(lcSimbaBackendFactory).noquote()
                << "schedule" << entry.name << "not started:" << e.message();
        }
    }
    d->running = true;
    Q_EMIT runningChanged(true);
}

/*! Calls start() from the event loop, once the application finished its setup. */
void QSimbaScheduler::startWhenReady()
{
    QTimer::singleShot(0, this, &QSimbaScheduler::start);
}

/*!
    Stops every schedule in handover order (the run in progress returns, revoked is
    delivered, the lease is released) and waits; each wait is bounded by the term's
    deadline. Idempotent. Owner thread.
*/
void QSimbaScheduler::stop()
{
    Q_D(QSimbaScheduler);
    if (!d->running)
        return;
    d->live->store(false);
    // Every stop requested first, so the handovers run side by side; then wait for each.
    for (auto &entry : d->entries) {
        if (entry.leaderTask)
            (void)entry.leaderTask->stop();
        if (entry.groupTask)
            (void)entry.groupTask->stop();
    }
    for (auto &entry : d->entries) {
        if (entry.leaderTask)
            entry.leaderTask->close();
        if (entry.groupTask)
            entry.groupTask->close();
        entry.leaderTask.reset();
        entry.groupTask.reset();
    }
    d->running = false;
    Q_EMIT runningChanged(false);
}

/*!
    Requests every schedule to stop (handover order each) without waiting: no run starts
    after this call returns. The future completes once every term handed over. The tasks
    stay alive until then. Owner thread.
*/
QFuture<void> QSimbaScheduler::stopAsync()
{
    Q_D(QSimbaScheduler);
    if (!d->running)
        return QtFuture::makeReadyFuture();
    struct Stopping
    {
        std::vector<std::unique_ptr<QSimbaLeaderTask>> leaders;
        std::vector<std::unique_ptr<QSimbaGroupTask>> groups;
    };
    d->live->store(false);
    auto stopping = std::make_shared<Stopping>();
    QList<QFuture<void>> futures;
    for (auto &entry : d->entries) {
        if (entry.leaderTask) {
            futures << entry.leaderTask->stop();
            stopping->leaders.push_back(std::move(entry.leaderTask));
        }
        if (entry.groupTask) {
            futures << entry.groupTask->stop();
            stopping->groups.push_back(std::move(entry.groupTask));
        }
    }
    d->running = false;
    Q_EMIT runningChanged(false);
    if (futures.isEmpty())
        return QtFuture::makeReadyFuture();
    return QtFuture::whenAll(futures.begin(), futures.end()).then(QtFuture::Launch::Sync, [stopping](const QList<QFuture<void>> &) {
        // The tasks stopped: destroying them now does not wait.
        stopping->leaders.clear();
        stopping->groups.clear();
    });
}

#include "moc_qsimbascheduler.cpp"
