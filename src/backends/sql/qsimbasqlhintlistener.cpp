// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlhintlistener_p.h"

#include "qsimbasessionid.h"
#include "qsimbasqllogging_p.h"
#include "qsimbasqlwatchdog_p.h"

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
}

QSimbaSqlHintListener::QSimbaSqlHintListener(const QSimbaSqlDialect &dialect, const QString &description,
                                             QSimbaLeaseBackend::HintListener listener)
    : m_dialect(dialect), m_description(description), m_listener(std::move(listener))
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
        QObject context; // lives on this thread: notifications are delivered here, directly
        QObject::connect(db.driver(), &QSqlDriver::notification, &context,
                         [this](const QString &, QSqlDriver::NotificationSource, const QVariant &payload) {
                             if (const auto hint = decode(payload.toString()))
                                 m_listener(*hint);
                         });
        const auto setSocket = [&](int fd) {
            QMutexLocker lock(&m_mutex);
            m_socket = fd;
            return !m_stopping;
        };
        const auto closeConnection = [&] {
            setSocket(-1); // before the descriptor is closed
            db.close();
        };
        const auto listen = [&] {
            if (!setSocket(-1))
                return;
            if (!db.open()) {
                qCWarning(lcSimbaSql, "%s: hints: cannot connect: %s", qPrintable(m_description),
                          qPrintable(db.lastError().text()));
                return;
            }
            if (!db.driver()->subscribeToNotification(m_dialect.channel())) {
                qCWarning(lcSimbaSql, "%s: hints: LISTEN failed: %s", qPrintable(m_description),
                          qPrintable(db.driver()->lastError().text()));
                db.close();
                return;
            }
            if (!setSocket(QSimbaSqlWatchdog::socketOf(db)))
                closeConnection();
        };
        // A lost connection shows only when used: probe it, and reconnect.
        QTimer check;
        check.setInterval(CheckIntervalMs);
        QObject::connect(&check, &QTimer::timeout, &context, [&] {
            if (db.isOpen()) {
                const QSimbaSqlWatchdog::Guard guard(db, m_dialect.statementTimeout() + std::chrono::seconds(1));
                if (QSqlQuery(db).exec(QStringLiteral("SELECT 1")))
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
