// SPDX-License-Identifier: Apache-2.0
#include "lockcommand.h"

#include "console.h"
#include "exitcode.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbalock.h"

#include <QtCore/QCoreApplication>

using namespace std::chrono_literals;

namespace {
const QString timeoutOption = QStringLiteral("timeout");
} // namespace

/*!
    Runs \c{simbactl lock} with \a args (after the word "lock"); answers the exit code.
    Throws QSimbaError subclasses for bad input or a failed backend (main() maps them).
*/
int LockCommand::run(const QStringList &args)
{
    CommandLine line(QStringLiteral("lock"), QStringLiteral("lock NAME [--timeout D] [--kill-after D] [--http [HOST:]PORT] -- COMMAND…"),
                     QStringLiteral("Runs COMMAND while holding the lock NAME, like flock(1) across hosts. COMMAND "
                                    "sees SIMBA_LEASE (the name) and SIMBA_TOKEN (the fencing token: pass it to "
                                    "what you write). When COMMAND exits, the lock is released and simbactl "
                                    "exits with COMMAND's status. If the lock is lost while COMMAND runs, "
                                    "COMMAND gets SIGTERM (SIGKILL after --kill-after) and simbactl exits 79. "
                                    "SIGINT or SIGTERM stop COMMAND the same way, release the lock and exit "
                                    "128 + the signal."),
                     CommandLine::Trailing::Command);
    line.addPositional(QStringLiteral("NAME"), QStringLiteral("The lock: 1-128 characters of [A-Za-z0-9._:-]."));
    line.addOption(QCommandLineOption(timeoutOption,
                                      QStringLiteral("Give up after waiting this long (exit 75); default: wait forever."),
                                      QStringLiteral("DURATION")));
    line.addOption(CommandLine::killAfterOption());
    line.addOption(CommandLine::httpOption());
    if (const auto exit = line.parse(args))
        return *exit;
    const QString name = line.singleName();
    const auto timeout = line.duration(timeoutOption);
    LockCommand command(line, name);
    command.begin(timeout);
    return QCoreApplication::exec();
}

LockCommand::LockCommand(const CommandLine &line, const QString &name)
    : m_name(name), m_child(line.command(), line.killAfter())
{
    m_simba = line.buildClient(CommandLine::reportTrouble);
    connect(&m_signals, &SignalWatcher::received, this, &LockCommand::onSignal);
    connect(&m_child, &ChildProcess::finished, this, &LockCommand::onChildFinished);
}

void LockCommand::begin(std::optional<std::chrono::nanoseconds> timeout)
{
    m_acquiring = m_simba->lock(m_name)->acquireAsync(timeout.value_or(std::chrono::nanoseconds::max()));
    if (timeout) {
        // The client's own timeout, kept as a bound of our own: the exit code must follow it.
        m_timeout.setSingleShot(true);
        m_timeout.callOnTimeout(this, [this, timeout] {
            if (!m_term.isNull() || m_finishing)
                return;
            m_acquiring.cancel();
            Console::error(QStringLiteral("timed out after %1 waiting for the lock %2")
                               .arg(QSimbaDuration::format(*timeout), m_name));
            finish(ExitCode::Timeout);
        });
        m_timeout.start(std::chrono::ceil<std::chrono::milliseconds>(*timeout) + std::chrono::milliseconds(50));
    }
    // Not then(): on Qt 6.4, takeResult() inside a continuation makes the promise run it again.
    connect(&m_acquired, &QFutureWatcherBase::finished, this, &LockCommand::onAcquired);
    m_acquired.setFuture(m_acquiring);
}

void LockCommand::onAcquired()
{
    if (m_finishing || m_acquiring.isCanceled())
        return;
    m_timeout.stop();
    try {
        m_term = m_acquiring.takeResult();
    } catch (const QSimbaLockTimeoutError &e) {
        Console::error(QStringLiteral("timed out after %1 waiting for the lock %2")
                           .arg(QSimbaDuration::format(e.timeout()), m_name));
        finish(ExitCode::Timeout);
        return;
    } catch (const QSimbaError &e) {
        Console::error(e.message());
        finish(ExitCode::Unavailable);
        return;
    }
    m_term.revoked().then(this, [this](QSimbaTerm::RevokeReason reason) { onRevoked(reason); });
    if (!m_child.start(m_name, m_term.token()))
        finish(m_child.exitCode());
}

void LockCommand::onRevoked(QSimbaTerm::RevokeReason reason)
{
    if (m_finishing || m_pendingExit >= 0)
        return;
    Console::error(QStringLiteral("lost the lock %1 (token %2): %3; stopping the command")
                       .arg(m_name)
                       .arg(m_term.token())
                       .arg(QSimbaTerm::reasonName(reason)));
    m_pendingExit = ExitCode::TermLost;
    if (m_child.isRunning())
        m_child.terminate();
    else
        finish(ExitCode::TermLost);
}

void LockCommand::onSignal(int signal)
{
    if (m_child.isRunning()) {
        if (m_pendingExit < 0)
            m_pendingExit = ExitCode::SignalBase + signal;
        m_child.terminate();
        return;
    }
    m_acquiring.cancel(); // abandons the attempt (and releases a term won meanwhile)
    finish(ExitCode::SignalBase + signal);
}

void LockCommand::onChildFinished(int exitCode)
{
    finish(m_pendingExit >= 0 ? m_pendingExit : exitCode);
}

// Releases the lock (the command has stopped: handover order), closes the client, quits.
void LockCommand::finish(int exitCode)
{
    if (m_finishing)
        return;
    m_finishing = true;
    (void)m_term.releaseAsync();
    m_simba->closeAsync().then(this, [exitCode] { QCoreApplication::exit(exitCode); });
}

#include "moc_lockcommand.cpp"
