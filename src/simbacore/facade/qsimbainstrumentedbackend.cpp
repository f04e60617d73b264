// SPDX-License-Identifier: Apache-2.0
#include "qsimbainstrumentedbackend_p.h"

using Call = QSimbaBackendMetrics::Call;

QSimbaInstrumentedLeaseBackend::QSimbaInstrumentedLeaseBackend(std::unique_ptr<QSimbaLeaseBackend> inner,
                                                               std::shared_ptr<QSimbaBackendMetrics> metrics)
    : m_inner(std::move(inner)), m_metrics(std::move(metrics))
{
}

template<typename F>
auto QSimbaInstrumentedLeaseBackend::timed(Call call, F &&f) -> decltype(f())
{
    const auto start = std::chrono::steady_clock::now();
    try {
        if constexpr (std::is_void_v<decltype(f())>) {
            f();
            m_metrics->record(call, std::chrono::steady_clock::now() - start, false);
        } else {
            auto result = f();
            m_metrics->record(call, std::chrono::steady_clock::now() - start, false);
            return result;
        }
    } catch (...) {
        m_metrics->record(call, std::chrono::steady_clock::now() - start, true);
        throw;
    }
}

QSimbaLeaseBackend::Capabilities QSimbaInstrumentedLeaseBackend::capabilities() const
{
    return m_inner->capabilities();
}

QString QSimbaInstrumentedLeaseBackend::describe() const
{
    return m_inner->describe();
}

QSimbaLeaseBackend::SessionGrant QSimbaInstrumentedLeaseBackend::openSession(Millis lease,
                                                                            const QMap<QString, QString> &metadata)
{
    return timed(Call::OpenSession, [&] { return m_inner->openSession(lease, metadata); });
}

QSimbaLeaseBackend::KeepAliveResult QSimbaInstrumentedLeaseBackend::keepAlive(const QSimbaSessionId &session,
                                                                              Millis lease,
                                                                              const QSet<QSimbaLeaseName> &held)
{
    return timed(Call::KeepAlive, [&] { return m_inner->keepAlive(session, lease, held); });
}

QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaInstrumentedLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    m_metrics->recordAcquireAttempts(int(names.size()));
    return timed(Call::Acquire, [&] { return m_inner->acquire(session, names); });
}

void QSimbaInstrumentedLeaseBackend::release(const QSimbaSessionId &session,
                                             const QHash<QSimbaLeaseName, qint64> &leases)
{
    timed(Call::Release, [&] { m_inner->release(session, leases); });
}

void QSimbaInstrumentedLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    timed(Call::CloseSession, [&] { m_inner->closeSession(session); });
}

void QSimbaInstrumentedLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    timed(Call::Join, [&] { m_inner->join(session, group); });
}

void QSimbaInstrumentedLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    timed(Call::Leave, [&] { m_inner->leave(session, group); });
}

QList<QSimbaSessionId> QSimbaInstrumentedLeaseBackend::members(const QString &group)
{
    return timed(Call::Members, [&] { return m_inner->members(group); });
}

std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaInstrumentedLeaseBackend::subscribe(HintListener listener)
{
    // Hints arrive on any thread: the counters are atomic.
    return m_inner->subscribe([metrics = m_metrics, listener = std::move(listener)](const Hint &hint) {
        if (hint.kind == Hint::Kind::Released)
            metrics->recordReleasedHint();
        else
            metrics->recordMembersChangedHint();
        listener(hint);
    });
}

QSimbaLeaseBackend::Inspection QSimbaInstrumentedLeaseBackend::inspect()
{
    return m_inner->inspect();
}
