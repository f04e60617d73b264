// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaleadertask.h"
#include "qsimbaleasename.h"
#include "qsimbaschedule.h"
#include "qsimbaterm.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <chrono>
#include <functional>
#include <memory>

class QSimba;
class QSimbaElectionPrivate;

class QSIMBACORE_EXPORT QSimbaElection : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QString name READ nameString CONSTANT)
    Q_PROPERTY(Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(bool started READ isStarted NOTIFY startedChanged)

public:
    //! Which API started an election (ELECTION, LOCK, GROUP).
    enum class Kind { Election, Lock, Group };
    Q_ENUM(Kind)
    //! IDLE when not started; CANDIDATE, LEADER, COOLDOWN, HANDOVER as in the seeds.
    enum class Status { Idle, Candidate, Leader, Cooldown, Handover };
    Q_ENUM(Status)

    using ElectedCallback = std::function<void(const QSimbaTerm &)>;
    using RevokedCallback = std::function<void(const QSimbaTerm &, QSimbaTerm::RevokeReason)>;

    ~QSimbaElection() override;

    QSimbaLeaseName name() const;
    Status status() const;
    bool isStarted() const;
    //! The current term (null when not leader). Read on the owner thread; it follows the
    //! callbacks, not the engine.
    QSimbaTerm currentTerm() const;

    //! Starts contending; signals report the terms. Throws QSimbaIllegalStateError when
    //! already started or the client is closed.
    void start();
    //! start() plus a listener called before the signals.
    void start(ElectedCallback onElected, RevokedCallback onRevoked);
    //! Stops contending; completes after the last revoked ran and the lease is released (at
    //! once when not started).
    [[nodiscard]] QFuture<void> stop();
    //! Gives up the current term and does not contend for \a cooldown; stays started.
    [[nodiscard]] QFuture<void> stepDown(std::chrono::nanoseconds cooldown);

    using Work = std::function<void(const QSimbaTerm &term)>;
    //! Starts the election and runs \a work once per term, on a new thread each time. The
    //! end of the term interrupts the thread (QThread::isInterruptionRequested()) and
    //! completes term.revoked(); the handover waits for the work to return, up to the
    //! term's deadline. Exceptions become WorkCompleted events (FAILED, or CANCELLED once the
    //! term ended); std::bad_alloc also steps the election down for one lease duration.
    //! Throws QSimbaIllegalStateError when already started.
    [[nodiscard]] std::unique_ptr<QSimbaLeaderTask> runWhileLeader(Work work);
    //! runWhileLeader() plus a loop: runs \a work on \a schedule while each term lasts,
    //! calling term.ensureValid() before every run. A failed run is published and the loop
    //! goes on.
    [[nodiscard]] std::unique_ptr<QSimbaLeaderTask> schedule(const QSimbaSchedule &schedule, Work work);

    static QString statusName(Status status);
    static QString kindName(Kind kind);

Q_SIGNALS:
    void elected(const QSimbaTerm &term);
    void revoked(const QSimbaTerm &term, QSimbaTerm::RevokeReason reason);
    void statusChanged(QSimbaElection::Status status);
    void startedChanged(bool started);

private:
    friend class QSimba;
    QSimbaElection(QSimba *client, const QSimbaLeaseName &name);
    QString nameString() const { return name().toString(); }
    Q_DECLARE_PRIVATE(QSimbaElection)
    std::unique_ptr<QSimbaElectionPrivate> const d_ptr;
};
