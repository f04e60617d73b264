// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlhints_p.h"

#include "qsimbasessionid.h"
#include "qsimbasqlhintlistener_p.h"
#include "qsimbasqllogging_p.h"
#include "qsimbasqlwatchdog_p.h"

#include <QtCore/QFileInfo>
#include <QtCore/QFileSystemWatcher>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/*!
    \class QSimbaSqlHintWatcher
    \internal
    \brief SQLite hints: a side file appended by the releasing process and watched by the
    waiting ones (see qsimbasqlhints_p.h).
*/

using namespace std::chrono;
using Hint = QSimbaLeaseBackend::Hint;

QString QSimbaSqlHints::sideFile(const QSimbaSqlLeaseBackend::Options &options)
{
    return options.database + QLatin1Char('-') + options.tablePrefix + QStringLiteral("hints");
}

void QSimbaSqlHints::append(const QString &path, const QList<Hint> &hints)
{
    if (hints.isEmpty())
        return;
    QByteArray lines;
    for (const Hint &hint : hints)
        lines += QSimbaSqlHintListener::encode(hint).toUtf8() + '\n';
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) {
        qCDebug(lcSimbaSql, "hints: cannot open %s: %s", native.constData(), strerror(errno));
        return;
    }
    struct stat st{};
    if (::fstat(fd, &st) == 0 && st.st_size > HintFileLimit && ::ftruncate(fd, 0) != 0)
        qCDebug(lcSimbaSql, "hints: cannot truncate %s: %s", native.constData(), strerror(errno));
    // One write with O_APPEND: lines of concurrent writers do not interleave.
    if (::write(fd, lines.constData(), size_t(lines.size())) != lines.size())
        qCDebug(lcSimbaSql, "hints: cannot write %s: %s", native.constData(), strerror(errno));
    ::close(fd);
}

// ---- QSimbaSqlInterest

void QSimbaSqlInterest::waitFor(const QString &name, const QString &holder, qint64 token, milliseconds remaining)
{
    QMutexLocker lock(&m_mutex);
    m_names[name] = {{holder, token}, QSimbaSqlHints::Clock::now() + std::max(remaining, 0ms) + QSimbaSqlHints::InterestSlack};
    m_changed.wakeAll();
}

void QSimbaSqlInterest::granted(const QString &name)
{
    QMutexLocker lock(&m_mutex);
    m_names.erase(name);
}

void QSimbaSqlInterest::joined(const QString &session, const QString &group)
{
    QMutexLocker lock(&m_mutex);
    m_groups[group].insert(session);
    m_changed.wakeAll();
}

void QSimbaSqlInterest::left(const QString &session, const QString &group)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_groups.find(group);
    if (it != m_groups.end() && it->second.erase(session) && it->second.empty())
        m_groups.erase(it);
}

void QSimbaSqlInterest::ended(const QString &session)
{
    QMutexLocker lock(&m_mutex);
    for (auto it = m_groups.begin(); it != m_groups.end();) {
        it->second.erase(session);
        it = it->second.empty() ? m_groups.erase(it) : std::next(it);
    }
}

bool QSimbaSqlInterest::next(QStringList *names, QStringList *groups, milliseconds pause,
                             const std::atomic<bool> &stop)
{
    QMutexLocker lock(&m_mutex);
    if (!stop && pause > 0ms)
        m_changed.wait(&m_mutex, QDeadlineTimer(pause.count(), Qt::PreciseTimer));
    for (;;) {
        if (stop)
            return false;
        const auto now = QSimbaSqlHints::Clock::now();
        names->clear();
        groups->clear();
        for (auto it = m_names.begin(); it != m_names.end();) {
            if (it->second.until <= now) {
                it = m_names.erase(it);
            } else {
                names->append(it->first);
                ++it;
            }
        }
        for (const auto &[group, sessions] : m_groups)
            groups->append(group);
        if (!names->isEmpty() || !groups->isEmpty())
            return true;
        m_changed.wait(&m_mutex); // nothing is waited for: read nothing
    }
}

QList<QSimbaLeaseBackend::Hint> QSimbaSqlInterest::catchUp()
{
    using Kind = QSimbaLeaseBackend::Hint::Kind;
    QMutexLocker lock(&m_mutex);
    QList<QSimbaLeaseBackend::Hint> hints;
    const auto now = QSimbaSqlHints::Clock::now();
    for (const auto &[name, waited] : m_names) {
        if (waited.until > now)
            hints.append({Kind::Released, name});
    }
    for (const auto &[group, sessions] : m_groups)
        hints.append({Kind::MembersChanged, group});
    return hints;
}

bool QSimbaSqlInterest::observe(const QString &name, const Seen &seen)
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_names.find(name);
    if (it == m_names.end() || (it->second.seen.holder == seen.holder && it->second.seen.token == seen.token))
        return false;
    it->second.seen = seen;
    return true;
}

void QSimbaSqlInterest::wake()
{
    QMutexLocker lock(&m_mutex);
    m_changed.wakeAll();
}

// ---- QSimbaSqlHintWatcher

QSimbaSqlHintWatcher::QSimbaSqlHintWatcher(const QString &path, QSimbaLeaseBackend::HintListener listener)
    : m_path(QFileInfo(path).absoluteFilePath()), m_listener(std::move(listener))
{
    setObjectName(QStringLiteral("simba-sql-hints"));
    // Lines appended after this returns are seen: the starting offset is taken here.
    struct stat st{};
    if (::stat(QFile::encodeName(m_path).constData(), &st) == 0) {
        m_inode = st.st_ino;
        m_offset = st.st_size;
    }
    start();
}

QSimbaSqlHintWatcher::~QSimbaSqlHintWatcher()
{
    quit();
    wait();
}

// Reads the lines appended since the last read and publishes them.
void QSimbaSqlHintWatcher::readNew()
{
    const QByteArray native = QFile::encodeName(m_path);
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; // deleted: a writer creates it again
    struct stat st{};
    if (::fstat(fd, &st) != 0) {
        ::close(fd);
        return;
    }
    if (st.st_ino != m_inode || st.st_size < m_offset) {
        m_inode = st.st_ino; // a new file, or truncated: its lines are all new
        m_offset = 0;
    }
    QByteArray data;
    if (st.st_size > m_offset) {
        data.resize(st.st_size - m_offset);
        const ssize_t n = ::pread(fd, data.data(), size_t(data.size()), m_offset);
        data.resize(std::max<ssize_t>(0, n));
    }
    ::close(fd);
    const qsizetype end = data.lastIndexOf('\n');
    if (end < 0)
        return; // no complete line yet
    m_offset += end + 1;
    for (const QByteArray &line : data.left(end).split('\n'))
        if (const auto hint = QSimbaSqlHintListener::decode(QString::fromUtf8(line)))
            m_listener(*hint);
}

void QSimbaSqlHintWatcher::run()
{
    QFileSystemWatcher watcher;
    const QString directory = QFileInfo(m_path).absolutePath();
    // The directory: the file's creation (again, after a deletion). The file: its appends.
    const auto watch = [&] {
        if (!watcher.files().contains(m_path) && QFileInfo::exists(m_path))
            watcher.addPath(m_path);
    };
    const auto changed = [&] {
        watch();
        readNew();
    };
    QObject::connect(&watcher, &QFileSystemWatcher::fileChanged, &watcher, changed);
    QObject::connect(&watcher, &QFileSystemWatcher::directoryChanged, &watcher, changed);
    if (!watcher.addPath(directory))
        qCWarning(lcSimbaSql, "hints: cannot watch %s: release hints are off", qPrintable(directory));
    watch();
    readNew(); // appended between the constructor and the watch
    exec();
}

// ---- QSimbaSqlHintPoller

QSimbaSqlHintPoller::QSimbaSqlHintPoller(const QSimbaSqlDialect &dialect, const QString &description,
                                         std::shared_ptr<QSimbaSqlInterest> interest,
                                         QSimbaLeaseBackend::HintListener listener)
    : m_dialect(dialect), m_description(description), m_interest(std::move(interest)), m_listener(std::move(listener))
{
    setObjectName(QStringLiteral("simba-sql-hints"));
    start();
}

QSimbaSqlHintPoller::~QSimbaSqlHintPoller()
{
    m_stop = true;
    m_interest->wake();
    if (wait(QDeadlineTimer(100)))
        return;
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        if (m_socket >= 0)
            ::shutdown(m_socket, SHUT_RDWR); // ends a read blocked on a frozen server
    }
    wait();
}

void QSimbaSqlHintPoller::run()
{
    const QString connection = QStringLiteral("qsimba-sql-poll-") + QSimbaSessionId::generate().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QSimbaSqlDialect::driverName(m_dialect.driver()), connection);
        m_dialect.configure(db);
        // Prepared on the open connection, by the number of names or groups they read.
        std::map<qsizetype, std::unique_ptr<QSqlQuery>> reads, groupReads;
        std::map<QString, std::pair<qint64, qint64>> signatures; // group → (members, checksum)
        const auto setSocket = [&](int fd) {
            QMutexLocker lock(&m_mutex);
            m_socket = fd;
            return !m_stopping;
        };
        const auto closeConnection = [&] {
            reads.clear();
            groupReads.clear();
            setSocket(-1); // before the descriptor is closed
            db.close();
        };
        const auto bound = m_dialect.statementBound();
        const auto run = [&](QSqlQuery &query, const QStringList &binds) {
            for (qsizetype i = 0; i < binds.size(); ++i)
                query.bindValue(int(i), binds.at(i));
            const QSimbaSqlWatchdog::Guard guard(db, bound);
            return query.exec();
        };
        bool failing = false;
        int polls = 0;
        milliseconds pause = 0ms;
        QStringList names, groups;
        while (m_interest->next(&names, &groups, pause, m_stop)) {
            pause = m_dialect.hintInterval();
            QString error;
            if (!db.isOpen()) {
                if (!QSimbaSqlWatchdog::open(db, m_dialect.statementBound()))
                    error = db.lastError().text();
                else if (!setSocket(QSimbaSqlWatchdog::socketOf(db)))
                    break; // being destroyed
            }
            for (qsizetype from = 0; error.isEmpty() && from < names.size(); from += QSimbaLeaseBackend::MaxBatch) {
                const QStringList chunk = names.mid(from, QSimbaLeaseBackend::MaxBatch);
                auto &read = reads[chunk.size()];
                if (!read) {
                    read = std::make_unique<QSqlQuery>(db);
                    if (!read->prepare(QStringLiteral("SELECT name, holder, token FROM %1 WHERE name IN (%2)")
                                           .arg(m_dialect.leases(), QSimbaSqlDialect::placeholders(int(chunk.size()))))) {
                        error = read->lastError().text();
                        break;
                    }
                }
                if (!run(*read, chunk)) {
                    error = read->lastError().text();
                    break;
                }
                while (read->next()) {
                    const QString name = read->value(0).toString();
                    if (m_interest->observe(name, {read->value(1).toString(), read->value(2).toLongLong()}))
                        m_listener({QSimbaLeaseBackend::Hint::Kind::Released, name});
                }
                read->finish();
            }
            if (error.isEmpty() && !groups.isEmpty() && polls++ % QSimbaSqlHints::GroupPollEvery == 0) {
                // Who is in each group, as a count and a checksum: a join, a leave or a swap changes it.
                auto &slot = groupReads[groups.size()];
                if (!slot) {
                    slot = std::make_unique<QSqlQuery>(db);
                    if (!slot->prepare(QStringLiteral("SELECT grp, COUNT(*), BIT_XOR(CRC32(session)) FROM %1 "
                                                      "WHERE grp IN (%2) GROUP BY grp")
                                           .arg(m_dialect.members(), QSimbaSqlDialect::placeholders(int(groups.size())))))
                        error = slot->lastError().text();
                }
                QSqlQuery &query = *slot;
                if (!error.isEmpty() || !run(query, groups)) {
                    if (error.isEmpty())
                        error = query.lastError().text();
                    slot.reset();
                } else {
                    std::map<QString, std::pair<qint64, qint64>> now;
                    for (const QString &group : groups)
                        now[group] = {0, 0};
                    while (query.next())
                        now[query.value(0).toString()] = {query.value(1).toLongLong(), query.value(2).toLongLong()};
                    query.finish();
                    for (const auto &[group, signature] : now) {
                        const auto seen = signatures.find(group);
                        if (seen != signatures.end() && seen->second != signature)
                            m_listener({QSimbaLeaseBackend::Hint::Kind::MembersChanged, group});
                    }
                    signatures = std::move(now);
                }
            }
            if (!error.isEmpty()) {
                if (!std::exchange(failing, true))
                    qCWarning(lcSimbaSql, "%s: hints: cannot read the waited rows (waiting clients fall back to "
                                          "polling): %s",
                              qPrintable(m_description), qPrintable(error));
                closeConnection();
                pause = std::chrono::seconds(1);
            } else if (std::exchange(failing, false)) {
                qCInfo(lcSimbaSql, "%s: hints: reading the waited rows again", qPrintable(m_description));
            }
        }
        closeConnection();
    }
    QSqlDatabase::removeDatabase(connection);
}
