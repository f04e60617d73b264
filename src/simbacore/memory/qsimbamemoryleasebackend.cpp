// SPDX-License-Identifier: Apache-2.0
#include "qsimbamemoryleasebackend.h"

#include "qsimbaerror.h"
#include "qsimbahandover_p.h"
#include "qsimbalogging_p.h"

#include <QtCore/QMutex>
#include <QtCore/QThread>
#include <QtCore/QWaitCondition>

#include <map>

/*!
    \class QSimbaMemoryLeaseBackend
    \brief Leases in this process's memory, with fault injection for tests.

    The in-memory backend: leases kept in this process, for tests and single-process use.
    Instances built with the same store name share one store for the life of the process
    (so tokens survive a new instance); an empty name makes a private store. The store's
    clock is the ticker it was created with.

    Fault injection (thread-safe, affects every instance of the store): failNext(),
    delayNext(), pause()/resume(), expireSession(), setDropHints(), setMaxLease().

    Thread-safe: the store is guarded by a mutex; hints are published on the calling thread
    after the store is unlocked.
*/

using namespace std::chrono;
using Millis = QSimbaLeaseBackend::Millis;

class QSimbaMemoryStore
{
public:
    struct Session
    {
        nanoseconds expiresAt{0};
        bool ended = false; // closed or expired: never revived
        QMap<QString, QString> metadata;
    };
    struct Lease
    {
        QSimbaSessionId holder;
        qint64 token = 0;
    };
    struct Listener
    {
        quint64 id;
        QSimbaLeaseBackend::HintListener fn;
    };

    QString name;
    std::shared_ptr<QSimbaTicker> ticker;

    mutable QMutex mutex;
    // Held while listeners run: a subscription that ends waits for a delivery in progress,
    // so no listener runs after its subscription was destroyed. Recursive: a listener may
    // end its own subscription.
    QRecursiveMutex deliveryMutex;
    QWaitCondition resumed;
    QHash<QSimbaSessionId, Session> sessions;
    QHash<QSimbaLeaseName, Lease> leases;
    QHash<QSimbaLeaseName, qint64> counters; // the last token of each name; never reset
    std::map<QString, QSet<QSimbaSessionId>> groups;
    QList<Listener> listeners;
    quint64 nextListenerId = 1;
    int failCalls = 0;
    int delayCalls = 0;
    nanoseconds delay{0};
    bool paused = false;
    bool dropHints = false;
    Millis maxLease = Millis::max();
    qint64 calls = 0;
    std::function<QSimbaSessionId()> newId = &QSimbaSessionId::generate;

    using Hints = QList<QSimbaLeaseBackend::Hint>;

    // Runs before every SPI call with the mutex held: counts, pauses, delays, fails.
    void enter(QMutexLocker<QMutex> &lock)
    {
        ++calls;
        while (paused)
            QSimbaTsan::wait(resumed, &mutex);
        if (delayCalls > 0) {
            --delayCalls;
            const auto d = delay;
            lock.unlock();
            QThread::usleep(quint64(duration_cast<microseconds>(d).count()));
            lock.relock();
        }
        if (failCalls > 0) {
            --failCalls;
            throw QSimbaBackendError(QStringLiteral("memory://%1: injected failure").arg(name));
        }
    }

    bool isLive(const QSimbaSessionId &id, Hints &hints)
    {
        auto it = sessions.find(id);
        if (it == sessions.end() || it->ended)
            return false;
        if (ticker->now() < it->expiresAt)
            return true;
        end(id, hints);
        return false;
    }

    // Ends a session: frees its leases and memberships, and forgets it (an unknown session
    // is an ended one: it is never revived).
    void end(const QSimbaSessionId &id, Hints &hints)
    {
        auto it = sessions.find(id);
        if (it == sessions.end() || it->ended)
            return;
        sessions.erase(it);
        for (auto l = leases.begin(); l != leases.end();) {
            if (l->holder == id) {
                hints.append({QSimbaLeaseBackend::Hint::Kind::Released, l.key().toString()});
                l = leases.erase(l);
            } else {
                ++l;
            }
        }
        for (auto &[group, members] : groups)
            if (members.remove(id))
                hints.append({QSimbaLeaseBackend::Hint::Kind::MembersChanged, group});
    }

    // Expires every session whose time ran out, so holders and members are all live.
    void sweep(Hints &hints)
    {
        const auto now = ticker->now();
        QList<QSimbaSessionId> expired;
        for (auto it = sessions.cbegin(); it != sessions.cend(); ++it)
            if (!it->ended && now >= it->expiresAt)
                expired.append(it.key());
        for (const auto &id : std::as_const(expired))
            end(id, hints);
    }

    Millis remainingOf(const QSimbaSessionId &id) const
    {
        return duration_cast<milliseconds>(sessions.value(id).expiresAt - ticker->now());
    }

    void publish(QMutexLocker<QMutex> &lock, const Hints &hints)
    {
        if (hints.isEmpty() || dropHints)
            return;
        lock.unlock();
        QMutexLocker delivery(&deliveryMutex);
        lock.relock();
        // Those still subscribed, copied: an implicitly shared copy released here would let
        // subscribe() reuse the block in place with nothing ordering it after these reads
        // (QList checks its reference count with a relaxed load).
        const std::vector<Listener> targets(listeners.cbegin(), listeners.cend());
        lock.unlock();
        for (const auto &hint : hints)
            for (const auto &l : targets)
                l.fn(hint);
    }
};

namespace {
QMutex registryMutex;
QHash<QString, std::shared_ptr<QSimbaMemoryStore>> &registry()
{
    static QHash<QString, std::shared_ptr<QSimbaMemoryStore>> stores;
    return stores;
}
} // namespace

QSimbaMemoryLeaseBackend::QSimbaMemoryLeaseBackend(const QString &storeName,
                                                   std::shared_ptr<QSimbaTicker> ticker)
{
    if (!storeName.isEmpty()) {
        QMutexLocker lock(&registryMutex);
        auto &store = registry()[storeName];
        if (!store) {
            store = std::make_shared<QSimbaMemoryStore>();
            store->name = storeName;
            store->ticker = std::move(ticker);
        }
        m_store = store;
    } else {
        m_store = std::make_shared<QSimbaMemoryStore>();
        m_store->name = QSimbaSessionId::generate().toString();
        m_store->ticker = std::move(ticker);
    }
}

QSimbaMemoryLeaseBackend::~QSimbaMemoryLeaseBackend() = default;

QSimbaLeaseBackend::Capabilities QSimbaMemoryLeaseBackend::capabilities() const
{
    Capabilities caps{true, true, true};
    // The store is guarded by its mutex, from whatever thread calls. A call returns at once,
    // unless a test paused or delayed the store: then it has no bound.
    caps.anyThread = true;
    QMutexLocker lock(&m_store->mutex);
    caps.callBound = m_store->paused || m_store->delayCalls > 0 ? Millis::max() : Millis(0);
    return caps;
}

QString QSimbaMemoryLeaseBackend::describe() const
{
    return QStringLiteral("memory://") + m_store->name;
}

QSimbaLeaseBackend::SessionGrant QSimbaMemoryLeaseBackend::openSession(Millis lease,
                                                                       const QMap<QString, QString> &metadata)
{
    validateLease(lease);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    const auto id = s.newId();
    const Millis granted = std::min(lease, s.maxLease);
    s.sessions.insert(id, {s.ticker->now() + granted, false, metadata});
    return {id, granted};
}

QSimbaLeaseBackend::KeepAliveResult QSimbaMemoryLeaseBackend::keepAlive(const QSimbaSessionId &session,
                                                                         Millis lease,
                                                                         const QSet<QSimbaLeaseName> &)
{
    validateLease(lease);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    KeepAliveResult result = KeepAliveResult::expired();
    if (s.isLive(session, hints)) {
        const Millis granted = std::min(lease, s.maxLease);
        s.sessions[session].expiresAt = s.ticker->now() + granted;
        QSet<QSimbaLeaseName> owned;
        for (auto it = s.leases.cbegin(); it != s.leases.cend(); ++it)
            if (it->holder == session)
                owned.insert(it.key());
        result = KeepAliveResult::live(granted, owned);
    }
    s.publish(lock, hints);
    return result;
}

QHash<QSimbaLeaseName, QSimbaLeaseBackend::AcquireResult>
QSimbaMemoryLeaseBackend::acquire(const QSimbaSessionId &session, const QSet<QSimbaLeaseName> &names)
{
    validateBatch(names);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    s.sweep(hints);
    if (!s.isLive(session, hints)) {
        s.publish(lock, hints);
        throw QSimbaSessionExpiredError(
            QStringLiteral("memory://%1: session %2 has expired").arg(s.name, session.toString()));
    }
    QHash<QSimbaLeaseName, AcquireResult> results;
    for (const auto &name : names) {
        auto it = s.leases.find(name);
        if (it != s.leases.end()) {
            results.insert(name, it->holder == session
                                     ? AcquireResult::granted(it->token)
                                     : AcquireResult::heldBy(it->holder, it->token, s.remainingOf(it->holder)));
            continue;
        }
        const qint64 token = ++s.counters[name];
        s.leases.insert(name, {session, token});
        results.insert(name, AcquireResult::granted(token));
    }
    s.publish(lock, hints);
    return results;
}

void QSimbaMemoryLeaseBackend::release(const QSimbaSessionId &session,
                                       const QHash<QSimbaLeaseName, qint64> &leases)
{
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    for (auto it = leases.cbegin(); it != leases.cend(); ++it) {
        auto l = s.leases.find(it.key());
        if (l != s.leases.end() && l->holder == session && l->token == it.value()) {
            s.leases.erase(l);
            hints.append({Hint::Kind::Released, it.key().toString()});
        }
    }
    s.publish(lock, hints);
}

void QSimbaMemoryLeaseBackend::closeSession(const QSimbaSessionId &session)
{
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    s.end(session, hints);
    s.publish(lock, hints);
}

void QSimbaMemoryLeaseBackend::join(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    if (!s.isLive(session, hints)) {
        s.publish(lock, hints);
        throw QSimbaSessionExpiredError(
            QStringLiteral("memory://%1: session %2 has expired").arg(s.name, session.toString()));
    }
    if (!s.groups[group].contains(session)) {
        s.groups[group].insert(session);
        hints.append({Hint::Kind::MembersChanged, group});
    }
    s.publish(lock, hints);
}

void QSimbaMemoryLeaseBackend::leave(const QSimbaSessionId &session, const QString &group)
{
    validateGroup(group);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    auto it = s.groups.find(group);
    if (it != s.groups.end() && it->second.remove(session))
        hints.append({Hint::Kind::MembersChanged, group});
    s.publish(lock, hints);
}

QList<QSimbaSessionId> QSimbaMemoryLeaseBackend::members(const QString &group)
{
    validateGroup(group);
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    s.sweep(hints);
    QList<QSimbaSessionId> result;
    auto it = s.groups.find(group);
    if (it != s.groups.end())
        result = QList<QSimbaSessionId>(it->second.cbegin(), it->second.cend());
    std::sort(result.begin(), result.end());
    s.publish(lock, hints);
    return result;
}

namespace {
class MemorySubscription final : public QSimbaLeaseBackend::Subscription
{
public:
    MemorySubscription(std::shared_ptr<QSimbaMemoryStore> store, quint64 id)
        : m_store(std::move(store)), m_id(id) {}
    ~MemorySubscription() override
    {
        QMutexLocker delivery(&m_store->deliveryMutex); // waits for a delivery in progress
        QMutexLocker lock(&m_store->mutex);
        m_store->listeners.removeIf([this](const auto &l) { return l.id == m_id; });
    }

private:
    std::shared_ptr<QSimbaMemoryStore> m_store;
    quint64 m_id;
};
} // namespace

std::unique_ptr<QSimbaLeaseBackend::Subscription> QSimbaMemoryLeaseBackend::subscribe(HintListener listener)
{
    QMutexLocker lock(&m_store->mutex);
    const quint64 id = m_store->nextListenerId++;
    m_store->listeners.append({id, std::move(listener)});
    return std::make_unique<MemorySubscription>(m_store, id);
}

QSimbaLeaseBackend::Inspection QSimbaMemoryLeaseBackend::inspect()
{
    auto &s = *m_store;
    QMutexLocker lock(&s.mutex);
    s.enter(lock);
    QSimbaMemoryStore::Hints hints;
    s.sweep(hints);
    Inspection result;
    for (auto it = s.sessions.cbegin(); it != s.sessions.cend(); ++it)
        if (!it->ended)
            result.sessions.append({it.key(), s.remainingOf(it.key()), it->metadata});
    for (auto it = s.leases.cbegin(); it != s.leases.cend(); ++it)
        result.leases.append({it.key(), it->holder, it->token, s.remainingOf(it->holder)});
    for (const auto &[group, members] : s.groups) {
        QList<QSimbaSessionId> list(members.cbegin(), members.cend());
        std::sort(list.begin(), list.end());
        if (!list.isEmpty())
            result.groups.append({group, list});
    }
    std::sort(result.sessions.begin(), result.sessions.end(), [](auto &a, auto &b) { return a.id < b.id; });
    std::sort(result.leases.begin(), result.leases.end(), [](auto &a, auto &b) { return a.name < b.name; });
    s.publish(lock, hints);
    return result;
}

void QSimbaMemoryLeaseBackend::failNext(int calls)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->failCalls = calls;
}

void QSimbaMemoryLeaseBackend::delayNext(int calls, std::chrono::nanoseconds delay)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->delayCalls = calls;
    m_store->delay = delay;
}

void QSimbaMemoryLeaseBackend::pause()
{
    QMutexLocker lock(&m_store->mutex);
    m_store->paused = true;
}

void QSimbaMemoryLeaseBackend::resume()
{
    QMutexLocker lock(&m_store->mutex);
    m_store->paused = false;
    m_store->resumed.wakeAll();
}

void QSimbaMemoryLeaseBackend::expireSession(const QSimbaSessionId &session)
{
    QMutexLocker lock(&m_store->mutex);
    QSimbaMemoryStore::Hints hints;
    m_store->end(session, hints);
    m_store->publish(lock, hints);
}

void QSimbaMemoryLeaseBackend::dropLease(const QSimbaLeaseName &name)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->leases.remove(name);
}

void QSimbaMemoryLeaseBackend::setMaxLease(Millis maxLease)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->maxLease = maxLease;
}

int QSimbaMemoryLeaseBackend::sessionCount() const
{
    QMutexLocker lock(&m_store->mutex);
    return int(m_store->sessions.size());
}

void QSimbaMemoryLeaseBackend::setDropHints(bool drop)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->dropHints = drop;
}

void QSimbaMemoryLeaseBackend::setSessionIdGenerator(std::function<QSimbaSessionId()> generator)
{
    QMutexLocker lock(&m_store->mutex);
    m_store->newId = generator ? std::move(generator) : &QSimbaSessionId::generate;
}

qint64 QSimbaMemoryLeaseBackend::callCount() const
{
    QMutexLocker lock(&m_store->mutex);
    return m_store->calls;
}
