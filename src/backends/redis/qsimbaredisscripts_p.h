// SPDX-License-Identifier: Apache-2.0
// Private header: not installed, not part of the API.
#pragma once

#include <QtCore/QByteArray>

/*
 * The Lua scripts of the Redis backend, one per SPI call. Every script reads the server's
 * TIME (microseconds) and judges expiry on it. Common arguments: KEYS[1] = "{prefix}:epoch",
 * ARGV[1] = "{prefix}:" (the key base), ARGV[2] = maxLease in ms; the call's own arguments
 * follow from ARGV[3]. docs/backend-redis.md documents the keys.
 */
class QSimbaRedisScripts
{
public:
    enum Id { Open, KeepAlive, Acquire, Release, Close, Join, Leave, Members, Inspect, Count };

    static const QByteArray &body(Id id);
    //! The SHA1 of body(), as EVALSHA wants it.
    static const QByteArray &sha(Id id);
    static const char *name(Id id);
};
