// SPDX-License-Identifier: Apache-2.0
#include "qsimbaresolver_p.h"

#include "qsimbaduration_p.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

namespace {
struct Lookup
{
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    QSimbaResolver::Result result;
};

void lookup(const QByteArray &host, const std::shared_ptr<Lookup> &state)
{
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *list = nullptr;
    QSimbaResolver::Result result;
    const int rc = ::getaddrinfo(host.constData(), nullptr, &hints, &list);
    if (rc != 0) {
        result.error = QStringLiteral("cannot resolve %1: %2")
                           .arg(QString::fromUtf8(host), QString::fromLocal8Bit(gai_strerror(rc)));
    } else {
        QStringList v4, v6;
        for (const addrinfo *a = list; a; a = a->ai_next) {
            char text[INET6_ADDRSTRLEN] = {};
            const void *address = a->ai_family == AF_INET
                ? static_cast<const void *>(&reinterpret_cast<const sockaddr_in *>(a->ai_addr)->sin_addr)
                : static_cast<const void *>(&reinterpret_cast<const sockaddr_in6 *>(a->ai_addr)->sin6_addr);
            if ((a->ai_family == AF_INET || a->ai_family == AF_INET6)
                && ::inet_ntop(a->ai_family, address, text, sizeof text)) {
                QStringList &into = a->ai_family == AF_INET ? v4 : v6;
                if (!into.contains(QLatin1String(text)))
                    into.append(QString::fromLatin1(text));
            }
        }
        ::freeaddrinfo(list);
        result.addresses = v4 + v6;
        if (result.addresses.isEmpty())
            result.error = QStringLiteral("cannot resolve %1: no IPv4 or IPv6 address").arg(QString::fromUtf8(host));
    }
    std::lock_guard lock(state->mutex);
    state->result = result;
    state->finished = true;
    state->done.notify_all();
}

bool isNumeric(const QByteArray &host)
{
    in6_addr buffer;
    return ::inet_pton(AF_INET, host.constData(), &buffer) == 1 || ::inet_pton(AF_INET6, host.constData(), &buffer) == 1;
}
} // namespace

/*!
    Resolves \a host within \a timeout on a helper thread; a numeric address is returned at
    once. On a timeout the lookup is left to finish (its result is dropped) and the error
    says that the name did not resolve in time.
*/
QSimbaResolver::Result QSimbaResolver::resolve(const QString &host, std::chrono::milliseconds timeout)
{
    const QByteArray name = host.toUtf8();
    if (isNumeric(name))
        return {{host}, {}};
    auto state = std::make_shared<Lookup>();
    std::thread(lookup, name, state).detach();
    std::unique_lock lock(state->mutex);
    if (!state->done.wait_for(lock, timeout, [&] { return state->finished; }))
        return {{}, QStringLiteral("cannot resolve %1 within %2").arg(host, QSimbaDuration::format(timeout))};
    return state->result;
}
