// SPDX-License-Identifier: Apache-2.0
// The engine's inputs as text: one line per input, for logs and traces.
#include "qsimbaengineinput_p.h"

namespace QSimbaEngine {

QString describe(const Input &input)
{
    const auto promises = [](const Completion &c) {
        return QStringLiteral("async %1, direct %2").arg(c.async).arg(c.direct & ~DirectPromise);
    };
    return std::visit(
        Overloaded{
            [](const In::Start &) { return QStringLiteral("Start"); },
            [](const In::Tick &) { return QStringLiteral("Tick"); },
            [](const In::StartElection &in) {
                return QStringLiteral("StartElection(%1, %2%3%4)")
                    .arg(in.name.toString(), QSimbaElection::kindName(in.kind),
                         in.oneTerm ? QStringLiteral(", one term") : QString(),
                         in.withWork ? QStringLiteral(", with work") : QString());
            },
            [&](const In::StopElection &in) {
                return QStringLiteral("StopElection(%1; %2)").arg(in.name.toString(), promises(in.done));
            },
            [&](const In::StepDown &in) {
                return QStringLiteral("StepDown(%1, %2 ns; %3)").arg(in.name.toString()).arg(in.cooldown.count()).arg(promises(in.done));
            },
            [&](const In::Close &in) { return QStringLiteral("Close(%1)").arg(promises(in.done)); },
            [](const In::BackendReplied &in) {
                return QStringLiteral("BackendReplied(%1%2)")
                    .arg(in.callId)
                    .arg(in.reply.error == Reply::Error::None ? QString() : QStringLiteral(", failed: ") + in.reply.message);
            },
            [](const In::Hint &in) { return QStringLiteral("Hint(%1)").arg(in.hint.name); },
            [](const In::Delivered &in) {
                return QStringLiteral("Delivered(%1%2, taken %3)")
                    .arg(in.stream, in.rejected ? QStringLiteral(", rejected") : QString())
                    .arg(int(in.taken));
            },
            [](const In::WorkExited &in) { return QStringLiteral("WorkExited(%1, %2)").arg(in.name.toString()).arg(in.token); },
            [](const In::WorkFinished &in) {
                return QStringLiteral("WorkFinished(%1, %2, %3)")
                    .arg(in.term ? in.term->name.toString() : QString())
                    .arg(in.term ? in.term->token : 0)
                    .arg(QSimbaEvent::outcomeName(in.outcome));
            },
            [](const In::AcquireLock &in) {
                return QStringLiteral("AcquireLock(%1, waiter %2, %3 ns%4)")
                    .arg(in.name.toString())
                    .arg(in.waiter & ~DirectPromise)
                    .arg(in.timeout.count())
                    .arg(in.tryOnce ? QStringLiteral(", once") : QString());
            },
            [](const In::CancelLock &in) {
                return QStringLiteral("CancelLock(%1, waiter %2)").arg(in.name.toString()).arg(in.waiter & ~DirectPromise);
            },
            [&](const In::ReleaseLock &in) {
                return QStringLiteral("ReleaseLock(%1, %2; %3)").arg(in.name.toString()).arg(in.token).arg(promises(in.done));
            },
            [](const In::StartGroup &in) { return QStringLiteral("StartGroup(%1, %2)").arg(in.group).arg(in.partitions); },
            [&](const In::StopGroup &in) { return QStringLiteral("StopGroup(%1; %2)").arg(in.group, promises(in.done)); },
        },
        input);
}

} // namespace QSimbaEngine
