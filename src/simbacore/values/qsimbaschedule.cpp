// SPDX-License-Identifier: Apache-2.0
#include "qsimbaschedule.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"

/*!
    \class QSimbaSchedule
    \brief A fixed-delay or fixed-rate schedule for leader work.

    When a schedule runs its work inside a term: fixedDelay (from the end of one run to the
    start of the next) or fixedRate (between scheduled starts; an overrun skips the missed
    starts), after initialDelay from the start of each term. Plain value; reentrant.
*/

QSimbaSchedule::QSimbaSchedule(Mode mode, Duration period, Duration initialDelay)
    : m_mode(mode), m_period(period), m_initialDelay(initialDelay)
{
    if (period.count() <= 0)
        throw QSimbaInvalidArgumentError(QStringLiteral("schedule: the period must be positive, got %1")
                                             .arg(QSimbaDuration::format(period)));
    if (initialDelay.count() < 0)
        throw QSimbaInvalidArgumentError(QStringLiteral("schedule: the initial delay must not be negative, got %1")
                                             .arg(QSimbaDuration::format(initialDelay)));
}

QSimbaSchedule QSimbaSchedule::fixedDelay(Duration delay, Duration initialDelay)
{
    return QSimbaSchedule(Mode::FixedDelay, delay, initialDelay);
}

QSimbaSchedule QSimbaSchedule::fixedRate(Duration period, Duration initialDelay)
{
    return QSimbaSchedule(Mode::FixedRate, period, initialDelay);
}

QSimbaSchedule QSimbaSchedule::withInitialDelay(Duration initialDelay) const
{
    return QSimbaSchedule(m_mode, m_period, initialDelay);
}

QSimbaSchedule::Duration QSimbaSchedule::nextStart(Duration due, Duration end) const
{
    if (m_mode == Mode::FixedDelay)
        return end + m_period;
    const Duration next = due + m_period;
    if (next > end)
        return next;
    // The run overran: skip the starts it missed instead of bursting.
    return due + m_period * ((end - due) / m_period + 1);
}

#include "moc_qsimbaschedule.cpp"
