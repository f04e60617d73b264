// SPDX-License-Identifier: Apache-2.0
#include "qsimbaevent.h"

#include "qsimbaseedname_p.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QMetaEnum>

/*!
    \class QSimbaEvent
    \brief One SimbaEvent of the seeds, with the fields its type carries.

    What happened in a client: the seeds' SimbaEvent. Delivered in order, off the engine
    loop, through QSimba::event and the builder's listeners. Plain value; reentrant.
*/

class QSimbaEventData : public QSharedData
{
public:
    QSimbaEvent::Type type = QSimbaEvent::Type::SessionOpened;
    QDateTime time;
    QSimbaSessionId session;
    QSimbaLeaseName name;
    qint64 token = 0;
    QSimbaElection::Kind kind = QSimbaElection::Kind::Election;
    QSimbaTerm::RevokeReason reason = QSimbaTerm::RevokeReason::Stopped;
    std::chrono::milliseconds granted{0}, requested{0};
    QSimbaEvent::WorkOutcome outcome = QSimbaEvent::WorkOutcome::Completed;
    QString error;
};

QSimbaEvent::QSimbaEvent() : d(new QSimbaEventData) {}
QSimbaEvent::QSimbaEvent(Type type, const QSimbaSessionId &session) : d(new QSimbaEventData)
{
    d->type = type;
    d->session = session;
}
QSimbaEvent::QSimbaEvent(const QSimbaEvent &) = default;
QSimbaEvent &QSimbaEvent::operator=(const QSimbaEvent &) = default;
QSimbaEvent::~QSimbaEvent() = default;

using ms = std::chrono::milliseconds;

QSimbaEvent QSimbaEvent::sessionOpened(const QSimbaSessionId &s, ms granted)
{
    QSimbaEvent e(Type::SessionOpened, s);
    e.d->granted = granted;
    return e;
}
QSimbaEvent QSimbaEvent::sessionRenewed(const QSimbaSessionId &s, ms granted)
{
    QSimbaEvent e(Type::SessionRenewed, s);
    e.d->granted = granted;
    return e;
}
QSimbaEvent QSimbaEvent::sessionSuspended(const QSimbaSessionId &s, const QString &error)
{
    QSimbaEvent e(Type::SessionSuspended, s);
    e.d->error = error;
    return e;
}
QSimbaEvent QSimbaEvent::sessionExpired(const QSimbaSessionId &s, QSimbaTerm::RevokeReason reason)
{
    QSimbaEvent e(Type::SessionExpired, s);
    e.d->reason = reason;
    return e;
}
QSimbaEvent QSimbaEvent::sessionLeaseShortened(const QSimbaSessionId &s, ms granted, ms requested)
{
    QSimbaEvent e(Type::SessionLeaseShortened, s);
    e.d->granted = granted;
    e.d->requested = requested;
    return e;
}
QSimbaEvent QSimbaEvent::sessionClosed(const QSimbaSessionId &s)
{
    return QSimbaEvent(Type::SessionClosed, s);
}
QSimbaEvent QSimbaEvent::elected(const QSimbaSessionId &s, const QSimbaTerm &term, QSimbaElection::Kind kind)
{
    QSimbaEvent e(Type::Elected, s);
    e.d->name = term.name();
    e.d->token = term.token();
    e.d->kind = kind;
    return e;
}
QSimbaEvent QSimbaEvent::revoked(const QSimbaSessionId &s, const QSimbaTerm &term, QSimbaElection::Kind kind,
                                 QSimbaTerm::RevokeReason reason)
{
    QSimbaEvent e(Type::Revoked, s);
    e.d->name = term.name();
    e.d->token = term.token();
    e.d->kind = kind;
    e.d->reason = reason;
    return e;
}
QSimbaEvent QSimbaEvent::acquireFailed(const QSimbaSessionId &s, const QSimbaLeaseName &name,
                                       QSimbaElection::Kind kind, const QString &error)
{
    QSimbaEvent e(Type::AcquireFailed, s);
    e.d->name = name;
    e.d->kind = kind;
    e.d->error = error;
    return e;
}
QSimbaEvent QSimbaEvent::workCompleted(const QSimbaSessionId &s, const QSimbaTerm &term, QSimbaElection::Kind kind,
                                       WorkOutcome outcome, const QString &error)
{
    QSimbaEvent e(Type::WorkCompleted, s);
    e.d->name = term.name();
    e.d->token = term.token();
    e.d->kind = kind;
    e.d->outcome = outcome;
    e.d->error = error;
    return e;
}

QSimbaEvent::Type QSimbaEvent::type() const { return d->type; }
QString QSimbaEvent::typeName() const
{
    return QString::fromLatin1(QMetaEnum::fromType<Type>().valueToKey(int(d->type)));
}
QDateTime QSimbaEvent::time() const { return d->time; }
void QSimbaEvent::setTime(const QDateTime &time) { d->time = time; }
QSimbaSessionId QSimbaEvent::session() const { return d->session; }
QSimbaLeaseName QSimbaEvent::name() const { return d->name; }
qint64 QSimbaEvent::token() const { return d->token; }
QSimbaElection::Kind QSimbaEvent::kind() const { return d->kind; }
QSimbaTerm::RevokeReason QSimbaEvent::reason() const { return d->reason; }
ms QSimbaEvent::granted() const { return d->granted; }
ms QSimbaEvent::requested() const { return d->requested; }
QSimbaEvent::WorkOutcome QSimbaEvent::outcome() const { return d->outcome; }
QString QSimbaEvent::error() const { return d->error; }

QString QSimbaEvent::outcomeName(WorkOutcome outcome)
{
    return qsimbaSeedName(outcome);
}

QJsonObject QSimbaEvent::toJson() const
{
    QJsonObject o{{QStringLiteral("type"), typeName()},
                  {QStringLiteral("time"), d->time.toString(Qt::ISODateWithMs)},
                  {QStringLiteral("session"), d->session.toString()}};
    switch (d->type) {
    case Type::SessionOpened:
    case Type::SessionRenewed:
        o.insert(QStringLiteral("grantedMs"), qint64(d->granted.count()));
        break;
    case Type::SessionLeaseShortened:
        o.insert(QStringLiteral("grantedMs"), qint64(d->granted.count()));
        o.insert(QStringLiteral("requestedMs"), qint64(d->requested.count()));
        break;
    case Type::SessionSuspended:
        o.insert(QStringLiteral("error"), d->error);
        break;
    case Type::SessionExpired:
        o.insert(QStringLiteral("reason"), QSimbaTerm::reasonName(d->reason));
        break;
    case Type::SessionClosed:
        break;
    case Type::Elected:
    case Type::Revoked:
    case Type::AcquireFailed:
    case Type::WorkCompleted:
        o.insert(QStringLiteral("name"), d->name.toString());
        o.insert(QStringLiteral("kind"), QSimbaElection::kindName(d->kind));
        if (d->type != Type::AcquireFailed)
            o.insert(QStringLiteral("token"), d->token);
        if (d->type == Type::Revoked)
            o.insert(QStringLiteral("reason"), QSimbaTerm::reasonName(d->reason));
        if (d->type == Type::WorkCompleted)
            o.insert(QStringLiteral("outcome"), outcomeName(d->outcome));
        if (!d->error.isEmpty())
            o.insert(QStringLiteral("error"), d->error);
        break;
    }
    return o;
}

bool operator==(const QSimbaEvent &a, const QSimbaEvent &b)
{
    return a.d == b.d
           || (a.d->type == b.d->type && a.d->time == b.d->time && a.d->session == b.d->session
               && a.d->name == b.d->name && a.d->token == b.d->token && a.d->kind == b.d->kind
               && a.d->reason == b.d->reason && a.d->granted == b.d->granted && a.d->requested == b.d->requested
               && a.d->outcome == b.d->outcome && a.d->error == b.d->error);
}

QDebug operator<<(QDebug dbg, const QSimbaEvent &event)
{
    QDebugStateSaver saver(dbg);
    dbg.nospace().noquote() << "QSimbaEvent("
                            << QString::fromUtf8(QJsonDocument(event.toJson()).toJson(QJsonDocument::Compact)) << ')';
    return dbg;
}

#include "moc_qsimbaevent.cpp"
