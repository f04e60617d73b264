// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QMetaEnum>
#include <QtCore/QString>

/*
 * The seeds' name of an enum value: its Q_ENUM key from CamelCase to UPPER_SNAKE
 * (SteppedDown → STEPPED_DOWN). One helper for every "…Name()" of the API.
 */
template<typename E>
QString qsimbaSeedName(E value)
{
    const char *key = QMetaEnum::fromType<E>().valueToKey(int(value));
    QString name;
    if (!key)
        return name;
    for (const char *c = key; *c; ++c) {
        const QChar ch = QLatin1Char(*c);
        if (ch.isUpper() && c != key)
            name += QLatin1Char('_');
        name += ch.toUpper();
    }
    return name;
}
