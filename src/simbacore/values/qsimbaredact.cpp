// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredact.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QStringList>
#include <QtCore/QUrl>
#include <QtCore/QUrlQuery>

/*!
    \namespace QSimbaRedact
    \brief Masks passwords in URLs and in any text that quotes them, the same way for every
    backend.

    Messages are built from parsed parts where possible (url()); text() is the safety net for
    text that quotes a URL as the user wrote it, including one QUrl cannot parse: a password
    with '/', '@', '#' or percent-encoded characters is masked whole.
*/

namespace {
// digest=user:password keeps "user"; the others are masked whole.
const QStringList secretOptions{QStringLiteral("digest"), QStringLiteral("password"),
                                QStringLiteral("sslpassword"), QStringLiteral("secret")};

QString maskOption(const QString &key, const QString &value)
{
    if (key.compare(QLatin1String("digest"), Qt::CaseInsensitive) == 0) {
        // The user part ends at the first ':' (also written %3A); without one, mask it all.
        static const QRegularExpression colon(QStringLiteral(":|%3A"), QRegularExpression::CaseInsensitiveOption);
        const auto m = colon.match(value);
        if (m.hasMatch())
            return value.left(m.capturedStart()) + QLatin1Char(':') + QSimbaRedact::Mask;
    }
    return QSimbaRedact::Mask;
}
// \a text with the last capture of every match of \a re (the secret) replaced by \a mask(match).
template<typename F>
QString replaceSecrets(const QString &text, const QRegularExpression &re, F mask)
{
    QString out;
    qsizetype from = 0;
    for (auto it = re.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const int secret = m.lastCapturedIndex();
        if (m.capturedLength(secret) == 0)
            continue;
        out += QStringView(text).mid(from, m.capturedStart(secret) - from);
        out += mask(m);
        from = m.capturedEnd(secret);
    }
    out += QStringView(text).mid(from);
    return out;
}
} // namespace

/*! Whether the URL option \a key carries a secret (digest, password, sslpassword, secret). */
bool QSimbaRedact::isSecretOption(const QString &key)
{
    return secretOptions.contains(key, Qt::CaseInsensitive);
}

/*!
    \a url as text with its password replaced by Mask and the values of secret options
    masked (a digest keeps its user part). For descriptions of backends and messages about
    a URL that parsed.
*/
QString QSimbaRedact::url(const QUrl &url)
{
    QUrl shown = url;
    if (!shown.password().isEmpty())
        shown.setPassword(Mask);
    if (shown.hasQuery()) {
        QUrlQuery query(shown);
        auto items = query.queryItems(QUrl::FullyDecoded);
        bool changed = false;
        for (auto &[key, value] : items) {
            if (isSecretOption(key)) {
                value = maskOption(key, value);
                changed = true;
            }
        }
        if (changed) {
            QUrlQuery masked;
            masked.setQueryItems(items);
            shown.setQuery(masked);
        }
    }
    return text(shown.toString());
}

/*!
    \a text with the secrets of any URL in it masked: in "scheme://user:password@host" the
    password runs to the last '@' of the word (so '/', '@', '#', ':' and %-escapes in it are
    masked too), and the value of a secret option ("digest=", "password=", …) runs to the next
    '&', quote or blank
    (a '#' is taken as part of the secret).
*/
QString QSimbaRedact::text(const QString &text)
{
    static const QRegularExpression option(
        QStringLiteral("([?&;\\s\"']|^)(digest|password|sslpassword|secret)=([^&\\s\"']*)"),
        QRegularExpression::CaseInsensitiveOption);
    // A word: up to a blank, a quote, or the end. Inside it, user info ends at its last '@'.
    static const QRegularExpression userInfo(
        QStringLiteral("([A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'/@:]*:)([^\\s\"']*)@"));
    // Options first: a digest's password may hold an '@' that the user-info rule would take
    // for the end of a user info, leaving the rest of the password in view.
    return replaceSecrets(replaceSecrets(text, option, [](const QRegularExpressionMatch &m) {
                              return maskOption(m.captured(2), m.captured(3));
                          }),
                          userInfo, [](const QRegularExpressionMatch &) { return QString(Mask); });
}

/*! "host:port" for messages and descriptions; an IPv6 address is bracketed. */
QString QSimbaRedact::hostPort(const QString &host, int port)
{
    const bool ipv6 = host.contains(QLatin1Char(':')) && !host.startsWith(QLatin1Char('['));
    return (ipv6 ? QLatin1Char('[') + host + QLatin1Char(']') : host) + QLatin1Char(':') + QString::number(port);
}
