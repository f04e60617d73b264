// SPDX-License-Identifier: Apache-2.0
#include "childprocess.h"

#include "console.h"
#include "exitcode.h"

#include <QtCore/QDeadlineTimer>
#include <QtCore/QFileInfo>
#include <QtCore/QProcessEnvironment>
#include <QtCore/QStandardPaths>

#include <optional>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

/*!
    Prepares \a command (program and arguments); terminate() waits \a killAfter between
    SIGTERM and SIGKILL.
*/
ChildProcess::ChildProcess(const QStringList &command, std::chrono::milliseconds killAfter, QObject *parent)
    : QObject(parent), m_command(command), m_killAfter(killAfter)
{
    m_process.setProcessChannelMode(QProcess::ForwardedChannels);
    m_process.setInputChannelMode(QProcess::ForwardedInputChannel);
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, &ChildProcess::kill);
    connect(&m_process, &QProcess::finished, this, &ChildProcess::onFinished);
}

/*!
    Kills a command still running: simbactl never leaves it behind (and a simbactl killed
    outright takes its command with it: start() sets the command's parent-death signal).
*/
ChildProcess::~ChildProcess()
{
    if (isRunning()) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

/*!
    Starts the command with SIMBA_LEASE=\a lease and SIMBA_TOKEN=\a token. Does not block
    beyond the fork and exec.
*/
bool ChildProcess::start(const QString &lease, qint64 token)
{
    const QString program = m_command.first();
    const bool hasPath = program.contains(QLatin1Char('/'));
    if ((hasPath && !QFileInfo::exists(program)) || (!hasPath && QStandardPaths::findExecutable(program).isEmpty())) {
        Console::error(QStringLiteral("%1: command not found").arg(program));
        m_exitCode = ExitCode::NotFound;
        return false;
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SIMBA_LEASE"), lease);
    env.insert(QStringLiteral("SIMBA_TOKEN"), QString::number(token));
    m_process.setProcessEnvironment(env);
    // Killed with simbactl: a simbactl killed by SIGKILL (or crashed) renews nothing any
    // more, so its command must not run on as if it still held the lease.
    const pid_t parent = ::getpid();
    m_process.setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent)
            ::_exit(ExitCode::SignalBase + SIGKILL); // simbactl ended before the line above
    });
    m_process.start(program, m_command.mid(1));
    if (!m_process.waitForStarted(-1)) {
        Console::error(QStringLiteral("%1: cannot execute: %2").arg(program, m_process.errorString()));
        m_exitCode = ExitCode::CannotExecute;
        return false;
    }
    return true;
}

bool ChildProcess::isRunning() const
{
    return m_process.state() != QProcess::NotRunning;
}

/*! Sends SIGTERM and arms the SIGKILL; nothing when the command is not running. */
void ChildProcess::terminate()
{
    if (!isRunning() || m_killTimer.isActive())
        return;
    m_process.terminate();
    m_killTimer.start(m_killAfter);
}

/*!
    Runs the command to its end on the calling thread, polling \a stopRequested every 20 ms;
    once it answers true, terminates the command as terminate() does. Blocks.
*/
int ChildProcess::run(const QString &lease, qint64 token, const std::function<bool()> &stopRequested)
{
    if (!start(lease, token))
        return m_exitCode;
    std::optional<QDeadlineTimer> killAt;
    while (isRunning() && !m_process.waitForFinished(20)) {
        if (!killAt && stopRequested()) {
            m_process.terminate();
            killAt = QDeadlineTimer(m_killAfter);
        } else if (killAt && killAt->hasExpired()) {
            kill();
            killAt = QDeadlineTimer::Forever;
        }
    }
    return m_exitCode;
}

void ChildProcess::kill()
{
    if (!isRunning())
        return;
    Console::error(QStringLiteral("the command did not exit %1 ms after SIGTERM: sending SIGKILL").arg(m_killAfter.count()));
    m_process.kill();
}

void ChildProcess::onFinished(int code, QProcess::ExitStatus status)
{
    m_killTimer.stop();
    // On Unix, QProcess reports the signal number as the exit code of a crash.
    m_exitCode = status == QProcess::CrashExit ? ExitCode::SignalBase + code : code;
    Q_EMIT finished(m_exitCode);
}

#include "moc_childprocess.cpp"
