// SPDX-License-Identifier: Apache-2.0
#include "qsimbaleasename.h"

#include "qsimbaerror.h"

/*!
    \class QSimbaLeaseName
    \brief A validated lease name.

    Built by of(), which throws QSimbaInvalidArgumentError with a message that quotes the
    name and names the rule it breaks.

    The name of a lease: 1–128 characters of [A-Za-z0-9._:-], not "." or "..".
    Plain value; reentrant.
*/

QString QSimbaLeaseName::validate(const QString &name, QStringView what)
{
    const auto prefix = [&]() -> QString {
        return what.toString() + QStringLiteral(" \"") + name + QStringLiteral("\" ");
    };
    if (name.isEmpty())
        return what.toString() + QStringLiteral(" is empty: it must have 1 to 128 characters of [A-Za-z0-9._:-]");
    if (name.size() > MaxLength)
        return prefix() + QStringLiteral("has %1 characters: at most 128 are allowed").arg(name.size());
    if (name == QLatin1String(".") || name == QLatin1String(".."))
        return prefix() + QStringLiteral("is not allowed: \".\" and \"..\" are reserved");
    for (qsizetype i = 0; i < name.size(); ++i) {
        const QChar c = name.at(i);
        const ushort u = c.unicode();
        const bool ok = (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9')
                        || u == '.' || u == '_' || u == ':' || u == '-';
        if (!ok)
            return prefix()
                   + QStringLiteral("has the character '%1' at position %2: only [A-Za-z0-9._:-] are allowed")
                         .arg(c)
                         .arg(i);
    }
    return {};
}

QSimbaLeaseName QSimbaLeaseName::of(const QString &name)
{
    const QString error = validate(name);
    if (!error.isEmpty())
        throw QSimbaInvalidArgumentError(error);
    return QSimbaLeaseName(name);
}

void QSimbaLeaseName::validateGroup(const QString &group, int partitions)
{
    const QString error = validate(group, u"group name");
    if (!error.isEmpty())
        throw QSimbaInvalidArgumentError(error);
    if (partitions < 1)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("group \"%1\": partitions must be at least 1, got %2").arg(group).arg(partitions));
    const QString last = group + QLatin1Char('.') + QString::number(partitions - 1);
    if (last.size() > MaxLength)
        throw QSimbaInvalidArgumentError(
            QStringLiteral("group \"%1\" with %2: the lease name \"%3\" exceeds 128 characters")
                .arg(group,
                     partitions == 1 ? QStringLiteral("1 partition") : QStringLiteral("%1 partitions").arg(partitions),
                     last));
}
