// SPDX-License-Identifier: Apache-2.0
// Test fixture: records the terms that elections hand out and counts the moments at which
// two of them are valid at once — at every elected, and every 2 ms while monitoring.
#pragma once

#include "qsimbaelection.h"
#include "qsimbaterm.h"

#include <QtCore/QList>
#include <QtCore/QObject>
#include <QtCore/QTimer>

class TermWatch : public QObject
{
    Q_OBJECT

public:
    void watch(QSimbaElection *election, const QString &who);
    void startMonitor();
    void stopMonitor() { m_monitor.stop(); }
    void clear();
    //! How many of the terms handed out so far are valid now (logs them when more than one).
    int validTerms() const;
    int overlaps() const { return m_overlaps; }
    const QList<std::pair<QString, QSimbaTerm>> &terms() const { return m_terms; }

private:
    QList<std::pair<QString, QSimbaTerm>> m_terms;
    int m_overlaps = 0;
    QTimer m_monitor;
};
