// SPDX-License-Identifier: Apache-2.0
#include "qsimbabackendfactory.h"
#include "qsimbabackendfactorylogging_p.h"

#include "qsimbaerror.h"
#include "qsimbamemoryleasebackend.h"
#include "qsimbaredact.h"

#include <QtCore/QDir>
#include <QtCore/QRegularExpression>
#include <QtCore/QStandardPaths>
#include <QtCore/QUrlQuery>

#ifdef QSIMBA_HAVE_SQL
#include "qsimbasqlleasebackend.h"
#endif
#ifdef QSIMBA_HAVE_REDIS
#include "qsimbaredisleasebackend.h"
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
#include "qsimbazookeeperleasebackend.h"
#endif
#ifdef QSIMBA_HAVE_ETCD
#include "qsimbaetcdleasebackend.h"
#endif

#include <optional>

/*!
    \class QSimbaBackendFactory
    \brief Builds a backend from a URL: sqlite:///path.db, postgresql://…, mysql://…, redis://…,
    zookeeper://…, etcd://… (etcds://…), memory://name, with each backend's options as query
    parameters. Only the backends of this build are available (schemes()). Static functions;
    reentrant.
*/

namespace {

// A backend's builder from a parsed URL; \a shown is the URL for messages.
using FromUrl = std::unique_ptr<QSimbaLeaseBackend> (*)(const QUrl &url, const QString &shown);
// A builder from the URL's text, for schemes whose URLs QUrl cannot hold (several hosts).
using FromText = std::unique_ptr<QSimbaLeaseBackend> (*)(const QString &text);

struct Scheme
{
    QLatin1String name;
    QLatin1String component; // the CMake component / QSIMBA_BACKENDS entry
    FromUrl fromUrl;         // nullptr: the backend is not part of this build
    FromText fromText = nullptr;
    bool built() const { return fromUrl != nullptr; }
};

[[noreturn]] void invalid(const QString &url, const QString &why)
{
    throw QSimbaInvalidArgumentError(
        url.isEmpty() ? QStringLiteral("invalid backend URL: %1").arg(why)
                      : QStringLiteral("invalid backend URL %1: %2").arg(QSimbaBackendFactory::redacted(url), why));
}

// The scheme of a URL given as text ("redis" of "redis://h"), before QUrl normalizes it.
QString schemeOf(const QString &text)
{
    static const QRegularExpression re(QStringLiteral("^([A-Za-z][A-Za-z0-9+.-]*):"));
    const auto m = re.match(text);
    return m.hasMatch() ? m.captured(1).toLower() : QString();
}

void checkBuilt(const QString &shown, const Scheme &s)
{
    if (!s.built())
        invalid(shown, QStringLiteral("the %1 backend is not part of this build: configure QSimba with "
                                      "-DQSIMBA_BACKENDS=…;%1 (available schemes: %2)")
                           .arg(s.component, QSimbaBackendFactory::schemes().join(QLatin1String(", "))));
}

// A backend's own error may quote the URL: pass it on, with any password redacted.
template<typename F>
std::unique_ptr<QSimbaLeaseBackend> delegate(F &&make)
{
    try {
        return make();
    } catch (const QSimbaInvalidArgumentError &e) {
        throw QSimbaInvalidArgumentError(QSimbaBackendFactory::redacted(e.message()));
    }
}

std::unique_ptr<QSimbaLeaseBackend> createMemory(const QUrl &url, const QString &shown)
{
    if (!url.userInfo().isEmpty() || url.port() != -1)
        invalid(shown, QStringLiteral("a memory URL has no user, password or port: memory://name"));
    if (!url.path().isEmpty() && url.path() != QLatin1String("/"))
        invalid(shown, QStringLiteral("a memory URL has no path: memory://name"));
    if (url.hasFragment())
        invalid(shown, QStringLiteral("a memory URL has no fragment: memory://name"));
    const auto items = QUrlQuery(url).queryItems(QUrl::FullyDecoded);
    if (!items.isEmpty())
        invalid(shown, QStringLiteral("unknown option '%1': a memory URL takes no options").arg(items.first().first));
    if (url.host().isEmpty())
        qCDebug(lcSimbaBackendFactory) << "memory:// without a name: a private store";
    return std::make_unique<QSimbaMemoryLeaseBackend>(url.host());
}

#ifdef QSIMBA_HAVE_SQL
std::unique_ptr<QSimbaLeaseBackend> createSql(const QUrl &url, const QString &)
{
    // The SQL backend checks that its Qt SQL driver is installed (naming the package).
    return QSimbaSqlLeaseBackend::fromUrl(url);
}
#else
constexpr FromUrl createSql = nullptr;
#endif
#ifdef QSIMBA_HAVE_REDIS
std::unique_ptr<QSimbaLeaseBackend> createRedis(const QUrl &url, const QString &)
{
    return QSimbaRedisLeaseBackend::fromUrl(url);
}
#else
constexpr FromUrl createRedis = nullptr;
#endif
#ifdef QSIMBA_HAVE_ZOOKEEPER
std::unique_ptr<QSimbaLeaseBackend> createZookeeper(const QUrl &url, const QString &)
{
    return QSimbaZookeeperLeaseBackend::fromUrl(url);
}
std::unique_ptr<QSimbaLeaseBackend> createZookeeperFromText(const QString &text)
{
    return QSimbaZookeeperLeaseBackend::fromUrl(text);
}
#else
constexpr FromUrl createZookeeper = nullptr;
constexpr FromText createZookeeperFromText = nullptr;
#endif
#ifdef QSIMBA_HAVE_ETCD
std::unique_ptr<QSimbaLeaseBackend> createEtcd(const QUrl &url, const QString &)
{
    return QSimbaEtcdLeaseBackend::fromUrl(url);
}
std::unique_ptr<QSimbaLeaseBackend> createEtcdFromText(const QString &text)
{
    return QSimbaEtcdLeaseBackend::fromUrl(text); // several endpoints exist only as text
}
#else
constexpr FromUrl createEtcd = nullptr;
constexpr FromText createEtcdFromText = nullptr;
#endif

// Every scheme of every backend, built or not (so that a missing one is named): a new
// backend adds its rows here.
const Scheme schemeTable[] = {
    {QLatin1String("memory"), QLatin1String("core"), createMemory},
    {QLatin1String("sqlite"), QLatin1String("sql"), createSql},
    {QLatin1String("postgresql"), QLatin1String("sql"), createSql},
    {QLatin1String("postgres"), QLatin1String("sql"), createSql},
    {QLatin1String("mysql"), QLatin1String("sql"), createSql},
    {QLatin1String("mariadb"), QLatin1String("sql"), createSql},
    {QLatin1String("redis"), QLatin1String("redis"), createRedis},
    {QLatin1String("zookeeper"), QLatin1String("zookeeper"), createZookeeper, createZookeeperFromText},
    {QLatin1String("etcd"), QLatin1String("etcd"), createEtcd, createEtcdFromText},
    {QLatin1String("etcds"), QLatin1String("etcd"), createEtcd, createEtcdFromText},
};

const Scheme *findScheme(const QString &scheme)
{
    for (const auto &s : schemeTable) {
        if (scheme.compare(s.name, Qt::CaseInsensitive) == 0)
            return &s;
    }
    return nullptr;
}

} // namespace

/*!
    Builds the backend of \a url without connecting. Schemes: \c sqlite, \c postgresql
    (\c postgres), \c mysql (\c mariadb), \c redis, \c zookeeper, \c etcd (\c etcds),
    \c memory; the query carries the backend's options. Throws QSimbaInvalidArgumentError naming the problem: a
    malformed URL, an unknown scheme or option, a backend missing from this build, a Qt SQL
    driver that is not installed. Passwords never appear in messages. Any thread.
*/
std::unique_ptr<QSimbaLeaseBackend> QSimbaBackendFactory::create(const QUrl &url)
{
    const QString shown = url.toString();
    if (url.isEmpty())
        invalid({}, QStringLiteral("the URL is empty; expected one of %1://…").arg(schemes().join(QLatin1String("://…, "))));
    if (!url.isValid()) {
        QString error = url.errorString();
        const qsizetype cut = error.indexOf(QLatin1String("; source was"));
        if (cut >= 0)
            error.truncate(cut);
        invalid(shown, QStringLiteral("malformed URL: %1").arg(error));
    }
    const QString scheme = url.scheme().toLower();
    if (scheme.isEmpty())
        invalid(shown, QStringLiteral("no scheme; expected one of %1").arg(schemes().join(QLatin1String(", "))));
    const Scheme *s = findScheme(scheme);
    if (!s)
        invalid(shown, QStringLiteral("unknown scheme '%1'; this build knows %2")
                           .arg(url.scheme(), schemes().join(QLatin1String(", "))));
    checkBuilt(shown, *s);
    qCDebug(lcSimbaBackendFactory) << "creating a backend for" << redacted(shown);
    return delegate([&] { return s->fromUrl(url, shown); });
}

/*!
    Builds the backend of the URL \a url given as text; an empty (or blank) \a url means
    defaultUrl(). A ZooKeeper or etcd URL with several hosts
    (\c{zookeeper://h1:2181,h2:2181/simba}, \c{etcd://h1:2379,h2:2379/simba}) only exists in
    this form. Throws as create(const QUrl &).
*/
std::unique_ptr<QSimbaLeaseBackend> QSimbaBackendFactory::create(const QString &url)
{
    const QString text = url.trimmed();
    if (text.isEmpty())
        return create(defaultUrl());
    const QString scheme = schemeOf(text);
    if (scheme.isEmpty() || !text.mid(scheme.size()).startsWith(QLatin1String("://")))
        invalid(text, QStringLiteral("malformed URL: expected scheme://…, one of %1")
                          .arg(schemes().join(QLatin1String(", "))));
    if (const Scheme *s = findScheme(scheme); s && s->fromText)
        return delegate([&] { return s->fromText(text); });
    return create(QUrl(text, QUrl::StrictMode));
}

/*!
    The embedded default: an SQLite file \c{qsimba/simba.db} under
    QStandardPaths::GenericDataLocation (e.g. \c{~/.local/share/qsimba/simba.db}), shared by
    the processes of one user on one host. Creates the directory; throws
    QSimbaInvalidArgumentError when it cannot.
*/
QUrl QSimbaBackendFactory::defaultUrl()
{
    const QString base = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation);
    if (base.isEmpty())
        throw QSimbaInvalidArgumentError(QStringLiteral("no default backend: the system names no data directory "
                                                        "(QStandardPaths::GenericDataLocation); give a backend URL"));
    const QString dir = base + QLatin1String("/qsimba");
    if (!QDir().mkpath(dir))
        throw QSimbaInvalidArgumentError(
            QStringLiteral("no default backend: cannot create the directory %1; give a backend URL").arg(dir));
    QUrl url(QStringLiteral("sqlite://"));
    url.setPath(dir + QLatin1String("/simba.db"));
    return url;
}

/*!
    The URL schemes this build can create, in a fixed order: always \c memory; \c sqlite,
    \c postgresql, \c postgres, \c mysql, \c mariadb with the SQL backend; \c redis,
    \c zookeeper, \c etcd and \c etcds with theirs.
*/
QStringList QSimbaBackendFactory::schemes()
{
    QStringList out;
    for (const auto &s : schemeTable) {
        if (s.built())
            out << QString(s.name);
    }
    return out;
}

/*!
    \a url (or any text quoting URLs) with passwords replaced by \c{***}: the password of
    \c{scheme://user:password@host} (also one with '/', '@', '#' or %-escapes) and the
    secret of a \c{digest=user:password}; see QSimbaRedact::text(), which every backend uses.
*/
QString QSimbaBackendFactory::redacted(const QString &url)
{
    return QSimbaRedact::text(url);
}
