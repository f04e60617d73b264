// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QtGlobal>

#include <atomic>
#include <chrono>
#include <memory>

class QSIMBACORE_EXPORT QSimbaTicker
{
public:
    virtual ~QSimbaTicker();
    virtual std::chrono::nanoseconds now() const = 0;

    //! The system's boot-time clock: monotonic, and counting suspended time.
    static std::shared_ptr<QSimbaTicker> system();
};

class QSIMBACORE_EXPORT QSimbaManualTicker final : public QSimbaTicker
{
public:
    explicit QSimbaManualTicker(std::chrono::nanoseconds start = std::chrono::seconds(1000));
    std::chrono::nanoseconds now() const override;
    void advance(std::chrono::nanoseconds d);
    //! Moves to \a t; a ticker never goes backwards, so a \a t in the past is ignored.
    void set(std::chrono::nanoseconds t);

private:
    std::atomic<qint64> m_now;
};
