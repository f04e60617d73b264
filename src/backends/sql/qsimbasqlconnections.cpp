// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlconnections_p.h"

#include <atomic>
#include <vector>

using namespace std::chrono;

struct QSimbaSqlConnections::Slot
{
    std::mutex mutex;
    std::unique_ptr<QSimbaSqlConnection> connection; // guarded by mutex
    quint64 lastUse = 0;                             // guarded by the owner's m_mutex

    void close()
    {
        std::unique_ptr<QSimbaSqlConnection> gone;
        {
            std::lock_guard lock(mutex);
            gone = std::move(connection);
        }
    }
};

namespace {
// A number per thread, never reused (a QThread's address can be).
quint64 threadNumber()
{
    static std::atomic<quint64> next{1};
    thread_local const quint64 number = next.fetch_add(1);
    return number;
}

// Closes, on this thread when it ends, the connections other backends opened for it.
struct ThreadEnd
{
    std::vector<std::weak_ptr<QSimbaSqlConnections::Slot>> slots;
    ~ThreadEnd()
    {
        for (const auto &weak : slots)
            if (const auto slot = weak.lock())
                slot->close();
    }
};
thread_local ThreadEnd t_threadEnd;
} // namespace

QSimbaSqlConnections::QSimbaSqlConnections(const Options &options) : m_home(options) {}

QSimbaSqlConnections::~QSimbaSqlConnections()
{
    QHash<quint64, std::shared_ptr<Slot>> others;
    {
        std::lock_guard lock(m_mutex);
        others.swap(m_others);
    }
    for (const auto &slot : std::as_const(others))
        slot->close();
}

QSimbaSqlConnection &QSimbaSqlConnections::current()
{
    const quint64 thread = threadNumber();
    std::shared_ptr<Slot> evicted;
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard lock(m_mutex);
        if (m_homeThread == 0)
            m_homeThread = thread;
        if (m_homeThread == thread)
            return m_home;
        slot = m_others.value(thread);
        if (!slot) {
            slot = std::make_shared<Slot>();
            t_threadEnd.slots.push_back(slot);
            if (m_others.size() >= MaxCallerConnections) {
                auto oldest = m_others.begin();
                for (auto it = m_others.begin(); it != m_others.end(); ++it)
                    if (it.value()->lastUse < oldest.value()->lastUse)
                        oldest = it;
                evicted = oldest.value();
                m_others.erase(oldest);
            }
            m_others.insert(thread, slot);
        }
        slot->lastUse = ++m_uses;
    }
    if (evicted) // not in use: calls come one at a time
        evicted->close();
    std::lock_guard lock(slot->mutex);
    if (!slot->connection) // new, or closed at the thread's end of an earlier slot: never here
        slot->connection = std::make_unique<QSimbaSqlConnection>(m_home.options());
    return *slot->connection;
}

milliseconds QSimbaSqlConnections::callBound() const
{
    const Options &o = m_home.options();
    const milliseconds call = o.statementTimeout + QSimbaSqlConnection::CallSlack;
    if (o.driver == QSimbaSqlConnection::Driver::Sqlite)
        return call; // a file: nothing to connect to, nothing lost
    // libpq and Connector/C count the connect timeout in whole seconds, libpq at least 2.
    milliseconds connect = ceil<seconds>(o.connectTimeout);
    if (o.driver == QSimbaSqlConnection::Driver::Postgres)
        connect = std::max<milliseconds>(connect, 2s);
    return call + connect + call;
}
