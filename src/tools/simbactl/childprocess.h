// SPDX-License-Identifier: Apache-2.0
// simbactl: the COMMAND it runs; not installed.
#pragma once

#include <QtCore/QObject>
#include <QtCore/QProcess>
#include <QtCore/QStringList>
#include <QtCore/QTimer>

#include <chrono>
#include <functional>

/*
 * The user's COMMAND as a child process: simbactl's stdin, stdout and stderr are passed
 * through; SIMBA_LEASE and SIMBA_TOKEN are added to its environment. terminate() sends
 * SIGTERM, then SIGKILL once the grace period passed. Thread-affine: used on the thread that
 * created it.
 */
class ChildProcess : public QObject
{
    Q_OBJECT
public:
    ChildProcess(const QStringList &command, std::chrono::milliseconds killAfter, QObject *parent = nullptr);
    ~ChildProcess() override;

    //! Starts the command; false (with exitCode() 126 or 127 and a message on stderr) when
    //! it cannot start.
    bool start(const QString &lease, qint64 token);
    bool isRunning() const;
    //! SIGTERM now, SIGKILL after the grace period; finished() follows.
    void terminate();
    //! Blocking form for threads without an event loop (leader work): starts the command and
    //! waits for it, terminating it once \a stopRequested answers true. Answers exitCode().
    int run(const QString &lease, qint64 token, const std::function<bool()> &stopRequested);
    //! The status in the form of a shell: the exit code, or 128 + N when killed by signal N.
    int exitCode() const { return m_exitCode; }

Q_SIGNALS:
    void finished(int exitCode);

private:
    void onFinished(int code, QProcess::ExitStatus status);
    void kill();

    QStringList m_command;
    std::chrono::milliseconds m_killAfter;
    QProcess m_process;
    QTimer m_killTimer;
    int m_exitCode = 0;
};
