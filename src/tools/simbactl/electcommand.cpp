// SPDX-License-Identifier: Apache-2.0
#include "electcommand.h"

#include "childprocess.h"
#include "console.h"
#include "exitcode.h"

#include "qsimbaelection.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QThread>

/*!
    Runs \c{simbactl elect} with \a args (after the word "elect"); answers the exit code.
*/
int ElectCommand::run(const QStringList &args)
{
    CommandLine line(QStringLiteral("elect"), QStringLiteral("elect NAME [--kill-after D] [--http [HOST:]PORT] -- COMMAND…"),
                     QStringLiteral("Contends for the leadership of NAME and runs COMMAND once in every term this "
                                    "process wins, with SIMBA_LEASE and SIMBA_TOKEN in its environment. When the "
                                    "term ends COMMAND gets SIGTERM (SIGKILL after --kill-after); it starts again "
                                    "in the next term. A COMMAND that exits early keeps the term until it ends. "
                                    "SIGINT or SIGTERM stop COMMAND, then release the lease, and exit 0."),
                     CommandLine::Trailing::Command);
    line.addPositional(QStringLiteral("NAME"), QStringLiteral("The election: 1-128 characters of [A-Za-z0-9._:-]."));
    line.addOption(CommandLine::killAfterOption());
    line.addOption(CommandLine::httpOption());
    if (const auto exit = line.parse(args))
        return *exit;
    ElectCommand command(line, line.singleName());
    return QCoreApplication::exec();
}

ElectCommand::ElectCommand(const CommandLine &line, const QString &name)
    : m_name(name), m_command(line.command()), m_killAfter(line.killAfter())
{
    m_simba = line.buildClient([this](const QSimbaEvent &event) {
        CommandLine::reportTrouble(event);
        if (event.type() == QSimbaEvent::Type::Elected || event.type() == QSimbaEvent::Type::Revoked) {
            const QString reason = event.type() == QSimbaEvent::Type::Revoked
                ? QStringLiteral(": ") + QSimbaTerm::reasonName(event.reason())
                : QString();
            Console::error(QStringLiteral("%1 %2 with token %3%4")
                               .arg(event.type() == QSimbaEvent::Type::Elected ? QStringLiteral("elected")
                                                                                : QStringLiteral("revoked"),
                                    m_name)
                               .arg(event.token())
                               .arg(reason));
        }
    });
    m_task = m_simba->election(name)->runWhileLeader([this](const QSimbaTerm &term) { work(term); });
    connect(&m_signals, &SignalWatcher::received, this, [this] { finish(ExitCode::Ok); });
}

// The leader work of one term, on its own thread: the command runs until it exits or the
// term ends.
void ElectCommand::work(const QSimbaTerm &term)
{
    // A lost term does not wait for its work: the next term's command waits here instead.
    QMutexLocker running(&m_running);
    if (!term.isValid())
        return;
    ChildProcess child(m_command, m_killAfter);
    const int status = child.run(m_name, term.token(), [] { return QThread::currentThread()->isInterruptionRequested(); });
    if (status == ExitCode::NotFound || status == ExitCode::CannotExecute) {
        QMetaObject::invokeMethod(this, [this, status] { finish(status); }, Qt::QueuedConnection);
        return;
    }
    if (term.isValid())
        Console::error(QStringLiteral("the command exited with status %1; keeping the term %2 until it ends")
                           .arg(status)
                           .arg(term.token()));
}

// Stops the task (the command first, then the release: handover order), closes, quits.
void ElectCommand::finish(int exitCode)
{
    if (m_finishing)
        return;
    m_finishing = true;
    m_task->stop().then(this, [this, exitCode] {
        m_simba->closeAsync().then(this, [exitCode] { QCoreApplication::exit(exitCode); });
    });
}

#include "moc_electcommand.cpp"
