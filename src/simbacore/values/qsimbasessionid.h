// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"

#include <QtCore/QDebug>
#include <QtCore/QHashFunctions>
#include <QtCore/QMetaType>
#include <QtCore/QString>

class QSIMBACORE_EXPORT QSimbaSessionId
{
public:
    static constexpr int MaxLength = 128;

    //! A new id: 32 lowercase hex characters from a cryptographically seeded generator.
    static QSimbaSessionId generate();
    //! Wraps an id read back from a backend; throws QSimbaInvalidArgumentError when it is
    //! empty, longer than 128 characters or has characters outside [A-Za-z0-9._:-].
    static QSimbaSessionId of(const QString &id);

    QSimbaSessionId() = default; // "no session"
    const QString &toString() const { return m_id; }
    bool isNull() const { return m_id.isEmpty(); }

    friend bool operator==(const QSimbaSessionId &a, const QSimbaSessionId &b) { return a.m_id == b.m_id; }
    friend bool operator!=(const QSimbaSessionId &a, const QSimbaSessionId &b) { return a.m_id != b.m_id; }
    //! Bytewise order of the UTF-8 forms (the ids are ASCII), as PartitionAssignment needs.
    friend bool operator<(const QSimbaSessionId &a, const QSimbaSessionId &b) { return a.m_id < b.m_id; }
    friend size_t qHash(const QSimbaSessionId &s, size_t seed = 0) { return qHash(s.m_id, seed); }
    friend QDebug operator<<(QDebug dbg, const QSimbaSessionId &s) { return dbg << s.m_id; }

private:
    explicit QSimbaSessionId(const QString &id) : m_id(id) {}
    QString m_id;
};

Q_DECLARE_METATYPE(QSimbaSessionId)
