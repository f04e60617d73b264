// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimba.h"
#include "engine/qsimbaruntime_p.h"

#include <QtCore/QHash>
#include <QtCore/QMutex>
#include <QtCore/QPointer>
#include <QtCore/QPromise>

class QSimbaElectionPrivate
{
public:
    QSimba *client = nullptr;
    QSimbaLeaseName name;
    bool started = false; // owner thread's view, for start()'s check

    // Written by callback tasks (possibly on a dedicated thread), read on the owner thread.
    mutable QMutex mutex;
    QSimbaElection::Status status = QSimbaElection::Status::Idle;
    QSimbaTerm term;
    QSimbaElection::ElectedCallback onElected;
    QSimbaElection::RevokedCallback onRevoked;
};

class QSimbaPrivate
{
public:
    //! True while this thread runs a QSimba callback or leader work: blocking calls must
    //! not wait there.
    static bool insideCallback();
    struct CallbackScope
    {
        CallbackScope();
        ~CallbackScope();
    };

    QSimba *q = nullptr;
    QSimbaConfig config;
    std::shared_ptr<QSimbaTicker> ticker;
    std::unique_ptr<QSimbaRuntime> runtime;
    std::unique_ptr<QThread> callbackThread;
    QObject *callbackContext = nullptr;
    QList<QSimba::EventListener> listeners;
    QHash<QSimbaLeaseName, QSimbaElection *> elections; // owner thread
    QMutex electionsMutex;                               // for lookups from callback threads

    QMutex promisesMutex;
    QHash<quint64, std::shared_ptr<QPromise<void>>> promises;
    quint64 nextPromise = 1;

    bool closing = false;
    QFuture<void> closeFuture;
    quint64 closedPromise = 0;
    bool shutDown = false;

    //! A new promise id and its future.
    std::pair<quint64, QFuture<void>> newPromise();
    QFuture<void> promiseFuture(quint64 id);
    void resolve(quint64 id);
    void perform(const QSimbaEngine::Task &task);
    void ensureOpen(const char *what) const;
    void shutdown();
};
