// SPDX-License-Identifier: Apache-2.0
#include "qsimbaelection.h"

#include "qsimba_p.h"
#include "qsimbaduration_p.h"
#include "qsimbaelection_p.h"
#include "qsimbaleadertask.h"
#include "qsimbataskstopper_p.h"
#include "qsimbaerror.h"
#include "qsimbaseedname_p.h"

/*!
    \class QSimbaElection
    \brief The election of one lease name in a client.

    Thread-affine: call it on the client's owner thread. Signals are emitted on the
    callback executor, one at a time and in order. start() throws QSimbaIllegalStateError
    when already started or after the client closed.

    The election of one lease name inside a client; every handle of a name is this one
    object, owned by the QSimba client. Thread-affine: use it from the client's owner thread.
    Signals are emitted on the callback executor (the owner thread by default), one at a
    time, in order: every elected(term) is followed by exactly one revoked(term, reason).
*/

using namespace QSimbaEngine;

QSimbaElection::QSimbaElection(QSimba *client, const QSimbaLeaseName &name)
    : QObject(client), d_ptr(new QSimbaElectionPrivate)
{
    Q_D(QSimbaElection);
    d->link = QSimbaPrivate::get(client)->link;
    d->name = name;
}

QSimbaElection::~QSimbaElection() = default;

QSimbaLeaseName QSimbaElection::name() const { return d_func()->name; }

QSimbaElection::Status QSimbaElection::status() const
{
    Q_D(const QSimbaElection);
    QMutexLocker lock(&d->mutex);
    return d->status;
}

bool QSimbaElection::isStarted() const { return d_func()->started; }

QSimbaTerm QSimbaElection::currentTerm() const
{
    Q_D(const QSimbaElection);
    QMutexLocker lock(&d->mutex);
    return d->term;
}

void QSimbaElection::start()
{
    start(nullptr, nullptr);
}

void QSimbaElection::start(ElectedCallback onElected, RevokedCallback onRevoked)
{
    Q_D(QSimbaElection);
    d->link->ensureOpen("QSimbaElection::start");
    if (d->started)
        throw QSimbaIllegalStateError(QStringLiteral("election \"%1\" is already started").arg(d->name.toString()));
    {
        // Before the start reaches the engine: a term won at once may be delivered (on a
        // callback thread of its own) before this function returns.
        QMutexLocker lock(&d->mutex);
        d->onElected = std::move(onElected);
        d->onRevoked = std::move(onRevoked);
    }
    d->link->startElection(d->name, /*withWork=*/false);
    d->started = true;
    Q_EMIT startedChanged(true);
}

QFuture<void> QSimbaElection::stop()
{
    Q_D(QSimbaElection);
    if (d->link->shutDown)
        return QtFuture::makeReadyFuture();
    auto [id, future] = d->link->newPromise();
    const auto name = d->name;
    d->link->removeWork(name);
    d->link->post(In::StopElection{name, Completion::of(id)});
    if (d->started) {
        d->started = false;
        Q_EMIT startedChanged(false);
    }
    return future;
}

QFuture<void> QSimbaElection::stepDown(std::chrono::nanoseconds cooldown)
{
    Q_D(QSimbaElection);
    if (cooldown.count() < 0)
        throw QSimbaInvalidArgumentError(QStringLiteral("stepDown of \"%1\": the cooldown must not be negative, got %2")
                                             .arg(d->name.toString(), QSimbaDuration::format(cooldown)));
    if (d->link->shutDown)
        return QtFuture::makeReadyFuture();
    auto [id, future] = d->link->newPromise();
    const auto name = d->name;
    d->link->post(In::StepDown{name, cooldown, Completion::of(id)});
    return future;
}

std::unique_ptr<QSimbaLeaderTask> QSimbaElection::runWhileLeader(Work work)
{
    return std::unique_ptr<QSimbaLeaderTask>(new QSimbaLeaderTask(
        std::make_unique<QSimbaLeaderTaskPrivate>(this, d_func()->startTask(this, std::move(work), std::nullopt))));
}

std::unique_ptr<QSimbaLeaderTask> QSimbaElection::schedule(const QSimbaSchedule &schedule, Work work)
{
    return std::unique_ptr<QSimbaLeaderTask>(new QSimbaLeaderTask(
        std::make_unique<QSimbaLeaderTaskPrivate>(this, d_func()->startTask(this, std::move(work), schedule))));
}

QString QSimbaElection::statusName(Status status)
{
    return qsimbaSeedName(status);
}

QString QSimbaElection::kindName(Kind kind)
{
    return qsimbaSeedName(kind);
}

#include "moc_qsimbaelection.cpp"
