// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquickutil_p.h"

#include "qsimbaduration_p.h"

Q_LOGGING_CATEGORY(lcSimbaQuick, "qsimba.quick", QtWarningMsg)

namespace QSimbaQuick {

bool isSet(const QVariant &value)
{
    if (!value.isValid() || value.isNull())
        return false;
    if (value.metaType() == QMetaType::fromType<QString>())
        return !value.toString().trimmed().isEmpty();
    return true;
}

std::optional<std::chrono::nanoseconds> durationOf(const QVariant &value, const QString &property, QString *error)
{
    if (!isSet(value))
        return std::nullopt;
    const auto fail = [&] {
        *error = QStringLiteral("%1: \"%2\" is not a duration such as 10s, 500ms, PT1M or a number of milliseconds")
                     .arg(property, value.toString());
        return std::nullopt;
    };
    const QMetaType type = value.metaType();
    if (type == QMetaType::fromType<QString>()) {
        const auto parsed = QSimbaDuration::parse(value.toString());
        if (!parsed)
            return fail();
        return parsed;
    }
    bool ok = false;
    const double ms = value.toDouble(&ok);
    if (!ok || ms < 0 || ms > 9.2e12)
        return fail();
    return std::chrono::nanoseconds(qint64(ms * 1e6));
}

} // namespace QSimbaQuick
