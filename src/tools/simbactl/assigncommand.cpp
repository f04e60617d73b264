// SPDX-License-Identifier: Apache-2.0
#include "assigncommand.h"

#include "commandline.h"
#include "console.h"
#include "exitcode.h"

#include "qsimbaerror.h"
#include "qsimbapartitionassignment.h"

#include <QtCore/QJsonArray>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

/*! Runs \c{simbactl assign} with \a args; answers the exit code. */
int AssignCommand::run(const QStringList &args)
{
    CommandLine line(QStringLiteral("assign"), QStringLiteral("assign --partitions N [--json] MEMBER…"),
                     QStringLiteral("Prints which MEMBER (a session id) owns each of N partitions under QSimba's "
                                    "rendezvous hashing, the assignment every member of a partition group "
                                    "computes. Needs no backend."));
    const QString partitionsOption = QStringLiteral("partitions");
    const QString json = QStringLiteral("json");
    line.addOption(QCommandLineOption(partitionsOption, QStringLiteral("The number of partitions (1-100000)."),
                                      QStringLiteral("N")));
    line.addOption(QCommandLineOption(json, QStringLiteral("One JSON object instead of a table.")));
    line.addPositional(QStringLiteral("MEMBER…"), QStringLiteral("The members' session ids."));
    if (const auto exit = line.parse(args))
        return *exit;
    if (!line.parser().isSet(partitionsOption))
        throw QSimbaInvalidArgumentError(QStringLiteral("assign: --partitions N is required"));
    bool ok = false;
    const QString text = line.parser().value(partitionsOption);
    const int partitions = text.toInt(&ok);
    if (!ok || partitions < 1 || partitions > 100000)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("assign: --partitions \"%1\" is not a number of partitions from 1 to 100000").arg(text));
    if (line.positional().isEmpty())
        throw QSimbaInvalidArgumentError(QStringLiteral("assign: give at least one MEMBER"));
    QList<QSimbaSessionId> members;
    for (const QString &m : line.positional())
        members << QSimbaSessionId::of(m);

    QJsonArray owners;
    QString out = QStringLiteral("PARTITION  OWNER\n");
    for (int p = 0; p < partitions; ++p) {
        const QString owner = QSimbaPartitionAssignment::ownerOf(p, members).toString();
        owners.append(owner);
        out += QString::number(p).leftJustified(11) + owner + QLatin1Char('\n');
    }
    QJsonObject perMember;
    out += QStringLiteral("\nMEMBER  PARTITIONS\n");
    for (const auto &m : members) {
        QList<int> mine = QSimbaPartitionAssignment::partitionsOf(m, partitions, members).values();
        std::sort(mine.begin(), mine.end());
        QJsonArray array;
        QStringList numbers;
        for (int p : mine) {
            array.append(p);
            numbers << QString::number(p);
        }
        perMember.insert(m.toString(), array);
        out += m.toString() + QLatin1String("  ") + (numbers.isEmpty() ? QStringLiteral("-") : numbers.join(QLatin1Char(' ')))
            + QLatin1Char('\n');
    }
    if (line.parser().isSet(json)) {
        const QJsonObject object{{QStringLiteral("partitions"), partitions},
                                 {QStringLiteral("owners"), owners},
                                 {QStringLiteral("members"), perMember}};
        Console::out(QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact)));
    } else {
        Console::print(out);
    }
    return ExitCode::Ok;
}
