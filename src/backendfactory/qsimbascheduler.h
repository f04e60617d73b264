// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbabackends_export.h"

#include "qsimbaschedule.h"
#include "qsimbaterm.h"

#include <QtCore/QFuture>
#include <QtCore/QObject>

#include <functional>
#include <memory>

class QSimba;
class QSettings;
class QSimbaSchedulerPrivate;

class QSIMBABACKENDS_EXPORT QSimbaScheduler : public QObject
{
    Q_OBJECT
    Q_PROPERTY(bool enabled READ isEnabled WRITE setEnabled NOTIFY enabledChanged)
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    using Work = std::function<void(const QSimbaTerm &term)>;
    using PartitionWork = std::function<void(const QSimbaTerm &term, int partition)>;

    //! A scheduler of \a client, which must outlive it.
    explicit QSimbaScheduler(QSimba *client, QObject *parent = nullptr);
    //! stop(): the schedules end before the client can close.
    ~QSimbaScheduler() override;

    //! Runs \a work on \a context's thread on \a schedule while this client leads \a name.
    //! Throws QSimbaInvalidArgumentError for a bad name; QSimbaIllegalStateError while running.
    void addScheduled(const QString &name, const QSimbaSchedule &schedule, QObject *context, Work work);
    //! Runs \a work for each partition of \a group this client holds, on \a schedule.
    //! Throws QSimbaInvalidArgumentError for a bad group or partitions < 1.
    void addPartitioned(const QString &group, int partitions, const QSimbaSchedule &schedule, QObject *context,
                        PartitionWork work);
    //! Registers every "SimbaScheduled:<slot>" and "SimbaPartitioned:<slot>" class info of
    //! \a object. Throws QSimbaInvalidArgumentError naming the slot and the attribute.
    void addObject(QObject *object);

    //! A schedule from the annotation's attributes: exactly one of \a fixedDelay and
    //! \a fixedRate, \a initialDelay optional (empty strings are absent). Throws
    //! QSimbaInvalidArgumentError naming the attribute and the rule.
    static QSimbaSchedule scheduleOf(const QString &fixedDelay, const QString &fixedRate, const QString &initialDelay);

    //! false: start() runs nothing (settings: simba/scheduling/enabled=false).
    bool isEnabled() const;
    void setEnabled(bool enabled);
    //! Reads the switch with QSimbaSettings::schedulingEnabled().
    void setEnabledFromSettings(const QSettings &settings);
    bool isRunning() const;

    //! Starts every registered schedule (nothing when disabled or already running). A
    //! schedule whose election is already started elsewhere is reported and skipped.
    void start();
    //! Starts on the next turn of the event loop, i.e. once the application is set up.
    void startWhenReady();
    //! Stops every schedule, each in handover order, and waits. Called by the destructor
    //! and on QCoreApplication::aboutToQuit, so before a client on the stack closes.
    void stop();
    //! Requests every schedule to stop and returns at once; the future completes (on this
    //! thread) once each handed over. For a thread that must not block, e.g. a GUI's.
    [[nodiscard]] QFuture<void> stopAsync();

Q_SIGNALS:
    void enabledChanged(bool enabled);
    void runningChanged(bool running);

private:
    Q_DECLARE_PRIVATE(QSimbaScheduler)
    std::unique_ptr<QSimbaSchedulerPrivate> const d_ptr;
};
