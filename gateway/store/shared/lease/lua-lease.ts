/**
 * The owner's side of D33's credit leases, in Redis. An account's wallet hash holds its balance `b` and one field per
 * holder with a live lease, `h:<holder>` = "units:expiresAt" (units of money reserved by that holder; expiresAt in
 * the gateway's epoch ms). What an account can still spend or grant is `b − Σ live leases`; a lease past its expiry
 * is reclaimed (deleted) by the next script that reads the wallet, so a holder that died returns its units at TTL.
 */

/**
 * Lua: `leasesOf(key, now, me, stream)` reads a wallet hash, deletes the leases past their expiry (reclaimed), and
 * returns b (nil when the wallet is not initialised), the units leased by holders other than `me` (field name), their
 * number, `me`'s own lease units and units charged in flight (`pif`), and the earliest expiry of the leases left
 * (nil: none). A lease field is "units:expiresAt:pif":
 * pif = units its holder charged for admissions it has not settled; a reclaimed lease refunds them (an unanswered
 * request is never charged, D34) with an event on `stream` (the account's; nil: such a lease is left for a script
 * that has it). Pasted at the top of every script that spends or grants a balance.
 */
export const LEASES_OF_LUA = `
local function leasesOf(key, now, me, stream)
  local all = redis.call('HGETALL', key)
  local b, others, holders, mine, pif = nil, 0, 0, 0, 0
  local refunds, minx = 0, nil
  for i = 1, #all, 2 do
    local f = all[i]
    if f == 'b' then
      b = tonumber(all[i + 1])
    elseif string.sub(f, 1, 2) == 'h:' then
      local u, x, p = string.match(all[i + 1], '^(%d+):(%d+):?(%d*)$')
      p = tonumber(p) or 0
      if u == nil then
        redis.call('HDEL', key, f)
      elseif tonumber(x) <= now and (p == 0 or stream) then
        -- reclaimed: its holder did not come back; what it charged for requests it never settled is refunded
        redis.call('HDEL', key, f)
        local pf = 'p:' .. string.sub(f, 3)
        local detail = redis.call('HGET', key, pf)
        if detail then redis.call('HDEL', key, pf) end
        if p > 0 then
          refunds = refunds + p
          local acc = string.match(key, ':w:(.+)$')
          local id = 'rf:' .. string.sub(f, 3) .. ':' .. string.format('%.0f', now)
          -- each (key, day, hour) the unsettled charges were posted to gets its requests and units back (D35: an
          -- admission never settled never reaches the ledger); what the detail does not cover, as one event
          local left, j = p, 0
          if detail then
            for k, d, n, u, x, c in string.gmatch(detail, '([^\\t\\n]*)\\t([^\\t\\n]*)\\t(%d+)\\t([^\\t\\n]*)\\t(%d+)\\t(%d+)') do
              local units = math.min(tonumber(c), left)
              if units > 0 then
                left = left - units
                j = j + 1
                redis.call('XADD', stream, '*', 't', 'adm', 'e', 'adm:' .. id .. ':' .. j, 'id', id .. ':' .. j, 'd', d,
                  'n', n, 'u', u, 'f', '', 'b', 1, 'a', acc, 'c', string.format('%.0f', -units), 'x', '-' .. x, 'k', k)
              end
            end
          end
          if left > 0 then
            redis.call('XADD', stream, '*', 't', 'adm', 'e', 'adm:' .. id, 'id', id, 'd', '', 'n',
              string.format('%.0f', now), 'u', '', 'f', '', 'b', 1, 'a', acc, 'c', string.format('%.0f', -left),
              'x', 0, 'k', '')
          end
        end
      else
        if minx == nil or tonumber(x) < minx then minx = tonumber(x) end
        if f == me then
          mine, pif = tonumber(u), p
        else
          others = others + tonumber(u)
          holders = holders + 1
        end
      end
    end
  end
  if refunds > 0 and b then
    b = redis.call('HINCRBY', key, 'b', refunds)
  end
  return b, others, holders, mine, pif, minx
end
`;

/**
 * A credit grant (D33): `grant = min(ask, floor(A / 2H))` requests' worth, A = the requests the unleased balance
 * pays for, H = live holders (this one included); nothing in direct mode (A < 4H), where the owner decides each
 * request itself. The holder's lease (what it had plus the grant) gets a new expiry, now + ttl.
 * KEYS[1] = the wallet, KEYS[2] = its account's event stream, KEYS[3] = its shard's lease index (account → the
 * earliest expiry of its leases, for the background reclaim). ARGV: holder field ("h:…"), now, ttl (ms), ask
 * (requests), price (units per request), account id.
 * Replies: {1, granted units, the holder's lease units after, H} | {2} the wallet is not initialised.
 */
export const GRANT_LUA = `${LEASES_OF_LUA}
local now, ttl, ask, price = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local b, others, holders, mine, pif = leasesOf(KEYS[1], now, ARGV[1], KEYS[2])
if b == nil then return {2} end
local h = holders + 1
local a = math.floor((b - others - mine) / price)
local g = 0
if a >= 4 * h then g = math.min(ask, math.floor(a / (2 * h))) * price end
mine = mine + g
if mine > 0 or pif > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%.0f:%.0f:%.0f', mine, now + ttl, pif))
  redis.call('ZADD', KEYS[3], 'LT', now + ttl, ARGV[6])
end
return {1, g, mine, h}
`;

/**
 * A holder's flush (D33, D34): for each wallet, post the kept units (charge them: b and the lease shrink), void the
 * returned ones (the lease shrinks), renew the lease's expiry; write the flush's aggregated charge events to the
 * streams the drain copies into PostgreSQL; move the lastSeen of the slot members the flush's answers used. Applied
 * once per (holder, flush number): KEYS[1] holds the holder's last applied flush, so a flush whose reply was lost can
 * be sent again. A post beyond the holder's lease (its lease expired and was reclaimed) charges at most what is
 * unleased; the rest is written off (never below zero, D16).
 * Nothing is applied, and the flush can be sent again unchanged, when Redis lost its data since the holder's last
 * flush (KEYS[2], the shard's lease epoch, is not the token the holder knows: reply {3, epoch}; a missing epoch is
 * written first, from `nep`) or when a wallet is missing (reply {2, epoch, [indexes in w]}: the holder initialises it
 * from the PostgreSQL ledger first, as every script that spends a balance does, so no kept unit is written off).
 * KEYS[1] = the holder's flush mark, KEYS[2] = the shard's lease epoch; other KEYS by index in the spec. ARGV[1] = JSON
 *   { h: holder field, p: its in-flight detail field ("p:…"), now, ttl, seq, markTtl, ep: the epoch the holder knows
 *     ('' none yet), nep: the token to write when the epoch is missing,
 *     w: [{k, s: its account's stream, x: its shard's lease index, a: account, post, void, refund: released after
 *       a post, pif: charged in flight after this flush, pd: where pif was posted, lines "key\tday\thour\tusage\t
 *       requests\tunits" (a reclaim refunds them there), set}]  (set ≥ 0: the lease is at most this, a holder
 *       resynchronising after a lost reply),
 *     ev: [{k: stream, w: its wallet's index in w, id, d: day, n: now, u: usage subjects, a: account, c: charged,
       x: requests, key}],
 *     sl: [{k: slot set, m: member, l: lastSeen}] }
 * Reply: {0, epoch} already applied | {1, [lease units after, units written off] per wallet (-1: no wallet),
 *   [1 | 0: the slot member is in its set] per sl, epoch} | {2, epoch, [wallet indexes]} | {3, epoch}.
 */
export const FLUSH_LUA = `${LEASES_OF_LUA}
local s = cjson.decode(ARGV[1])
local now, seq = tonumber(s.now), tonumber(s.seq)
local ep = redis.call('GET', KEYS[2])
if not ep then
  redis.call('SET', KEYS[2], s.nep)
  ep = s.nep
end
if s.ep ~= '' and s.ep ~= ep then return {3, ep} end
if tonumber(redis.call('GET', KEYS[1]) or '0') >= seq then return {0, ep} end
local missing = {}
for i, w in ipairs(s.w) do
  if redis.call('HEXISTS', KEYS[w.k], 'b') == 0 then missing[#missing + 1] = i end
end
if #missing > 0 then return {2, ep, missing} end
redis.call('SET', KEYS[1], string.format('%.0f', seq), 'EX', s.markTtl)
local out = {}
for i, w in ipairs(s.w) do
  local key = KEYS[w.k]
  local b, others, holders, mine = leasesOf(key, now, s.h, KEYS[w.s])
  if b == nil then
    out[i] = {-1, w.post}
  else
    local fromLease = math.min(w.post, mine)
    mine = mine - fromLease
    local late = w.post - fromLease
    local latePosted = math.max(0, math.min(late, b - fromLease - others - mine))
    -- a balance forfeited meanwhile (account deletion) leaves less than the lease: never below zero
    local charge = math.min(fromLease + latePosted, math.max(b, 0))
    if charge > 0 then redis.call('HINCRBY', key, 'b', -charge) end
    if w.refund > 0 then redis.call('HINCRBY', key, 'b', w.refund) end
    mine = math.max(0, mine - w.void)
    if w.set >= 0 and mine > w.set then mine = w.set end
    if mine > 0 or w.pif > 0 then
      redis.call('HSET', key, s.h, string.format('%.0f:%.0f:%.0f', mine, now + s.ttl, w.pif))
      redis.call('ZADD', KEYS[w.x], 'LT', now + s.ttl, w.a)
    else
      redis.call('HDEL', key, s.h)
    end
    if w.pif > 0 then redis.call('HSET', key, s.p, w.pd) else redis.call('HDEL', key, s.p) end
    out[i] = {mine, w.post - charge}
  end
end
-- the events charge what the wallets were charged: a write-off comes off its wallet's events. Only charges are cut
-- (an event's c < 0 is a refund of released admissions, applied whole to b above, so it stays whole); what a
-- wallet's charges cannot absorb comes off its first event (the sum of its events is then charge − refund).
local off, first, cs = {}, {}, {}
for i, o in ipairs(out) do off[i] = o[2] end
for j, e in ipairs(s.ev) do
  local c = e.c
  if first[e.w] == nil then first[e.w] = j end
  if c > 0 then
    local cut = math.min(c, off[e.w])
    off[e.w] = off[e.w] - cut
    c = c - cut
  end
  cs[j] = c
end
for w, j in pairs(first) do
  if off[w] > 0 then cs[j] = cs[j] - off[w] end
end
for j, e in ipairs(s.ev) do
  redis.call('XADD', KEYS[e.k], '*', 't', 'adm', 'e', 'adm:' .. e.id, 'id', e.id, 'd', e.d, 'n', e.n, 'u', e.u,
    'f', '', 'b', 1, 'a', e.a, 'c', string.format('%.0f', cs[j]), 'x', e.x, 'k', e.key)
end
local present = {}
for i, sl in ipairs(s.sl) do
  local v = redis.call('HGET', KEYS[sl.k], sl.m)
  present[i] = 0
  if v then
    present[i] = 1
    local f, l = string.match(v, '^(%d+):(%d+)$')
    if f and tonumber(l) < sl.l then redis.call('HSET', KEYS[sl.k], sl.m, f .. ':' .. string.format('%.0f', sl.l)) end
  end
end
return {1, out, present, ep}
`;

/**
 * The background reclaim of one account's expired leases (D33: a dead holder's units back at the owner at TTL even
 * when no script touches the wallet again): leasesOf with the stream (so unsettled charges are refunded), then the
 * account's entry in its shard's lease index is set to the earliest expiry left, or removed when none is left.
 * KEYS[1] = the wallet, KEYS[2] = its account's event stream, KEYS[3] = the shard's lease index. ARGV: now, account.
 * Reply: the units still leased (all holders).
 */
export const RECLAIM_LUA = `${LEASES_OF_LUA}
local now = tonumber(ARGV[1])
local b, others, holders, mine, pif, minx = leasesOf(KEYS[1], now, '', KEYS[2])
if b == nil or minx == nil then
  redis.call('ZREM', KEYS[3], ARGV[2])
else
  redis.call('ZADD', KEYS[3], minx, ARGV[2])
end
return others
`;
