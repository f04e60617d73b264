// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QtGlobal>

#include <chrono>

class QSqlDatabase;
class QSqlDriver;

/*
 * The client-side bound of a statement on a server database. QSqlDatabase calls block in
 * the client library (libpq's PQexec, MariaDB Connector/C's reads) and offer no cancel, and
 * neither libpq nor the server's timeouts fire when the server process is frozen or a proxy
 * keeps the TCP session open while the database is unreachable. A Guard armed around a
 * statement shuts the connection's socket down (shutdown(2), both ways) when its deadline
 * passes: the blocked call returns at once with a connection error, and the connection is
 * then closed and reopened by the next call.
 *
 * One process-wide thread ("simba-sql-watch") serves every guard; arming one wakes it only
 * when its next wake-up is later than the new deadline (while guards keep coming it wakes
 * at least once a second, so a statement's guard normally costs no context switch).
 * Thread-safe. The socket is only shut down,
 * never closed, and only while its guard is armed: the guard is disarmed (under the
 * watchdog's mutex) before the connection can close the descriptor.
 */
namespace QSimbaSqlWatchdog {
class Guard
{
public:
    //! Arms a deadline \a timeout from now for the socket of \a db (a QPSQL or QMYSQL
    //! connection that is open); does nothing for other drivers or a closed connection.
    Guard(const QSqlDatabase &db, std::chrono::milliseconds timeout);
    ~Guard();
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;

    //! True when the deadline passed and the socket was shut down.
    bool fired() const;

private:
    friend bool open(QSqlDatabase &db, std::chrono::milliseconds setup);
    Guard() = default;

    quint64 m_id = 0;
};

//! QSqlDatabase::open(), its setup bounded by \a setup. The client library bounds its
//! connect, but then QPSQL runs statements of its own (the server's version, the encoding,
//! the date style, bytea output) that nothing bounded: a server frozen right after accepting
//! the connection held open() — and a close waiting for it — forever. \a setup after the
//! driver has connected, the connection's socket is shut down: those statements fail at
//! once, and the first statement of ours finds the connection lost.
bool open(QSqlDatabase &db, std::chrono::milliseconds setup);

//! The socket descriptor of the open QPSQL or QMYSQL connection \a db, or -1.
int socketOf(const QSqlDatabase &db);
//! The client library's connection (PGconn * or MYSQL *) of the open connection \a db, or null.
void *connectionOf(const QSqlDatabase &db);
//! \a symbol of the client library \a library the Qt driver plugin already loaded (this
//! library never loads nor links it), or null.
void *clientSymbol(const char *library, const char *symbol);
} // namespace QSimbaSqlWatchdog
