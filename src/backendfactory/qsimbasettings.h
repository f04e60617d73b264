// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbabackends_export.h"

#include "qsimba.h"
#include "qsimbaconfig.h"

#include <QtCore/QString>

class QSettings;

class QSIMBABACKENDS_EXPORT QSimbaSettings
{
public:
    QSimbaSettings() = delete;

    //! The group the starter's properties live in.
    static QString defaultGroup() { return QStringLiteral("simba"); }

    //! The config under \a group: leaseDuration, renewInterval, margin, retryJitter,
    //! minBackoff as durations ("15s", "500ms", "PT1M") and drift as a number. Throws
    //! QSimbaInvalidArgumentError naming the key for a malformed value, an unknown key or a
    //! config QSimbaConfig refuses.
    static QSimbaConfig config(const QSettings &settings, const QString &group = defaultGroup());
    //! The backend URL of the key "backend" (SIMBA_BACKEND overrides); empty when neither
    //! is set, which QSimbaBackendFactory::create() reads as its default URL.
    static QString backendUrl(const QSettings &settings, const QString &group = defaultGroup());
    //! "scheduling/enabled" (SIMBA_SCHEDULING_ENABLED overrides); true when absent.
    static bool schedulingEnabled(const QSettings &settings, const QString &group = defaultGroup());
    //! A builder with backendUrl() and config(); add listeners or metadata, then build().
    static QSimba::Builder builder(const QSettings &settings, const QString &group = defaultGroup());

    //! \a value with ${VAR} and ${VAR:default} replaced from the environment; throws
    //! QSimbaInvalidArgumentError naming \a key for an unset variable without default or an
    //! unterminated placeholder.
    static QString expandPlaceholders(const QString &value, const QString &key);
    //! The environment variable that overrides \a key: "leaseDuration" -> SIMBA_LEASE_DURATION,
    //! "scheduling/enabled" -> SIMBA_SCHEDULING_ENABLED.
    static QString environmentVariable(const QString &key);
};
