// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbasqlleasebackend.h"

/*
 * The SQL backend's options: reading them from a URL, checking them, describing them with
 * the password redacted, and checking that the Qt SQL driver they need is installed.
 */
namespace QSimbaSqlOptions {
using Driver = QSimbaSqlLeaseBackend::Driver;
using Options = QSimbaSqlLeaseBackend::Options;

//! The backend's URL with the password redacted (QSimbaRedact), e.g. postgresql://u:***@db:5432/app.
QString describe(const Options &options);
//! Throws QSimbaInvalidArgumentError naming the first bad option; \a where names the source.
void validate(const Options &options, const QString &where);
//! See QSimbaSqlLeaseBackend::optionsFromUrl().
Options fromUrl(const QUrl &url);
//! The Qt SQL driver of \a driver ("QPSQL") and the Debian package that installs it.
QString qtDriver(Driver driver);
QString debianPackage(Driver driver);
//! Empty when the Qt SQL driver of \a driver is installed; otherwise why not and how to fix it.
QString missingDriver(Driver driver);
} // namespace QSimbaSqlOptions
