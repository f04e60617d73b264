// SPDX-License-Identifier: Apache-2.0
#include "qsimbalock.h"

#include "qsimba_p.h"
#include "qsimbaerror.h"
#include "qsimbalockterm_p.h"

#include <QtCore/QFutureWatcher>
#include <QtCore/QWaitCondition>

/*!
    \class QSimbaLock
    \brief A distributed lock whose term is the credential (see the seeds' "Locks").

    A distributed lock: an election of one lease name that takes the first term and hands it
    back when you are done. Within one client at most one holder per name: a second acquire
    waits for the first to be released. The lock and the election of one name share one
    lease: do not use a name for both. Owned by the QSimba client; the blocking calls may be
    made from any thread but the engine's, the async ones from the owner thread.
*/

using namespace QSimbaEngine;
using Answer = QSimbaLink::Answer;

class QSimbaLockPrivate
{
public:
    QSimba *client = nullptr;            // parents the watchers of async attempts
    std::shared_ptr<QSimbaLink> linkPtr; // the one way to the engine
    QSimbaLeaseName name;

    QSimbaLink &link() const { return *linkPtr; }

    QSimbaLockTerm makeTerm(const TermPtr &term) const
    {
        auto d = std::make_shared<QSimbaLockTermPrivate>();
        d->term = QSimbaTermPrivate::handle(term);
        d->link = linkPtr;
        return QSimbaLockTermPrivate::handle(d);
    }

    std::exception_ptr failure(Failure f, std::chrono::nanoseconds timeout) const
    {
        switch (f) {
        case Failure::Timeout:
            return std::make_exception_ptr(QSimbaLockTimeoutError(name.toString(), timeout));
        case Failure::Closed:
            return std::make_exception_ptr(
                QSimbaIllegalStateError(QStringLiteral("lock \"%1\": the QSimba client is closed").arg(name.toString())));
        case Failure::Busy:
            return std::make_exception_ptr(QSimbaIllegalStateError(
                QStringLiteral("lock \"%1\": the lease is used by an election of this client").arg(name.toString())));
        case Failure::None:
            break;
        }
        return nullptr;
    }

    //! Throws unless a blocking \a what may wait here: it waits for the engine only, so
    //! anywhere but the engine loop (leader work and callbacks included, as the seeds say).
    void checkMayBlock(const char *what, std::chrono::nanoseconds timeout) const
    {
        auto &l = link();
        if (!l.mayWait(QSimbaLink::WaitFor::Engine))
            throw QSimbaIllegalStateError(QStringLiteral("%1 of lock \"%2\" on the engine loop would deadlock")
                                              .arg(QLatin1String(what), name.toString()));
        if (l.shutDown || client->isClosed())
            std::rethrow_exception(failure(Failure::Closed, timeout));
    }

    //! One blocking attempt: the term, or nullptr (tryOnce: none), or throws.
    TermPtr attempt(std::chrono::nanoseconds timeout, bool tryOnce, std::chrono::nanoseconds reported) const;
    //! What an async attempt handed over, so that cancelling its future (even after it
    //! completed: the result is then out of reach) releases the term.
    struct Attempt
    {
        QMutex mutex;
        std::shared_ptr<QSimbaLockTermPrivate> won;
        QObject *watcher = nullptr; // until deleted
        QSimbaHandOverReceiver *dropper = nullptr; // the watcher's child: deletes it on its thread
    };
    //! Cancels the attempt, and releases what it won, when \a future is cancelled.
    template<typename T>
    void watchCancel(const QFuture<T> &future, quint64 id, std::shared_ptr<Attempt> attempt) const;
};

QSimbaLock::QSimbaLock(QSimba *client, const QSimbaLeaseName &name) : QObject(client), d_ptr(new QSimbaLockPrivate)
{
    d_ptr->client = client;
    d_ptr->linkPtr = QSimbaPrivate::get(client)->link;
    d_ptr->name = name;
}

QSimbaLock::~QSimbaLock() = default;

QSimbaLeaseName QSimbaLock::name() const { return d_func()->name; }

TermPtr QSimbaLockPrivate::attempt(std::chrono::nanoseconds timeout, bool tryOnce,
                                   std::chrono::nanoseconds reported) const
{
    struct Shared
    {
        QMutex mutex;
        QWaitCondition done;
        bool answered = false;
        TermPtr term;
        Failure failure = Failure::None;
    };
    auto shared = std::make_shared<Shared>();
    auto &l = link();
    const quint64 id = l.add([shared](const TermPtr &term, Failure failure) {
        QMutexLocker lock(&shared->mutex);
        shared->answered = true;
        shared->term = term;
        shared->failure = failure;
        shared->done.wakeAll();
        return Answer::Accepted;
    }, /*direct=*/true);
    const auto n = name;
    // This thread waits for the answer: it may run the acquire call itself, within timeout.
    l.postAndWait(In::AcquireLock{n, id, timeout, tryOnce}, l.deadlineIn(timeout));
    // The engine may answer on the thread that feeds it (the backend thread, say) while it
    // holds the core: shared->mutex is never held here while feeding it.
    QMutexLocker lock(&shared->mutex);
    while (!shared->answered) {
        QSimbaTsan::wait(shared->done, &shared->mutex, QDeadlineTimer(std::chrono::milliseconds(50)));
        if (!shared->answered && QThread::currentThread()->isInterruptionRequested()) {
            lock.unlock();
            l.post(In::CancelLock{n, id});
            if (l.cancel(id))
                throw QSimbaInterruptedError(QStringLiteral("acquire of lock \"%1\" interrupted").arg(n.toString()));
            // Answered meanwhile: a term won is released by its handle going away.
            lock.relock();
            while (!shared->answered)
                QSimbaTsan::wait(shared->done, &shared->mutex);
            const TermPtr won = shared->term;
            lock.unlock();
            if (won)
                makeTerm(won).close();
            throw QSimbaInterruptedError(QStringLiteral("acquire of lock \"%1\" interrupted").arg(n.toString()));
        }
    }
    if (auto error = failure(shared->failure, reported))
        std::rethrow_exception(error);
    return shared->term;
}

QSimbaLockTerm QSimbaLock::acquire(std::chrono::nanoseconds timeout)
{
    Q_D(QSimbaLock);
    if (timeout.count() < 0)
        throw QSimbaInvalidArgumentError(QStringLiteral("acquire of lock \"%1\": the timeout must not be negative")
                                             .arg(d->name.toString()));
    auto &l = d->link();
    d->checkMayBlock("acquire", timeout);
    const Nanos start = l.ticker->now();
    const Nanos deadline = timeout >= Nanos::max() - start ? Nanos::max() : start + timeout;
    for (;;) {
        const Nanos left = std::max(Nanos(0), deadline - l.ticker->now());
        const TermPtr term = d->attempt(left, false, timeout);
        if (term && term->isValid())
            return d->makeTerm(term);
        // The term ended right after it was won: release it (a handle going away), then
        // keep waiting for the next one.
        if (term)
            (void)d->makeTerm(term);
        if (l.ticker->now() >= deadline)
            throw QSimbaLockTimeoutError(d->name.toString(), timeout);
    }
}

std::optional<QSimbaLockTerm> QSimbaLock::tryAcquire()
{
    Q_D(QSimbaLock);
    auto &l = d->link();
    d->checkMayBlock("tryAcquire", {});
    const TermPtr term = d->attempt(l.config.leaseDuration(), true, {});
    if (term && term->isValid())
        return d->makeTerm(term);
    if (term)
        (void)d->makeTerm(term); // ended right after it was won: released as its handle goes
    return std::nullopt;
}

template<typename T>
void QSimbaLockPrivate::watchCancel(const QFuture<T> &future, quint64 id, std::shared_ptr<Attempt> attempt) const
{
    auto *watcher = new QFutureWatcher<void>(client);
    attempt->watcher = watcher;
    attempt->dropper = new QSimbaHandOverReceiver(watcher);
    const auto n = name;
    auto link = linkPtr;
    const auto drop = [](Attempt &a) { // with a.mutex held
        if (a.watcher) // possibly from the engine thread
            QSimbaHandOverReceiver::post(a.dropper, [w = std::exchange(a.watcher, nullptr)] { w->deleteLater(); });
    };
    QObject::connect(watcher, &QFutureWatcher<void>::canceled, watcher, [link, n, id, attempt, drop] {
        link->post(In::CancelLock{n, id});
        std::shared_ptr<QSimbaLockTermPrivate> won;
        {
            QMutexLocker lock(&attempt->mutex);
            won = std::exchange(attempt->won, nullptr);
            drop(*attempt);
        }
        if (won) // released outside the lock: the revocation's continuation takes it too
            QSimbaLockTermPrivate::handle(won).close();
    });
    // A future cancelled after it completed has its term out of reach: watch it while the
    // term it won lasts.
    QObject::connect(watcher, &QFutureWatcher<void>::finished, watcher, [attempt, drop] {
        QMutexLocker lock(&attempt->mutex);
        if (!attempt->won) {
            drop(*attempt);
            return;
        }
        const auto term = QSimbaTermPrivate::get(attempt->won->term);
        lock.unlock(); // the listener may run at once, here
        term->onRevoked([attempt, drop] {
            QMutexLocker lock(&attempt->mutex);
            attempt->won.reset();
            drop(*attempt);
        });
    });
    watcher->setFuture(QFuture<void>(future));
}

QFuture<QSimbaLockTerm> QSimbaLock::acquireAsync(std::chrono::nanoseconds timeout)
{
    Q_D(QSimbaLock);
    // A QFutureInterface rather than a QPromise: Qt 6.4's ~QPromise reports a future whose
    // result a continuation already took (takeResult() resets it) as finished again.
    auto promise = std::make_shared<QFutureInterface<QSimbaLockTerm>>();
    auto future = promise->future();
    promise->reportStarted();
    if (timeout.count() < 0) {
        promise->reportException(QSimbaInvalidArgumentError(
            QStringLiteral("acquireAsync of lock \"%1\": the timeout must not be negative").arg(d->name.toString())));
        promise->reportFinished();
        return future;
    }
    auto &l = d->link();
    if (l.shutDown || d->client->isClosed()) {
        promise->reportException(d->failure(Failure::Closed, timeout));
        promise->reportFinished();
        return future;
    }
    auto attempt = std::make_shared<QSimbaLockPrivate::Attempt>();
    const quint64 id = l.add([d, promise, timeout, attempt](const TermPtr &term, Failure failure) {
        if (promise->isCanceled()) {
            promise->reportFinished();
            return term ? Answer::Drop : Answer::Accepted; // a term won is released
        }
        if (!term) {
            promise->reportException(d->failure(failure == Failure::None ? Failure::Closed : failure, timeout));
            promise->reportFinished();
            return Answer::Accepted;
        }
        if (!term->isValid())
            return Answer::Keep; // ended before it could be handed over: keep contending
        QSimbaLockTerm won = d->makeTerm(term);
        {
            QMutexLocker lock(&attempt->mutex);
            attempt->won = QSimbaLockTermPrivate::get(won);
        }
        promise->reportAndMoveResult(std::move(won));
        promise->reportFinished();
        return Answer::Accepted;
    }, false);
    const auto n = d->name;
    l.post(In::AcquireLock{n, id, timeout, /*tryOnce=*/false});
    d->watchCancel(future, id, attempt);
    return future;
}

QFuture<std::optional<QSimbaLockTerm>> QSimbaLock::tryAcquireAsync()
{
    Q_D(QSimbaLock);
    auto promise = std::make_shared<QFutureInterface<std::optional<QSimbaLockTerm>>>();
    auto future = promise->future();
    promise->reportStarted();
    auto &l = d->link();
    if (l.shutDown || d->client->isClosed()) {
        promise->reportException(d->failure(Failure::Closed, {}));
        promise->reportFinished();
        return future;
    }
    auto attempt = std::make_shared<QSimbaLockPrivate::Attempt>();
    const quint64 id = l.add([d, promise, attempt](const TermPtr &term, Failure failure) {
        if (promise->isCanceled()) {
            promise->reportFinished();
            return term ? Answer::Drop : Answer::Accepted;
        }
        if (failure != Failure::None) {
            promise->reportException(d->failure(failure, {}));
            promise->reportFinished();
            return Answer::Accepted;
        }
        if (term && term->isValid()) {
            QSimbaLockTerm won = d->makeTerm(term);
            {
                QMutexLocker lock(&attempt->mutex);
                attempt->won = QSimbaLockTermPrivate::get(won);
            }
            promise->reportAndMoveResult(std::optional<QSimbaLockTerm>(std::move(won)));
        } else {
            promise->reportAndMoveResult(std::optional<QSimbaLockTerm>());
        }
        promise->reportFinished();
        return Answer::Accepted;
    }, false);
    const auto n = d->name;
    const Nanos lease = l.config.leaseDuration();
    l.post(In::AcquireLock{n, id, lease, /*tryOnce=*/true});
    d->watchCancel(future, id, attempt);
    return future;
}

#include "moc_qsimbalock.cpp"
