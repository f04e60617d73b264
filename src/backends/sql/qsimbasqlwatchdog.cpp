// SPDX-License-Identifier: Apache-2.0
#include "qsimbasqlwatchdog_p.h"

#include "qsimbasqllogging_p.h"

#include <QtCore/QVariant>
#include <QtSql/QSqlDatabase>
#include <QtSql/QSqlDriver>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <dlfcn.h>
#include <pthread.h>
#include <sys/socket.h>

using Clock = std::chrono::steady_clock;

namespace {
// A function of the client library the Qt driver plugin already loaded (never loaded here:
// RTLD_NOLOAD), so this library does not link libpq or libmariadb itself.
template<typename Fn>
Fn clientFunction(const char *library, const char *symbol)
{
    void *handle = ::dlopen(library, RTLD_LAZY | RTLD_NOLOAD);
    return handle ? reinterpret_cast<Fn>(::dlsym(handle, symbol)) : nullptr;
}

// The driver's client connection (PGconn * or MYSQL *, its type's name in \a type), or null.
void *clientConnection(const QSqlDriver *driver, QByteArray *type = nullptr)
{
    const QVariant handle = driver ? driver->handle() : QVariant();
    if (type)
        *type = handle.typeName();
    return handle.isValid() ? *static_cast<void *const *>(handle.data()) : nullptr;
}

// The socket of the driver's client connection, or -1 while it has none.
int socketOfDriver(const QSqlDriver *driver)
{
    QByteArray type;
    void *connection = clientConnection(driver, &type);
    if (!connection)
        return -1;
    if (type == "PGconn*" || type == "pg_conn*") { // the typedef or the struct's name
        using PQsocket = int (*)(const void *);
        static const auto fn = clientFunction<PQsocket>("libpq.so.5", "PQsocket");
        return fn ? fn(connection) : -1;
    }
    if (type == "MYSQL*" || type == "st_mysql*") {
        using GetSocket = int (*)(void *);
        static const auto fn = clientFunction<GetSocket>("libmariadb.so.3", "mysql_get_socket");
        return fn ? fn(connection) : -1;
    }
    return -1;
}

class Watchdog
{
public:
    static Watchdog &instance()
    {
        static Watchdog watchdog;
        return watchdog;
    }

    //! While guards keep being armed, the thread wakes at least this often: a guard armed
    //! with a later deadline than its next wake-up does not need to wake it.
    static constexpr std::chrono::milliseconds IdleWake{1000};
    //! How often a connection being opened is looked at until its driver has connected.
    static constexpr std::chrono::milliseconds OpeningPoll{50};

    //! Arms a deadline for the socket \a fd.
    quint64 arm(int fd, Clock::time_point deadline) { return add(Entry{fd, deadline, false, nullptr, {}, false}); }
    //! Arms a deadline \a setup after the moment \a driver's connection exists (its connect
    //! is the client library's to bound): its socket is looked up then, and when it fires.
    quint64 armOpening(const QSqlDriver *driver, std::chrono::milliseconds setup)
    {
        return add(Entry{-1, Clock::now(), false, driver, setup, false});
    }

    // Removes the entry; true when it had fired.
    bool disarm(quint64 id)
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_armed.find(id);
        if (it == m_armed.end())
            return false;
        const bool fired = it->second.fired;
        m_armed.erase(it);
        return fired;
    }

    bool fired(quint64 id)
    {
        std::lock_guard lock(m_mutex);
        const auto it = m_armed.find(id);
        return it != m_armed.end() && it->second.fired;
    }

    ~Watchdog()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
            m_changed.notify_all();
        }
        if (m_thread.joinable())
            m_thread.join();
    }

private:
    struct Entry
    {
        int fd; // -1 for a connection being opened: its socket is looked up from its driver
        Clock::time_point deadline;
        bool fired;
        const QSqlDriver *driver;        // a connection being opened, or null
        std::chrono::milliseconds setup; // its bound once connected
        bool connected;                  // its deadline is set
    };

    quint64 add(const Entry &entry)
    {
        std::lock_guard lock(m_mutex);
        if (!m_thread.joinable()) {
            m_thread = std::thread([this] { run(); });
            ::pthread_setname_np(m_thread.native_handle(), "simba-sql-watch");
        }
        const quint64 id = ++m_next;
        m_armed.emplace(id, entry);
        m_armedSinceWake = true;
        // Woken only when it would otherwise wake too late for this deadline: not once per
        // statement (a context switch on every call's path).
        if (entry.deadline < m_wakeAt)
            m_changed.notify_all();
        return id;
    }

    void run()
    {
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            auto next = Clock::time_point::max();
            const auto now = Clock::now();
            for (auto &[id, e] : m_armed) {
                if (e.fired)
                    continue;
                if (e.driver && !e.connected) {
                    // Being opened: the setup's bound starts once the driver has connected
                    // (the client library's connect timeout bounds the connect). The driver
                    // sets its handle once, when the client library's connect returns, on
                    // the opening thread; this reads it from here, a pointer-sized value.
                    if (socketOfDriver(e.driver) < 0) {
                        next = std::min(next, now + OpeningPoll);
                        continue;
                    }
                    e.connected = true;
                    e.deadline = now + e.setup;
                }
                if (e.deadline <= now) {
                    // Under the mutex: the guard cannot disarm, so the descriptor is still the connection's.
                    const int fd = e.driver ? socketOfDriver(e.driver) : e.fd;
                    if (fd >= 0)
                        ::shutdown(fd, SHUT_RDWR);
                    e.fired = true;
                } else {
                    next = std::min(next, e.deadline);
                }
            }
            // Nothing armed: wake again after IdleWake while guards keep coming (so arming
            // one need not wake this thread), else only when one is armed.
            if (next == Clock::time_point::max() && m_armedSinceWake)
                next = now + IdleWake;
            m_armedSinceWake = false;
            m_wakeAt = next;
            if (next == Clock::time_point::max())
                m_changed.wait(lock);
            else
                m_changed.wait_until(lock, next);
        }
    }

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::map<quint64, Entry> m_armed;
    quint64 m_next = 0;
    Clock::time_point m_wakeAt = Clock::time_point::min(); // when the thread wakes next
    bool m_armedSinceWake = false;
    bool m_stop = false;
    std::thread m_thread;
};
} // namespace

void *QSimbaSqlWatchdog::clientSymbol(const char *library, const char *symbol)
{
    return clientFunction<void *>(library, symbol);
}

void *QSimbaSqlWatchdog::connectionOf(const QSqlDatabase &db)
{
    return db.isOpen() ? clientConnection(db.driver()) : nullptr;
}

int QSimbaSqlWatchdog::socketOf(const QSqlDatabase &db)
{
    return db.isOpen() ? socketOfDriver(db.driver()) : -1;
}

QSimbaSqlWatchdog::Guard::Guard(const QSqlDatabase &db, std::chrono::milliseconds timeout)
{
    const int fd = socketOf(db);
    if (fd >= 0)
        m_id = Watchdog::instance().arm(fd, Clock::now() + timeout);
}

QSimbaSqlWatchdog::Guard::~Guard()
{
    if (m_id)
        Watchdog::instance().disarm(m_id);
}

bool QSimbaSqlWatchdog::Guard::fired() const
{
    return m_id && Watchdog::instance().fired(m_id);
}

bool QSimbaSqlWatchdog::open(QSqlDatabase &db, std::chrono::milliseconds setup)
{
    Guard guard;
    if (db.driver())
        guard.m_id = Watchdog::instance().armOpening(db.driver(), setup);
    return db.open();
}
