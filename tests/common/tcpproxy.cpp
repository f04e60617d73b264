// SPDX-License-Identifier: Apache-2.0
#include "tcpproxy.h"

#include <QtCore/QByteArray>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <deque>
#include <list>
#include <utility>
#include <vector>

using Clock = std::chrono::steady_clock;

namespace {
// Bytes read from one side, due for the other side at a time (Delay mode).
struct Chunk
{
    Clock::time_point due;
    QByteArray bytes;
    qsizetype written = 0;
};

struct Connection
{
    int client = -1;
    int server = -1; // -1: accepted while black-holed, not connected to the target yet
    std::deque<Chunk> toServer, toClient;
    std::deque<Chunk> held; // client bytes held by holdFrom()
    bool holding = false;
};

constexpr qsizetype ChunkSize = 64 * 1024;
constexpr size_t MaxQueued = 64; // chunks per direction before reading pauses

void closeFd(int &fd, bool abort)
{
    if (fd < 0)
        return;
    if (abort) {
        const linger rst{1, 0}; // close() then sends RST instead of FIN
        ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &rst, sizeof rst);
    }
    ::close(fd);
    fd = -1;
}

bool due(const std::deque<Chunk> &queue, Clock::time_point now)
{
    return !queue.empty() && queue.front().due <= now;
}

// Writes what is due of \a queue to \a fd; false when the peer is gone.
bool flush(int fd, std::deque<Chunk> &queue)
{
    const auto now = Clock::now();
    while (due(queue, now)) {
        Chunk &c = queue.front();
        const ssize_t n = ::send(fd, c.bytes.constData() + c.written, size_t(c.bytes.size() - c.written), MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
        c.written += n;
        if (c.written < c.bytes.size())
            return true;
        queue.pop_front();
    }
    return true;
}

// Reads one chunk of \a fd into \a queue, due at \a at; false on end of stream or error.
bool receive(int fd, std::deque<Chunk> &queue, Clock::time_point at)
{
    QByteArray buffer(ChunkSize, Qt::Uninitialized);
    const ssize_t n = ::recv(fd, buffer.data(), size_t(buffer.size()), 0);
    if (n < 0)
        return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    if (n == 0)
        return false;
    buffer.truncate(n);
    queue.push_back({at, buffer});
    return true;
}
} // namespace

TcpProxy::TcpProxy(const QString &targetHost, quint16 targetPort) : m_targetPort(targetPort)
{
    in_addr target{};
    if (::inet_pton(AF_INET, targetHost.toLatin1().constData(), &target) != 1) {
        m_error = QStringLiteral("target host '%1' is not an IPv4 address").arg(targetHost);
        return;
    }
    m_targetAddress = target.s_addr;
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
        || ::listen(m_listen, 64) != 0 || ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&address), &length) != 0
        || ::pipe2(m_wake, O_NONBLOCK | O_CLOEXEC) != 0) {
        m_error = QStringLiteral("cannot listen on 127.0.0.1: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        closeFd(m_listen, false);
        return;
    }
    m_port = ntohs(address.sin_port);
    m_thread = std::thread([this] { run(); });
}

TcpProxy::~TcpProxy()
{
    if (m_thread.joinable()) {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        wake();
        m_thread.join();
    }
    closeFd(m_listen, false);
    closeFd(m_wake[0], false);
    closeFd(m_wake[1], false);
}

void TcpProxy::setMode(Mode mode, std::chrono::milliseconds delay)
{
    apply([&] {
        m_mode = mode;
        m_delay = delay;
    });
}

void TcpProxy::holdFrom(const QByteArray &needle, int before)
{
    apply([&] {
        m_holdNeedle = needle;
        m_holdBefore = before;
        m_holdRelease = false;
    });
}

void TcpProxy::releaseHold()
{
    apply([&] {
        m_holdNeedle.clear();
        m_holdRelease = true;
    });
    m_holding = false;
}

// Makes \a change under the mutex and returns once the proxy's thread applied it.
void TcpProxy::apply(const std::function<void()> &change)
{
    std::unique_lock lock(m_mutex);
    change();
    const quint64 generation = ++m_generation;
    if (!m_thread.joinable())
        return;
    lock.unlock();
    wake();
    lock.lock();
    m_appliedChanged.wait(lock, [&] { return m_applied >= generation; });
}

TcpProxy::Mode TcpProxy::mode() const
{
    std::lock_guard lock(m_mutex);
    return m_mode;
}

void TcpProxy::wake()
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(m_wake[1], &byte, 1);
}

void TcpProxy::run()
{
    std::list<Connection> connections;
    const auto drop = [&](std::list<Connection>::iterator it, bool abort) {
        closeFd(it->client, abort);
        closeFd(it->server, abort);
        --m_connections;
        return connections.erase(it);
    };
    const auto connectTarget = [&](Connection &c) {
        c.server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in target{};
        target.sin_family = AF_INET;
        target.sin_addr.s_addr = m_targetAddress;
        target.sin_port = htons(m_targetPort);
        // Blocking connect: the target is on this host, and the kernel completes the
        // handshake even when the target process is frozen.
        if (c.server < 0 || ::connect(c.server, reinterpret_cast<sockaddr *>(&target), sizeof target) != 0) {
            closeFd(c.server, false);
            return false;
        }
        ::fcntl(c.server, F_SETFL, ::fcntl(c.server, F_GETFL) | O_NONBLOCK);
        return true;
    };

    for (;;) {
        Mode mode;
        std::chrono::milliseconds delay;
        quint64 generation;
        QByteArray holdNeedle;
        int holdBefore;
        {
            std::lock_guard lock(m_mutex);
            if (m_stop)
                break;
            mode = m_mode;
            delay = m_delay;
            generation = m_generation;
            holdNeedle = m_holdNeedle;
            holdBefore = m_holdBefore;
            if (std::exchange(m_holdRelease, false)) {
                for (Connection &c : connections) {
                    for (Chunk &chunk : c.held)
                        c.toServer.push_back(std::move(chunk));
                    c.held.clear();
                    c.holding = false;
                }
            }
        }
        // Apply the mode before acknowledging it.
        for (auto it = connections.begin(); it != connections.end();) {
            if (mode == Mode::Reset) {
                it = drop(it, true);
                continue;
            }
            if (mode != Mode::BlackHole && it->server < 0 && !connectTarget(*it)) {
                it = drop(it, true);
                continue;
            }
            ++it;
        }
        {
            std::lock_guard lock(m_mutex);
            if (m_applied != generation) {
                m_applied = generation;
                m_appliedChanged.notify_all();
            }
        }

        const bool relay = mode == Mode::Forward || mode == Mode::Delay;
        std::vector<pollfd> fds{{m_wake[0], POLLIN, 0}, {m_listen, POLLIN, 0}};
        auto now = Clock::now();
        int timeout = -1;
        const auto consider = [&](const std::deque<Chunk> &queue) {
            if (queue.empty() || queue.front().due <= now)
                return;
            const auto wait = std::chrono::ceil<std::chrono::milliseconds>(queue.front().due - now).count();
            timeout = timeout < 0 ? int(wait) : std::min(timeout, int(wait));
        };
        for (Connection &c : connections) {
            short client = 0, server = 0;
            if (relay) {
                if (c.toServer.size() < MaxQueued)
                    client |= POLLIN;
                if (c.toClient.size() < MaxQueued)
                    server |= POLLIN;
                if (due(c.toClient, now))
                    client |= POLLOUT;
                if (due(c.toServer, now))
                    server |= POLLOUT;
                consider(c.toClient);
                consider(c.toServer);
            }
            // Black-holed: nothing is polled, so nothing is read, written or closed.
            fds.push_back({relay ? c.client : -1, client, 0});
            fds.push_back({relay ? c.server : -1, server, 0});
        }
        if (::poll(fds.data(), nfds_t(fds.size()), timeout) < 0 && errno != EINTR)
            break;
        if (fds[0].revents) {
            char buffer[64];
            while (::read(m_wake[0], buffer, sizeof buffer) > 0) {
            }
        }
        now = Clock::now();
        size_t index = 2;
        for (auto it = connections.begin(); it != connections.end(); index += 2) {
            const short client = fds[index].revents, server = fds[index + 1].revents;
            const auto at = mode == Mode::Delay ? now + delay : now;
            bool alive = true;
            if (client & (POLLIN | POLLHUP | POLLERR)) {
                const size_t queued = it->toServer.size();
                alive = receive(it->client, it->toServer, at);
                if (alive && it->toServer.size() > queued) {
                    Chunk &chunk = it->toServer.back();
                    if (it->holding) {
                        it->held.push_back(std::move(chunk));
                        it->toServer.pop_back();
                    } else if (!holdNeedle.isEmpty() && !m_holding.load()) {
                        const qsizetype found = chunk.bytes.indexOf(holdNeedle);
                        if (found >= 0) {
                            const qsizetype cut = std::max<qsizetype>(0, found - holdBefore);
                            it->held.push_back({chunk.due, chunk.bytes.mid(cut)});
                            chunk.bytes.truncate(cut);
                            if (chunk.bytes.isEmpty())
                                it->toServer.pop_back();
                            it->holding = true;
                            m_holding = true;
                        }
                    }
                }
            }
            if (alive && (server & (POLLIN | POLLHUP | POLLERR)))
                alive = receive(it->server, it->toClient, at);
            if (alive && relay)
                alive = flush(it->client, it->toClient) && flush(it->server, it->toServer);
            it = alive ? std::next(it) : drop(it, false);
        }
        if (fds[1].revents & POLLIN) {
            for (;;) {
                const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
                if (fd < 0)
                    break;
                ++m_accepted;
                ++m_connections;
                Connection c;
                c.client = fd;
                connections.push_back(std::move(c));
                if (mode == Mode::Reset)
                    drop(std::prev(connections.end()), true);
                else if (relay && !connectTarget(connections.back()))
                    drop(std::prev(connections.end()), true);
            }
        }
    }
    for (auto it = connections.begin(); it != connections.end();)
        it = drop(it, false);
}
