// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaenginecall_p.h"
#include "qsimbaengineeffect_p.h"

#include <variant>

/*
 * What goes into the engine core, as data: every request of the API, every answer of the
 * backend or the callback executor, and the passing of time. Core::handle(now, input) is
 * the one entry; `now` is stamped by whoever feeds the core (the runtime reads its ticker,
 * the simulation its fake clock), so a trace of (now, Input) pairs replays a run.
 *
 * A request that someone waits for carries one Completion: the promises resolved when it
 * is done (0: nobody).
 */
namespace QSimbaEngine {

//! Who is told that a request is done. An id with the DirectPromise bit is resolved at once
//! on the engine thread (a blocking wait, close()); the other completes on the callback
//! executor, after the earlier callbacks of its stream.
struct Completion
{
    quint64 async = 0;
    quint64 direct = 0;
    //! One promise id, routed by its DirectPromise bit.
    static Completion of(quint64 promise)
    {
        return (promise & DirectPromise) ? Completion{0, promise} : Completion{promise, 0};
    }
};

namespace In {

//! Opens the session: the first input of a core.
struct Start {};
//! Time passed: what came due runs (the driver's timer for nextWakeup()).
struct Tick {};
//! Contend for \a name as \a kind; \a withWork: every term runs leader work, started when
//! elected is delivered, and the handover waits for it (up to the term's deadline).
//! Refused (handle() returns false) when a lock of this client holds or wants the name.
struct StartElection { QSimbaLeaseName name; Kind kind = Kind::Election; bool oneTerm = false; bool withWork = false; };
//! Stop contending; an active term hands over first. Done: when the handover is.
struct StopElection { QSimbaLeaseName name; Completion done; };
//! Give up the term (or the candidacy) and wait \a cooldown before contending again.
struct StepDown { QSimbaLeaseName name; Nanos cooldown{0}; Completion done; };
//! Close the client: every term hands over, the session closes. \a done.direct resolves
//! when the session is closed, \a done.async after the last callback.
struct Close { Completion done; };
//! The backend answered call \a callId.
struct BackendReplied { quint64 callId = 0; Reply reply; };
//! The backend says a lease was released or a group changed.
struct Hint { Backend::Hint hint; };
//! The callback executor ran (or \a rejected) the delivery at the head of \a stream;
//! \a taken: how a lock result was taken.
struct Delivered { QString stream; bool rejected = false; Taken taken = Taken::Yes; };
//! The leader work of term \a token of \a name exited (or never started).
struct WorkExited { QSimbaLeaseName name; qint64 token = 0; };
//! One run of a term's leader work returned or threw: publishes WorkCompleted, then
//! counts as WorkExited when \a exited (a schedule's loop goes on after a failed run).
struct WorkFinished { TermPtr term; QSimbaEvent::WorkOutcome outcome = QSimbaEvent::WorkOutcome::Completed; QString error; bool exited = true; };
//! A lock waiter: \a timeout Never waits without end; \a tryOnce answers no term once an
//! attempt was answered HeldBy, or the lease is held by this client. The waiter's id is
//! its promise: resolved (direct) or completed (async) with the term won.
struct AcquireLock { QSimbaLeaseName name; quint64 waiter = 0; Nanos timeout{0}; bool tryOnce = false; };
//! The waiter gave up: answered with no term, or its term is released.
struct CancelLock { QSimbaLeaseName name; quint64 waiter = 0; };
//! The holder releases term \a token. Done: when the lease is released.
struct ReleaseLock { QSimbaLeaseName name; qint64 token = 0; Completion done; };
//! Join \a group and contend for the partitions assigned here.
struct StartGroup { QString group; int partitions = 0; };
//! Hand over the partitions and leave. Done: when left.
struct StopGroup { QString group; Completion done; };

} // namespace In

using Input = std::variant<In::Start, In::Tick, In::StartElection, In::StopElection, In::StepDown, In::Close,
                           In::BackendReplied, In::Hint, In::Delivered, In::WorkExited, In::WorkFinished,
                           In::AcquireLock, In::CancelLock, In::ReleaseLock, In::StartGroup, In::StopGroup>;

//! One line naming the input and its arguments, for logs and traces.
QString describe(const Input &input);

} // namespace QSimbaEngine
