// SPDX-License-Identifier: Apache-2.0
// The fault-injecting TCP proxy of the test fixtures, against an echo server.
#include "tcpproxy.h"

#include <QtCore/QElapsedTimer>
#include <QtNetwork/QTcpSocket>
#include <QtTest/QTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <list>
#include <mutex>
#include <thread>
#include "qsimbatestmain.h"

using namespace std::chrono_literals;
using Mode = TcpProxy::Mode;

namespace {
// Echoes every byte back, one thread per connection; stops in its destructor.
class EchoServer
{
public:
    EchoServer()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t n = sizeof a;
        ::bind(m_listen, reinterpret_cast<sockaddr *>(&a), sizeof a);
        ::listen(m_listen, 16);
        ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&a), &n);
        port = ntohs(a.sin_port);
        m_acceptor = std::thread([this] {
            for (;;) {
                const int fd = ::accept(m_listen, nullptr, nullptr);
                if (fd < 0)
                    return;
                std::lock_guard lock(m_mutex);
                m_fds.push_back(fd);
                m_threads.emplace_back([fd] {
                    char buffer[4096];
                    for (;;) {
                        const ssize_t r = ::recv(fd, buffer, sizeof buffer, 0);
                        if (r <= 0 || ::send(fd, buffer, size_t(r), MSG_NOSIGNAL) != r)
                            return;
                    }
                });
            }
        });
    }
    ~EchoServer()
    {
        ::shutdown(m_listen, SHUT_RDWR);
        m_acceptor.join();
        ::close(m_listen);
        std::lock_guard lock(m_mutex);
        for (int fd : m_fds)
            ::shutdown(fd, SHUT_RDWR);
        for (auto &t : m_threads)
            t.join();
        for (int fd : m_fds)
            ::close(fd);
    }
    quint16 port = 0;

private:
    int m_listen = -1;
    std::thread m_acceptor;
    std::mutex m_mutex;
    std::list<int> m_fds;
    std::list<std::thread> m_threads;
};

// Sends \a text and waits up to \a timeout for it to come back whole.
bool echoes(QTcpSocket &socket, const QByteArray &text, int timeout = 5000)
{
    if (socket.write(text) != text.size() || !socket.waitForBytesWritten(timeout))
        return false;
    QByteArray got;
    QElapsedTimer timer;
    timer.start();
    while (got.size() < text.size() && timer.elapsed() < timeout) {
        if (!socket.bytesAvailable() && !socket.waitForReadyRead(int(timeout - timer.elapsed())))
            break;
        got += socket.readAll();
    }
    return got == text;
}

bool connectTo(QTcpSocket &socket, const TcpProxy &proxy)
{
    socket.connectToHost(QStringLiteral("127.0.0.1"), proxy.port());
    return socket.waitForConnected(5000);
}
} // namespace

class tst_TcpProxy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void forwardRelaysBothWays()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        QVERIFY2(proxy.isListening(), qPrintable(proxy.errorString()));
        QTcpSocket socket;
        QVERIFY(connectTo(socket, proxy));
        QVERIFY(echoes(socket, "hello"));
        QVERIFY(echoes(socket, QByteArray(300 * 1024, 'x'))); // more than one chunk and queue
        QCOMPARE(proxy.accepted(), 1);
        socket.disconnectFromHost();
        QTRY_COMPARE(proxy.connections(), 0);
    }

    void blackHoleStopsForwardingAndKeepsConnectionsOpen()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        QTcpSocket before;
        QVERIFY(connectTo(before, proxy));
        QVERIFY(echoes(before, "one"));
        proxy.setMode(Mode::BlackHole);
        QCOMPARE(proxy.mode(), Mode::BlackHole);
        QVERIFY(!echoes(before, "two", 300));
        QCOMPARE(before.state(), QAbstractSocket::ConnectedState);
        // A new connection is accepted, and goes nowhere.
        QTcpSocket during;
        QVERIFY(connectTo(during, proxy));
        QTRY_COMPARE(proxy.accepted(), 2);
        QVERIFY(!echoes(during, "three", 300));
        QCOMPARE(during.state(), QAbstractSocket::ConnectedState);
        QCOMPARE(proxy.connections(), 2);
        // Healed: what was sent meanwhile arrives.
        proxy.setMode(Mode::Forward);
        QTRY_COMPARE(before.bytesAvailable(), qint64(3));
        QCOMPARE(before.readAll(), QByteArray("two"));
        QTRY_COMPARE(during.bytesAvailable(), qint64(5));
        QCOMPARE(during.readAll(), QByteArray("three"));
    }

    void delayAddsLatencyPerChunk()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        QTcpSocket socket;
        QVERIFY(connectTo(socket, proxy));
        proxy.setMode(Mode::Delay, 200ms);
        QElapsedTimer timer;
        timer.start();
        QVERIFY(echoes(socket, "slow"));
        // Delayed on the way there and on the way back.
        QVERIFY2(timer.elapsed() >= 400, qPrintable(QStringLiteral("%1ms").arg(timer.elapsed())));
        proxy.setMode(Mode::Forward);
        QVERIFY(echoes(socket, "fast"));
    }

    void holdFromCutsTheStreamBeforeAPattern()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        QTcpSocket held, other;
        QVERIFY(connectTo(held, proxy));
        QVERIFY(connectTo(other, proxy));
        QVERIFY(echoes(held, "first"));
        proxy.holdFrom("NEEDLE", 3);
        QVERIFY(!proxy.holding());
        // Relayed up to 3 bytes before the pattern; the rest of that connection waits.
        QCOMPARE(held.write("abcdefNEEDLEtail"), qint64(16));
        QTRY_VERIFY(proxy.holding());
        QTRY_COMPARE(held.bytesAvailable(), qint64(3));
        QCOMPARE(held.readAll(), QByteArray("abc"));
        QVERIFY(!echoes(held, "more", 300));
        QVERIFY(echoes(other, "NEEDLE again")); // other connections flow, unheld
        proxy.releaseHold();
        QVERIFY(!proxy.holding());
        QTRY_COMPARE(held.bytesAvailable(), qint64(17));
        QCOMPARE(held.readAll(), QByteArray("defNEEDLEtailmore"));
        QVERIFY(echoes(held, "after"));
    }

    void resetAbortsEveryConnection()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        QTcpSocket socket;
        QVERIFY(connectTo(socket, proxy));
        QVERIFY(echoes(socket, "one"));
        proxy.setMode(Mode::Reset);
        QCOMPARE(proxy.connections(), 0);
        socket.waitForReadyRead(5000);
        QCOMPARE(socket.state(), QAbstractSocket::UnconnectedState);
        QCOMPARE(socket.error(), QAbstractSocket::RemoteHostClosedError);
        // New connections are aborted as they come.
        QTcpSocket next;
        connectTo(next, proxy);
        next.waitForReadyRead(5000);
        QCOMPARE(next.state(), QAbstractSocket::UnconnectedState);
        proxy.setMode(Mode::Forward);
        QTcpSocket after;
        QVERIFY(connectTo(after, proxy));
        QVERIFY(echoes(after, "again"));
    }

    void modeSwitchesWhileAnotherThreadIsBlocked()
    {
        EchoServer echo;
        TcpProxy proxy(QStringLiteral("127.0.0.1"), echo.port);
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(proxy.port());
        QCOMPARE(::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
        proxy.setMode(Mode::BlackHole);
        // This thread blocks in recv() with no timeout; another one resets the connection.
        std::thread resetter([&] { proxy.setMode(Mode::Reset); });
        ::send(fd, "x", 1, MSG_NOSIGNAL);
        char byte;
        const ssize_t r = ::recv(fd, &byte, 1, 0); // returns: -1 (ECONNRESET), or 0 if send() took the error
        resetter.join();
        ::close(fd);
        QVERIFY(r <= 0);
    }

    void targetDownAbortsTheClient()
    {
        quint16 port;
        {
            EchoServer gone;
            port = gone.port;
        }
        TcpProxy proxy(QStringLiteral("127.0.0.1"), port);
        QTcpSocket socket;
        connectTo(socket, proxy);
        socket.waitForReadyRead(5000);
        QCOMPARE(socket.state(), QAbstractSocket::UnconnectedState);
        QTRY_COMPARE(proxy.connections(), 0);
    }

    void badTargetIsAnError()
    {
        TcpProxy proxy(QStringLiteral("db.example"), 5432);
        QVERIFY(!proxy.isListening());
        QVERIFY2(proxy.errorString().contains(QLatin1String("db.example")), qPrintable(proxy.errorString()));
    }
};

QSIMBA_TEST_GUILESS_MAIN(tst_TcpProxy)
#include "tst_tcpproxy.moc"
