// SPDX-License-Identifier: Apache-2.0
// QSimbaZookeeperLeaseBackend::Options: the backend URL, parsed and printed.
#include "qsimbazookeeperleasebackend.h"

#include "qsimbaduration_p.h"
#include "qsimbaerror.h"
#include "qsimbaredact.h"

#include <QtCore/QRegularExpression>
#include <QtCore/QUrlQuery>

using namespace std::chrono;
using Options = QSimbaZookeeperLeaseBackend::Options;
using Acl = QSimbaZookeeperLeaseBackend::Acl;

namespace {
const Options defaults;
constexpr QLatin1String Scheme("zookeeper://");

[[noreturn]] void invalid(const QString &url, const QString &problem)
{
    throw QSimbaInvalidArgumentError(QStringLiteral("invalid ZooKeeper URL \"%1\": %2").arg(QSimbaRedact::text(url), problem));
}

// "500ms", "10s", "1.5s", "2m": at least 1 ms, at most a day (whole milliseconds).
std::optional<milliseconds> parseMillis(const QString &text)
{
    const auto d = QSimbaDuration::parse(text);
    if (!d || *d < 1ms || *d > hours(24))
        return std::nullopt;
    return duration_cast<milliseconds>(*d);
}

QString aclName(Acl acl)
{
    switch (acl) {
    case Acl::Creator:
        return QStringLiteral("creator");
    case Acl::CreatorRead:
        return QStringLiteral("creator-read");
    case Acl::Open:
        break;
    }
    return QStringLiteral("open");
}

QString parseHosts(const QString &url, const QString &authority)
{
    if (authority.contains(QLatin1Char('@')))
        invalid(url, QStringLiteral("credentials go into the digest option (digest=user:password), not before the host"));
    if (authority.isEmpty())
        invalid(url, QStringLiteral("no host (expected zookeeper://host:2181[,host:2181…]/base)"));
    QStringList hosts;
    for (const QString &entry : authority.split(QLatin1Char(','))) {
        static const QRegularExpression hostPort(
            QStringLiteral("^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)(?::([^:]*))?$"));
        const auto match = hostPort.match(entry);
        if (!match.hasMatch())
            invalid(url, QStringLiteral("malformed host \"%1\" (expected host or host:port)").arg(entry));
        QString port = match.captured(2);
        if (match.capturedLength(2) == 0 && entry.endsWith(QLatin1Char(':')))
            invalid(url, QStringLiteral("empty port in \"%1\"").arg(entry));
        if (port.isEmpty()) {
            port = QStringLiteral("2181");
        } else {
            bool ok = false;
            const int number = port.toInt(&ok);
            if (!ok || number < 1 || number > 65535 || port.startsWith(QLatin1Char('+')))
                invalid(url, QStringLiteral("invalid port \"%1\" in \"%2\" (expected 1–65535)").arg(port, entry));
        }
        hosts.append(match.captured(1) + QLatin1Char(':') + port);
    }
    return hosts.join(QLatin1Char(','));
}

QString parseBasePath(const QString &url, const QString &encoded)
{
    const QString path = QUrl::fromPercentEncoding(encoded.toUtf8());
    if (path.isEmpty() || path == QLatin1String("/"))
        return defaults.basePath;
    if (path.endsWith(QLatin1Char('/')))
        invalid(url, QStringLiteral("the base path \"%1\" must not end with /").arg(path));
    for (const QString &part : path.mid(1).split(QLatin1Char('/'))) {
        if (part.isEmpty() || part == QLatin1String(".") || part == QLatin1String(".."))
            invalid(url, QStringLiteral("the base path \"%1\" has an empty, . or .. component").arg(path));
        for (const QChar c : part)
            if (c.unicode() < 0x20 || c.unicode() == 0x7f)
                invalid(url, QStringLiteral("the base path \"%1\" has a control character").arg(path));
    }
    if (path == QLatin1String("/zookeeper") || path.startsWith(QLatin1String("/zookeeper/")))
        invalid(url, QStringLiteral("the base path \"%1\" is reserved by ZooKeeper").arg(path));
    return path;
}
} // namespace

/*!
    Parses \a url ("zookeeper://h1:2181,h2:2181/base?sessionTimeout=10s&timeout=2s
    &digest=user:pw&acl=creator") into options, without connecting. The path is the base
    path (default /simba); a host without a port gets 2181. Options: \c sessionTimeout and
    \c timeout (a whole number of ms, s or m), \c digest (user:password), \c acl
    (\c open, \c creator, \c creator-read; default \c creator with a digest, else \c open).
    Throws QSimbaInvalidArgumentError naming the malformed part or unknown option, with the
    password redacted. Reentrant.
*/
QSimbaZookeeperLeaseBackend::Options QSimbaZookeeperLeaseBackend::parseUrl(const QString &url)
{
    if (!url.startsWith(Scheme, Qt::CaseInsensitive))
        invalid(url, QStringLiteral("the scheme must be zookeeper://"));
    QString rest = url.mid(Scheme.size());
    if (rest.contains(QLatin1Char('#')))
        invalid(url, QStringLiteral("a fragment (#…) is not allowed"));
    QString query;
    const qsizetype q = rest.indexOf(QLatin1Char('?'));
    if (q >= 0) {
        query = rest.mid(q + 1);
        rest.truncate(q);
    }
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    const QString authority = slash >= 0 ? rest.left(slash) : rest;
    Options options;
    options.hosts = parseHosts(url, authority);
    options.basePath = parseBasePath(url, slash >= 0 ? rest.mid(slash) : QString());

    std::optional<Acl> acl;
    QSet<QString> seen;
    for (const auto &[key, value] : QUrlQuery(query).queryItems(QUrl::FullyDecoded)) {
        if (seen.contains(key))
            invalid(url, QStringLiteral("option %1 is given twice").arg(key));
        seen.insert(key);
        if (key == QLatin1String("sessionTimeout") || key == QLatin1String("timeout")) {
            const auto d = parseMillis(value);
            if (!d)
                invalid(url, QStringLiteral("option %1=%2 is not a duration from 1ms to 24h such as 500ms, 10s or 1m")
                                 .arg(key, value));
            (key == QLatin1String("timeout") ? options.timeout : options.sessionTimeout) = *d;
        } else if (key == QLatin1String("digest")) {
            const qsizetype colon = value.indexOf(QLatin1Char(':'));
            if (colon <= 0 || colon == value.size() - 1)
                invalid(url, QStringLiteral("option digest must be user:password"));
            options.digest = value;
        } else if (key == QLatin1String("acl")) {
            if (value == QLatin1String("open"))
                acl = Acl::Open;
            else if (value == QLatin1String("creator"))
                acl = Acl::Creator;
            else if (value == QLatin1String("creator-read"))
                acl = Acl::CreatorRead;
            else
                invalid(url, QStringLiteral("option acl=%1 is not one of open, creator, creator-read").arg(value));
        } else if (key == QLatin1String("tls") || key == QLatin1String("ssl") || key == QLatin1String("secure")) {
            invalid(url, QStringLiteral("option %1: TLS is not available: the ZooKeeper C client of this build has no "
                                        "zookeeper_init_ssl (Debian 12's libzookeeper-mt 3.8.0 is built without "
                                        "OpenSSL); tunnel the connection instead (see docs/backend-zookeeper.md)")
                                 .arg(key));
        } else {
            invalid(url, QStringLiteral("unknown option %1 (known: sessionTimeout, timeout, digest, acl)").arg(key));
        }
    }
    if (acl && *acl != Acl::Open && options.digest.isEmpty())
        invalid(url, QStringLiteral("option acl=%1 needs digest credentials").arg(aclName(*acl)));
    options.acl = acl.value_or(options.digest.isEmpty() ? Acl::Open : Acl::Creator);
    return options;
}

/*!
    The URL these options parse from, with the digest password redacted and the options at
    their defaults left out. Reentrant.
*/
QString QSimbaZookeeperLeaseBackend::Options::toRedactedUrl() const
{
    QStringList query;
    if (sessionTimeout != defaults.sessionTimeout)
        query.append(QStringLiteral("sessionTimeout=") + QSimbaDuration::format(sessionTimeout));
    if (timeout != defaults.timeout)
        query.append(QStringLiteral("timeout=") + QSimbaDuration::format(timeout));
    if (!digest.isEmpty())
        query.append(QStringLiteral("digest=") + digest.section(QLatin1Char(':'), 0, 0) + QLatin1Char(':') + QSimbaRedact::Mask);
    if (acl != (digest.isEmpty() ? Acl::Open : Acl::Creator))
        query.append(QStringLiteral("acl=") + aclName(acl));
    QString url = QStringLiteral("zookeeper://") + hosts + basePath;
    if (!query.isEmpty())
        url += QLatin1Char('?') + query.join(QLatin1Char('&'));
    return url;
}
