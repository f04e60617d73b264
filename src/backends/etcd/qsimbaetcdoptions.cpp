// SPDX-License-Identifier: Apache-2.0
// QSimbaEtcdLeaseBackend::Options: the backend URL, parsed and printed.
#include "qsimbaetcdleasebackend.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredact.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QUrlQuery>

using namespace std::chrono;
using Options = QSimbaEtcdLeaseBackend::Options;

namespace {
const Options defaults;

[[noreturn]] void invalid(const QString &url, const QString &problem)
{
    throw QSimbaInvalidArgumentError(QStringLiteral("invalid etcd URL \"%1\": %2").arg(QSimbaRedact::text(url), problem));
}

QStringList parseEndpoints(const QString &url, const QString &hosts)
{
    if (hosts.isEmpty())
        invalid(url, QStringLiteral("no host (expected etcd://host:2379[,host:2379…]/prefix)"));
    QStringList endpoints;
    for (const QString &entry : hosts.split(QLatin1Char(','))) {
        static const QRegularExpression hostPort(
            QStringLiteral("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(?::([^:]*))?$"));
        const auto match = hostPort.match(entry);
        if (!match.hasMatch())
            invalid(url, QStringLiteral("malformed host \"%1\" (expected host or host:port)").arg(entry));
        QString port = match.captured(2);
        if (port.isEmpty() && entry.endsWith(QLatin1Char(':')))
            invalid(url, QStringLiteral("empty port in \"%1\"").arg(entry));
        if (port.isEmpty()) {
            port = QStringLiteral("2379");
        } else {
            bool ok = false;
            const int number = port.toInt(&ok);
            if (!ok || number < 1 || number > 65535 || !port.front().isDigit())
                invalid(url, QStringLiteral("invalid port \"%1\" in \"%2\" (expected 1–65535)").arg(port, entry));
        }
        const QString endpoint = match.captured(1) + QLatin1Char(':') + port;
        if (endpoints.contains(endpoint))
            invalid(url, QStringLiteral("endpoint %1 is given twice").arg(endpoint));
        endpoints.append(endpoint);
    }
    return endpoints;
}

} // namespace

/*!
    The problem with \a prefix, or an empty string: an absolute path of components made of
    [A-Za-z0-9._-] (not . or ..), without a trailing slash, at most 128 characters.
*/
QString qsimbaEtcdPrefixProblem(const QString &prefix)
{
    static const QRegularExpression rule(QStringLiteral("^(/[A-Za-z0-9._-]+)+$"));
    if (prefix.size() > 128 || !rule.match(prefix).hasMatch())
        return QStringLiteral("the prefix must be an absolute path like /simba of components of "
                              "[A-Za-z0-9._-] without a trailing slash, at most 128 characters, got \"%1\"")
            .arg(prefix);
    for (const QString &part : prefix.mid(1).split(QLatin1Char('/')))
        if (part == QLatin1String(".") || part == QLatin1String(".."))
            return QStringLiteral("the prefix \"%1\" has a . or .. component").arg(prefix);
    return {};
}

/*!
    Parses \a url: "etcd://[user:password@]h1:2379[,h2:2379…]/prefix?options" or
    "etcds://…" for TLS. A host without a port gets 2379; the path is the key prefix
    (default /simba). Options: \c connectTimeout and \c requestTimeout (durations from 1ms
    to 1h such as 500ms or 2s); with etcds only, \c cacert, \c cert and \c key (file paths;
    cert and key go together). Throws QSimbaInvalidArgumentError naming the malformed part,
    with the password redacted. Does not connect. Reentrant.
*/
Options QSimbaEtcdLeaseBackend::parseUrl(const QString &url)
{
    Options options;
    const QString scheme = url.section(QLatin1String("://"), 0, 0).toLower();
    if (!url.contains(QLatin1String("://")) || (scheme != QLatin1String("etcd") && scheme != QLatin1String("etcds")))
        invalid(url, QStringLiteral("the scheme must be etcd:// or etcds://"));
    options.tls = scheme == QLatin1String("etcds");
    QString rest = url.mid(scheme.size() + 3);
    if (rest.contains(QLatin1Char('#')))
        invalid(url, QStringLiteral("a fragment (#…) is not allowed"));
    QString query;
    if (const qsizetype q = rest.indexOf(QLatin1Char('?')); q >= 0) {
        query = rest.mid(q + 1);
        rest.truncate(q);
    }
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    QString authority = slash >= 0 ? rest.left(slash) : rest;
    const QString path = slash >= 0 ? QUrl::fromPercentEncoding(rest.mid(slash).toUtf8()) : QString();
    if (const qsizetype at = authority.lastIndexOf(QLatin1Char('@')); at >= 0) {
        const QString userInfo = authority.left(at);
        authority = authority.mid(at + 1);
        const qsizetype colon = userInfo.indexOf(QLatin1Char(':'));
        options.user = QUrl::fromPercentEncoding(userInfo.left(colon).toUtf8());
        options.password = colon >= 0 ? QUrl::fromPercentEncoding(userInfo.mid(colon + 1).toUtf8()) : QString();
        if (options.user.isEmpty())
            invalid(url, QStringLiteral("a password needs a user name (etcd://user:password@host)"));
        if (options.password.isEmpty())
            invalid(url, QStringLiteral("user \"%1\" needs a password").arg(options.user));
    }
    options.endpoints = parseEndpoints(url, authority);
    if (!path.isEmpty() && path != QLatin1String("/")) {
        if (const QString problem = qsimbaEtcdPrefixProblem(path); !problem.isEmpty())
            invalid(url, problem);
        options.prefix = path;
    }

    QSet<QString> seen;
    for (const auto &[key, value] : QUrlQuery(query).queryItems(QUrl::FullyDecoded)) {
        if (seen.contains(key))
            invalid(url, QStringLiteral("option %1 is given twice").arg(key));
        seen.insert(key);
        if (key == QLatin1String("connectTimeout") || key == QLatin1String("requestTimeout")) {
            const auto d = QSimbaDuration::parse(value);
            if (!d || *d < 1ms || *d > hours(1))
                invalid(url, QStringLiteral("option %1=%2 is not a duration from 1ms to 1h such as 500ms or 2s")
                                 .arg(key, value));
            (key == QLatin1String("connectTimeout") ? options.connectTimeout : options.requestTimeout) =
                duration_cast<milliseconds>(*d);
        } else if (key == QLatin1String("cacert") || key == QLatin1String("cert") || key == QLatin1String("key")) {
            if (!options.tls)
                invalid(url, QStringLiteral("option %1 needs the etcds:// scheme (TLS)").arg(key));
            if (value.isEmpty())
                invalid(url, QStringLiteral("option %1 needs a file path").arg(key));
            (key == QLatin1String("cacert") ? options.caFile
                 : key == QLatin1String("cert") ? options.certFile
                                                : options.keyFile) = value;
        } else {
            invalid(url, QStringLiteral("unknown option %1 (known: connectTimeout, requestTimeout%2)")
                             .arg(key, options.tls ? QStringLiteral(", cacert, cert, key") : QString()));
        }
    }
    if (options.certFile.isEmpty() != options.keyFile.isEmpty())
        invalid(url, QStringLiteral("options cert and key go together (a client certificate and its key)"));
    return options;
}

std::unique_ptr<QSimbaEtcdLeaseBackend> QSimbaEtcdLeaseBackend::fromUrl(const QString &url)
{
    return std::make_unique<QSimbaEtcdLeaseBackend>(parseUrl(url));
}

std::unique_ptr<QSimbaEtcdLeaseBackend> QSimbaEtcdLeaseBackend::fromUrl(const QUrl &url)
{
    if (!url.isValid()) // QUrl's own message quotes the password: only its reason
        invalid(url.toString(),
                url.errorString().section(QLatin1Char(';'), 0, 0)
                    + QStringLiteral(" (QUrl cannot hold several hosts: pass such a URL as a string)"));
    return fromUrl(url.toString(QUrl::FullyEncoded));
}

/*!
    The URL these options parse from, with the password redacted and options at their
    defaults left out. Reentrant.
*/
QString QSimbaEtcdLeaseBackend::Options::toRedactedUrl() const
{
    QStringList query;
    if (connectTimeout != defaults.connectTimeout)
        query.append(QStringLiteral("connectTimeout=") + QSimbaDuration::format(connectTimeout));
    if (requestTimeout != defaults.requestTimeout)
        query.append(QStringLiteral("requestTimeout=") + QSimbaDuration::format(requestTimeout));
    if (!caFile.isEmpty())
        query.append(QStringLiteral("cacert=") + caFile);
    if (!certFile.isEmpty())
        query.append(QStringLiteral("cert=") + certFile + QStringLiteral("&key=") + keyFile);
    QString url = (tls ? QStringLiteral("etcds://") : QStringLiteral("etcd://"));
    if (!user.isEmpty())
        url += user + QLatin1Char(':') + QSimbaRedact::Mask + QLatin1Char('@');
    url += endpoints.join(QLatin1Char(',')) + prefix;
    if (!query.isEmpty())
        url += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return url;
}
