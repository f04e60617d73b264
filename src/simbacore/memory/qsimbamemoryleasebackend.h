// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaleasebackend.h"
#include "qsimbaticker.h"

#include <functional>
#include <memory>

class QSimbaMemoryStore;

class QSIMBACORE_EXPORT QSimbaMemoryLeaseBackend final : public QSimbaLeaseBackend
{
public:
    explicit QSimbaMemoryLeaseBackend(const QString &storeName = {},
                                      std::shared_ptr<QSimbaTicker> ticker = QSimbaTicker::system());
    ~QSimbaMemoryLeaseBackend() override;

    Capabilities capabilities() const override;
    QString describe() const override;
    SessionGrant openSession(Millis lease, const QMap<QString, QString> &metadata = {}) override;
    KeepAliveResult keepAlive(const QSimbaSessionId &session, Millis lease,
                              const QSet<QSimbaLeaseName> &held) override;
    QHash<QSimbaLeaseName, AcquireResult> acquire(const QSimbaSessionId &session,
                                                 const QSet<QSimbaLeaseName> &names) override;
    void release(const QSimbaSessionId &session, const QHash<QSimbaLeaseName, qint64> &leases) override;
    void closeSession(const QSimbaSessionId &session) override;
    void join(const QSimbaSessionId &session, const QString &group) override;
    void leave(const QSimbaSessionId &session, const QString &group) override;
    QList<QSimbaSessionId> members(const QString &group) override;
    std::unique_ptr<Subscription> subscribe(HintListener listener) override;
    Inspection inspect() override;

    // Fault injection.
    //! The next \a calls SPI calls throw QSimbaBackendError (without touching the store).
    void failNext(int calls);
    //! The next \a calls SPI calls block for \a delay of real time before running.
    void delayNext(int calls, std::chrono::nanoseconds delay);
    //! Every SPI call blocks until resume() (a hung server).
    void pause();
    void resume();
    //! Expires \a session now, as if its lease ran out.
    void expireSession(const QSimbaSessionId &session);
    //! Forgets the lease \a name without telling its holder, as a failover to a lagging
    //! replica would (the token counter is kept).
    void dropLease(const QSimbaLeaseName &name);
    //! Grants at most \a maxLease to openSession and keepAlive, as a server with a lease
    //! cap does (Redis maxLease).
    void setMaxLease(Millis maxLease);
    //! Sessions the store keeps: the live ones (ended ones are forgotten).
    int sessionCount() const;
    //! Drops every hint while \a drop is true.
    void setDropHints(bool drop);
    //! Session ids come from \a generator instead of QSimbaSessionId::generate(): for
    //! reproducible simulations. It must never repeat an id.
    void setSessionIdGenerator(std::function<QSimbaSessionId()> generator);
    //! SPI calls made on this store so far (faulted ones included).
    qint64 callCount() const;

private:
    std::shared_ptr<QSimbaMemoryStore> m_store;
};
