// SPDX-License-Identifier: Apache-2.0
#include "qsimba.h"

#include "qsimba_p.h"
#include "qsimbaelection_p.h"
#include "qsimbaerror.h"
#include "qsimbaleasebackend.h"
#include "qsimbainstrumentedbackend_p.h"
#include "qsimbalogging_p.h"

#include <QtCore/QMetaMethod>
#include <QtCore/QRandomGenerator>

/*!
    \class QSimba
    \brief A client: one backend session shared by every election, lock and group.

    Thread-affine to its owner thread. The engine runs on "simba-engine", backend calls on
    "simba-backend"; callbacks run on the callback executor (the owner thread by default).
    Destroying the client closes it (waiting for the session to close).
*/

using namespace QSimbaEngine;

namespace {
thread_local int t_callbackDepth = 0;
}

bool QSimbaPrivate::insideCallback() { return t_callbackDepth > 0; }
std::function<void(QSimbaEngine::Nanos, const QSimbaEngine::Input &)> QSimbaPrivate::inputObserverForTests;
QSimbaPrivate::CallbackScope::CallbackScope() { ++t_callbackDepth; }
QSimbaPrivate::CallbackScope::~CallbackScope() { --t_callbackDepth; }

struct QSimba::Builder::Data
{
    std::unique_ptr<QSimbaLeaseBackend> backend;
    QSimbaConfig config;
    std::shared_ptr<QSimbaTicker> ticker = QSimbaTicker::system();
    CallbackExecutor executorKind = CallbackExecutor::OwnerThread;
    Executor executor;
    QList<EventListener> listeners;
    QMap<QString, QString> metadata;
};

QSimba::Builder::Builder() : d(std::make_unique<Data>()) {}
QSimba::Builder::Builder(Builder &&) noexcept = default;
QSimba::Builder &QSimba::Builder::operator=(Builder &&) noexcept = default;
QSimba::Builder::~Builder() = default;

QSimba::Builder &QSimba::Builder::backend(std::unique_ptr<QSimbaLeaseBackend> backend)
{
    d->backend = std::move(backend);
    return *this;
}
QSimba::Builder &QSimba::Builder::config(const QSimbaConfig &config)
{
    d->config = config;
    return *this;
}
QSimba::Builder &QSimba::Builder::ticker(std::shared_ptr<QSimbaTicker> ticker)
{
    if (!ticker)
        throw QSimbaInvalidArgumentError(QStringLiteral("QSimba::Builder::ticker: the ticker is null"));
    d->ticker = std::move(ticker);
    return *this;
}
QSimba::Builder &QSimba::Builder::callbackExecutor(CallbackExecutor executor)
{
    d->executorKind = executor;
    d->executor = nullptr;
    return *this;
}
QSimba::Builder &QSimba::Builder::callbackExecutor(Executor executor)
{
    if (!executor)
        throw QSimbaInvalidArgumentError(QStringLiteral("QSimba::Builder::callbackExecutor: the executor is empty"));
    d->executor = std::move(executor);
    return *this;
}
QSimba::Builder &QSimba::Builder::listener(EventListener listener)
{
    if (listener)
        d->listeners.append(std::move(listener));
    return *this;
}
QSimba::Builder &QSimba::Builder::metadata(const QString &key, const QString &value)
{
    d->metadata.insert(key, value);
    return *this;
}

std::unique_ptr<QSimba> QSimba::Builder::build(QObject *parent)
{
    if (!d->backend)
        throw QSimbaInvalidArgumentError(QStringLiteral("QSimba::Builder::build: no backend given"));
    return std::unique_ptr<QSimba>(new QSimba(std::move(*this), parent));
}

QSimba::Builder QSimba::builder() { return Builder(); }

QSimba::QSimba(Builder &&builder, QObject *parent) : QObject(parent), d_ptr(new QSimbaPrivate)
{
    Q_D(QSimba);
    auto &b = *builder.d;
    d->q = this;
    d->link = std::make_shared<QSimbaLink>();
    d->link->config = b.config;
    d->link->ticker = b.ticker;
    d->listeners = b.listeners;

    QSimbaRuntime::Executor executor = b.executor;
    if (!executor) {
        switch (b.executorKind) {
        case CallbackExecutor::OwnerThread: {
            // A child: tasks still queued when the client is destroyed are dropped with it.
            QPointer<QSimbaHandOverReceiver> self(new QSimbaHandOverReceiver(this));
            executor = [self](std::function<void()> task) {
                if (!self)
                    return false;
                QSimbaHandOverReceiver::post(self.data(), std::move(task));
                return true;
            };
            break;
        }
        case CallbackExecutor::DedicatedThread: {
            d->callbackThread = std::make_unique<QThread>();
            d->callbackThread->setObjectName(QStringLiteral("simba-callbacks"));
            d->callbackContext = new QSimbaHandOverReceiver;
            d->callbackContext->moveToThread(d->callbackThread.get());
            QSimbaHandOverReceiver::startThread(*d->callbackThread);
            QSimbaHandOverReceiver *context = d->callbackContext;
            executor = [context](std::function<void()> task) {
                QSimbaHandOverReceiver::post(context, std::move(task));
                return true;
            };
            break;
        }
        case CallbackExecutor::Direct:
            executor = [](std::function<void()> task) {
                task();
                return true;
            };
            break;
        }
    }
    QSimbaRuntime::Hooks hooks;
    hooks.executor = std::move(executor);
    hooks.perform = [d](const Task &task) { return d->perform(task); };
    std::weak_ptr<QSimbaLink> weak = d->link;
    hooks.resolve = [weak](quint64 id, const TermPtr &term, Failure failure) {
        if (auto link = weak.lock())
            link->complete(id, term, failure);
    };

    Options options;
    options.config = b.config;
    options.ticker = b.ticker;
    // Where wall-clock time enters: the engine stamps its events from this pair.
    options.wallClock = {b.ticker->now(), QDateTime::currentDateTimeUtc()};
    options.seed = QRandomGenerator::system()->generate64();
    options.metadata = b.metadata;
    options.onInput = QSimbaPrivate::inputObserverForTests;
    options.eventsWanted = d->eventsWanted;
    options.withdrawals = b.backend->capabilities().waiterQueues;
    d->backendMetrics = std::make_shared<QSimbaBackendMetrics>(b.backend->describe());
    b.backend = std::make_unique<QSimbaInstrumentedLeaseBackend>(std::move(b.backend), d->backendMetrics);
    d->link->runtime = std::make_unique<QSimbaRuntime>(options, std::move(b.backend), std::move(hooks));
    d->link->runtime->start();
}

QSimba::~QSimba()
{
    Q_D(QSimba);
    (void)closeAsync();
    if (d->mayWait())
        d->closedFutureLocked().waitForFinished();
    d->shutdown();
}

void QSimbaPrivate::shutdown()
{
    if (link->shutDown.exchange(true))
        return;
    link->runtime->shutdown();
    if (callbackThread) {
        QSimbaHandOverReceiver::stopThread(*callbackThread);
        delete callbackContext;
    }
    // Futures nobody can complete any more (their continuations were queued to a thread
    // that is going away) complete now rather than hang.
    link->completeAll();
    link->waitForWork(std::chrono::seconds(5));
}

bool QSimbaPrivate::mayWait() const
{
    return link->mayWait();
}

bool QSimbaLink::mayWait(WaitFor what) const
{
    if (runtime->isEngineThread())
        return false;
    return what == WaitFor::Engine || !QSimbaPrivate::insideCallback();
}

quint64 QSimbaLink::add(Completer completer, bool direct)
{
    QMutexLocker lock(&m_mutex);
    const quint64 id = m_next++ | (direct ? DirectPromise : 0);
    m_completers.insert(id, std::move(completer));
    return id;
}

std::pair<quint64, QFuture<void>> QSimbaLink::newPromise(bool direct)
{
    auto promise = std::make_shared<QPromise<void>>();
    promise->start();
    auto future = promise->future();
    const quint64 id = add([promise](const TermPtr &, Failure) {
        promise->finish();
        return Answer::Accepted;
    }, direct);
    return {id, future};
}

Taken QSimbaLink::complete(quint64 id, const TermPtr &term, Failure failure)
{
    Completer completer;
    {
        QMutexLocker lock(&m_mutex);
        completer = m_completers.take(id);
    }
    if (!completer) // cancelled: a term won for it is released
        return term ? Taken::Release : Taken::Yes;
    const Answer answer = completer(term, failure);
    if (answer == Answer::Keep) {
        QMutexLocker lock(&m_mutex);
        m_completers.insert(id, std::move(completer));
    }
    switch (answer) {
    case Answer::Accepted: return Taken::Yes;
    case Answer::Keep: return Taken::Retry;
    case Answer::Drop: return Taken::Release;
    }
    return Taken::Yes;
}

bool QSimbaLink::cancel(quint64 id)
{
    QMutexLocker lock(&m_mutex);
    return m_completers.remove(id) > 0;
}

void QSimbaLink::completeAll()
{
    QHash<quint64, Completer> left;
    {
        QMutexLocker lock(&m_mutex);
        left.swap(m_completers);
    }
    for (auto &c : left)
        c(nullptr, Failure::Closed);
}

void QSimbaLink::post(QSimbaEngine::Input input)
{
    if (!shutDown.load())
        runtime->post(std::move(input));
}

void QSimbaLink::postAndWait(QSimbaEngine::Input input, QSimbaEngine::Nanos deadline)
{
    if (shutDown.load())
        return;
    QSimbaRuntime::CallerRuns runs(*runtime, deadline);
    runtime->post(std::move(input));
}

QSimbaEngine::Nanos QSimbaLink::deadlineIn(std::chrono::nanoseconds timeout) const
{
    const QSimbaEngine::Nanos now = runtime->now();
    return timeout >= QSimbaEngine::Core::Never - now ? QSimbaEngine::Core::Never : now + timeout;
}

void QSimbaLink::startElection(const QSimbaLeaseName &name, bool withWork)
{
    if (shutDown.load())
        return;
    const bool started = runtime->handleNow(In::StartElection{name, Kind::Election, /*oneTerm=*/false, withWork});
    if (!started)
        throw QSimbaIllegalStateError(
            QStringLiteral("election \"%1\": the lease is used by a lock of this client").arg(name.toString()));
}

void QSimbaPrivate::ensureOpen(const char *what) const
{
    link->ensureOpen(what);
}

void QSimbaLink::ensureOpen(const char *what) const
{
    if (closing)
        throw QSimbaIllegalStateError(QStringLiteral("%1: the QSimba client is closed").arg(QLatin1String(what)));
}

Taken QSimbaPrivate::perform(const Task &task)
{
    CallbackScope scope;
    const auto guarded = [](const char *what, const auto &fn) {
        try {
            fn();
        } catch (const std::exception &e) {
            qCWarning(lcSimbaEngine) << what << "threw:" << e.what();
        } catch (...) {
            qCWarning(lcSimbaEngine) << what << "threw a non-standard exception";
        }
    };
    if (task.type == Task::Type::Complete)
        return link->complete(task.promise, task.term, task.failure);
    if (task.type == Task::Type::Event) {
        static const QMetaMethod signal = QMetaMethod::fromSignal(&QSimba::event);
        if (listeners.isEmpty() && !q->isSignalConnected(signal)) {
            // Nobody receives events: the engine stops publishing them until a connection
            // to event() (connectNotify) — or one made just now, seen by the second look.
            eventsWanted->store(false);
            if (q->isSignalConnected(signal))
                eventsWanted->store(true);
        }
        guarded("an event signal handler", [&] { Q_EMIT q->event(task.event); });
        for (const auto &listener : std::as_const(listeners))
            guarded("an event listener", [&] { listener(task.event); });
        return Taken::Yes;
    }
    if (task.type == Task::Type::Elected && task.withWork) {
        // Leader work starts with the delivery of its term, on a thread of its own.
        const auto work = link->workFor(task);
        // The handover may have skipped the work already (close() on a blocked owner
        // thread): then it never starts, for a term that is over.
        if (work && task.term->beginWork())
            link->startWork(task.term, work->first, work->second);
        else
            link->post(In::WorkExited{task.term->name, task.term->token});
    }
    QSimbaElection *election = nullptr;
    {
        QMutexLocker lock(&electionsMutex);
        election = elections.value(task.name);
    }
    if (!election)
        return Taken::Yes;
    auto *ed = QSimbaElectionPrivate::get(election);
    switch (task.type) {
    case Task::Type::Status: {
        {
            QMutexLocker lock(&ed->mutex);
            ed->status = task.status;
            if (task.term) // Leader: the term is current from the moment the status says so
                ed->term = QSimbaTermPrivate::handle(task.term);
        }
        guarded("a statusChanged handler", [&] { Q_EMIT election->statusChanged(task.status); });
        break;
    }
    case Task::Type::Elected: {
        const QSimbaTerm term = QSimbaTermPrivate::handle(task.term);
        QSimbaElection::ElectedCallback callback;
        {
            QMutexLocker lock(&ed->mutex);
            ed->term = term;
            callback = ed->onElected;
        }
        if (callback)
            guarded("an elected listener", [&] { callback(term); });
        guarded("an elected handler", [&] { Q_EMIT election->elected(term); });
        break;
    }
    case Task::Type::Revoked: {
        const QSimbaTerm term = QSimbaTermPrivate::handle(task.term);
        QSimbaElection::RevokedCallback callback;
        {
            QMutexLocker lock(&ed->mutex);
            if (ed->term == term)
                ed->term = QSimbaTerm();
            callback = ed->onRevoked;
        }
        if (callback)
            guarded("a revoked listener", [&] { callback(term, task.reason); });
        guarded("a revoked handler", [&] { Q_EMIT election->revoked(term, task.reason); });
        break;
    }
    case Task::Type::Event:
    case Task::Type::Complete:
        break;
    }
    return Taken::Yes;
}

QSimbaConfig QSimba::config() const
{
    return d_func()->link->config;
}

QSimbaElection *QSimba::election(const QString &name)
{
    Q_D(QSimba);
    const auto lease = QSimbaLeaseName::of(name);
    d->ensureOpen("QSimba::election");
    QMutexLocker lock(&d->electionsMutex);
    auto *&election = d->elections[lease];
    if (!election)
        election = new QSimbaElection(this, lease);
    return election;
}

QSimbaLock *QSimba::lock(const QString &name)
{
    Q_D(QSimba);
    const auto lease = QSimbaLeaseName::of(name);
    d->ensureOpen("QSimba::lock");
    auto *&lock = d->locks[lease];
    if (!lock)
        lock = new QSimbaLock(this, lease);
    return lock;
}

QSimbaPartitionGroup *QSimba::group(const QString &name, int partitions)
{
    Q_D(QSimba);
    QSimbaLeaseName::validateGroup(name, partitions);
    d->ensureOpen("QSimba::group");
    auto *&group = d->groups[name];
    if (!group)
        group = new QSimbaPartitionGroup(this, name, partitions);
    else if (group->partitions() != partitions)
        throw QSimbaInvalidArgumentError(QStringLiteral("group \"%1\" has %2 partitions, not %3")
                                             .arg(name)
                                             .arg(group->partitions())
                                             .arg(partitions));
    return group;
}

QSimbaSnapshot QSimba::snapshot() const
{
    Q_D(const QSimba);
    QSimbaSnapshot snap;
    if (d->link->shutDown) {
        snap.session.status = QSimbaSessionSnapshot::Status::Closed;
        snap.leaseDuration = d->link->config.leaseDuration();
        return snap;
    }
    d->link->runtime->query([&](const Core &core, Nanos now) { snap = core.snapshot(now); });
    return snap;
}

/*!
    The counters of this client's backend calls, which it keeps from the start: the operator
    endpoint exports them. Any thread may read them.
*/
std::shared_ptr<const QSimbaBackendMetrics> QSimba::backendMetrics() const
{
    Q_D(const QSimba);
    return d->backendMetrics;
}

QFuture<void> QSimba::closeAsync()
{
    Q_D(QSimba);
    QMutexLocker closeLock(&d->closeMutex);
    if (d->link->closing.load())
        return d->closeFuture;
    auto [closedId, closedFuture] = d->link->newPromise(/*direct=*/true);
    auto [afterId, afterFuture] = d->link->newPromise();
    d->closedFuture = closedFuture;
    d->closeFuture = afterFuture;
    d->link->closing.store(true);
    closeLock.unlock();
    {
        QMutexLocker lock(&d->electionsMutex);
        for (auto *e : std::as_const(d->elections))
            QSimbaElectionPrivate::get(e)->started = false;
    }
    d->link->post(In::Close{{afterId, closedId}});
    Q_EMIT closedChanged(true);
    return afterFuture;
}

void QSimba::close()
{
    Q_D(QSimba);
    (void)closeAsync();
    if (d->mayWait()) // inside a callback the close goes on asynchronously: no self-deadlock
        d->closedFutureLocked().waitForFinished();
}

bool QSimba::isClosed() const
{
    return d_func()->link->closing;
}

/*!
    \reimp
    A connection to event() starts the delivery of events again: while nobody receives them
    (no listener, no connection), the engine does not deliver them at all.
*/
void QSimba::connectNotify(const QMetaMethod &signal)
{
    if (signal == QMetaMethod::fromSignal(&QSimba::event))
        d_func()->eventsWanted->store(true);
}

#include "moc_qsimba.cpp"
