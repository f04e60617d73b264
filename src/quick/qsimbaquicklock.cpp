// SPDX-License-Identifier: Apache-2.0
#include "qsimbaquicklock.h"
#include "qsimbaquickutil_p.h"

#include "qsimba.h"
#include "qsimbaerror.h"

#include <QtQml/QJSEngine>
#include <QtQml/QQmlEngine>

/*!
    \qmltype SimbaLock
    \inqmlmodule QSimba
    \brief A distributed lock with a fencing token.

    \c{acquire(timeout)} and \c{tryAcquire()} return Promises; \c acquired and
    \c acquireFailed signal the same outcomes for declarative handlers.
*/
QSimbaQuickLock::QSimbaQuickLock(QObject *parent) : QSimbaQuickElement(parent) {}

QSimbaQuickLock::~QSimbaQuickLock()
{
    // Abandons a pending attempt (a term it wins is released) and releases a held term.
    if (m_cancel)
        m_cancel();
    if (!m_term.isNull())
        (void)m_term.releaseAsync();
}

void QSimbaQuickLock::setName(const QString &name)
{
    if (name == m_name)
        return;
    if (isHeld() || isPending()) {
        setError(QStringLiteral("name: cannot change while the lock is held or being acquired"));
        return;
    }
    m_name = name;
    Q_EMIT nameChanged();
}

QJSValue QSimbaQuickLock::promise(Settle *settle)
{
    QJSEngine *engine = qmlEngine(this);
    const QJSValue holder = engine->newObject();
    QJSValue factory = engine->evaluate(QStringLiteral(
        "(function(h) { return new Promise(function(resolve, reject) { h.resolve = resolve; h.reject = reject; }); })"));
    QJSValue p = factory.call({holder});
    settle->resolve = holder.property(QStringLiteral("resolve"));
    settle->reject = holder.property(QStringLiteral("reject"));
    return p;
}

QJSValue QSimbaQuickLock::rejected(const QString &message)
{
    setError(message);
    Q_EMIT acquireFailed(message);
    Settle settle;
    QJSValue p = promise(&settle);
    settle.reject.call({qmlEngine(this)->newErrorObject(QJSValue::GenericError, message)});
    return p;
}

QSimbaLock *QSimbaQuickLock::lock(QString *error)
{
    const QString rule = QSimbaLeaseName::validate(m_name, u"name");
    if (!rule.isEmpty()) {
        *error = rule;
        return nullptr;
    }
    if (isHeld()) {
        *error = QStringLiteral("acquire: this SimbaLock already holds \"%1\"; release() it first").arg(m_name);
        return nullptr;
    }
    if (isPending()) {
        *error = QStringLiteral("acquire: an acquire of \"%1\" is already pending").arg(m_name);
        return nullptr;
    }
    QSimba *client = simba();
    if (!client) {
        *error = errorString();
        return nullptr;
    }
    try {
        return client->lock(m_name);
    } catch (const QSimbaError &e) {
        *error = QStringLiteral("name: %1").arg(e.message());
        return nullptr;
    }
}

void QSimbaQuickLock::take(QSimbaLockTerm term)
{
    m_term = std::move(term);
    m_lost = false;
    const QSimbaTerm held = m_term.term();
    clearError();
    Q_EMIT heldChanged();
    Q_EMIT acquired(QSimbaQuickTerm(held));
    // A term that ends without release() (session lost, taken over) is reported. Its
    // Revoked event tells; term.revoked().then() would replace the engine's continuation.
    QObject::disconnect(m_events);
    m_events = connect(simba(), &QSimba::event, this, [this, held](const QSimbaEvent &event) {
        if (event.type() != QSimbaEvent::Type::Revoked || event.kind() != QSimbaElection::Kind::Lock
            || event.name() != held.name() || event.token() != held.token())
            return;
        QObject::disconnect(m_events);
        if (m_term.isNull() || m_term.term() != held || m_lost)
            return;
        m_lost = true;
        Q_EMIT heldChanged();
        Q_EMIT lost(QSimbaQuickTerm(held), QSimbaTerm::reasonName(event.reason()));
    });
}

// Settles a Promise from \a future: \a onResult resolves it with the result; a failure or
// a cancellation rejects it (and emits acquireFailed) with the error's message.
template<typename T, typename OnResult>
QJSValue QSimbaQuickLock::track(QFuture<T> future, const QString &what, OnResult onResult)
{
    Settle settle;
    QJSValue p = promise(&settle);
    m_busy = true;
    m_cancel = [future]() mutable { future.cancel(); };
    future.then(this, [this, settle, what, onResult](QFuture<T> f) mutable {
        settled();
        QString message = QStringLiteral("%1 of \"%2\" cancelled").arg(what, m_name);
        try {
            if (!f.isCanceled())
                return onResult(f.takeResult(), settle.resolve);
        } catch (const QSimbaError &e) {
            message = e.message();
        } catch (const std::exception &e) {
            message = QString::fromLocal8Bit(e.what());
        }
        Q_EMIT acquireFailed(message);
        settle.reject.call({qmlEngine(this)->newErrorObject(QJSValue::GenericError, message)});
    });
    Q_EMIT pendingChanged();
    return p;
}

QJSValue QSimbaQuickLock::acquire(const QVariant &timeout)
{
    QString error;
    const auto wait = QSimbaQuick::durationOf(timeout, QStringLiteral("acquire timeout"), &error);
    if (!error.isEmpty())
        return rejected(error);
    QSimbaLock *l = lock(&error);
    if (!l)
        return rejected(error);
    return track(l->acquireAsync(wait.value_or(std::chrono::nanoseconds(0))), QStringLiteral("acquire"),
                 [this](QSimbaLockTerm term, QJSValue &resolve) {
                     take(std::move(term));
                     resolve.call({qmlEngine(this)->toScriptValue(QSimbaQuickTerm(m_term.term()))});
                 });
}

QJSValue QSimbaQuickLock::tryAcquire()
{
    QString error;
    QSimbaLock *l = lock(&error);
    if (!l)
        return rejected(error);
    return track(l->tryAcquireAsync(), QStringLiteral("tryAcquire"),
                 [this](std::optional<QSimbaLockTerm> term, QJSValue &resolve) {
                     const bool won = term.has_value();
                     if (won)
                         take(std::move(*term));
                     resolve.call({QJSValue(won)});
                 });
}

void QSimbaQuickLock::settled()
{
    m_busy = false;
    m_cancel = nullptr;
    Q_EMIT pendingChanged();
}

void QSimbaQuickLock::release()
{
    if (m_term.isNull())
        return;
    QObject::disconnect(m_events);
    (void)m_term.releaseAsync();
    m_term = QSimbaLockTerm();
    m_lost = false;
    Q_EMIT heldChanged();
}

#include "moc_qsimbaquicklock.cpp"
