// SPDX-License-Identifier: Apache-2.0
// simbactl lock; not installed.
#pragma once

#include "childprocess.h"
#include "commandline.h"
#include "signalwatcher.h"

#include "qsimba.h"
#include "qsimbalockterm.h"

#include <QtCore/QFuture>
#include <QtCore/QFutureWatcher>

#include <QtCore/QObject>
#include <QtCore/QTimer>

#include <memory>
#include <optional>

/*
 * `simbactl lock NAME [--timeout D] [--kill-after D] -- COMMAND…`: wins the lease NAME, runs
 * COMMAND with SIMBA_LEASE and SIMBA_TOKEN, releases the lease when it exits and passes its
 * status on. A lost term sends SIGTERM (then SIGKILL) to COMMAND and exits
 * ExitCode::TermLost; SIGINT/SIGTERM stop COMMAND, release, and exit 128 + the signal.
 * Runs on the main thread's event loop.
 */
class LockCommand : public QObject
{
    Q_OBJECT
public:
    static int run(const QStringList &args);

private:
    LockCommand(const CommandLine &line, const QString &name);
    void begin(std::optional<std::chrono::nanoseconds> timeout);
    void onAcquired();
    void onRevoked(QSimbaTerm::RevokeReason reason);
    void onSignal(int signal);
    void onChildFinished(int exitCode);
    void finish(int exitCode);

    QString m_name;
    std::unique_ptr<QSimba> m_simba;
    ChildProcess m_child;
    SignalWatcher m_signals;
    QFuture<QSimbaLockTerm> m_acquiring;
    QFutureWatcher<QSimbaLockTerm> m_acquired;
    QTimer m_timeout;
    QSimbaLockTerm m_term;
    int m_pendingExit = -1; //!< the exit code once the running command has stopped
    bool m_finishing = false;
};
