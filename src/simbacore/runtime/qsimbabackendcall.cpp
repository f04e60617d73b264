// SPDX-License-Identifier: Apache-2.0
// Where an engine Call meets a real backend: the one function of the engine's vocabulary
// that performs I/O, run on the backend thread by the runtime (and by the tests' drivers).
#include "qsimbaenginecall_p.h"

#include "qsimbaerror.h"

namespace QSimbaEngine {

Reply execute(Backend &backend, const Call &call)
{
    Reply reply;
    try {
        std::visit(Overloaded{
                       [&](const OpenSession &c) { reply.value = backend.openSession(c.lease, c.metadata); },
                       [&](const KeepAlive &c) { reply.value = backend.keepAlive(c.session, c.lease, c.held); },
                       [&](const Acquire &c) { reply.value = backend.acquire(c.session, c.names); },
                       [&](const Release &c) { backend.release(c.session, c.leases); },
                       [&](const CloseSession &c) { backend.closeSession(c.session); },
                       [&](const Join &c) { backend.join(c.session, c.group); },
                       [&](const Leave &c) { backend.leave(c.session, c.group); },
                       [&](const Members &c) { reply.value = backend.members(c.group); },
                   },
                   call);
    } catch (const QSimbaSessionExpiredError &e) {
        reply.error = Reply::Error::SessionExpired;
        reply.message = e.message();
    } catch (const QSimbaError &e) {
        reply.error = Reply::Error::Failed;
        reply.message = e.message();
    } catch (const std::exception &e) {
        reply.error = Reply::Error::Failed;
        reply.message = QString::fromLocal8Bit(e.what());
    }
    return reply;
}

QString describe(const Call &call)
{
    return std::visit(Overloaded{
                          [](const OpenSession &) { return QStringLiteral("openSession"); },
                          [](const KeepAlive &) { return QStringLiteral("keepAlive"); },
                          [](const Acquire &c) { return QStringLiteral("acquire(%1 names)").arg(c.names.size()); },
                          [](const Release &c) { return QStringLiteral("release(%1 leases)").arg(c.leases.size()); },
                          [](const CloseSession &) { return QStringLiteral("closeSession"); },
                          [](const Join &c) { return QStringLiteral("join(%1)").arg(c.group); },
                          [](const Leave &c) { return QStringLiteral("leave(%1)").arg(c.group); },
                          [](const Members &c) { return QStringLiteral("members(%1)").arg(c.group); },
                      },
                      call);
}

} // namespace QSimbaEngine
