// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbabackends_export.h"

#include "qsimba.h"
#include "qsimbaconfig.h"
#include "qsimbaleasebackend.h"

#include <QtCore/QString>
#include <QtCore/QStringList>
#include <QtCore/QUrl>

#include <memory>

class QSettings;

class QSIMBABACKENDS_EXPORT QSimbaBackendFactory
{
public:
    QSimbaBackendFactory() = delete;

    //! Builds the backend \a url names; does not connect. Throws QSimbaInvalidArgumentError
    //! naming the problem (password redacted).
    static std::unique_ptr<QSimbaLeaseBackend> create(const QUrl &url);
    //! As create(QUrl), for a URL as text: the only form that holds several ZooKeeper hosts.
    //! An empty string means defaultUrl().
    static std::unique_ptr<QSimbaLeaseBackend> create(const QString &url);

    //! sqlite:///<GenericDataLocation>/qsimba/simba.db; creates the directory.
    static QUrl defaultUrl();
    //! The schemes this build can create, e.g. {"memory", "mysql", …}.
    static QStringList schemes();
    //! \a url with its password (and ZooKeeper digest) replaced by "***".
    static QString redacted(const QString &url);

    //! The config under \a group of \a settings: leaseDuration, renewInterval, margin,
    //! retryJitter, minBackoff as durations ("15s", "500ms") and drift as a number.
    static QSimbaConfig configFromSettings(const QSettings &settings, const QString &group = {});
    //! A builder with the backend of the key "backend" (defaultUrl() when absent) and the
    //! config of configFromSettings(). Throws QSimbaInvalidArgumentError for an unknown key
    //! or a malformed value.
    static QSimba::Builder fromSettings(const QSettings &settings, const QString &group = {});
};
