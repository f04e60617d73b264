// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "qsimbacore_export.h"
#include "qsimbaelection.h"
#include "qsimbasessionid.h"
#include "qsimbaterm.h"

#include <QtCore/QDateTime>
#include <QtCore/QJsonObject>
#include <QtCore/QSharedDataPointer>

#include <chrono>

class QSimbaEventData;

class QSIMBACORE_EXPORT QSimbaEvent
{
    Q_GADGET
    Q_PROPERTY(Type type READ type CONSTANT)
    Q_PROPERTY(QString typeName READ typeName CONSTANT)
    Q_PROPERTY(QString name READ nameString CONSTANT)
    Q_PROPERTY(qint64 token READ token CONSTANT)

public:
    enum class Type {
        SessionOpened, SessionRenewed, SessionSuspended, SessionExpired, SessionLeaseShortened,
        SessionClosed, Elected, Revoked, AcquireFailed, WorkCompleted,
    };
    Q_ENUM(Type)
    enum class WorkOutcome { Completed, Failed, Cancelled };
    Q_ENUM(WorkOutcome)

    QSimbaEvent();
    QSimbaEvent(const QSimbaEvent &);
    QSimbaEvent &operator=(const QSimbaEvent &);
    ~QSimbaEvent();

    // Factories, one per type (the fields each type carries).
    static QSimbaEvent sessionOpened(const QSimbaSessionId &session, std::chrono::milliseconds granted);
    static QSimbaEvent sessionRenewed(const QSimbaSessionId &session, std::chrono::milliseconds granted);
    static QSimbaEvent sessionSuspended(const QSimbaSessionId &session, const QString &error);
    //! \a reason: DeadlinePassed or SessionExpired.
    static QSimbaEvent sessionExpired(const QSimbaSessionId &session, QSimbaTerm::RevokeReason reason);
    static QSimbaEvent sessionLeaseShortened(const QSimbaSessionId &session, std::chrono::milliseconds granted,
                                             std::chrono::milliseconds requested);
    static QSimbaEvent sessionClosed(const QSimbaSessionId &session);
    static QSimbaEvent elected(const QSimbaSessionId &session, const QSimbaTerm &term, QSimbaElection::Kind kind);
    static QSimbaEvent revoked(const QSimbaSessionId &session, const QSimbaTerm &term, QSimbaElection::Kind kind,
                               QSimbaTerm::RevokeReason reason);
    static QSimbaEvent acquireFailed(const QSimbaSessionId &session, const QSimbaLeaseName &name,
                                     QSimbaElection::Kind kind, const QString &error);
    static QSimbaEvent workCompleted(const QSimbaSessionId &session, const QSimbaTerm &term, QSimbaElection::Kind kind,
                                     WorkOutcome outcome, const QString &error = {});

    Type type() const;
    QString typeName() const;                   //!< "SessionOpened", …
    QDateTime time() const;                     //!< wall-clock time of the event, for display only
    //! Sets time(): the engine stamps each event from the time of the input that made it
    //! (the factories read no clock; their events have a null time until stamped).
    void setTime(const QDateTime &time);
    QSimbaSessionId session() const;
    QSimbaLeaseName name() const;               //!< Elected, Revoked, AcquireFailed, WorkCompleted
    qint64 token() const;                       //!< Elected, Revoked, WorkCompleted
    QSimbaElection::Kind kind() const;          //!< Elected, Revoked, AcquireFailed, WorkCompleted
    QSimbaTerm::RevokeReason reason() const;    //!< Revoked, SessionExpired
    std::chrono::milliseconds granted() const;  //!< SessionOpened, SessionRenewed, SessionLeaseShortened
    std::chrono::milliseconds requested() const; //!< SessionLeaseShortened
    WorkOutcome outcome() const;                //!< WorkCompleted
    QString error() const;                      //!< SessionSuspended, AcquireFailed, WorkCompleted(FAILED)

    //! {"type":"Revoked","session":…,"name":…,"token":…,"kind":"ELECTION","reason":"STOPPED",…}
    QJsonObject toJson() const;

    friend QSIMBACORE_EXPORT bool operator==(const QSimbaEvent &a, const QSimbaEvent &b);
    friend bool operator!=(const QSimbaEvent &a, const QSimbaEvent &b) { return !(a == b); }

    static QString outcomeName(WorkOutcome outcome);

private:
    QString nameString() const { return name().toString(); }
    explicit QSimbaEvent(Type type, const QSimbaSessionId &session);
    QSharedDataPointer<QSimbaEventData> d;
};

QSIMBACORE_EXPORT QDebug operator<<(QDebug dbg, const QSimbaEvent &event);
Q_DECLARE_METATYPE(QSimbaEvent)
