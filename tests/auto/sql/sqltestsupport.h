// SPDX-License-Identifier: Apache-2.0
// Test support for the SQL backend's tests: not installed.
#pragma once

#include "qsimbasqlleasebackend.h"

#include <QtCore/QObject>
#include <QtCore/QString>

#include <functional>

class TestServer;

namespace SqlTest {
//! Starts \a server and runs \a test; when the server does not start, runs a test that fails
//! with the server's errorString() instead. Returns QTest::qExec's result.
int runWithServer(TestServer &server, QObject &test, int argc, char **argv);
//! Runs \a test alone.
int run(QObject &test, int argc, char **argv);
//! Runs a test that fails with \a error (a server or fixture that did not start).
int runFailure(const QString &error, int argc, char **argv);
//! The message of the QSimbaBackendError that \a call throws; empty when it throws none.
QString backendError(const std::function<void()> &call);

//! A connection of the test user outside the backend (PostgreSQL or MySQL/MariaDB), e.g. to
//! hold a lock in a transaction of its own.
class RawConnection
{
public:
    explicit RawConnection(const QSimbaSqlLeaseBackend::Options &o);
    ~RawConnection();
    bool exec(const QString &sql);

private:
    QString m_name;
};
} // namespace SqlTest
