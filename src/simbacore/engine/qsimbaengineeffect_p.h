// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaenginecall_p.h"

#include "qsimbaelection.h"
#include "qsimbaevent.h"
#include "qsimbasnapshot.h"
#include "qsimbaterm_p.h"

#include <memory>

/*
 * What comes out of the engine core: Effects the driver carries out (call the backend,
 * deliver a callback, resolve a promise). A delivery (Task) runs on the callback
 * executor, one at a time per stream (a lease name, or "" for events and close), and is
 * acknowledged with the Delivered input.
 */
namespace QSimbaEngine {

using Kind = QSimbaElection::Kind;
using Status = QSimbaElection::Status;
using Reason = QSimbaTerm::RevokeReason;
using SessionStatus = QSimbaSessionSnapshot::Status;
using TermPtr = std::shared_ptr<QSimbaTermPrivate>;

//! Promise ids with this bit are resolved at once by the engine (Effect::Resolve), for
//! blocking waits; the others complete on the callback executor, after earlier callbacks.
constexpr quint64 DirectPromise = quint64(1) << 63;

//! Why a promise failed (Complete tasks and Resolve effects).
enum class Failure { None, Timeout, Closed, Busy };

//! How the runner of a lock result's Complete task took it.
enum class Taken {
    Yes,     //!< the caller holds the term now
    Retry,   //!< the term ended before it could be handed over: answer the waiter again later
    Release, //!< the caller is gone (cancelled): release the term won for it
};

//! A unit of work for the callback executor: a delivery.
struct Task
{
    enum class Type { Status, Elected, Revoked, Event, Complete };
    Type type = Type::Event;
    QSimbaLeaseName name;
    Status status = Status::Idle;
    TermPtr term;
    Reason reason = Reason::Stopped;
    QSimbaEvent event;
    quint64 promise = 0; //!< Complete
    Failure failure = Failure::None; //!< Complete: how the promise fails
    //! Complete of a lock waiter: the term won (null: none). The task's runner answers
    //! declined when the term already ended or the waiter was cancelled.
    bool lockResult = false;
    bool withWork = false; //!< Elected: the term's leader work starts now
    QString group;         //!< Elected of a partition: its group and partition
    int partition = -1;
};

struct Effect
{
    enum class Type {
        CallBackend, //!< run `call` on the backend thread, answer backendReplied(callId, …)
        RunTask,     //!< run `task` on the callback executor, answer taskFinished(stream, …)
        Resolve,     //!< complete promise `promise` now (nobody waits on a callback for it)
    };
    Type type = Type::Resolve;
    quint64 callId = 0;
    Call call;
    QString stream;
    Task task;
    quint64 promise = 0;
    Failure failure = Failure::None; //!< Resolve
    TermPtr term;                    //!< Resolve of a lock waiter: the term won

    static Effect callBackend(quint64 id, Call call)
    {
        Effect e;
        e.type = Type::CallBackend;
        e.callId = id;
        e.call = std::move(call);
        return e;
    }
    static Effect runTask(const QString &stream, Task task)
    {
        Effect e;
        e.type = Type::RunTask;
        e.stream = stream;
        e.task = std::move(task);
        return e;
    }
    static Effect resolve(quint64 promise, TermPtr term = {}, Failure failure = Failure::None)
    {
        Effect e;
        e.type = Type::Resolve;
        e.promise = promise;
        e.term = std::move(term);
        e.failure = failure;
        return e;
    }
};

} // namespace QSimbaEngine
