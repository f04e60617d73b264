// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QString>

#include <array>
#include <atomic>
#include <chrono>

class QSIMBACORE_EXPORT QSimbaBackendMetrics
{
public:
    //! The SPI calls, in the order of their names (callName()).
    enum class Call { OpenSession, KeepAlive, Acquire, Release, CloseSession, Join, Leave, Members };
    static constexpr int CallCount = 8;
    //! Upper bounds of the latency buckets, in seconds (0.5 ms … 10 s); +Inf is implied.
    static constexpr std::array<double, 14> BucketBounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                                         0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0};
    static constexpr int BucketCount = int(BucketBounds.size()) + 1;

    //! One call kind's figures; buckets are not cumulative (the last one is above 10 s).
    struct CallStats
    {
        quint64 count = 0;
        quint64 errors = 0;
        std::chrono::nanoseconds sum{0};
        std::array<quint64, BucketCount> buckets{};
    };

    explicit QSimbaBackendMetrics(const QString &backend = {});

    //! "open_session", "keep_alive", …: the metric label values.
    static QString callName(Call call);
    //! The backend, as QSimbaLeaseBackend::describe() shows it (passwords redacted).
    QString backend() const { return m_backend; }

    CallStats stats(Call call) const;
    quint64 acquireAttempts() const { return m_acquireAttempts.load(std::memory_order_relaxed); }
    quint64 releasedHints() const { return m_releasedHints.load(std::memory_order_relaxed); }
    quint64 membersChangedHints() const { return m_membersHints.load(std::memory_order_relaxed); }
    //! Whether the last call of \a call failed.
    bool lastFailed(Call call) const;

    void record(Call call, std::chrono::nanoseconds duration, bool failed);
    void recordAcquireAttempts(int names) { m_acquireAttempts.fetch_add(quint64(names), std::memory_order_relaxed); }
    void recordReleasedHint() { m_releasedHints.fetch_add(1, std::memory_order_relaxed); }
    void recordMembersChangedHint() { m_membersHints.fetch_add(1, std::memory_order_relaxed); }

private:
    struct Counters
    {
        std::atomic<quint64> count{0};
        std::atomic<quint64> errors{0};
        std::atomic<qint64> sumNs{0};
        std::atomic<bool> lastFailed{false};
        std::array<std::atomic<quint64>, BucketCount> buckets{};
    };
    QString m_backend;
    std::array<Counters, CallCount> m_calls;
    std::atomic<quint64> m_acquireAttempts{0};
    std::atomic<quint64> m_releasedHints{0};
    std::atomic<quint64> m_membersHints{0};
};
