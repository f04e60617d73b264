// SPDX-License-Identifier: Apache-2.0
#include "qsimbaticker.h"

/*!
    \class QSimbaTicker
    \brief The monotonic clock QSimba measures local deadlines with.
*/

QSimbaTicker::~QSimbaTicker() = default;

namespace {
class SteadyTicker final : public QSimbaTicker
{
public:
    std::chrono::nanoseconds now() const override
    {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now().time_since_epoch());
    }
};
} // namespace

std::shared_ptr<QSimbaTicker> QSimbaTicker::system()
{
    static const auto ticker = std::make_shared<SteadyTicker>();
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
