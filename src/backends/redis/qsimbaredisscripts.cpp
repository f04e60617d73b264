// SPDX-License-Identifier: Apache-2.0
#include "qsimbaredisscripts_p.h"

#include <QtCore/QCryptographicHash>

#include <array>

/*!
    \class QSimbaRedisScripts
    \internal
    \brief The Lua scripts: one atomic script per SPI call, on the server's clock.
*/

namespace {
// Shared by every script: the prefix and the hints. Release needs no more.
constexpr char corePrelude[] = R"lua(
local P = ARGV[1]
local function hint(kind, name) redis.call('PUBLISH', P .. 'hints', kind .. ' ' .. name) end
)lua";

// Shared by every script but release: the clock, liveness, ending a session (the recovery
// guard below). Times are microseconds of the server's TIME; numbers are stored with %d
// (exact below 2^53).
constexpr char prelude[] = R"lua(
local maxLease = tonumber(ARGV[2]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local function fmt(n) return string.format('%d', n) end
local function ms(us) return math.floor(us / 1000) end
-- The session's expiry if it is live.
local function alive(id)
  local e = redis.call('ZSCORE', P .. 'sessions', id)
  if e then
    e = tonumber(e)
    if e > now then return e end
  end
  return nil
end
-- Ends a session (closed or expired): frees its leases and memberships, forgets it.
local function endSession(id)
  redis.call('ZREM', P .. 'sessions', id)
  for _, name in ipairs(redis.call('SMEMBERS', P .. 'owned:' .. id)) do
    if redis.call('HGET', P .. 'lease:' .. name, 'holder') == id then
      redis.call('DEL', P .. 'lease:' .. name)
      hint('R', name)
    end
  end
  for _, g in ipairs(redis.call('SMEMBERS', P .. 'joined:' .. id)) do
    if redis.call('SREM', P .. 'group:' .. g, id) == 1 then hint('M', g) end
    if redis.call('SCARD', P .. 'group:' .. g) == 0 then redis.call('SREM', P .. 'groups', g) end
  end
  redis.call('DEL', P .. 'owned:' .. id, P .. 'joined:' .. id, P .. 'session:' .. id)
end
-- Ends up to `limit` sessions whose time ran out.
local function sweep(limit)
  local ids = redis.call('ZRANGEBYSCORE', P .. 'sessions', '-inf', fmt(now), 'LIMIT', 0, limit)
  for _, id in ipairs(ids) do endSession(id) end
end
)lua";

// The recovery guard, for the scripts that need it (open, acquire): the others do not build
// its functions and tables each time they run (about 2 us of server time per call for the
// whole prelude).
constexpr char guardPrelude[] = R"lua(
-- The commands that replace or drop data within a server run (DEBUG for DEBUG RELOAD), as
-- the keys of their call counts in INFO commandstats (literals: no string built per call).
local replacing = {'\r\ncmdstat_flushall:calls=', '\r\ncmdstat_flushdb:calls=', '\r\ncmdstat_swapdb:calls=',
  '\r\ncmdstat_debug:calls=', '\r\ncmdstat_restore:calls=', '\r\ncmdstat_restore-asking:calls=',
  '\r\ncmdstat_replicaof:calls=', '\r\ncmdstat_slaveof:calls='}
-- The server's identity for the guard: its run id, how often this run replaced data (from
-- INFO commandstats), and whether its statistics were reset (which hides that count). A
-- change means leases may have been lost or restored from older data.
-- The text after `key` in an INFO answer that matches `pattern` (anchored: '^…'), found with
-- a plain search (an unanchored Lua pattern scans the whole answer: it cost more than the
-- rest of acquire). Every key starts with the line break before its line ('\r\n', as INFO
-- ends each line): it matches whole field names only, and the search stops once per line
-- rather than at every 'c' of 'cmdstat_…,calls=…,usec=…' (half the guard's time before).
local function field(info, key, pattern, from)
  local _, e = string.find(info, key, from or 1, true)
  if not e then return nil end
  return string.match(info, pattern, e + 1)
end
-- INFO server and commandstats: one call where the server takes several sections (Redis 7
-- and later: its text is both sections', each field found in its own), else two.
local function serverInfo()
  if redis.REDIS_VERSION_NUM then
    local both = redis.call('INFO', 'server', 'commandstats')
    return both, both
  end
  return redis.call('INFO', 'server'), redis.call('INFO', 'commandstats')
end
local function serverRun(server, stats)
  -- The searches of commandstats start at its section (one text with server's on Redis 7).
  local from = string.find(stats, '# Commandstats', 1, true) or 1
  local replaced = 0
  for _, key in ipairs(replacing) do
    local calls = field(stats, key, '^%d+', from)
    if calls then replaced = replaced + tonumber(calls) end
  end
  local run = (field(server, '\r\nrun_id:', '^%x+') or '') .. ':' .. replaced
  local reset = field(stats, '\r\ncmdstat_config|resetstat:calls=', '^%d+', from)
  if reset then run = run .. ':r' .. reset end
  return run, replaced == 0 and not reset
end
-- Whether this server run provably lost no data of its own: nothing replaced (above), no
-- evicted key, and a primary that was never a promoted replica.
local function intact(unreplaced)
  if not unreplaced then return false end
  if tonumber(field(redis.call('INFO', 'stats'), '\r\nevicted_keys:', '^%d+') or '1') ~= 0 then return false end
  local rep = redis.call('INFO', 'replication')
  return string.find(rep, '\r\nrole:master\r\n', 1, true) ~= nil
    and field(rep, '\r\nmaster_replid2:', '^%x+') == string.rep('0', 40)
end
-- The recovery guard: the time before which no lease is granted, the server's run and why.
-- A prefix whose epoch is from another server run (restart, failover: 'restart'), or from
-- this run before it replaced data (DEBUG RELOAD, SWAPDB, …: 'reload'), may have lost leases
-- that are still valid for their holders: wait maxLease before granting. A prefix without an
-- epoch is new, or lost its data. It is provably new when the server has run for maxLease
-- (by its uptime, less the second that uptime may overstate) and lost nothing itself: any
-- lease of an earlier run has ended ('new', grants at once; on a server started less than
-- maxLease ago, once it has run maxLease). Otherwise wait
-- maxLease ('lost').
local function grantableFrom()
  local server, stats = serverInfo()
  local run, unreplaced = serverRun(server, stats)
  local e = redis.call('HMGET', KEYS[1], 'run', 'quiet', 'why', 'maxLease')
  if e[1] == run then
    if tonumber(e[4] or '0') < maxLease then redis.call('HSET', KEYS[1], 'maxLease', fmt(maxLease)) end
    return tonumber(e[2]), run, e[3] or 'restart'
  end
  -- The longest maxLease any client of the prefix used, if the epoch survived: a client
  -- configured shorter must not end the wait before a longer lease ran out.
  local longest = math.max(maxLease, tonumber(e[4] or '0'))
  local quiet, why = now + longest, 'restart'
  if e[1] and string.match(e[1], '^(%x*):') == string.match(run, '^(%x*):') then why = 'reload' end
  if not e[1] then
    why = 'lost'
    if intact(unreplaced) then
      -- uptime_in_seconds is the difference of two whole-second clocks, not the floor of
      -- the time run: up to one second more than the server ran. So the server started no
      -- earlier than now - (up - 1) s.
      local up = tonumber(field(server, '\r\nuptime_in_seconds:', '^%d+') or '0')
      quiet, why = math.min(quiet, now - (up - 1) * 1000000 + maxLease), 'new'
    end
  end
  if e[2] and tonumber(e[2]) > quiet then quiet = tonumber(e[2]) end
  redis.call('HSET', KEYS[1], 'run', run, 'quiet', fmt(quiet), 'since', fmt(now), 'why', why, 'maxLease', fmt(longest))
  return quiet, run, why
end
)lua";

// ARGV[3] id, ARGV[4] lease ms, ARGV[5..] metadata key, value, …
// -> granted remaining ms
constexpr char openScript[] = R"lua(
local id = ARGV[3]
local lease = tonumber(ARGV[4])
sweep(16)
grantableFrom()
redis.call('ZADD', P .. 'sessions', fmt(now + lease * 1000), id)
redis.call('DEL', P .. 'session:' .. id)
local fields = {'lease', ARGV[4]}
for i = 5, #ARGV, 2 do
  fields[#fields + 1] = 'm:' .. ARGV[i]
  fields[#fields + 1] = ARGV[i + 1]
end
redis.call('HSET', P .. 'session:' .. id, unpack(fields))
return lease
)lua";

// ARGV[3] id, ARGV[4] lease ms -> {0} expired | {1, remaining ms, owned name, …}
constexpr char keepAliveScript[] = R"lua(
local id = ARGV[3]
local lease = tonumber(ARGV[4])
if not alive(id) then
  endSession(id)
  sweep(16)
  return {0}
end
redis.call('ZADD', P .. 'sessions', 'XX', fmt(now + lease * 1000), id)
local result = {1, lease}
for _, name in ipairs(redis.call('SMEMBERS', P .. 'owned:' .. id)) do
  if redis.call('HGET', P .. 'lease:' .. name, 'holder') == id then
    result[#result + 1] = name
  else
    redis.call('SREM', P .. 'owned:' .. id, name)
  end
end
sweep(16)
return result
)lua";

// ARGV[3] id, ARGV[4..] names
// -> {-1} expired | {1, then per name: granted (1|0), token, holder, holder remaining ms}
//    where the holder '!<why>' means the recovery guard (why: new, lost, restart)
constexpr char acquireScript[] = R"lua(
local id = ARGV[3]
if not alive(id) then
  endSession(id)
  return {-1}
end
local quiet, run, why = grantableFrom()
local result = {1}
local function answer(granted, token, holder, remaining)
  result[#result + 1] = granted
  result[#result + 1] = token
  result[#result + 1] = holder
  result[#result + 1] = remaining
end
-- Never below a token handed out before a loss of data: floored at TIME in µs. Where SET
-- takes GET (Redis 6.2; scripts see REDIS_VERSION_NUM from 7), one call writes TIME and reads
-- the last token, and a second writes last + 1 in the rare case that is higher.
local function grant(name, lease)
  local key = P .. 'token:' .. name
  local token
  if redis.REDIS_VERSION_NUM then
    token = tonumber(redis.call('SET', key, fmt(now), 'GET') or '0') + 1
    if token <= now then token = now else redis.call('SET', key, fmt(token)) end
  else
    token = tonumber(redis.call('GET', key) or '0') + 1
    if token < now then token = now end
    redis.call('SET', key, fmt(token))
  end
  redis.call('HSET', lease, 'holder', id, 'token', fmt(token), 'run', run)
  redis.call('SADD', P .. 'owned:' .. id, name)
  answer(1, token, '', 0)
end
for i = 4, #ARGV do
  local name = ARGV[i]
  local lease = P .. 'lease:' .. name
  local h = redis.call('HMGET', lease, 'holder', 'token', 'run', 'waited')
  local holderExpiry = h[1] and alive(h[1])
  if h[1] == id and h[3] == run then
    answer(1, tonumber(h[2]), '', 0)
  elseif h[1] == id then
    -- Held by the caller in data from another server run, which may be a restored older
    -- state (its token may be below one granted since): granted anew, with a new token,
    -- once the guard allows.
    if now < quiet then answer(0, tonumber(h[2]), '!' .. why, ms(quiet - now) + 1) else grant(name, lease) end
  elseif holderExpiry then
    -- The caller waits for the name: the holder's release publishes its hint (release).
    if not h[4] then redis.call('HSET', lease, 'waited', '1') end
    answer(0, tonumber(h[2]), h[1], ms(holderExpiry - now))
  else
    if h[1] then endSession(h[1]) end
    if now < quiet then
      answer(0, tonumber(redis.call('GET', P .. 'token:' .. name) or '0'), '!' .. why, ms(quiet - now) + 1)
    else
      grant(name, lease)
    end
  end
end
return result
)lua";

// ARGV[3] id, ARGV[4..] name, token, … -> number released
// Publishes Released only for a name somebody waits for: an acquire answered HeldBy marked
// its lease 'waited' (the mark goes with the lease; both are one script, so a release either
// sees the mark or comes before that acquire, which then finds the name free). Clients older
// than the mark wait without marking: they subscribe to the hints channel only, while every
// client that marks also subscribes to 'waitmarks' (on which nothing is published), so more
// subscribers of the first than of the second mean an older one listens, and every release
// publishes. So does a user whose ACL lacks PUBSUB NUMSUB.
constexpr char releaseScript[] = R"lua(
local id = ARGV[3]
local released = 0
local unmarked -- whether a client that does not mark its waits listens (nil: not asked)
local function unmarkedListeners()
  if unmarked == nil then
    local n = redis.pcall('PUBSUB', 'NUMSUB', P .. 'hints', P .. 'waitmarks')
    unmarked = type(n) ~= 'table' or n.err ~= nil or n[2] > n[4]
  end
  return unmarked
end
for i = 4, #ARGV, 2 do
  local name = ARGV[i]
  local h = redis.call('HMGET', P .. 'lease:' .. name, 'holder', 'token', 'waited')
  if h[1] == id and h[2] == ARGV[i + 1] then
    -- The name stays in the session's owned set: every reader of that set checks the
    -- lease's holder, and keepAlive drops the names the session no longer holds.
    redis.call('DEL', P .. 'lease:' .. name)
    if h[3] or unmarkedListeners() then hint('R', name) end
    released = released + 1
  end
end
return released
)lua";

// ARGV[3] id -> 1
constexpr char closeScript[] = R"lua(
endSession(ARGV[3])
return 1
)lua";

// ARGV[3] id, ARGV[4] group -> -1 expired | 1
constexpr char joinScript[] = R"lua(
local id, g = ARGV[3], ARGV[4]
if not alive(id) then
  endSession(id)
  return -1
end
if redis.call('SADD', P .. 'group:' .. g, id) == 1 then
  redis.call('SADD', P .. 'joined:' .. id, g)
  redis.call('SADD', P .. 'groups', g)
  hint('M', g)
end
return 1
)lua";

// ARGV[3] id, ARGV[4] group -> 1
constexpr char leaveScript[] = R"lua(
local id, g = ARGV[3], ARGV[4]
if redis.call('SREM', P .. 'group:' .. g, id) == 1 then
  redis.call('SREM', P .. 'joined:' .. id, g)
  if redis.call('SCARD', P .. 'group:' .. g) == 0 then redis.call('SREM', P .. 'groups', g) end
  hint('M', g)
end
return 1
)lua";

// ARGV[3] group -> live member ids
constexpr char membersScript[] = R"lua(
local live = {}
for _, id in ipairs(redis.call('SMEMBERS', P .. 'group:' .. ARGV[3])) do
  if alive(id) then live[#live + 1] = id else endSession(id) end
end
return live
)lua";

// -> {{id, remaining ms, {key, value, …}}, …}, {{name, holder, token, remaining ms}, …},
//    {{group, {id, …}}, …}
constexpr char inspectScript[] = R"lua(
sweep(1000)
local sessions, leases, groups = {}, {}, {}
local live = redis.call('ZRANGEBYSCORE', P .. 'sessions', '(' .. fmt(now), '+inf', 'WITHSCORES')
for i = 1, #live, 2 do
  local id = live[i]
  local meta = {}
  local fields = redis.call('HGETALL', P .. 'session:' .. id)
  for j = 1, #fields, 2 do
    if string.sub(fields[j], 1, 2) == 'm:' then
      meta[#meta + 1] = string.sub(fields[j], 3)
      meta[#meta + 1] = fields[j + 1]
    end
  end
  sessions[#sessions + 1] = {id, ms(tonumber(live[i + 1]) - now), meta}
end
-- The leases of live sessions, from their owned sets (which may still name a released lease:
-- the holder tells).
for i = 1, #live, 2 do
  local id = live[i]
  for _, name in ipairs(redis.call('SMEMBERS', P .. 'owned:' .. id)) do
    local h = redis.call('HMGET', P .. 'lease:' .. name, 'holder', 'token')
    if h[1] == id then leases[#leases + 1] = {name, id, tonumber(h[2]), ms(tonumber(live[i + 1]) - now)} end
  end
end
for _, g in ipairs(redis.call('SMEMBERS', P .. 'groups')) do
  local members = {}
  for _, id in ipairs(redis.call('SMEMBERS', P .. 'group:' .. g)) do
    if alive(id) then members[#members + 1] = id end
  end
  if #members > 0 then groups[#groups + 1] = {g, members} end
end
return {sessions, leases, groups}
)lua";

struct Script
{
    const char *name;
    QByteArray body;
    QByteArray sha;
};

const std::array<Script, QSimbaRedisScripts::Count> &scripts()
{
    static const std::array<Script, QSimbaRedisScripts::Count> all = [] {
        struct Source
        {
            const char *name;
            const char *body;
            bool guarded; // runs the recovery guard
        };
        const std::array<Source, QSimbaRedisScripts::Count> sources{{
            {"open", openScript, true},
            {"keepAlive", keepAliveScript, false},
            {"acquire", acquireScript, true},
            {"release", releaseScript, false},
            {"close", closeScript, false},
            {"join", joinScript, false},
            {"leave", leaveScript, false},
            {"members", membersScript, false},
            {"inspect", inspectScript, false},
        }};
        std::array<Script, QSimbaRedisScripts::Count> result;
        for (size_t i = 0; i < sources.size(); ++i) {
            QByteArray body(corePrelude);
            if (i != QSimbaRedisScripts::Release)
                body.append(prelude);
            if (sources[i].guarded)
                body.append(guardPrelude);
            body.append(sources[i].body);
            result[i] = {sources[i].name, body,
                         QCryptographicHash::hash(body, QCryptographicHash::Sha1).toHex()};
        }
        return result;
    }();
    return all;
}
} // namespace

const QByteArray &QSimbaRedisScripts::body(Id id)
{
    return scripts()[size_t(id)].body;
}

const QByteArray &QSimbaRedisScripts::sha(Id id)
{
    return scripts()[size_t(id)].sha;
}

const char *QSimbaRedisScripts::name(Id id)
{
    return scripts()[size_t(id)].name;
}
