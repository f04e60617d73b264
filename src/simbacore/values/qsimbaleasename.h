// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QDebug>
#include <QtCore/QHashFunctions>
#include <QtCore/QMetaType>
#include <QtCore/QString>

class QSIMBACORE_EXPORT QSimbaLeaseName
{
public:
    static constexpr int MaxLength = 128;

    //! Throws QSimbaInvalidArgumentError naming the rule \a name breaks.
    static QSimbaLeaseName of(const QString &name);
    //! Empty when \a name is valid, else the message of the rule it breaks.
    static QString validate(const QString &name, QStringView what = u"lease name");
    //! Checks a partition group name and that "{group}.{partitions-1}" is a valid lease name.
    static void validateGroup(const QString &group, int partitions);

    QSimbaLeaseName() = default; // the empty name: only a placeholder, never accepted by an API
    const QString &toString() const { return m_name; }
    bool isEmpty() const { return m_name.isEmpty(); }

    friend bool operator==(const QSimbaLeaseName &a, const QSimbaLeaseName &b) { return a.m_name == b.m_name; }
    friend bool operator!=(const QSimbaLeaseName &a, const QSimbaLeaseName &b) { return a.m_name != b.m_name; }
    friend bool operator<(const QSimbaLeaseName &a, const QSimbaLeaseName &b) { return a.m_name < b.m_name; }
    friend size_t qHash(const QSimbaLeaseName &n, size_t seed = 0) { return qHash(n.m_name, seed); }
    friend QDebug operator<<(QDebug dbg, const QSimbaLeaseName &n) { return dbg << n.m_name; }

private:
    explicit QSimbaLeaseName(const QString &name) : m_name(name) {}
    QString m_name;
};

Q_DECLARE_METATYPE(QSimbaLeaseName)
