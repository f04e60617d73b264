// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquickelection.h"
#include "qsimbaquickutil_p.h"

#include "qsimba.h"
#include "qsimbaerror.h"

/*!
    \qmltype SimbaElection
    \inqmlmodule QSimba
    \brief Leader election of one lease name.

    Contends while \c active (default true) and \c name is a valid lease name (1–128
    characters of [A-Za-z0-9._:-], not "." or ".."). An invalid name gives a warning naming
    the property and the rule and the element stays idle.
*/
QSimbaQuickElection::QSimbaQuickElection(QObject *parent) : QSimbaQuickElement(parent) {}

QSimbaQuickElection::~QSimbaQuickElection()
{
    // The QML side is gone: no more signals to it; the election hands over on its own.
    for (QSimbaElection *e : std::as_const(m_connected))
        disconnect(e, nullptr, this, nullptr);
    if (m_election && m_election->isStarted())
        (void)m_election->stop();
}

void QSimbaQuickElection::setName(const QString &name)
{
    if (name == m_name)
        return;
    m_name = name;
    Q_EMIT nameChanged();
    update();
}

void QSimbaQuickElection::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    Q_EMIT activeChanged();
    update();
}

QString QSimbaQuickElection::statusName() const
{
    static const char *const names[] = {"IDLE", "CANDIDATE", "LEADER", "COOLDOWN", "HANDOVER"};
    return QLatin1String(names[int(m_status)]);
}

void QSimbaQuickElection::setStatus(Status status)
{
    if (status == m_status)
        return;
    m_status = status;
    Q_EMIT statusChanged();
}

void QSimbaQuickElection::stopCurrent()
{
    if (m_election && m_election->isStarted())
        (void)m_election->stop();
    m_election = nullptr;
    setStatus(Status::Idle);
}

void QSimbaQuickElection::update()
{
    if (!isComplete())
        return;
    if (m_election && m_election->name().toString() == m_name && m_active)
        return; // already contending for it
    stopCurrent();
    if (!m_active)
        return;
    const QString rule = QSimbaLeaseName::validate(m_name, u"name");
    if (!rule.isEmpty())
        return setError(rule);
    QSimba *client = simba();
    if (!client)
        return;
    QSimbaElection *election = nullptr;
    try {
        election = client->election(m_name);
        if (election->isStarted())
            return setError(QStringLiteral("name: the election \"%1\" of this client is already started by another "
                                           "element or task; use one SimbaElection per name and client")
                                .arg(m_name));
    } catch (const QSimbaError &e) {
        return setError(QStringLiteral("name: %1").arg(e.message()));
    }
    if (!m_connected.contains(election)) {
        m_connected.insert(election);
        connect(election, &QSimbaElection::elected, this, [this, election](const QSimbaTerm &term) {
            m_open.append(term);
            if (election == m_election) {
                m_term = term;
                Q_EMIT termChanged();
            }
            Q_EMIT elected(QSimbaQuickTerm(term));
        });
        connect(election, &QSimbaElection::revoked, this,
                [this](const QSimbaTerm &term, QSimbaTerm::RevokeReason reason) {
                    if (!m_open.removeOne(term))
                        return; // its elected went to another element before this one existed
                    if (term == m_term) {
                        m_term = QSimbaTerm();
                        Q_EMIT termChanged();
                    }
                    Q_EMIT revoked(QSimbaQuickTerm(term), QSimbaTerm::reasonName(reason));
                });
        connect(election, &QSimbaElection::statusChanged, this, [this, election](QSimbaElection::Status s) {
            if (election == m_election)
                setStatus(Status(int(s)));
        });
        connect(election, &QObject::destroyed, this, [this, election] { m_connected.remove(election); });
    }
    try {
        m_election = election;
        election->start();
        clearError();
        setStatus(Status(int(election->status())));
    } catch (const QSimbaError &e) {
        m_election = nullptr;
        setError(QStringLiteral("name: %1").arg(e.message()));
    }
}

void QSimbaQuickElection::stepDown(const QVariant &cooldown)
{
    if (!m_election || !m_election->isStarted()) {
        setError(QStringLiteral("stepDown: the election is not contending (active false or a bad property)"));
        return;
    }
    QString error;
    auto d = QSimbaQuick::durationOf(cooldown, QStringLiteral("stepDown cooldown"), &error);
    if (!error.isEmpty())
        return setError(error);
    if (!d) {
        QSimba *client = simba();
        d = client ? client->config().leaseDuration() : std::chrono::nanoseconds(0);
    }
    (void)m_election->stepDown(*d);
}

#include "moc_qsimbaquickelection.cpp"
#include "moc_qsimbaquickterm.cpp"
