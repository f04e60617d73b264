// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaelection.h"
#include "qsimbaschedule.h"

#include <QtCore/QMutex>

#include <atomic>
#include <memory>
#include <optional>

class QSimbaLink;
class QSimbaTaskStopper;

class QSimbaElectionPrivate
{
public:
    //! The private part of \a election, for the client's own classes (Qt's get() idiom).
    static QSimbaElectionPrivate *get(QSimbaElection *election) { return election->d_func(); }

    //! Registers \a work, starts contending with work and returns what stops it (the
    //! leader task's). Throws when closed, started already, or \a work is empty.
    std::unique_ptr<QSimbaTaskStopper> startTask(QSimbaElection *q, std::function<void(const QSimbaTerm &)> work,
                                                 std::optional<QSimbaSchedule> schedule);

    std::shared_ptr<QSimbaLink> link; // the one way to the engine
    QSimbaLeaseName name;
    std::atomic<bool> started{false}; // owner thread's view, for start()'s check (close() may clear it)

    // Written by callback tasks (possibly on a dedicated thread), read on the owner thread.
    mutable QMutex mutex;
    QSimbaElection::Status status = QSimbaElection::Status::Idle;
    QSimbaTerm term;
    QSimbaElection::ElectedCallback onElected;
    QSimbaElection::RevokedCallback onRevoked;
};
