// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QDebug>
#include <QtCore/QExplicitlySharedDataPointer>
#include <QtCore/QMetaType>
#include <QtCore/QObject>

#include <chrono>

class QSimbaConfigPrivate;

class QSIMBACORE_EXPORT QSimbaConfig
{
    Q_GADGET
    Q_PROPERTY(qint64 leaseDurationMs READ leaseDurationMs CONSTANT)
    Q_PROPERTY(qint64 renewIntervalMs READ renewIntervalMs CONSTANT)
    Q_PROPERTY(double drift READ drift CONSTANT)
    Q_PROPERTY(qint64 marginMs READ marginMs CONSTANT)
    Q_PROPERTY(qint64 retryJitterMs READ retryJitterMs CONSTANT)
    Q_PROPERTY(qint64 minBackoffMs READ minBackoffMs CONSTANT)

public:
    using Duration = std::chrono::nanoseconds;
    class Builder;

    //! The defaults.
    QSimbaConfig();
    QSimbaConfig(const QSimbaConfig &other);
    QSimbaConfig &operator=(const QSimbaConfig &other);
    ~QSimbaConfig();

    static Builder builder();
    Builder toBuilder() const;

    Duration leaseDuration() const;
    Duration renewInterval() const;
    double drift() const;
    Duration margin() const;
    Duration retryJitter() const;
    Duration minBackoff() const;

    qint64 leaseDurationMs() const;
    qint64 renewIntervalMs() const;
    qint64 marginMs() const;
    qint64 retryJitterMs() const;
    qint64 minBackoffMs() const;

    friend QSIMBACORE_EXPORT bool operator==(const QSimbaConfig &a, const QSimbaConfig &b);
    friend bool operator!=(const QSimbaConfig &a, const QSimbaConfig &b) { return !(a == b); }

private:
    explicit QSimbaConfig(QSimbaConfigPrivate *d);
    QExplicitlySharedDataPointer<QSimbaConfigPrivate> d;
};

class QSIMBACORE_EXPORT QSimbaConfig::Builder
{
public:
    Builder();
    Builder(const Builder &other);
    Builder &operator=(const Builder &other);
    ~Builder();

    Builder &leaseDuration(Duration d);
    Builder &renewInterval(Duration d);
    Builder &drift(double drift);
    Builder &margin(Duration d);
    Builder &retryJitter(Duration d);
    Builder &minBackoff(Duration d);

    //! Throws QSimbaInvalidArgumentError naming the first rule the values break.
    QSimbaConfig build() const;

private:
    friend class QSimbaConfig;
    QExplicitlySharedDataPointer<QSimbaConfigPrivate> d;
};

QSIMBACORE_EXPORT QDebug operator<<(QDebug dbg, const QSimbaConfig &config);
Q_DECLARE_METATYPE(QSimbaConfig)
