// SPDX-License-Identifier: Apache-2.0
#include "qsimbaticker.h"

#include <ctime>

/*!
    \class QSimbaManualTicker
    \brief A ticker for tests: starts at \a start and advances only through advance() or set().
    Thread-safe.
*/

/*!
    \class QSimbaTicker
    \brief The monotonic clock QSimba measures local deadlines with.

    A monotonic clock in nanoseconds: the only local time QSimba reads. Thread-safe.
    system() is the boot-time clock (it counts time the host spent suspended; CLOCK_BOOTTIME
    on Linux, the steady clock elsewhere); QSimbaManualTicker moves only when told to (tests).
*/

QSimbaTicker::~QSimbaTicker() = default;

namespace {
/*
 * A clock that keeps counting while the host is suspended. A term's deadline is a span of
 * real time that the backend also measures: a clock that stops during suspend (the steady
 * clock, CLOCK_MONOTONIC) would find a term valid after resume although the backend
 * expired its session meanwhile. Linux: CLOCK_BOOTTIME; elsewhere the steady clock.
 */
class SystemTicker final : public QSimbaTicker
{
public:
    std::chrono::nanoseconds now() const override
    {
#if defined(Q_OS_LINUX) && defined(CLOCK_BOOTTIME)
        timespec ts{};
        if (clock_gettime(CLOCK_BOOTTIME, &ts) == 0)
            return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
#endif
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch());
    }
};
} // namespace

std::shared_ptr<QSimbaTicker> QSimbaTicker::system()
{
    static const auto ticker = std::make_shared<SystemTicker>();
    return ticker;
}

QSimbaManualTicker::QSimbaManualTicker(std::chrono::nanoseconds start) : m_now(start.count()) {}

std::chrono::nanoseconds QSimbaManualTicker::now() const
{
    return std::chrono::nanoseconds(m_now.load(std::memory_order_acquire));
}

void QSimbaManualTicker::advance(std::chrono::nanoseconds d)
{
    if (d.count() > 0)
        m_now.fetch_add(d.count(), std::memory_order_acq_rel);
}

void QSimbaManualTicker::set(std::chrono::nanoseconds t)
{
    qint64 cur = m_now.load(std::memory_order_acquire);
    while (t.count() > cur && !m_now.compare_exchange_weak(cur, t.count(), std::memory_order_acq_rel)) {
    }
}
