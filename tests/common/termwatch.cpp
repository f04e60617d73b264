// SPDX-License-Identifier: Apache-2.0
#include "termwatch.h"

#include <algorithm>

void TermWatch::watch(QSimbaElection *election, const QString &who)
{
    connect(election, &QSimbaElection::elected, this, [this, who](const QSimbaTerm &term) {
        m_terms.append({who, term});
        if (validTerms() > 1)
            ++m_overlaps;
    });
}

void TermWatch::startMonitor()
{
    m_monitor.disconnect();
    connect(&m_monitor, &QTimer::timeout, this, [this] {
        if (validTerms() > 1)
            ++m_overlaps;
    });
    m_monitor.start(2);
}

void TermWatch::clear()
{
    m_monitor.stop();
    m_terms.clear();
    m_overlaps = 0;
}

int TermWatch::validTerms() const
{
    const int n = int(std::count_if(m_terms.cbegin(), m_terms.cend(), [](const auto &t) { return t.second.isValid(); }));
    if (n > 1) {
        for (const auto &[who, term] : m_terms)
            qWarning("%s: token %lld, valid %d, %lld ms left", qPrintable(who), term.token(), term.isValid(),
                     qint64(std::chrono::duration_cast<std::chrono::milliseconds>(term.remaining()).count()));
    }
    return n;
}

#include "moc_termwatch.cpp"
