// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbasqlconnection_p.h"

#include <QtCore/QHash>

#include <chrono>
#include <memory>
#include <mutex>

/*
 * The connections of one SQL backend, one per calling thread (a QSqlDatabase connection is
 * used only on the thread that opened it). The first thread that calls the backend (the
 * engine's backend thread) uses the home connection; any other thread that calls it (a
 * caller that runs its own acquire or release, docs/engine.md "Caller runs") gets a
 * connection of its own, opened lazily by its first call like the home one and closed when
 * that thread ends (on that thread), when the backend is destroyed, or when more than
 * MaxCallerConnections other threads have one (the least recently used is closed; its thread
 * reconnects at its next call).
 *
 * Calls come one at a time (the SPI's rule), so a connection is never closed while its
 * thread uses it; the mutexes guard the bookkeeping against a thread ending at any moment.
 */
class QSimbaSqlConnections
{
public:
    using Options = QSimbaSqlConnection::Options;

    //! The most connections kept for threads other than the first one.
    static constexpr int MaxCallerConnections = 4;

    explicit QSimbaSqlConnections(const Options &options);
    ~QSimbaSqlConnections();
    Q_DISABLE_COPY_MOVE(QSimbaSqlConnections)

    //! The first calling thread's connection (its options and description are everyone's).
    QSimbaSqlConnection &home() { return m_home; }
    const QSimbaSqlConnection &home() const { return m_home; }
    //! The calling thread's connection, created (not opened) on its first use.
    QSimbaSqlConnection &current();

    //! The longest one call can take on any thread's connection by the backend's own bounds:
    //! a kept connection found lost (at most statementTimeout + CallSlack), then connecting
    //! and the call once more.
    std::chrono::milliseconds callBound() const;

    struct Slot;

private:
    QSimbaSqlConnection m_home;
    std::mutex m_mutex;
    quint64 m_homeThread = 0;                          // guarded by m_mutex
    quint64 m_uses = 0;                                // guarded by m_mutex
    QHash<quint64, std::shared_ptr<Slot>> m_others;   // guarded by m_mutex
};
