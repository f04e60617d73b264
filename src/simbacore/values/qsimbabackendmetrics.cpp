// SPDX-License-Identifier: Apache-2.0
#include "qsimbabackendmetrics.h"

/*!
    \class QSimbaBackendMetrics
    \brief Latency histograms, errors, acquire attempts and hints of a client's backend calls.

    Recorded by the instrumented backend every QSimba wraps around its backend; read by the
    operator endpoint. Thread-safe and lock-free; the figures of one call kind are read one
    counter at a time, so a scrape during a call may see its count before its bucket.

    Counters of a client's backend calls: per call kind a latency histogram and the errors,
    the acquire attempts and the hints delivered. Every QSimba keeps one (QSimba::backendMetrics());
    the operator endpoint exports it. Thread-safe: recorded on the backend thread (hints on
    any thread), read from any thread without locks.
*/

QSimbaBackendMetrics::QSimbaBackendMetrics(const QString &backend) : m_backend(backend) {}

QString QSimbaBackendMetrics::callName(Call call)
{
    switch (call) {
    case Call::OpenSession: return QStringLiteral("open_session");
    case Call::KeepAlive: return QStringLiteral("keep_alive");
    case Call::Acquire: return QStringLiteral("acquire");
    case Call::Release: return QStringLiteral("release");
    case Call::CloseSession: return QStringLiteral("close_session");
    case Call::Join: return QStringLiteral("join");
    case Call::Leave: return QStringLiteral("leave");
    case Call::Members: return QStringLiteral("members");
    }
    return {};
}

QSimbaBackendMetrics::CallStats QSimbaBackendMetrics::stats(Call call) const
{
    const Counters &c = m_calls[size_t(call)];
    CallStats s;
    s.count = c.count.load(std::memory_order_relaxed);
    s.errors = c.errors.load(std::memory_order_relaxed);
    s.sum = std::chrono::nanoseconds(c.sumNs.load(std::memory_order_relaxed));
    for (int i = 0; i < BucketCount; ++i)
        s.buckets[size_t(i)] = c.buckets[size_t(i)].load(std::memory_order_relaxed);
    return s;
}

bool QSimbaBackendMetrics::lastFailed(Call call) const
{
    return m_calls[size_t(call)].lastFailed.load(std::memory_order_relaxed);
}

void QSimbaBackendMetrics::record(Call call, std::chrono::nanoseconds duration, bool failed)
{
    Counters &c = m_calls[size_t(call)];
    const double seconds = std::chrono::duration<double>(duration).count();
    size_t bucket = 0;
    while (bucket < BucketBounds.size() && seconds > BucketBounds[bucket])
        ++bucket;
    c.buckets[bucket].fetch_add(1, std::memory_order_relaxed);
    c.sumNs.fetch_add(duration.count(), std::memory_order_relaxed);
    if (failed)
        c.errors.fetch_add(1, std::memory_order_relaxed);
    c.lastFailed.store(failed, std::memory_order_relaxed);
    c.count.fetch_add(1, std::memory_order_relaxed);
}
