// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaconfig.h"
#include "qsimbaelection.h"
#include "qsimbaevent.h"
#include "qsimbalock.h"
#include "qsimbapartitiongroup.h"
#include "qsimbasnapshot.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <functional>
#include <memory>

class QSimbaBackendMetrics;
class QSimbaLeaseBackend;
class QSimbaTicker;
class QSimbaPrivate;

class QSIMBACORE_EXPORT QSimba : public QObject
{
    Q_OBJECT
    Q_PROPERTY(QSimbaConfig config READ config CONSTANT)
    Q_PROPERTY(bool closed READ isClosed NOTIFY closedChanged)

public:
    //! Where callbacks, signals and events run.
    enum class CallbackExecutor {
        OwnerThread,     //!< queued to the thread that owns the QSimba (default)
        DedicatedThread, //!< one "simba-callbacks" thread of the client
        Direct,          //!< on the engine loop itself: for tests and experts; never block there
    };
    Q_ENUM(CallbackExecutor)
    //! Runs a task somewhere; answers false when it rejects the task.
    using Executor = std::function<bool(std::function<void()> task)>;
    using EventListener = std::function<void(const QSimbaEvent &)>;

    class QSIMBACORE_EXPORT Builder
    {
    public:
        Builder();
        Builder(Builder &&) noexcept;
        Builder &operator=(Builder &&) noexcept;
        ~Builder();

        //! Required: where the leases live. The client owns it and uses it on its backend thread.
        Builder &backend(std::unique_ptr<QSimbaLeaseBackend> backend);
        Builder &config(const QSimbaConfig &config);
        //! The monotonic clock of local deadlines (default: the steady clock).
        Builder &ticker(std::shared_ptr<QSimbaTicker> ticker);
        Builder &callbackExecutor(CallbackExecutor executor);
        //! A custom executor: it must run tasks one at a time per call order it accepts.
        Builder &callbackExecutor(Executor executor);
        //! Called for every event, in order, on the callback executor; exceptions are logged.
        Builder &listener(EventListener listener);
        //! Sent with openSession: shown by inspection tools (e.g. "host", "pid").
        Builder &metadata(const QString &key, const QString &value);

        //! Throws QSimbaInvalidArgumentError when no backend was given.
        std::unique_ptr<QSimba> build(QObject *parent = nullptr);

    private:
        friend class QSimba;
        struct Data;
        std::unique_ptr<Data> d;
    };

    static Builder builder();
    //! close() and wait, then stops the client's threads.
    ~QSimba() override;

    QSimbaConfig config() const;
    //! The election of \a name; the same object for the same name. Throws
    //! QSimbaInvalidArgumentError for a bad name, QSimbaIllegalStateError after close.
    QSimbaElection *election(const QString &name);
    //! The lock of \a name; the same object for the same name. Same errors as election().
    QSimbaLock *lock(const QString &name);
    //! The partition group \a name with \a partitions partitions; the same object for the
    //! same name. Throws QSimbaInvalidArgumentError for a bad name, partitions < 1, a
    //! "{name}.{partitions-1}" longer than 128 characters, or another partition count than
    //! the group already has; QSimbaIllegalStateError after close.
    QSimbaPartitionGroup *group(const QString &name, int partitions);
    //! The session and every started election, without calling the backend.
    QSimbaSnapshot snapshot() const;
    //! Latency, errors and hints of this client's backend calls (thread-safe, lock-free).
    std::shared_ptr<const QSimbaBackendMetrics> backendMetrics() const;
    //! Revokes every term (handover order), releases, closes the session; completes after the
    //! last callback ran.
    [[nodiscard]] QFuture<void> closeAsync();
    //! closeAsync() and waits for the session to close — except inside a callback or leader
    //! work, where it starts the close and returns. Callbacks queued for this thread run after.
    void close();
    bool isClosed() const;

Q_SIGNALS:
    void event(const QSimbaEvent &event);
    void closedChanged(bool closed);

protected:
    void connectNotify(const QMetaMethod &signal) override;

private:
    explicit QSimba(Builder &&builder, QObject *parent);
    Q_DECLARE_PRIVATE(QSimba)
    std::unique_ptr<QSimbaPrivate> const d_ptr;
};
