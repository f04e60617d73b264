// SPDX-License-Identifier: Apache-2.0
// simbactl: locks, elections, status and events of QSimba from the shell.
#include "assigncommand.h"
#include "commandline.h"
#include "console.h"
#include "electcommand.h"
#include "exitcode.h"
#include "lockcommand.h"
#include "statuscommand.h"
#include "watchcommand.h"

#include "qsimbaerror.h"

#include <QtCore/QCoreApplication>

namespace {

// Options given before the command word ("simbactl --backend URL lock …") move after it.
QStringList commonFirst(const QStringList &args, QString *command)
{
    QStringList before;
    qsizetype i = 0;
    for (; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--backend") || a == QLatin1String("--lease")) {
            before << a;
            if (i + 1 < args.size())
                before << args[++i];
        } else if (a.startsWith(QLatin1String("--backend=")) || a.startsWith(QLatin1String("--lease="))) {
            before << a;
        } else {
            break;
        }
    }
    if (i >= args.size())
        return before;
    *command = args[i];
    return before + args.mid(i + 1);
}

int dispatch(const QString &command, const QStringList &args)
{
    if (command == QLatin1String("lock"))
        return LockCommand::run(args);
    if (command == QLatin1String("elect"))
        return ElectCommand::run(args);
    if (command == QLatin1String("status"))
        return StatusCommand::run(args);
    if (command == QLatin1String("watch"))
        return WatchCommand::run(args);
    if (command == QLatin1String("assign"))
        return AssignCommand::run(args);
    if (command == QLatin1String("--help") || command == QLatin1String("-h") || command == QLatin1String("help")) {
        Console::print(CommandLine::usage());
        return ExitCode::Ok;
    }
    if (command == QLatin1String("--version")) {
        Console::out(QStringLiteral("simbactl %1").arg(QCoreApplication::applicationVersion()));
        return ExitCode::Ok;
    }
    Console::error(QStringLiteral("unknown command \"%1\": expected lock, elect, status, watch or assign "
                                  "(see simbactl --help)")
                       .arg(command));
    return ExitCode::Usage;
}

// Bad input is a usage error; a failing or unusable backend is unavailable.
int exitCodeOf(const QSimbaError &e)
{
    if (dynamic_cast<const QSimbaInvalidArgumentError *>(&e))
        return ExitCode::Usage;
    if (dynamic_cast<const QSimbaBackendError *>(&e) || dynamic_cast<const QSimbaIllegalStateError *>(&e))
        return ExitCode::Unavailable;
    return ExitCode::Software;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("QSimba")); // settings: ~/.config/QSimba/simbactl.conf
    QCoreApplication::setApplicationName(QStringLiteral("simbactl"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QSIMBA_VERSION));
    QString command;
    const QStringList args = commonFirst(app.arguments().mid(1), &command);
    if (command.isEmpty()) {
        Console::error(QStringLiteral("no command: expected lock, elect, status, watch or assign (see simbactl --help)"));
        return ExitCode::Usage;
    }
    try {
        return dispatch(command, args);
    } catch (const QSimbaError &e) {
        Console::error(e.message());
        return exitCodeOf(e);
    }
}
