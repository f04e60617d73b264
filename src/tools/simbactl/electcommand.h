// SPDX-License-Identifier: Apache-2.0
// simbactl elect; not installed.
#pragma once

#include "commandline.h"
#include "signalwatcher.h"

#include "qsimba.h"
#include "qsimbaleadertask.h"

#include <QtCore/QMutex>
#include <QtCore/QObject>

#include <chrono>
#include <memory>

/*
 * `simbactl elect NAME [--kill-after D] -- COMMAND…`: contends for NAME and runs COMMAND
 * once in every term it wins (SIMBA_LEASE, SIMBA_TOKEN in its environment), as the term's
 * leader work (QSimbaElection::runWhileLeader). The end of the term sends COMMAND SIGTERM
 * (then SIGKILL); the next term starts it again. SIGINT/SIGTERM stop COMMAND first, then
 * release the lease (handover order), and exit 0. Runs on the main thread's event loop;
 * each COMMAND is waited for on its term's work thread.
 */
class ElectCommand : public QObject
{
    Q_OBJECT
public:
    static int run(const QStringList &args);

private:
    ElectCommand(const CommandLine &line, const QString &name);
    void work(const QSimbaTerm &term);
    void finish(int exitCode);

    QString m_name;
    QStringList m_command;
    std::chrono::milliseconds m_killAfter;
    std::unique_ptr<QSimba> m_simba;
    std::unique_ptr<QSimbaLeaderTask> m_task;
    SignalWatcher m_signals;
    QMutex m_running; //!< held while a command runs: never two at once
    bool m_finishing = false;
};
