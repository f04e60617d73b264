// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquickscheduled.h"
#include "qsimbaquickutil_p.h"

#include "qsimba.h"
#include "qsimbaerror.h"
#include "qsimbascheduler.h"

namespace {
// The text QSimbaScheduler::scheduleOf() reads: numbers are milliseconds.
QString durationText(const QVariant &value)
{
    if (!QSimbaQuick::isSet(value))
        return {};
    if (value.metaType() == QMetaType::fromType<QString>())
        return value.toString().trimmed();
    bool ok = false;
    const double ms = value.toDouble(&ok);
    return ok ? QString::number(ms, 'g', 15) + QLatin1String("ms") : value.toString();
}
} // namespace

QSimbaQuickScheduleBase::QSimbaQuickScheduleBase(QObject *parent) : QSimbaQuickElement(parent) {}

QSimbaQuickScheduleBase::~QSimbaQuickScheduleBase() = default; // subclasses stop()

void QSimbaQuickScheduleBase::setTiming(QVariant &field, const QVariant &value)
{
    if (value == field)
        return;
    field = value;
    Q_EMIT timingChanged();
    update();
}

void QSimbaQuickScheduleBase::setEnabled(bool enabled)
{
    if (enabled == m_enabled)
        return;
    m_enabled = enabled;
    Q_EMIT enabledChanged();
    update();
}

bool QSimbaQuickScheduleBase::isRunning() const
{
    return m_scheduler && m_scheduler->isRunning();
}

void QSimbaQuickScheduleBase::stop()
{
    if (!m_scheduler)
        return;
    // Handover order for each term, without blocking the GUI thread (leader work starts on
    // it): no run reaches this element after this line; the terms hand over in the background.
    (void)m_scheduler->stopAsync();
    m_scheduler.reset();
    stopped();
    Q_EMIT runningChanged();
}

void QSimbaQuickScheduleBase::update()
{
    if (!isComplete())
        return;
    stop();
    if (!m_enabled)
        return;
    const QString invalid = validate();
    if (!invalid.isEmpty())
        return setError(invalid);
    QSimbaSchedule schedule = QSimbaSchedule::fixedDelay(std::chrono::seconds(1));
    try {
        schedule = QSimbaScheduler::scheduleOf(durationText(m_fixedDelay), durationText(m_fixedRate),
                                               durationText(m_initialDelay));
    } catch (const QSimbaError &e) {
        return setError(e.message());
    }
    m_simba = simba();
    if (!m_simba)
        return;
    QSimbaQuickClient *owner = QSimbaQuickClient::resolve(QSimbaQuickElement::client(), this);
    if (owner != m_watched) {
        if (m_watched)
            disconnect(m_watched, nullptr, this, nullptr);
        m_watched = owner;
        connect(owner, &QSimbaQuickClient::schedulingEnabledChanged, this, &QSimbaQuickScheduleBase::update);
        connect(owner, &QSimbaQuickClient::closing, this, &QSimbaQuickScheduleBase::stop);
    }
    if (!owner->schedulingEnabled()) {
        qCInfo(lcSimbaQuick) << "scheduling is disabled for this client (simba/scheduling/enabled=false)";
        return;
    }
    try {
        m_scheduler = std::make_unique<QSimbaScheduler>(m_simba);
        registerWork(m_scheduler.get(), schedule);
        m_scheduler->start();
    } catch (const QSimbaError &e) {
        m_scheduler.reset();
        return setError(e.message());
    }
    clearError();
    Q_EMIT runningChanged();
}

/*!
    \qmltype SimbaScheduled
    \inqmlmodule QSimba
    \brief The @SimbaScheduled analogue: triggered(term) on a schedule while leading name.
*/
QSimbaQuickScheduled::QSimbaQuickScheduled(QObject *parent) : QSimbaQuickScheduleBase(parent) {}

QSimbaQuickScheduled::~QSimbaQuickScheduled()
{
    setEnabled(false);
}

void QSimbaQuickScheduled::setName(const QString &name)
{
    if (name == m_name)
        return;
    m_name = name;
    Q_EMIT nameChanged();
    update();
}

QString QSimbaQuickScheduled::validate() const
{
    return QSimbaLeaseName::validate(m_name, u"name");
}

void QSimbaQuickScheduled::registerWork(QSimbaScheduler *scheduler, const QSimbaSchedule &schedule)
{
    QSimbaElection *election = simbaClient()->election(m_name);
    if (election->isStarted())
        throw QSimbaIllegalStateError(QStringLiteral("name: the election \"%1\" of this client is already started "
                                                     "by another element or task")
                                          .arg(m_name));
    if (m_election != election) {
        if (m_election)
            disconnect(m_election, nullptr, this, nullptr);
        m_election = election;
        connect(election, &QSimbaElection::elected, this, [this](const QSimbaTerm &term) {
            m_term = term;
            Q_EMIT termChanged();
        });
        connect(election, &QSimbaElection::revoked, this, [this](const QSimbaTerm &term) {
            if (term != m_term)
                return;
            m_term = QSimbaTerm();
            Q_EMIT termChanged();
        });
    }
    scheduler->addScheduled(m_name, schedule, this, [this](const QSimbaTerm &term) {
        Q_EMIT triggered(QSimbaQuickTerm(term));
    });
}

void QSimbaQuickScheduled::stopped()
{
    if (m_term.isNull())
        return;
    m_term = QSimbaTerm();
    Q_EMIT termChanged();
}

/*!
    \qmltype SimbaPartitioned
    \inqmlmodule QSimba
    \brief The @SimbaPartitioned analogue: triggered(term, partition) for each partition held.
*/
QSimbaQuickPartitioned::QSimbaQuickPartitioned(QObject *parent) : QSimbaQuickScheduleBase(parent) {}

QSimbaQuickPartitioned::~QSimbaQuickPartitioned()
{
    setEnabled(false);
}

void QSimbaQuickPartitioned::setGroup(const QString &group)
{
    if (group == m_group)
        return;
    m_group = group;
    Q_EMIT groupChanged();
    update();
}

void QSimbaQuickPartitioned::setPartitions(int partitions)
{
    if (partitions == m_partitions)
        return;
    m_partitions = partitions;
    Q_EMIT partitionsChanged();
    update();
}

QList<int> QSimbaQuickPartitioned::ownedPartitions() const
{
    return m_owned.keys();
}

QString QSimbaQuickPartitioned::validate() const
{
    if (m_partitions < 1)
        return QStringLiteral("partitions: %1 is not a number of partitions (1 or more)").arg(m_partitions);
    try {
        QSimbaLeaseName::validateGroup(m_group, m_partitions);
    } catch (const QSimbaError &e) {
        return QStringLiteral("group: %1").arg(e.message());
    }
    return {};
}

void QSimbaQuickPartitioned::registerWork(QSimbaScheduler *scheduler, const QSimbaSchedule &schedule)
{
    disconnect(m_events);
    m_events = connect(simbaClient(), &QSimba::event, this, &QSimbaQuickPartitioned::onEvent);
    scheduler->addPartitioned(m_group, m_partitions, schedule, this, [this](const QSimbaTerm &term, int partition) {
        Q_EMIT triggered(QSimbaQuickTerm(term), partition);
    });
}

void QSimbaQuickPartitioned::onEvent(const QSimbaEvent &event)
{
    if (event.kind() != QSimbaElection::Kind::Group)
        return;
    const bool elected = event.type() == QSimbaEvent::Type::Elected;
    if (!elected && event.type() != QSimbaEvent::Type::Revoked)
        return;
    const QString name = event.name().toString();
    if (!name.startsWith(m_group + QLatin1Char('.')))
        return;
    bool ok = false;
    const int partition = name.mid(m_group.size() + 1).toInt(&ok);
    if (!ok || partition < 0 || partition >= m_partitions)
        return;
    if (elected) {
        m_owned.insert(partition, event.token());
    } else {
        if (m_owned.value(partition, -1) != event.token())
            return;
        m_owned.remove(partition);
    }
    Q_EMIT ownedPartitionsChanged();
}

void QSimbaQuickPartitioned::stopped()
{
    disconnect(m_events);
    if (m_owned.isEmpty())
        return;
    m_owned.clear();
    Q_EMIT ownedPartitionsChanged();
}

#include "moc_qsimbaquickscheduled.cpp"
