// SPDX-License-Identifier: Apache-2.0
// Test support: not installed.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

/*
 * A TCP proxy for fault tests: it listens on a free port of 127.0.0.1 and forwards every
 * connection to a target, on a thread of its own (the test's thread may be blocked inside a
 * backend call while it switches the mode). Modes:
 *   Forward    relays bytes both ways;
 *   BlackHole  stops relaying both ways but keeps every connection open, and accepts new
 *              connections without connecting them to the target (until Forward again),
 *              as a silent network partition does;
 *   Delay      relays each chunk delay() late, in order;
 *   Reset      aborts every connection with a TCP RST, and new ones as they are accepted.
 * setMode() is thread-safe and takes effect before it returns. The destructor closes every
 * connection and joins the thread.
 *
 * holdFrom() cuts one request out of a stream, to order it after events elsewhere: the
 * bytes from a client to the target are relayed up to a given distance before the first
 * occurrence of a byte pattern (the start of the request that names a path, say), and the
 * rest of that connection's client bytes are held until releaseHold().
 */
class TcpProxy
{
public:
    enum class Mode { Forward, BlackHole, Delay, Reset };

    //! Starts forwarding 127.0.0.1:port() to \a targetHost:\a targetPort (an IPv4 address).
    TcpProxy(const QString &targetHost, quint16 targetPort);
    ~TcpProxy();
    TcpProxy(const TcpProxy &) = delete;
    TcpProxy &operator=(const TcpProxy &) = delete;

    //! False (with errorString()) when the proxy could not listen.
    bool isListening() const { return m_port != 0; }
    QString errorString() const { return m_error; }
    quint16 port() const { return m_port; }

    //! Switches the mode; \a delay is the added latency per chunk in Delay mode.
    void setMode(Mode mode, std::chrono::milliseconds delay = std::chrono::milliseconds(0));
    Mode mode() const;
    //! From now on, the first client bytes that contain \a needle are relayed only up to
    //! \a before bytes ahead of it; that connection's client bytes from there on are held
    //! (the other direction flows) until releaseHold(). The needle must arrive in one read
    //! (a short pattern in a small request does).
    void holdFrom(const QByteArray &needle, int before);
    //! True once holdFrom()'s pattern was seen and bytes are held.
    bool holding() const { return m_holding.load(); }
    //! Relays what is held, in order, and relays normally again.
    void releaseHold();

    //! Connections accepted and not yet closed.
    int connections() const { return m_connections.load(); }
    //! Connections accepted so far.
    int accepted() const { return m_accepted.load(); }

private:
    void run();
    void wake();
    void apply(const std::function<void()> &change);

    quint16 m_port = 0;
    QString m_error;
    int m_listen = -1;
    int m_wake[2] = {-1, -1};
    quint32 m_targetAddress = 0; // network order
    quint16 m_targetPort = 0;
    mutable std::mutex m_mutex;
    Mode m_mode = Mode::Forward;
    std::chrono::milliseconds m_delay{0};
    quint64 m_generation = 0; // bumped by each setMode, acknowledged by the loop
    quint64 m_applied = 0;
    bool m_stop = false;
    QByteArray m_holdNeedle; // empty: no hold armed
    int m_holdBefore = 0;
    bool m_holdRelease = false;
    std::atomic<bool> m_holding{false};
    std::atomic<int> m_connections{0};
    std::atomic<int> m_accepted{0};
    std::condition_variable m_appliedChanged;
    std::thread m_thread;
};
