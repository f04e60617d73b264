// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlhintlistener_p.h"

#include "qsimbasessionid.h"
#include "qsimbasqllogging_p.h"
#include "qsimbasqlwatchdog_p.h"

#include <QtCore/QSocketNotifier>
#include <QtCore/QTimer>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlDriver>
#include <QtSql/QSqlError>
#include <QtSql/QSqlQuery>

#include <sys/socket.h>

/*!
    \class QSimbaSqlHintListener
    \internal
    \brief PostgreSQL LISTEN on a thread of its own, turning NOTIFY payloads into hints.

    Created on any thread; the listener runs on the subscription's thread and must not
    block. The destructor blocks until the thread has closed its connection.
*/

namespace {
constexpr int CheckIntervalMs = 1000;

// libpq's notification calls, from the library the Qt driver plugin loaded (this library
// does not link libpq). PgNotify is libpq-fe.h's PGnotify, whose layout libpq keeps stable.
struct PgNotify
{
    char *relname;
    int bePid;
    char *extra;
    PgNotify *next;
};
struct LibPq
{
    int (*consumeInput)(void *) = nullptr;
    PgNotify *(*notifies)(void *) = nullptr;
    void (*freemem)(void *) = nullptr;

    static const LibPq &get()
    {
        static const LibPq pq = [] {
            const auto fn = [](const char *name) { return QSimbaSqlWatchdog::clientSymbol("libpq.so.5", name); };
            LibPq p;
            p.consumeInput = reinterpret_cast<int (*)(void *)>(fn("PQconsumeInput"));
            p.notifies = reinterpret_cast<PgNotify *(*)(void *)>(fn("PQnotifies"));
            p.freemem = reinterpret_cast<void (*)(void *)>(fn("PQfreemem"));
            return p;
        }();
        return pq;
    }
    bool isLoaded() const { return consumeInput && notifies && freemem; }
};
} // namespace

QSimbaSqlHintListener::QSimbaSqlHintListener(const QSimbaSqlDialect &dialect, const QString &description,
                                             std::shared_ptr<QSimbaSqlInterest> interest,
                                             QSimbaLeaseBackend::HintListener listener)
    : m_dialect(dialect), m_description(description), m_interest(std::move(interest)), m_listener(std::move(listener))
{
    setObjectName(QStringLiteral("simba-sql-hints"));
    start();
}

QSimbaSqlHintListener::~QSimbaSqlHintListener()
{
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        if (m_socket >= 0)
            ::shutdown(m_socket, SHUT_RDWR); // wakes a probe blocked on a frozen server
    }
    quit();
    wait();
}

QString QSimbaSqlHintListener::encode(const QSimbaLeaseBackend::Hint &hint)
{
    return (hint.kind == QSimbaLeaseBackend::Hint::Kind::Released ? QStringLiteral("R:") : QStringLiteral("M:"))
           + hint.name;
}

std::optional<QSimbaLeaseBackend::Hint> QSimbaSqlHintListener::decode(const QString &payload)
{
    using Kind = QSimbaLeaseBackend::Hint::Kind;
    if (payload.startsWith(QLatin1String("R:")))
        return QSimbaLeaseBackend::Hint{Kind::Released, payload.mid(2)};
    if (payload.startsWith(QLatin1String("M:")))
        return QSimbaLeaseBackend::Hint{Kind::MembersChanged, payload.mid(2)};
    return std::nullopt;
}

void QSimbaSqlHintListener::run()
{
    const QString connection = QStringLiteral("qsimba-sql-hints-") + QSimbaSessionId::generate().toString();
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QSimbaSqlDialect::driverName(m_dialect.driver()), connection);
        m_dialect.configure(db);
        QObject context; // lives on this thread: notifications are read here
        /*
         * The LISTEN connection's socket is watched by a QSocketNotifier of ours, not by the
         * driver's subscribeToNotification(): when the server ends the connection (or the
         * destructor shuts the socket down), libpq closes the socket as it reads the end, and
         * the driver's notifier, which nothing here can reach, stayed registered on the
         * closed descriptor: the event loop printed "QSocketNotifier: Invalid socket" at its
         * next poll. Ours is disabled right after the read that found the end.
         */
        std::unique_ptr<QSocketNotifier> notifier;
                const auto setSocket = [&](int fd) {
            QMutexLocker lock(&m_mutex);
            m_socket = fd;
            return !m_stopping;
        };
        const auto closeConnection = [&] {
            notifier.reset(); // before the descriptor is closed
            setSocket(-1);
            db.close();
        };
        // Hands every notification libpq has read to the listener; false once the connection is gone.
        const auto drain = [&](bool read) {
            const LibPq &pq = LibPq::get();
            void *conn = QSimbaSqlWatchdog::connectionOf(db);
            if (!conn || !pq.isLoaded())
                return false;
            const bool alive = !read || pq.consumeInput(conn) != 0;
            while (PgNotify *n = pq.notifies(conn)) {
                if (const auto hint = decode(QString::fromUtf8(n->extra)))
                    m_listener(*hint);
                pq.freemem(n);
            }
            return alive && QSimbaSqlWatchdog::socketOf(db) >= 0;
        };
        const auto listen = [&] {
            if (!setSocket(-1))
                return;
            if (!QSimbaSqlWatchdog::open(db, m_dialect.statementBound())) {
                qCWarning(lcSimbaSql, "%s: hints: cannot connect: %s", qPrintable(m_description),
                          qPrintable(db.lastError().text()));
                return;
            }
            // The socket is the destructor's to shut down from here on, and LISTEN has the
            // probe's bound: a server that stops answering must not hold this thread.
            const int fd = QSimbaSqlWatchdog::socketOf(db);
            if (!setSocket(fd)) {
                closeConnection();
                return;
            }
            QSqlQuery subscribe(db);
            bool listening = false;
            if (LibPq::get().isLoaded() && fd >= 0) {
                const QSimbaSqlWatchdog::Guard guard(db, m_dialect.statementBound());
                listening = subscribe.exec(QStringLiteral("LISTEN ")
                                           + db.driver()->escapeIdentifier(m_dialect.channel(), QSqlDriver::TableName));
            }
            if (!listening) {
                qCWarning(lcSimbaSql, "%s: hints: LISTEN failed: %s", qPrintable(m_description),
                          qPrintable(LibPq::get().isLoaded() ? subscribe.lastError().text()
                                                              : QStringLiteral("libpq's notification calls not found")));
                closeConnection();
                return;
            }
            // Listening from now on: what was released before (while this connection was
            // being made, or down) may have been notified to nobody.
            for (const auto &hint : m_interest->catchUp())
                m_listener(hint);
            notifier = std::make_unique<QSocketNotifier>(fd, QSocketNotifier::Read);
            QObject::connect(notifier.get(), &QSocketNotifier::activated, &context, [&] {
                if (drain(true))
                    return;
                // Not deleted here (it is delivering this signal): disabled before the loop
                // polls again, the connection closed next; the check reconnects.
                notifier->setEnabled(false);
                QMetaObject::invokeMethod(&context, [&] {
                    if (notifier && !notifier->isEnabled())
                        closeConnection();
                }, Qt::QueuedConnection);
            });
        };
        // A lost connection shows only when used: probe it, and reconnect.
        QTimer check;
        check.setInterval(CheckIntervalMs);
        QObject::connect(&check, &QTimer::timeout, &context, [&] {
            if (db.isOpen()) {
                const QSimbaSqlWatchdog::Guard guard(db, m_dialect.statementBound());
                const bool alive = QSqlQuery(db).exec(QStringLiteral("SELECT 1"));
                // Notifications that came with the probe's answer were read by it: hand them on.
                if (drain(false) && alive)
                    return;
            }
            closeConnection();
            listen();
        });
        listen();
        check.start();
        exec();
        check.stop();
        closeConnection();
    }
    QSqlDatabase::removeDatabase(connection);
}
