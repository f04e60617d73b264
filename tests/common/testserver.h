// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QTemporaryDir>

#include <chrono>
#include <functional>
#include <memory>

/*
 * A real server process for tests: a private temporary directory, a free loopback port,
 * a log file, and a stop that never leaves the process behind. Subclasses (redis, …)
 * know how to configure, start and probe their server. Not thread-safe; use it from the
 * test's thread.
 */
class TestServer
{
public:
    explicit TestServer(const QString &name);
    virtual ~TestServer();

    //! A TCP port on 127.0.0.1 that was free a moment ago, none of \a except (the kernel may
    //! hand out the port it just released again: a second port of one fixture needs this).
    static quint16 freePort(const QList<quint16> &except = {});
    //! Runs \a program to completion; returns its exit code, with stdout+stderr in \a output.
    static int run(const QString &program, const QStringList &args, QString *output = nullptr,
                   std::chrono::milliseconds timeout = std::chrono::seconds(60));
    //! Waits until every thread of process \a pid is stopped ("T" in /proc): kill(SIGSTOP)
    //! returns before the stop takes effect, and a thread of a loaded machine may still
    //! answer a request meanwhile. False after \a timeout.
    static bool waitStopped(qint64 pid, std::chrono::milliseconds timeout = std::chrono::seconds(5));

    QString name() const { return m_name; }
    QString dir() const { return m_dir.path(); }
    quint16 port() const { return m_port; }
    //! Why start() failed (including the tail of the server's log).
    QString errorString() const { return m_error; }
    bool isRunning() const;

    //! Starts the server; false (with errorString()) when it did not become ready in time.
    virtual bool start() = 0;
    //! Called when the test program ends in std::terminate (an exception left a test
    //! function) while this server lives: prints what the server's log says about the
    //! moments before (PostgreSQL: its last lines). Does nothing by default.
    virtual void reportOnAbort() const {}
    //! Stops the server (TERM, then KILL after a grace period). Idempotent. The base
    //! destructor can only call this base version: a subclass that overrides stop() calls
    //! its own from its destructor.
    virtual void stop();

protected:
    //! Starts \a program in the background, logging to dir()/<name>.log, then polls
    //! \a ready every 50 ms until it answers true or \a timeout passes.
    bool launch(const QString &program, const QStringList &args, const std::function<bool()> &ready,
                std::chrono::milliseconds timeout = std::chrono::seconds(30));
    bool fail(const QString &message);
    //! Waits until \a ready answers true, up to \a timeout; the process must stay alive.
    bool waitUntil(const std::function<bool()> &ready, std::chrono::milliseconds timeout);
    //! The server's log file (its stdout and stderr), dir()/<name>.log.
    QString logPath() const;
    //! The last \a bytes of the server's log.
    QString logTail(qsizetype bytes = 2000) const;

    QString m_name;
    QTemporaryDir m_dir;
    quint16 m_port = 0;
    QString m_error;
    std::unique_ptr<QProcess> m_process;
};
