import { LEASES_OF_LUA } from './lease/lua-lease';

/**
 * The admission script (types.ts `Store.admit` documents the rules). One EVALSHA decides and applies one admission
 * step all-or-nothing (D10): Redis runs a script without interleaving, and the script writes only after every check
 * has passed. Time comes from the gateway's clock in the spec (`now`, `day`); key TTLs only clean up.
 *
 * KEYS[1] = the step's admission mark (holds the undo record until kept or released), KEYS[2] = the shard's in-flight
 * index (member "id:step" → now; the sweeper releases what stays there too long), KEYS[3] = the shard's ready
 * sentinel (missing after an empty restart until the counters are rebuilt); the other keys are named in the
 * spec by index. ARGV[1] = JSON spec:
 *   { id, st: step number, now, day, ttl, slots: [{k, m, cap, fixed, w, code}], ctr: [{k, l}], ctrTtl, notFree,
 *     of: {t:'refuse', code} | {t:'bill', k, acc, price, code} | {t:'free'},
 *     ev: 0 | index of the event stream, u: [usage subjects], f: [counter ids of the plan], key: keyId | '',
 *     ctrOpt: counters optional (admit the slots anyway; reserve the counters only if all are below their limits),
 *     mark2: 0 | index of a second mark holding the counter reservation's undo (released on its own),
 *     n: units (absent: one unit, no unit marks), um: index of the first unit's mark (KEYS[um..um+n-1]), u0: the
 *     first unit's number (unit ids "id/u0".."id/u0+n-1"), part: reserve as many of the n units as the counters
 *     allow (cluster: a counter group; no overflow), lnow: the holders' clock (lease expiry, D33), lst: 0 | index of the
 *     wallet's account's stream (a reclaimed lease's refund event) }
 * A bill spends only what no holder has leased (b − Σ live leases, lease/lua-lease.ts).
 * Replies: {0, code, nextSlotFreeAt|-1, used}      refused
 *          {1, billed, charged, used, free, f}     admitted (free: counters incremented; f: units counted free)
 *          {2}                                     the account's balance is not in Redis yet
 *          {3}                                     this plan id (step) was admitted already
 *          {4}                                     the shard's counters are not rebuilt yet (Redis restarted empty)
 * where `used` lists the step's counters (`ctr` order) as after this step, for the caller's quota (types.ts).
 */
const ADMIT_BODY = `
local s = cjson.decode(ARGV[1])
local now = tonumber(s.now)
if redis.call('EXISTS', KEYS[3]) == 0 then return {4} end
if redis.call('EXISTS', KEYS[1]) == 1 then return {3} end
local function fmt(n) return string.format('%.0f', n) end

-- counters first: their values are reported with every answer (quota)
local used, isFree = {}, not s.notFree
for i, c in ipairs(s.ctr) do
  used[i] = tonumber(redis.call('GET', KEYS[c.k]) or '0')
  if used[i] >= c.l then isFree = false end
end

-- slots, in order; the first refusal wins (D9). Nothing is written before every check has passed.
local changes, expired = {}, {}
for _, sl in ipairs(s.slots) do
  local key = KEYS[sl.k]
  local all = redis.call('HGETALL', key)
  local live, earliest, mine = 0, nil, nil
  for i = 1, #all, 2 do
    local f, l = string.match(all[i + 1], '^(%d+):(%d+)$')
    f, l = tonumber(f), tonumber(l)
    local frees = (sl.fixed and f or l) + sl.w
    if frees > now then
      live = live + 1
      if earliest == nil or frees < earliest then earliest = frees end
      if all[i] == sl.m then mine = {f, l, all[i + 1]} end
    elseif all[i] ~= sl.m then
      expired[#expired + 1] = {key, all[i]}
    end
  end
  if mine then
    changes[#changes + 1] = {key, sl.m, mine[3], fmt(mine[1]) .. ':' .. fmt(math.max(now, mine[2])), sl.w}
  elseif live < sl.cap then
    changes[#changes + 1] = {key, sl.m, '', fmt(now) .. ':' .. fmt(now), sl.w}
  else
    return {0, sl.code, earliest or -1, used}
  end
end

-- units (types.ts Store.admit): the free units are the fewest any counter has left; the rest overflow. Decided
-- before anything is written; each unit gets its own mark (and event), KEYS[1] holds the step's slot changes.
if s.n then
  local n = s.n
  local f = n
  for i, c in ipairs(s.ctr) do
    if c.l - used[i] < f then f = c.l - used[i] end
  end
  if f < 0 or s.notFree then f = 0 end
  if s.part then n = f end
  local over, price, wallet = n - f, 0, ''
  if over > 0 then
    if s.of.t == 'refuse' then return {0, s.of.code, -1, used} end
    if s.of.t == 'bill' then
      wallet = KEYS[s.of.k]
      local b, leased = leasesOf(wallet, s.lnow, '', s.lst > 0 and KEYS[s.lst] or nil)
      if not b then return {2} end
      if b - leased < s.of.price * over then return {0, s.of.code, -1, used} end
      price = s.of.price
    end
  end
  for _, e in ipairs(expired) do redis.call('HDEL', e[1], e[2]) end
  for _, c in ipairs(changes) do
    redis.call('HSET', c[1], c[2], c[4])
    redis.call('PEXPIRE', c[1], c[5] + 86400000)
  end
  local counters = {}
  if f > 0 then
    for i, c in ipairs(s.ctr) do
      redis.call('INCRBY', KEYS[c.k], f)
      redis.call('EXPIRE', KEYS[c.k], s.ctrTtl)
      counters[#counters + 1] = KEYS[c.k]
      used[i] = used[i] + f
    end
  end
  if price > 0 then redis.call('HINCRBY', wallet, 'b', -price * over) end
  local ev, fs, us = s.ev > 0 and KEYS[s.ev] or '', table.concat(s.f, ' '), table.concat(s.u, ' ')
  for i = 1, n do
    local id, free = s.id .. '/' .. (s.u0 + i - 1), i <= f
    local p = free and 0 or price
    local acc, b, uf = p > 0 and s.of.acc or '', p > 0 and 1 or 0, (free and ev ~= '') and fs or ''
    if ev ~= '' then
      redis.call('XADD', ev, '*', 't', 'adm', 'e', 'adm:' .. id, 'id', id, 'd', s.day, 'n', fmt(now), 'u', us,
        'f', uf, 'b', b, 'a', acc, 'c', p, 'k', s.key)
    end
    redis.call('SET', KEYS[s.um + i - 1], cjson.encode({s = {}, c = free and counters or {}, w = p > 0 and wallet or '',
      a = acc, p = p, ev = ev, id = id, d = s.day, u = us, f = uf, b = b, k = s.key, at = fmt(now)}), 'EX', s.ttl)
    redis.call('ZADD', KEYS[2], now, id .. ':' .. s.st)
  end
  redis.call('SET', KEYS[1], cjson.encode({s = changes, c = {}, w = '', a = '', p = 0, ev = '', id = s.id, d = s.day,
    u = '', f = '', b = 0, k = s.key}), 'EX', s.ttl)
  redis.call('ZADD', KEYS[2], now, s.id .. ':' .. s.st)
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. fmt(now - s.ttl * 1000))
  return {1, price > 0 and over > 0 and 1 or 0, price * over, used, f > 0 and 1 or 0, f}
end

-- not free: the overflow decides
local charged, wallet = 0, nil
if not isFree and not s.ctrOpt then
  if s.of.t == 'refuse' then return {0, s.of.code, -1, used} end
  if s.of.t == 'bill' then
    wallet = KEYS[s.of.k]
    local b, leased = leasesOf(wallet, s.lnow, '', s.lst > 0 and KEYS[s.lst] or nil)
    if not b then return {2} end
    if b - leased < s.of.price then return {0, s.of.code, -1, used} end
    charged = s.of.price
  end
end

-- admitted: apply everything
for _, e in ipairs(expired) do redis.call('HDEL', e[1], e[2]) end
for _, c in ipairs(changes) do
  redis.call('HSET', c[1], c[2], c[4])
  redis.call('PEXPIRE', c[1], c[5] + 86400000)
end
local counters = {}
if isFree then
  for i, c in ipairs(s.ctr) do
    redis.call('INCR', KEYS[c.k])
    redis.call('EXPIRE', KEYS[c.k], s.ctrTtl)
    counters[#counters + 1] = KEYS[c.k]
    used[i] = used[i] + 1
  end
end
local acc = ''
if charged > 0 then
  redis.call('HINCRBY', wallet, 'b', -charged)
  acc = s.of.acc
end
local billed = charged > 0 and 1 or 0
local ev = ''
if s.ev > 0 and (isFree or not s.ctrOpt) then
  ev = KEYS[s.ev]
  local f = isFree and table.concat(s.f, ' ') or ''
  redis.call('XADD', ev, '*', 't', 'adm', 'e', 'adm:' .. s.id, 'id', s.id, 'd', s.day, 'n', fmt(now),
    'u', table.concat(s.u, ' '), 'f', f, 'b', billed, 'a', acc, 'c', charged, 'k', s.key)
end
local function undoOf(slotChanges, ctrs, withEvent)
  local e = withEvent and ev or ''
  return cjson.encode({s = slotChanges, c = ctrs, w = wallet or '', a = acc, p = charged, ev = e, id = s.id,
    d = s.day, u = table.concat(s.u, ' '), f = (isFree and e ~= '') and table.concat(s.f, ' ') or '', b = billed,
    k = s.key, at = fmt(now)})
end
if s.mark2 > 0 then
  -- split marks: the slots (KEYS[1]) and the counter reservation (KEYS[mark2]) can be released separately
  redis.call('SET', KEYS[1], undoOf(changes, {}, false), 'EX', s.ttl)
  redis.call('ZADD', KEYS[2], now, s.id .. ':' .. s.st)
  if isFree then
    redis.call('SET', KEYS[s.mark2], undoOf({}, counters, true), 'EX', s.ttl)
    redis.call('ZADD', KEYS[2], now, s.id .. ':' .. (s.st + 1))
  end
else
  redis.call('SET', KEYS[1], undoOf(changes, counters, true), 'EX', s.ttl)
  redis.call('ZADD', KEYS[2], now, s.id .. ':' .. s.st)
end
-- entries older than the marks' TTL have no mark left (never kept, no sweeper): drop them so the index stays bounded
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. fmt(now - s.ttl * 1000))
return {1, billed, charged, used, isFree and 1 or 0}
`;

export const ADMIT_LUA = `${LEASES_OF_LUA}${ADMIT_BODY}`;

/**
 * The admissions of one event-loop turn in one call (one Redis server; admission.ts queues them): the admission
 * script's body run once per admission, in queue order, each with its own KEYS and spec, each all-or-nothing as
 * alone. ARGV in pairs: ARGV[2i - 1] = how many of KEYS the i-th admission takes (consecutively), ARGV[2i] = its
 * spec. Reply: the admission script's reply for each, in order. Why: one EVALSHA per turn instead of one per request
 * is what takes anonymous traffic (one script per request, nothing to lease) under one Redis call per request; Redis
 * runs a script without interleaving, so the batch is as isolated as its parts.
 */
export const ADMIT_MANY_LUA = `${LEASES_OF_LUA}
local function admitOne(KEYS, ARGV)
${ADMIT_BODY}
end
local out, at = {}, 0
for i = 1, #ARGV, 2 do
  local n, keys = tonumber(ARGV[i]), {}
  for j = 1, n do keys[j] = KEYS[at + j] end
  at = at + n
  out[#out + 1] = admitOne(keys, {ARGV[i + 1]})
end
return out
`;

/**
 * Release one admission step exactly, once (types.ts `Store.release`): KEYS[1] is the step's admission mark; its
 * undo record is applied and the mark deleted, so a second release is a no-op. An entry the admission added is
 * removed, and a lastSeen it moved restored, only when nobody used the slot since. ARGV[1] = now (ms, for the event);
 * the event also carries the admission's time (`at`), which names the hourly ledger row its charge went to (D35).
 * KEYS[2] = the shard's in-flight index, ARGV[2] = the step's member there ("planId:step"), removed in any case.
 * Reply: 1 released, 0 nothing to release.
 */
export const RELEASE_LUA = `
redis.call('ZREM', KEYS[2], ARGV[2])
local raw = redis.call('GET', KEYS[1])
if not raw then return 0 end
redis.call('DEL', KEYS[1])
local u = cjson.decode(raw)
for _, c in ipairs(u.s) do
  if redis.call('HGET', c[1], c[2]) == c[4] then
    if c[3] ~= '' then redis.call('HSET', c[1], c[2], c[3]) else redis.call('HDEL', c[1], c[2]) end
  end
end
for _, k in ipairs(u.c) do
  local v = tonumber(redis.call('GET', k) or '0')
  if v > 0 then redis.call('DECR', k) end
end
if u.w ~= '' and u.p > 0 then redis.call('HINCRBY', u.w, 'b', u.p) end
if u.ev ~= '' then
  redis.call('XADD', u.ev, '*', 't', 'rel', 'e', 'rel:' .. u.id, 'id', u.id, 'd', u.d, 'n', ARGV[1], 'u', u.u,
    'f', u.f, 'b', u.b, 'a', u.a, 'c', u.p, 'k', u.k, 'at', u.at or '')
end
return 1
`;

/**
 * Keep admissions (the backend answered: the charge stands, D11): delete their marks and in-flight entries, so
 * nothing per request outlives its need. KEYS in pairs: KEYS[2j - 1] = a mark, KEYS[2j] = its shard's in-flight
 * index; ARGV[j] = the mark's in-flight member. On one Redis server the pairs may span shards (one call for every
 * keep of a batch); on a cluster a call holds one shard's. Reply: how many marks were still there.
 */
export const KEEP_LUA = `
local kept = 0
for j = 1, #ARGV do
  kept = kept + redis.call('DEL', KEYS[2 * j - 1])
  redis.call('ZREM', KEYS[2 * j], ARGV[j])
end
return kept
`;

/**
 * Rebuild a shard's daily counters after an empty restart (rebuild.ts): each counter becomes at least its drained
 * value (max, so a Redis that was not empty keeps its own higher, undrained counts). KEYS[1] = the shard's ready
 * sentinel, KEYS[2..] = counters; ARGV[1] = TTL (s), ARGV[2] = 1 to set the sentinel after this chunk, ARGV[i + 2] =
 * the drained value of KEYS[i + 1]. Reply: how many counters were raised.
 */
export const REBUILD_LUA = `
local raised = 0
for i = 2, #KEYS do
  local v = tonumber(ARGV[i + 1])
  if tonumber(redis.call('GET', KEYS[i]) or '0') < v then
    redis.call('SET', KEYS[i], v, 'EX', ARGV[1])
    raised = raised + 1
  end
end
if ARGV[2] == '1' then redis.call('SET', KEYS[1], '1') end
return raised
`;
