// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbabackendmetrics.h"
#include "qsimbaleasebackend.h"

#include <memory>

/*
 * A backend that forwards every call to another one and records its latency, failure,
 * acquire attempts and hints in a QSimbaBackendMetrics. QSimba wraps its backend in one.
 * Used like the backend it wraps: one call at a time, from the backend thread or a caller
 * that runs its call (it declares what the wrapped backend declares).
 */
class QSimbaInstrumentedLeaseBackend final : public QSimbaLeaseBackend
{
public:
    QSimbaInstrumentedLeaseBackend(std::unique_ptr<QSimbaLeaseBackend> inner,
                                   std::shared_ptr<QSimbaBackendMetrics> metrics);

    Capabilities capabilities() const override;
    QString describe() const override;
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata) override;
    KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease,
                              const QSet<QSimbaLeaseName> &held) override;
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session,
                                                 const QSet<QSimbaLeaseName> &names) override;
    void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) override;
    void closeSession(const QSimbaSessionId &session) override;
    void join(const QSimbaSessionId &session, const QString &group) override;
    void leave(const QSimbaSessionId &session, const QString &group) override;
    QList<QSimbaSessionId> members(const QString &group) override;
    std::unique_ptr<Subscription> subscribe(HintListener listener) override;
    Inspection inspect() override;

private:
    template<typename F>
    auto timed(QSimbaBackendMetrics::Call call, F &&f) -> decltype(f());

    std::unique_ptr<QSimbaLeaseBackend> m_inner;
    std::shared_ptr<QSimbaBackendMetrics> m_metrics;
};
