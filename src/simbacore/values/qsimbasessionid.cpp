// SPDX-License-Identifier: Apache-2.0
#include "qsimbasessionid.h"

#include "qsimbaerror.h"
#include "qsimbaleasename.h"

#include <QtCore/QRandomGenerator>

/*!
    \class QSimbaSessionId
    \brief The id of a backend session; never reused.

    The id of a backend session. Never reused: generate() makes a fresh random id; backends
    that mint their own ids wrap them with of(). Plain value; reentrant.
*/

QSimbaSessionId QSimbaSessionId::generate()
{
    quint32 words[4];
    QRandomGenerator::system()->fillRange(words);
    QString id;
    id.reserve(32);
    for (quint32 w : words)
        id += QStringLiteral("%1").arg(w, 8, 16, QLatin1Char('0'));
    return QSimbaSessionId(id);
}

QSimbaSessionId QSimbaSessionId::of(const QString &id)
{
    const QString error = QSimbaLeaseName::validate(id, u"session id");
    if (!error.isEmpty())
        throw QSimbaInvalidArgumentError(error);
    return QSimbaSessionId(id);
}
