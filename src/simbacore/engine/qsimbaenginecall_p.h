// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbaleasebackend.h"

#include <QtCore/QHash>
#include <QtCore/QMap>
#include <QtCore/QSet>
#include <QtCore/QString>

#include <chrono>
#include <variant>

/*
 * What the engine core asks of the backend, as data: one Call at a time goes out (in an
 * Effect), one Reply comes back (in the BackendReplied input). execute() is the only
 * place a Call meets a real backend (runtime/qsimbabackendcall.cpp).
 */
namespace QSimbaEngine {

using Nanos = std::chrono::nanoseconds;
using Millis = std::chrono::milliseconds;
using Backend = QSimbaLeaseBackend;

//! std::visit with one lambda per alternative.
template<class... Ts> struct Overloaded : Ts... { using Ts::operator()...; };
template<class... Ts> Overloaded(Ts...) -> Overloaded<Ts...>;

// Backend calls, as data.
struct OpenSession { Millis lease; QMap<QString, QString> metadata; };
struct KeepAlive { QSimbaSessionId session; Millis lease; QSet<QSimbaLeaseName> held; };
struct Acquire { QSimbaSessionId session; QSet<QSimbaLeaseName> names; };
struct Release { QSimbaSessionId session; QHash<QSimbaLeaseName, qint64> leases; };
struct CloseSession { QSimbaSessionId session; };
struct Join { QSimbaSessionId session; QString group; };
struct Leave { QSimbaSessionId session; QString group; };
struct Members { QString group; };
using Call = std::variant<OpenSession, KeepAlive, Acquire, Release, CloseSession, Join, Leave, Members>;

struct Reply
{
    enum class Error { None, SessionExpired, Failed };
    Error error = Error::None;
    QString message;
    std::variant<std::monostate, Backend::SessionGrant, Backend::KeepAliveResult,
                 QHash<QSimbaLeaseName, Backend::AcquireResult>, QList<QSimbaSessionId>>
        value;
};

//! Runs \a call on \a backend, turning its errors into a Reply. Blocks as the backend does.
Reply execute(Backend &backend, const Call &call);
QString describe(const Call &call);

} // namespace QSimbaEngine
