// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QObject>

#include <chrono>

class QSIMBACORE_EXPORT QSimbaSchedule
{
    Q_GADGET
public:
    enum class Mode { FixedDelay, FixedRate };
    Q_ENUM(Mode)
    using Duration = std::chrono::nanoseconds;

    //! Throw QSimbaInvalidArgumentError unless the period is positive and the initial
    //! delay not negative.
    static QSimbaSchedule fixedDelay(Duration delay, Duration initialDelay = Duration(0));
    static QSimbaSchedule fixedRate(Duration period, Duration initialDelay = Duration(0));
    QSimbaSchedule withInitialDelay(Duration initialDelay) const;

    Mode mode() const { return m_mode; }
    Duration period() const { return m_period; }
    Duration initialDelay() const { return m_initialDelay; }

    //! The start of the run after one that was due at \a due and ended at \a end.
    Duration nextStart(Duration due, Duration end) const;

    friend bool operator==(const QSimbaSchedule &, const QSimbaSchedule &) = default;

private:
    QSimbaSchedule(Mode mode, Duration period, Duration initialDelay);
    Mode m_mode = Mode::FixedDelay;
    Duration m_period{1};
    Duration m_initialDelay{0};
};
