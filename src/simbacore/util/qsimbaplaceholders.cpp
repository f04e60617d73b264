// SPDX-License-Identifier: Apache-2.0
#include "qsimbaplaceholders_p.h"

#include "qsimbaerror.h"
#include "qsimbaredact.h"

#include <QtCore/QProcessEnvironment>
#include <QtCore/QRegularExpression>

QString QSimbaPlaceholders::expand(const QString &value, const QString &key)
{
    if (!value.contains(QLatin1String("${")))
        return value;
    static const QRegularExpression placeholder(QStringLiteral("\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\\}"));
    const auto env = QProcessEnvironment::systemEnvironment();
    const auto malformed = [&] {
        return QSimbaInvalidArgumentError(
            QStringLiteral("setting %1: malformed placeholder in \"%2\": write ${NAME} or ${NAME:default}")
                .arg(key, QSimbaRedact::text(value)));
    };
    QString out;
    qsizetype from = 0;
    auto it = placeholder.globalMatch(value);
    while (it.hasNext()) {
        const auto m = it.next();
        const QStringView literal = QStringView(value).mid(from, m.capturedStart() - from);
        if (literal.contains(QLatin1String("${")))
            throw malformed();
        out += literal;
        const QString variable = m.captured(1);
        if (env.contains(variable))
            out += env.value(variable);
        else if (m.capturedStart(2) >= 0)
            out += m.captured(2);
        else
            throw QSimbaInvalidArgumentError(
                QStringLiteral("setting %1: the placeholder ${%2} names an environment variable that is not set "
                               "(write ${%2:default} for a default)")
                    .arg(key, variable));
        from = m.capturedEnd();
    }
    if (QStringView(value).mid(from).contains(QLatin1String("${")))
        throw malformed();
    out += QStringView(value).mid(from);
    return out;
}
