// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include "qsimbaquickelement.h"
#include "qsimbaquickterm.h"

#include "qsimbalockterm.h"

class QSimbaLock;

#include <QtCore/QFuture>
#include <QtQml/QJSValue>

#include <functional>

/*
 * SimbaLock: a distributed lock of one name. acquire(timeout) and tryAcquire() return JS
 * Promises (and signal acquired/acquireFailed too); release() hands the lease back. The
 * lock is released when the element is destroyed.
 */
class QSimbaQuickLock : public QSimbaQuickElement
{
    Q_OBJECT
    QML_NAMED_ELEMENT(SimbaLock)
    Q_PROPERTY(QString name READ name WRITE setName NOTIFY nameChanged)
    Q_PROPERTY(bool held READ isHeld NOTIFY heldChanged)
    Q_PROPERTY(bool pending READ isPending NOTIFY pendingChanged)
    Q_PROPERTY(double token READ token NOTIFY heldChanged)
    Q_PROPERTY(QSimbaQuickTerm term READ term NOTIFY heldChanged)

public:
    explicit QSimbaQuickLock(QObject *parent = nullptr);
    ~QSimbaQuickLock() override;

    QString name() const { return m_name; }
    void setName(const QString &name);
    bool isHeld() const { return !m_term.isNull() && !m_lost; }
    bool isPending() const { return m_busy; }
    double token() const { return isHeld() ? double(m_term.token()) : 0; }
    QSimbaQuickTerm term() const { return isHeld() ? QSimbaQuickTerm(m_term.term()) : QSimbaQuickTerm(); }

    //! Waits up to \a timeout (a duration; default 0: one attempt's worth) for the lock.
    //! Returns a Promise resolved with the term, rejected with an Error whose message says
    //! why (timeout, bad property, already held by this element).
    Q_INVOKABLE QJSValue acquire(const QVariant &timeout = QVariant());
    //! One attempt: a Promise resolved with true (held) or false (held elsewhere).
    Q_INVOKABLE QJSValue tryAcquire();
    //! Releases the lock (the term is revoked, then the lease released); nothing when not held.
    Q_INVOKABLE void release();

Q_SIGNALS:
    void nameChanged();
    void heldChanged();
    void pendingChanged();
    void acquired(const QSimbaQuickTerm &term);
    void acquireFailed(const QString &error);
    //! The held term ended without release(): \a reason as in SimbaElection.revoked.
    void lost(const QSimbaQuickTerm &term, const QString &reason);

protected:
    void update() override {}

private:
    struct Settle
    {
        QJSValue resolve;
        QJSValue reject;
    };
    QJSValue promise(Settle *settle);
    QJSValue rejected(const QString &message);
    QSimbaLock *lock(QString *error);
    void take(QSimbaLockTerm term);
    template<typename T, typename OnResult>
    QJSValue track(QFuture<T> future, const QString &what, OnResult onResult);

    QString m_name;
    QSimbaLockTerm m_term;
    bool m_lost = false;
    bool m_busy = false;
    QMetaObject::Connection m_events;
    std::function<void()> m_cancel; // abandons the attempt in progress
    void settled();
};
