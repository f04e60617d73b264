// SPDX-License-Identifier: Apache-2.0
#include "qsimbaconfig.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"

#include <QtCore/QSharedData>

#include <optional>

using namespace std::chrono_literals;
using Duration = QSimbaConfig::Duration;

/*!
    \class QSimbaConfig
    \brief The session timing of a QSimba client.

    See DESIGN.md "Timing". A QSimbaConfig is always valid: only Builder::build() makes one
    other than the defaults, and it throws QSimbaInvalidArgumentError on values that break a
    rule.

    The session timing: leaseDuration (15 s), renewInterval (leaseDuration / 3), drift (0.01),
    margin (50 ms), retryJitter (renewInterval / 2), minBackoff (100 ms). Unset values keep
    their defaults; derived ones follow the values set. Built only by Builder::build(), which
    validates. Plain value with value equality; reentrant.
*/

class QSimbaConfigPrivate : public QSharedData
{
public:
    // What the user set; the rest is derived in resolved().
    std::optional<Duration> leaseDuration, renewInterval, margin, retryJitter, minBackoff;
    std::optional<double> drift;

    Duration lease() const { return leaseDuration.value_or(15s); }
    Duration renew() const { return renewInterval.value_or(lease() / 3); }
    double driftValue() const { return drift.value_or(0.01); }
    Duration marginValue() const { return margin.value_or(50ms); }
    Duration jitter() const { return retryJitter.value_or(renew() / 2); }
    Duration backoff() const { return minBackoff.value_or(100ms); }
};

QSimbaConfig::QSimbaConfig() : d(new QSimbaConfigPrivate) {}
QSimbaConfig::QSimbaConfig(QSimbaConfigPrivate *dd) : d(dd) {}
QSimbaConfig::QSimbaConfig(const QSimbaConfig &other) = default;
QSimbaConfig &QSimbaConfig::operator=(const QSimbaConfig &other) = default;
QSimbaConfig::~QSimbaConfig() = default;

QSimbaConfig::Builder QSimbaConfig::builder() { return Builder(); }

/*! A builder holding the values set for this config, so derived values follow new settings. */
QSimbaConfig::Builder QSimbaConfig::toBuilder() const
{
    Builder b;
    b.d = new QSimbaConfigPrivate(*d);
    return b;
}

Duration QSimbaConfig::leaseDuration() const { return d->lease(); }
Duration QSimbaConfig::renewInterval() const { return d->renew(); }
double QSimbaConfig::drift() const { return d->driftValue(); }
Duration QSimbaConfig::margin() const { return d->marginValue(); }
Duration QSimbaConfig::retryJitter() const { return d->jitter(); }
Duration QSimbaConfig::minBackoff() const { return d->backoff(); }

static qint64 toMs(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }
qint64 QSimbaConfig::leaseDurationMs() const { return toMs(leaseDuration()); }
qint64 QSimbaConfig::renewIntervalMs() const { return toMs(renewInterval()); }
qint64 QSimbaConfig::marginMs() const { return toMs(margin()); }
qint64 QSimbaConfig::retryJitterMs() const { return toMs(retryJitter()); }
qint64 QSimbaConfig::minBackoffMs() const { return toMs(minBackoff()); }

bool operator==(const QSimbaConfig &a, const QSimbaConfig &b)
{
    return a.leaseDuration() == b.leaseDuration() && a.renewInterval() == b.renewInterval()
           && a.drift() == b.drift() && a.margin() == b.margin()
           && a.retryJitter() == b.retryJitter() && a.minBackoff() == b.minBackoff();
}

QDebug operator<<(QDebug dbg, const QSimbaConfig &c)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace().noquote() << "QSimbaConfig(leaseDuration=" << QSimbaDuration::format(c.leaseDuration())
                            << ", renewInterval=" << QSimbaDuration::format(c.renewInterval())
                            << ", drift=" << c.drift() << ", margin=" << QSimbaDuration::format(c.margin())
                            << ", retryJitter=" << QSimbaDuration::format(c.retryJitter())
                            << ", minBackoff=" << QSimbaDuration::format(c.minBackoff()) << ')';
    return dbg;
}

QSimbaConfig::Builder::Builder() : d(new QSimbaConfigPrivate) {}
QSimbaConfig::Builder::Builder(const Builder &other) : d(new QSimbaConfigPrivate(*other.d)) {}
QSimbaConfig::Builder &QSimbaConfig::Builder::operator=(const Builder &other)
{
    d = new QSimbaConfigPrivate(*other.d);
    return *this;
}
QSimbaConfig::Builder::~Builder() = default;

QSimbaConfig::Builder &QSimbaConfig::Builder::leaseDuration(Duration v) { d->leaseDuration = v; return *this; }
QSimbaConfig::Builder &QSimbaConfig::Builder::renewInterval(Duration v) { d->renewInterval = v; return *this; }
QSimbaConfig::Builder &QSimbaConfig::Builder::drift(double v) { d->drift = v; return *this; }
QSimbaConfig::Builder &QSimbaConfig::Builder::margin(Duration v) { d->margin = v; return *this; }
QSimbaConfig::Builder &QSimbaConfig::Builder::retryJitter(Duration v) { d->retryJitter = v; return *this; }
QSimbaConfig::Builder &QSimbaConfig::Builder::minBackoff(Duration v) { d->minBackoff = v; return *this; }

QSimbaConfig QSimbaConfig::Builder::build() const
{
    const auto formatDuration = [](std::chrono::nanoseconds d) { return QSimbaDuration::format(d); };
    const auto fail = [](const QString &m) { throw QSimbaInvalidArgumentError(QStringLiteral("invalid QSimbaConfig: ") + m); };
    const Duration lease = d->lease(), renew = d->renew(), margin = d->marginValue(),
                   jitter = d->jitter(), backoff = d->backoff();
    const double drift = d->driftValue();
    if (lease <= 0ns)
        fail(QStringLiteral("leaseDuration must be positive, got %1").arg(formatDuration(lease)));
    if (renew <= 0ns)
        fail(QStringLiteral("renewInterval must be positive, got %1").arg(formatDuration(renew)));
    if (margin < 0ns)
        fail(QStringLiteral("margin must not be negative, got %1").arg(formatDuration(margin)));
    if (jitter < 0ns)
        fail(QStringLiteral("retryJitter must not be negative, got %1").arg(formatDuration(jitter)));
    if (backoff <= 0ns)
        fail(QStringLiteral("minBackoff must be positive, got %1").arg(formatDuration(backoff)));
    if (!(drift >= 0.0 && drift < 1.0))
        fail(QStringLiteral("drift must be in [0, 1), got %1").arg(drift));
    if (renew * 2 > lease)
        fail(QStringLiteral("renewInterval × 2 must not exceed leaseDuration, got renewInterval %1 and leaseDuration %2")
                 .arg(formatDuration(renew), formatDuration(lease)));
    const Duration usable = Duration(qint64(double(lease.count()) * (1.0 - drift))) - margin;
    if (usable <= renew)
        fail(QStringLiteral("leaseDuration × (1 − drift) − margin must exceed renewInterval, got %1 × (1 − %2) − %3 = %4 ≤ %5")
                 .arg(formatDuration(lease))
                 .arg(drift)
                 .arg(formatDuration(margin), formatDuration(usable), formatDuration(renew)));
    return QSimbaConfig(new QSimbaConfigPrivate(*d));
}

#include "moc_qsimbaconfig.cpp"
