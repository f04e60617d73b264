// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include "qsimbaquickelement.h"
#include "qsimbaquickterm.h"

#include "qsimbaschedule.h"

#include <QtCore/QPointer>
#include <QtCore/QVariant>

#include <memory>

class QSimbaElection;
class QSimbaEvent;
class QSimbaScheduler;

/*
 * The timing both schedule elements share (@SimbaScheduled / @SimbaPartitioned): exactly
 * one of fixedDelay and fixedRate, initialDelay, enabled. Runs on a QSimbaScheduler, so a
 * handler runs only while this client holds the term, never after it ended, and the
 * handover waits for a handler in progress.
 */
class QSimbaQuickScheduleBase : public QSimbaQuickElement
{
    Q_OBJECT
    QML_ANONYMOUS
    Q_PROPERTY(QVariant fixedDelay READ fixedDelay WRITE setFixedDelay NOTIFY timingChanged)
    Q_PROPERTY(QVariant fixedRate READ fixedRate WRITE setFixedRate NOTIFY timingChanged)
    Q_PROPERTY(QVariant initialDelay READ initialDelay WRITE setInitialDelay NOTIFY timingChanged)
    Q_PROPERTY(bool enabled READ isEnabled WRITE setEnabled NOTIFY enabledChanged)
    Q_PROPERTY(bool running READ isRunning NOTIFY runningChanged)

public:
    explicit QSimbaQuickScheduleBase(QObject *parent = nullptr);
    ~QSimbaQuickScheduleBase() override;

    QVariant fixedDelay() const { return m_fixedDelay; }
    void setFixedDelay(const QVariant &v) { setTiming(m_fixedDelay, v); }
    QVariant fixedRate() const { return m_fixedRate; }
    void setFixedRate(const QVariant &v) { setTiming(m_fixedRate, v); }
    QVariant initialDelay() const { return m_initialDelay; }
    void setInitialDelay(const QVariant &v) { setTiming(m_initialDelay, v); }
    bool isEnabled() const { return m_enabled; }
    void setEnabled(bool enabled);
    bool isRunning() const;

Q_SIGNALS:
    void timingChanged();
    void enabledChanged();
    void runningChanged();

protected:
    void update() override;
    //! Checks the subclass's properties; an error message naming the property, or empty.
    virtual QString validate() const = 0;
    //! Registers the work with \a scheduler (the schedule is valid).
    virtual void registerWork(QSimbaScheduler *scheduler, const QSimbaSchedule &schedule) = 0;
    //! The scheduler stopped (every term handed over).
    virtual void stopped() {}
    QSimba *simbaClient() const { return m_simba; }

private:
    void setTiming(QVariant &field, const QVariant &value);
    void stop();
    QVariant m_fixedDelay, m_fixedRate, m_initialDelay;
    bool m_enabled = true;
    QSimba *m_simba = nullptr;
    std::unique_ptr<QSimbaScheduler> m_scheduler;
    QPointer<QSimbaQuickClient> m_watched;
};

/*
 * SimbaScheduled: triggered(term) on fixedDelay or fixedRate while this client leads name.
 */
class QSimbaQuickScheduled : public QSimbaQuickScheduleBase
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SimbaScheduled)
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)
    Q_PROPERTY(bool leader READ isLeader NOTIFY termChanged)
    Q_PROPERTY(QSimbaQuickTerm term READ term NOTIFY termChanged)

public:
    explicit QSimbaQuickScheduled(QObject *parent = nullptr);
    ~QSimbaQuickScheduled() override;
    QString name() const { return m_name; }
    void setName(const QString &name);
    bool isLeader() const { return !m_term.isNull(); }
    QSimbaQuickTerm term() const { return QSimbaQuickTerm(m_term); }

Q_SIGNALS:
    void nameChanged();
    void termChanged();
    void triggered(const QSimbaQuickTerm &term);

protected:
    QString validate() const override;
    void registerWork(QSimbaScheduler *scheduler, const QSimbaSchedule &schedule) override;
    void stopped() override;

private:
    QString m_name;
    QSimbaTerm m_term;
    QPointer<QSimbaElection> m_election;
};

/*
 * SimbaPartitioned: triggered(term, partition) for each partition of group this client holds.
 */
class QSimbaQuickPartitioned : public QSimbaQuickScheduleBase
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SimbaPartitioned)
    Q_PROPERTY(QString group READ group WRITE setGroup NOTIFY groupChanged)
    Q_PROPERTY(int partitions READ partitions WRITE setPartitions NOTIFY partitionsChanged)
    Q_PROPERTY(QList<int> ownedPartitions READ ownedPartitions NOTIFY ownedPartitionsChanged)

public:
    explicit QSimbaQuickPartitioned(QObject *parent = nullptr);
    ~QSimbaQuickPartitioned() override;
    QString group() const { return m_group; }
    void setGroup(const QString &group);
    int partitions() const { return m_partitions; }
    void setPartitions(int partitions);
    //! The partitions whose terms this client holds now, ascending.
    QList<int> ownedPartitions() const;

Q_SIGNALS:
    void groupChanged();
    void partitionsChanged();
    void ownedPartitionsChanged();
    void triggered(const QSimbaQuickTerm &term, int partition);

protected:
    QString validate() const override;
    void registerWork(QSimbaScheduler *scheduler, const QSimbaSchedule &schedule) override;
    void stopped() override;

private:
    void onEvent(const QSimbaEvent &event);
    QString m_group;
    int m_partitions = 0;
    QMap<int, qint64> m_owned; // partition -> token
    QMetaObject::Connection m_events;
};
