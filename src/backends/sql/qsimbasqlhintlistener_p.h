// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include "qsimbasqldialect_p.h"
#include "qsimbasqlhints_p.h"

#include <QtCore/QMutex>
#include <QtCore/QThread>

#include <memory>
#include <optional>

/*
 * A PostgreSQL subscription: its own thread with its own QPSQL connection that LISTENs on
 * the prefix's channel and calls the listener from that thread. Reconnects (and LISTENs
 * again) when the connection is lost; hints sent meanwhile are lost, which only slows
 * waiting parties down to polling — unless they wait for something this backend noted
 * (QSimbaSqlInterest): once LISTEN succeeds, first or again, the listener publishes a hint for
 * each of those, since a NOTIFY for it may have come while nobody listened. Destroying it stops the thread at once: it aborts the
 * connection's socket (a probe of a frozen server is also aborted by the watchdog after the
 * statement timeout), so only a connect in progress can delay it, by the connect timeout.
 */
class QSimbaSqlHintListener final : public QThread, public QSimbaLeaseBackend::Subscription
{
public:
    QSimbaSqlHintListener(const QSimbaSqlDialect &dialect, const QString &description,
                          std::shared_ptr<QSimbaSqlInterest> interest, QSimbaLeaseBackend::HintListener listener);
    ~QSimbaSqlHintListener() override;

    //! The NOTIFY payload of \a hint, and back.
    static QString encode(const QSimbaLeaseBackend::Hint &hint);
    static std::optional<QSimbaLeaseBackend::Hint> decode(const QString &payload);

protected:
    void run() override;

private:
    QSimbaSqlDialect m_dialect;
    QString m_description;
    std::shared_ptr<QSimbaSqlInterest> m_interest;
    QSimbaLeaseBackend::HintListener m_listener;
    QMutex m_mutex;       // guards the two below
    int m_socket = -1;    // the open connection's socket, while open
    bool m_stopping = false;
};
