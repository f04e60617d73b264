// SPDX-License-Identifier: Apache-2.0
#include "watchcommand.h"

#include "commandline.h"
#include "console.h"
#include "exitcode.h"

#include "qsimbaelection.h"
#include "qsimbaerror.h"
#include "qsimbaleasename.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QJsonDocument>

/*! Runs \c{simbactl watch} with \a args; answers the exit code. */
int WatchCommand::run(const QStringList &args)
{
    CommandLine line(QStringLiteral("watch"), QStringLiteral("watch [--json] [--group G --partitions N] [--http [HOST:]PORT] [NAME…]"),
                     QStringLiteral("Starts one client that contends for every NAME and, with --group, joins the "
                                    "partition group G and contends for the partitions assigned to it (none of "
                                    "these: it only keeps its session). Prints each of its events as it happens: "
                                    "a line per event, or with --json a JSON object per line. SIGINT or SIGTERM "
                                    "close the client and exit 0."));
    const QString json = QStringLiteral("json");
    const QString group = QStringLiteral("group");
    const QString partitions = QStringLiteral("partitions");
    line.addOption(QCommandLineOption(json, QStringLiteral("Print each event as one JSON object per line.")));
    line.addOption(QCommandLineOption(group, QStringLiteral("Join this partition group."), QStringLiteral("G")));
    line.addOption(QCommandLineOption(partitions, QStringLiteral("The group's number of partitions (default 8)."),
                                      QStringLiteral("N")));
    line.addOption(CommandLine::httpOption());
    line.addPositional(QStringLiteral("NAME…"), QStringLiteral("Elections to contend for."));
    if (const auto exit = line.parse(args))
        return *exit;
    QList<QSimbaLeaseName> names;
    for (const QString &n : line.positional())
        names << QSimbaLeaseName::of(n);
    WatchCommand command(line, line.parser().isSet(json));
    for (const auto &name : names)
        command.m_simba->election(name.toString())->start();
    if (line.parser().isSet(group)) {
        bool ok = true;
        const int count = line.parser().isSet(partitions) ? line.parser().value(partitions).toInt(&ok) : 8;
        if (!ok || count < 1)
            throw QSimbaInvalidArgumentError(QStringLiteral("watch: --partitions \"%1\" is not a positive number")
                                                 .arg(line.parser().value(partitions)));
        // The partitions' terms are the events to show: the work only waits for each to end.
        command.m_group = command.m_simba->group(line.parser().value(group), count)->runWhileLeader(
            [](const QSimbaTerm &term, int) { term.revoked().waitForFinished(); });
    }
    return QCoreApplication::exec();
}

WatchCommand::WatchCommand(const CommandLine &line, bool json)
{
    m_simba = line.buildClient([json](const QSimbaEvent &event) {
        Console::out(json ? QString::fromUtf8(QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact))
                          : toText(event));
    });
    connect(&m_signals, &SignalWatcher::received, this, [this] {
        if (m_closing)
            return;
        m_closing = true;
        const auto close = [this] { m_simba->closeAsync().then(this, [] { QCoreApplication::exit(ExitCode::Ok); }); };
        if (m_group)
            m_group->stop().then(this, close);
        else
            close();
    });
}

QString WatchCommand::toText(const QSimbaEvent &event)
{
    const QJsonObject json = event.toJson();
    QString line = event.time().toLocalTime().toString(QStringLiteral("HH:mm:ss.zzz ")) + event.typeName();
    for (auto it = json.constBegin(); it != json.constEnd(); ++it) {
        if (it.key() == QLatin1String("type") || it.key() == QLatin1String("time"))
            continue;
        const QJsonValue v = it.value();
        const QString value = v.isString() ? v.toString()
            : v.isDouble()                 ? QString::number(v.toInteger())
            : v.isBool()                   ? (v.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                           : QString::fromUtf8(QJsonDocument::fromVariant(v.toVariant()).toJson(QJsonDocument::Compact));
        line += QLatin1Char(' ') + it.key() + QLatin1Char('=') + value;
    }
    return line;
}

#include "moc_watchcommand.cpp"
