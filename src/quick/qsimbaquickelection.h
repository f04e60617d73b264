// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include "qsimbaquickelement.h"
#include "qsimbaquickterm.h"

#include <QtCore/QPointer>
#include <QtCore/QSet>

class QSimbaElection;

/*
 * SimbaElection: contends for a lease name while active. elected(term) and
 * revoked(term, reason) keep the seeds' contract: every elected is followed by exactly one
 * revoked, in order, even when the element is deactivated or renamed in between.
 */
class QSimbaQuickElection : public QSimbaQuickElement
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SimbaElection)
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)
    Q_PROPERTY(bool active READ isActive WRITE setActive NOTIFY activeChanged)
    Q_PROPERTY(bool leader READ isLeader NOTIFY termChanged)
    Q_PROPERTY(Status status READ status NOTIFY statusChanged)
    Q_PROPERTY(QString statusName READ statusName NOTIFY statusChanged)
    Q_PROPERTY(double token READ token NOTIFY termChanged)
    Q_PROPERTY(QSimbaQuickTerm term READ term NOTIFY termChanged)

public:
    //! The seeds' election states; Idle when not contending (inactive or invalid).
    enum class Status { Idle, Candidate, Leader, Cooldown, Handover };
    Q_ENUM(Status)

    explicit QSimbaQuickElection(QObject *parent = nullptr);
    ~QSimbaQuickElection() override;

    QString name() const { return m_name; }
    void setName(const QString &name);
    bool isActive() const { return m_active; }
    void setActive(bool active);
    bool isLeader() const { return !m_term.isNull(); }
    Status status() const { return m_status; }
    QString statusName() const;
    double token() const { return m_term.isNull() ? 0 : double(m_term.token()); }
    QSimbaQuickTerm term() const { return QSimbaQuickTerm(m_term); }

    //! Gives up the current term and does not contend for \a cooldown (a duration; default
    //! one lease duration); stays active. A warning when not contending.
    Q_INVOKABLE void stepDown(const QVariant &cooldown = QVariant());

Q_SIGNALS:
    void nameChanged();
    void activeChanged();
    void statusChanged();
    void termChanged();
    void elected(const QSimbaQuickTerm &term);
    //! \a reason: "STOPPED", "STEPPED_DOWN", "SESSION_EXPIRED", "DEADLINE_PASSED", "TAKEN_OVER".
    void revoked(const QSimbaQuickTerm &term, const QString &reason);

protected:
    void update() override;

private:
    void stopCurrent();
    void setStatus(Status status);

    QString m_name;
    bool m_active = true;
    Status m_status = Status::Idle;
    QPointer<QSimbaElection> m_election;   // the one contending now
    QSet<QSimbaElection *> m_connected;    // every election whose signals reach us
    QList<QSimbaTerm> m_open;              // elected, revoked not yet delivered
    QSimbaTerm m_term;
};
