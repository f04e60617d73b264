// SPDX-License-Identifier: Apache-2.0
// Part of the QML module QSimba: not an installed C++ API.
#pragma once

#include "qsimbaterm.h"

#include <QtCore/QObject>
#include <QtQml/qqmlregistration.h>

/*
 * simbaTerm: a term as QML sees it. Every read of valid and remaining asks the term now
 * (the values move with time; bind a Timer to refresh a display). A null term (not leader)
 * has token 0, valid false, remaining 0.
 */
class QSimbaQuickTerm
{
    Q_GADGET
    QML_VALUE_TYPE(simbaTerm)
    QML_UNCREATABLE("a simbaTerm comes from SimbaElection, SimbaLock, SimbaScheduled or SimbaPartitioned")
    Q_PROPERTY(QString name READ name CONSTANT)
    Q_PROPERTY(double token READ token CONSTANT)
    Q_PROPERTY(bool valid READ isValid)
    Q_PROPERTY(double remaining READ remaining)
    Q_PROPERTY(bool isNull READ isNull CONSTANT)

public:
    QSimbaQuickTerm() = default;
    explicit QSimbaQuickTerm(const QSimbaTerm &term) : m_term(term) {}

    QString name() const { return m_term.isNull() ? QString() : m_term.name().toString(); }
    //! The fencing token (a JS number: exact up to 2^53).
    double token() const { return double(m_term.token()); }
    bool isValid() const { return m_term.isValid(); }
    //! Milliseconds left before the local deadline; 0 once the term ended.
    double remaining() const
    {
        return double(std::chrono::duration_cast<std::chrono::milliseconds>(m_term.remaining()).count());
    }
    bool isNull() const { return m_term.isNull(); }
    const QSimbaTerm &term() const { return m_term; }

    Q_INVOKABLE QString toString() const
    {
        return m_term.isNull() ? QStringLiteral("simbaTerm(null)")
                               : QStringLiteral("simbaTerm(%1, token %2)").arg(name()).arg(m_term.token());
    }

    friend bool operator==(const QSimbaQuickTerm &a, const QSimbaQuickTerm &b) { return a.m_term == b.m_term; }
    friend bool operator!=(const QSimbaQuickTerm &a, const QSimbaQuickTerm &b) { return a.m_term != b.m_term; }

private:
    QSimbaTerm m_term;
};
