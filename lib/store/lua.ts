import type {
  AdmissionResult, CommitResult, FinishedCall, Grant, GrantState, PurgeCounts, IdempotencyRecord, KeyRecord, LedgerGrant, RateLimitResult, RefundResult, ReportSummary,
  Reservation, ReserveResult, Store, StoredReport, UsageRecord,
} from './types';
import { NATIVE_TTL_SLACK_MS, RESERVATION_RETENTION_MS, StoreUnavailableError } from './types';

// The Redis and Vercel KV adapters share everything but the client: each multi-key operation
// is one Lua script, which Redis runs atomically. Scripts build related key names from a
// prefix (ARGV[1]) because the grant ids of a key are only known inside the script; this is
// fine on single-node Redis and on Upstash/Vercel KV, which run a database on one shard.
//
// Layout (prefix "pac:"):
//   key:<hash>            hash  createdAt revokedAt label
//   keys                  set   all key hashes (countKeys)
//   key:<hash>:grants     set   grant ids
//   grant:<id>            hash  keyHash plan calls used expiresAt createdAt sourceRef [removed periodStart]
//   grant:<id>:holds      zset  reservation id -> holdUntil
//   res:<id>              hash  keyHash grantId state holdUntil [operation committedAt refundedAt]
//   key:<hash>:usage      zset  committed reservation id -> committedAt (keys usage)
//   res:<id>              … kept RESERVATION_RETENTION_MS past its hold, for good once committed
//   idem:<scope>          hash  fingerprint state response expiresAt
//   rl:<bucket>:<window>  string counter                    (native TTL: one window, no slack)
//   claim:<key>           string expiresAt
//   rec:<name>            hash  value expiresAt ('' keeps it)  (a plain string: written before expiresAt)
//   report:<id>           hash  keyHash operation createdAt creditsUsage target score verdict body input expiresAt
//   key:<hash>:reports    zset  report id -> createdAt (native TTL: that of its latest report; members whose
//                               report is gone are dropped when a list meets them)
//
// One clock (see NATIVE_TTL_SLACK_MS in types.ts): whether a record is live is decided in Lua against the
// caller's `now` and the `expiresAt` it was written with, exactly as SQLite does. Purging needs nothing
// here: every expiring key also gets a native TTL (its ttl + NATIVE_TTL_SLACK_MS), so Redis deletes it by
// itself, and Upstash/Vercel KV honours the same PEXPIRE the same way. Store.purgeExpired is a no-op.

/** Sums what is live on one grant; shared by reserve and commit. */
const GRANT_AVAILABLE = `
local function available(p, gid, now)
  local g = redis.call('HMGET', p .. 'grant:' .. gid, 'calls', 'used', 'expiresAt')
  if not g[1] then return -1, 0 end
  local expiresAt = tonumber(g[3])
  if expiresAt <= now then return -1, expiresAt end
  redis.call('ZREMRANGEBYSCORE', p .. 'grant:' .. gid .. ':holds', '-inf', now)
  local held = redis.call('ZCARD', p .. 'grant:' .. gid .. ':holds')
  return tonumber(g[1]) - tonumber(g[2]) - held, expiresAt
end
`;

/**
 * Holds one call on the key's live grant that expires soonest (ties: older, then smaller id); returns its grant id,
 * or false when the key has no call left. Shared by reserveCall and admitCall's hold; needs GRANT_AVAILABLE.
 */
const HOLD = `
local function holdOne(p, keyHash, resId, now, holdUntil, operation)
  local best, bestExpiry, bestCreated = nil, nil, nil
  for _, gid in ipairs(redis.call('SMEMBERS', p .. 'key:' .. keyHash .. ':grants')) do
    local left, expiresAt = available(p, gid, now)
    if left > 0 then
      local createdAt = tonumber(redis.call('HGET', p .. 'grant:' .. gid, 'createdAt'))
      if not best or expiresAt < bestExpiry or (expiresAt == bestExpiry and (createdAt < bestCreated or (createdAt == bestCreated and gid < best))) then
        best, bestExpiry, bestCreated = gid, expiresAt, createdAt
      end
    end
  end
  if not best then return false end
  redis.call('ZADD', p .. 'grant:' .. best .. ':holds', holdUntil, resId)
  redis.call('HSET', p .. 'res:' .. resId, 'keyHash', keyHash, 'grantId', best, 'state', 'held', 'holdUntil', holdUntil)
  if operation and operation ~= '' then redis.call('HSET', p .. 'res:' .. resId, 'operation', operation) end
  redis.call('PEXPIRE', p .. 'res:' .. resId, math.max(tonumber(holdUntil) - now, 0) + ${RESERVATION_RETENTION_MS + NATIVE_TTL_SLACK_MS})
  return best
end
`;

/** Spends a held call (see Store.commitReservation); shared by commitReservation and finishReservation. Needs GRANT_AVAILABLE. */
const COMMIT = `
local function commit(p, resId, nowText)
  local now = tonumber(nowText)
  local r = redis.call('HMGET', p .. 'res:' .. resId, 'grantId', 'state', 'holdUntil', 'keyHash')
  if not r[1] then return 'lost' end
  if r[2] == 'committed' then return 'already' end
  if r[2] == 'released' then return 'lost' end
  local holds = p .. 'grant:' .. r[1] .. ':holds'
  if tonumber(r[3]) <= now then
    redis.call('ZREM', holds, resId)
    local left = available(p, r[1], now)
    if left <= 0 then
      redis.call('HSET', p .. 'res:' .. resId, 'state', 'released')
      return 'lost'
    end
  end
  redis.call('ZREM', holds, resId)
  redis.call('HINCRBY', p .. 'grant:' .. r[1], 'used', 1)
  redis.call('HSET', p .. 'res:' .. resId, 'state', 'committed', 'committedAt', nowText)
  redis.call('PERSIST', p .. 'res:' .. resId)
  redis.call('ZADD', p .. 'key:' .. r[4] .. ':usage', nowText, resId)
  return 'committed'
end
`;

/** Counts one hit in a fixed window and returns the window's hits; shared by hitRateLimit and admitCall. */
const RATE_WINDOW = `
local function hit(p, bucket, windowStart, windowMs)
  local k = p .. 'rl:' .. bucket .. ':' .. windowStart
  local hits = redis.call('INCR', k)
  -- No slack here: the caller's clock picks the window (its start is in the key), and a key that lives one
  -- window from its first hit outlives that window on either clock. Under a flood of made-up buckets this
  -- keeps one key per bucket, not one per window of the slack.
  if hits == 1 then redis.call('PEXPIRE', k, windowMs) end
  return hits
end
`;

/** Keeps one report (see Store.putReport); shared by putReport and finishReservation. */
const REPORT = `
local function putReport(p, id, keyHash, operation, createdAt, creditsUsage, target, score, verdict, body, input, now, ttl)
  local k = p .. 'report:' .. id
  -- The owner is whoever holds the call that paid for the report now (a rotation moves held calls), else the key given.
  local owner = redis.call('HGET', p .. 'res:' .. creditsUsage, 'keyHash')
  if not owner then owner = keyHash end
  local old = redis.call('HGET', k, 'keyHash')
  if old and old ~= owner then redis.call('ZREM', p .. 'key:' .. old .. ':reports', id) end
  redis.call('DEL', k)
  redis.call('HSET', k, 'keyHash', owner, 'operation', operation, 'createdAt', createdAt, 'creditsUsage', creditsUsage, 'target', target,
    'score', score, 'verdict', verdict, 'body', body, 'input', input, 'expiresAt', string.format('%.0f', now + ttl))
  redis.call('PEXPIRE', k, ttl + ${NATIVE_TTL_SLACK_MS})
  local idx = p .. 'key:' .. owner .. ':reports'
  redis.call('ZADD', idx, createdAt, id)
  -- The index lives as long as the longest-lived report in it.
  if redis.call('PTTL', idx) < ttl + ${NATIVE_TTL_SLACK_MS} then redis.call('PEXPIRE', idx, ttl + ${NATIVE_TTL_SLACK_MS}) end
end
`;

/** Keeps a finished call's answer for replays until `now + ttl`; shared by completeIdempotent and finishReservation. */
const ANSWER = `
local function putAnswer(k, fingerprint, response, now, ttl)
  redis.call('HSET', k, 'fingerprint', fingerprint, 'state', 'done', 'response', response, 'expiresAt', string.format('%.0f', now + ttl))
  redis.call('PEXPIRE', k, ttl + ${NATIVE_TTL_SLACK_MS})
end
`;

/** Named records with their expiry on the caller's clock; shared by the record and grant scripts. */
const RECORDS = `
local SLACK = ${NATIVE_TTL_SLACK_MS}
local function getRecord(k, now)
  local t = redis.call('TYPE', k)['ok']
  -- Written before records carried expiresAt: a plain string whose native TTL alone expires it.
  if t == 'string' then return redis.call('GET', k) end
  if t ~= 'hash' then return false end
  local r = redis.call('HMGET', k, 'value', 'expiresAt')
  if r[2] and r[2] ~= '' and tonumber(r[2]) <= now then return false end
  return r[1]
end
local function putRecord(k, value, now, ttl)
  redis.call('DEL', k)
  if ttl == '' then
    redis.call('HSET', k, 'value', value, 'expiresAt', '')
  else
    redis.call('HSET', k, 'value', value, 'expiresAt', string.format('%.0f', now + tonumber(ttl)))
    redis.call('PEXPIRE', k, tonumber(ttl) + SLACK)
  end
end
`;

export const SCRIPTS = {
  putKey: `
local p = ARGV[1]
if redis.call('EXISTS', p .. 'key:' .. ARGV[2]) == 1 then return 0 end
redis.call('HSET', p .. 'key:' .. ARGV[2], 'createdAt', ARGV[3], 'revokedAt', ARGV[4], 'label', ARGV[5])
redis.call('SADD', p .. 'keys', ARGV[2])
return 1`,

  revokeKey: `
local p = ARGV[1]
local k = p .. 'key:' .. ARGV[2]
if redis.call('EXISTS', k) == 0 then return 0 end
if redis.call('HGET', k, 'revokedAt') ~= '' then return 0 end
redis.call('HSET', k, 'revokedAt', ARGV[3])
return 1`,

  addGrant: `
local p = ARGV[1]
if redis.call('EXISTS', p .. 'grant:' .. ARGV[2]) == 1 then return 0 end
redis.call('HSET', p .. 'grant:' .. ARGV[2], 'keyHash', ARGV[3], 'plan', ARGV[4], 'calls', ARGV[5], 'used', ARGV[6],
  'expiresAt', ARGV[7], 'createdAt', ARGV[8], 'sourceRef', ARGV[9])
redis.call('SADD', p .. 'key:' .. ARGV[3] .. ':grants', ARGV[2])
return 1`,

  updateGrant: `
local p = ARGV[1]
local k = p .. 'grant:' .. ARGV[2]
if redis.call('EXISTS', k) == 0 then return 0 end
if ARGV[3] ~= '' then redis.call('HSET', k, 'calls', ARGV[3]) end
if ARGV[4] ~= '' then redis.call('HSET', k, 'used', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', k, 'expiresAt', ARGV[5]) end
return 1`,

  listGrants: `
local p = ARGV[1]
local now = tonumber(ARGV[3])
local out = {}
for _, gid in ipairs(redis.call('SMEMBERS', p .. 'key:' .. ARGV[2] .. ':grants')) do
  local g = redis.call('HMGET', p .. 'grant:' .. gid, 'plan', 'calls', 'used', 'expiresAt', 'createdAt', 'sourceRef')
  local held = redis.call('ZCOUNT', p .. 'grant:' .. gid .. ':holds', '(' .. now, '+inf')
  table.insert(out, {gid, g[1], g[2], g[3], g[4], g[5], g[6], tostring(held)})
end
return out`,

  reserveCall: GRANT_AVAILABLE + HOLD + `
return holdOne(ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6])`,

  // admitCall: the address's window, the key, the key's window, stopping at the first refusal; each step is
  // what hitRateLimit and getKey do on their own. With a reservation id (ARGV[10]), then a hold as reserveCall's.
  admitCall: RATE_WINDOW + GRANT_AVAILABLE + HOLD + `
local p = ARGV[1]
if hit(p, ARGV[4], ARGV[2], ARGV[3]) > tonumber(ARGV[5]) then return 'ip-rate-limited' end
local key = redis.call('HMGET', p .. 'key:' .. ARGV[6], 'createdAt', 'revokedAt')
if not key[1] or key[1] == '' or (key[2] and key[2] ~= '') then return 'invalid-key' end
if hit(p, ARGV[7], ARGV[2], ARGV[3]) > tonumber(ARGV[8]) then return 'key-rate-limited' end
if not ARGV[10] or ARGV[10] == '' then return 'admitted' end
if holdOne(p, ARGV[6], ARGV[10], tonumber(ARGV[9]), ARGV[11], ARGV[12]) then return 'held' end
return 'no-calls'`,

  commitReservation: GRANT_AVAILABLE + COMMIT + `
return commit(ARGV[1], ARGV[2], ARGV[3])`,

  // The commit, the answer kept (ARGV[4..7]) whatever its outcome, and the calls left on the reservation's key
  // (the sum of what listGrants counts as remaining), or false for a reservation never made.
  // With a report (ARGV[8..18], as putReport's but its clock), it is kept before the answer, its owner read from the same reservation.
  finishReservation: GRANT_AVAILABLE + COMMIT + ANSWER + REPORT + `
local p = ARGV[1]
local now = tonumber(ARGV[3])
local outcome = commit(p, ARGV[2], ARGV[3])
if ARGV[8] and ARGV[8] ~= '' then
  putReport(p, ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13], ARGV[14], ARGV[15], ARGV[16], ARGV[17], now, tonumber(ARGV[18]))
end
putAnswer(p .. 'idem:' .. ARGV[4], ARGV[5], ARGV[6], now, tonumber(ARGV[7]))
local keyHash = redis.call('HGET', p .. 'res:' .. ARGV[2], 'keyHash')
if not keyHash then return {outcome, false} end
local left = 0
for _, gid in ipairs(redis.call('SMEMBERS', p .. 'key:' .. keyHash .. ':grants')) do
  local n = available(p, gid, now)
  if n > 0 then left = left + n end
end
return {outcome, tostring(left)}`,

  releaseReservation: `
local p = ARGV[1]
local r = redis.call('HMGET', p .. 'res:' .. ARGV[2], 'grantId', 'state')
if not r[1] or r[2] ~= 'held' then return 0 end
redis.call('ZREM', p .. 'grant:' .. r[1] .. ':holds', ARGV[2])
redis.call('HSET', p .. 'res:' .. ARGV[2], 'state', 'released')
return 1`,

  beginIdempotent: `
local k = ARGV[1] .. 'idem:' .. ARGV[2]
local now = tonumber(ARGV[4])
local r = redis.call('HMGET', k, 'fingerprint', 'state', 'response', 'expiresAt')
if r[1] and (not r[4] or tonumber(r[4]) > now) then return {r[1], r[2], r[3] or ''} end
redis.call('DEL', k)
redis.call('HSET', k, 'fingerprint', ARGV[3], 'state', 'in-flight', 'expiresAt', string.format('%.0f', now + tonumber(ARGV[5])))
redis.call('PEXPIRE', k, tonumber(ARGV[5]) + ${NATIVE_TTL_SLACK_MS})
return false`,

  completeIdempotent: ANSWER + `
putAnswer(ARGV[1] .. 'idem:' .. ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6]))
return 1`,

  abandonIdempotent: `
local k = ARGV[1] .. 'idem:' .. ARGV[2]
local r = redis.call('HMGET', k, 'fingerprint', 'state')
if r[1] == ARGV[3] and r[2] == 'in-flight' then redis.call('DEL', k) end
return 1`,

  hitRateLimit: RATE_WINDOW + `
return hit(ARGV[1], ARGV[2], ARGV[3], ARGV[4])`,

  returnRateLimit: `
local k = ARGV[1] .. 'rl:' .. ARGV[2] .. ':' .. ARGV[3]
if tonumber(redis.call('GET', k) or '0') > 0 then redis.call('DECR', k) end
return 1`,

  setRecord: RECORDS + `
putRecord(ARGV[1] .. 'rec:' .. ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5])
return 1`,

  getRecord: RECORDS + `
return getRecord(ARGV[1] .. 'rec:' .. ARGV[2], tonumber(ARGV[3]))`,

  takeRecord: RECORDS + `
local k = ARGV[1] .. 'rec:' .. ARGV[2]
local v = getRecord(k, tonumber(ARGV[3]))
redis.call('DEL', k)
return v`,

  // The record keeps the expiry it was first written with, so a day's total lapses with its day.
  addCapped: RECORDS + `
local k = ARGV[1] .. 'rec:' .. ARGV[2]
local now = tonumber(ARGV[5])
local total = tonumber(getRecord(k, now) or '0') or 0
local amount = tonumber(ARGV[3])
if total + amount > tonumber(ARGV[4]) then return {0, total} end
local expiresAt = redis.call('HGET', k, 'expiresAt')
if getRecord(k, now) and expiresAt and expiresAt ~= '' then
  redis.call('HSET', k, 'value', tostring(total + amount))
else
  putRecord(k, tostring(total + amount), now, ARGV[6])
end
return {1, total + amount}`,

  // SCAN walks the keyspace in bounded steps; the pattern's glob characters are escaped by the caller.
  listRecords: RECORDS + `
local base = ARGV[1] .. 'rec:'
local now = tonumber(ARGV[4])
local found = {}
local cursor = '0'
local limit = tonumber(ARGV[3])
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', base .. ARGV[2] .. '*', 'COUNT', 500)
  cursor = page[1]
  for _, k in ipairs(page[2]) do
    if #found >= limit * 2 then break end
    local v = getRecord(k, now)
    if v then
      table.insert(found, string.sub(k, #base + 1))
      table.insert(found, v)
    end
  end
until cursor == '0' or #found >= limit * 2
return found`,

  putReport: REPORT + `
putReport(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], tonumber(ARGV[12]), tonumber(ARGV[13]))
return 1`,

  getReport: `
local r = redis.call('HMGET', ARGV[1] .. 'report:' .. ARGV[2], 'keyHash', 'operation', 'createdAt', 'creditsUsage', 'target', 'score', 'body', 'expiresAt', 'verdict', 'input')
if not r[1] or tonumber(r[8]) <= tonumber(ARGV[3]) then return false end
return {r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[9] or '', r[10] or ''}`,

  // Newest first: ZREVRANGEBYSCORE orders equal scores by member, largest first, as SQLite's ORDER BY does.
  listReports: `
local p = ARGV[1]
local idx = p .. 'key:' .. ARGV[2] .. ':reports'
local now = tonumber(ARGV[3])
local limit = tonumber(ARGV[4])
local beforeAt = ARGV[5]
local beforeId = ARGV[6]
local max = '+inf'
if beforeAt ~= '' then max = beforeAt end
local out = {}
local offset = 0
while #out < limit do
  local page = redis.call('ZREVRANGEBYSCORE', idx, max, '-inf', 'WITHSCORES', 'LIMIT', offset, 100)
  if #page == 0 then break end
  offset = offset + #page / 2
  for i = 1, #page, 2 do
    local id = page[i]
    if #out >= limit then break end
    if not (beforeAt ~= '' and tonumber(page[i + 1]) == tonumber(beforeAt) and id >= beforeId) then
      local r = redis.call('HMGET', p .. 'report:' .. id, 'keyHash', 'operation', 'createdAt', 'creditsUsage', 'target', 'score', 'expiresAt', 'verdict')
      if not r[1] then
        redis.call('ZREM', idx, id)
        offset = offset - 1
      elseif r[1] == ARGV[2] and tonumber(r[7]) > now then
        table.insert(out, {id, r[2], r[3], r[4], r[5], r[6], r[8] or ''})
      end
    end
  end
end
return out`,

  rotateKey: `
local p = ARGV[1]
local oldK = p .. 'key:' .. ARGV[2]
local newK = p .. 'key:' .. ARGV[3]
if redis.call('EXISTS', oldK) == 0 or redis.call('HGET', oldK, 'revokedAt') ~= '' then return 0 end
if redis.call('EXISTS', newK) == 1 then return -1 end
redis.call('HSET', newK, 'createdAt', ARGV[4], 'revokedAt', ARGV[5], 'label', ARGV[6])
redis.call('SADD', p .. 'keys', ARGV[3])
for _, gid in ipairs(redis.call('SMEMBERS', oldK .. ':grants')) do
  redis.call('HSET', p .. 'grant:' .. gid, 'keyHash', ARGV[3])
  redis.call('SADD', newK .. ':grants', gid)
  for _, rid in ipairs(redis.call('ZRANGE', p .. 'grant:' .. gid .. ':holds', 0, -1)) do
    if redis.call('EXISTS', p .. 'res:' .. rid) == 1 then redis.call('HSET', p .. 'res:' .. rid, 'keyHash', ARGV[3]) end
  end
end
redis.call('DEL', oldK .. ':grants')
local reports = redis.call('ZRANGE', oldK .. ':reports', 0, -1, 'WITHSCORES')
for i = 1, #reports, 2 do
  local rk = p .. 'report:' .. reports[i]
  if redis.call('EXISTS', rk) == 1 then
    redis.call('HSET', rk, 'keyHash', ARGV[3])
    redis.call('ZADD', newK .. ':reports', reports[i + 1], reports[i])
  end
end
local left = redis.call('PTTL', oldK .. ':reports')
if left > 0 then redis.call('PEXPIRE', newK .. ':reports', left) end
redis.call('DEL', oldK .. ':reports')
redis.call('HSET', oldK, 'revokedAt', ARGV[7])
return 1`,

  claimOnce: `
local k = ARGV[1] .. 'claim:' .. ARGV[2]
local now = tonumber(ARGV[3])
local held = redis.call('GET', k)
-- '1' was written before claims carried their expiry: live until its native TTL deletes it.
if held and (held == '1' or tonumber(held) > now) then return 0 end
redis.call('SET', k, string.format('%.0f', now + tonumber(ARGV[4])), 'PX', tonumber(ARGV[4]) + ${NATIVE_TTL_SLACK_MS})
return 1`,

  releaseClaim: `
redis.call('DEL', ARGV[1] .. 'claim:' .. ARGV[2])
return 1`,

  renewGrant: RECORDS + `
local p = ARGV[1]
local g = p .. 'grant:' .. ARGV[2]
local now = tonumber(ARGV[10])
if redis.call('EXISTS', g) == 0 then return 'missing' end
local rec = p .. 'rec:' .. ARGV[3]
local applied = tonumber(getRecord(rec, now) or '') or tonumber(ARGV[4])
if tonumber(ARGV[5]) - applied > tonumber(ARGV[6]) then
  redis.call('HSET', g, 'calls', ARGV[7], 'used', '0', 'expiresAt', ARGV[8], 'removed', '0', 'periodStart', ARGV[10])
  putRecord(rec, ARGV[5], now, ARGV[9])
  return 'renewed'
end
redis.call('HSET', g, 'expiresAt', ARGV[8])
return 'extended'`,

  removeGrantCalls: RECORDS + `
local p = ARGV[1]
local g = p .. 'grant:' .. ARGV[2]
local now = tonumber(ARGV[6])
local grant = redis.call('HMGET', g, 'calls', 'used')
if not grant[1] then return -1 end
local rec = p .. 'rec:' .. ARGV[3]
local target = tonumber(ARGV[4])
local remove = target - (tonumber(getRecord(rec, now) or '') or 0)
if remove <= 0 then return 0 end
local used = math.min(tonumber(grant[1]), tonumber(grant[2]) + remove)
redis.call('HSET', g, 'used', tostring(used))
redis.call('HINCRBY', g, 'removed', math.max(0, used - tonumber(grant[2])))
putRecord(rec, ARGV[4], now, ARGV[5])
return remove`,

  refundCall: `
local p = ARGV[1]
local k = p .. 'res:' .. ARGV[2]
local now = tonumber(ARGV[3])
local r = redis.call('HMGET', k, 'keyHash', 'grantId', 'state', 'refundedAt')
if not r[1] then return {'unknown'} end
if r[3] ~= 'committed' then return {'not-committed', r[3]} end
if r[4] then return {'already', r[4]} end
local g = p .. 'grant:' .. r[2]
local expiresAt = redis.call('HGET', g, 'expiresAt')
if not expiresAt then return {'unknown'} end
if tonumber(expiresAt) <= now then return {'grant-expired', expiresAt} end
redis.call('HSET', k, 'refundedAt', ARGV[3])
redis.call('HINCRBY', g, 'used', -1)
return {'refunded', r[1], r[2]}`,

  listUsage: `
local p = ARGV[1]
local out = {}
for _, id in ipairs(redis.call('ZREVRANGE', p .. 'key:' .. ARGV[2] .. ':usage', 0, tonumber(ARGV[3]) - 1)) do
  local r = redis.call('HMGET', p .. 'res:' .. id, 'keyHash', 'grantId', 'state', 'holdUntil', 'committedAt', 'refundedAt', 'operation')
  if r[1] then table.insert(out, {id, r[1], r[2], r[3], r[4], r[5] or '', r[6] or '', r[7] or ''}) end
end
return out`,

  // One SCAN step over grant:* or res:* (ARGV[2]); the grants' own sub-keys (…:holds) are skipped.
  scanLedger: `
local p = ARGV[1]
local base = p .. ARGV[2] .. ':'
local page = redis.call('SCAN', ARGV[3], 'MATCH', base .. '*', 'COUNT', tonumber(ARGV[4]))
local out = {page[1]}
for _, k in ipairs(page[2]) do
  local id = string.sub(k, #base + 1)
  if not string.find(id, ':', 1, true) then
    if ARGV[2] == 'grant' then
      local g = redis.call('HMGET', k, 'keyHash', 'plan', 'calls', 'used', 'expiresAt', 'createdAt', 'sourceRef', 'removed', 'periodStart')
      table.insert(out, {id, g[1] or '', g[2] or '', g[3] or '0', g[4] or '0', g[5] or '0', g[6] or '0', g[7] or '', g[8] or '0', g[9] or ''})
    else
      local r = redis.call('HMGET', k, 'keyHash', 'grantId', 'state', 'holdUntil', 'committedAt', 'refundedAt', 'operation')
      table.insert(out, {id, r[1] or '', r[2] or '', r[3] or '', r[4] or '0', r[5] or '', r[6] or '', r[7] or ''})
    end
  end
end
return out`,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** Runs one of SCRIPTS by name with its ARGV (no KEYS); the adapter decides how (EVALSHA, EVAL). */
export interface ScriptRunner {
  run(name: ScriptName, args: string[]): Promise<unknown>;
  hgetall(key: string): Promise<Record<string, string> | null>;
  scard(key: string): Promise<number>;
  close(): Promise<void>;
}

/** A literal for Redis's MATCH pattern: its glob characters escaped. */
const globEscape = (literal: string): string => literal.replace(/[*?[\]\\]/g, '\\$&');

const str = (v: unknown): string => (v === null || v === undefined ? '' : String(v));

/** A reservation row as the scripts return it: id keyHash grantId state holdUntil committedAt refundedAt operation. */
const usageOf = ([id, keyHash, grantId, state, holdUntil, committedAt, refundedAt, operation]: string[]): UsageRecord => ({
  id, keyHash, grantId, state: state as Reservation['state'], holdUntil: Number(holdUntil),
  committedAt: committedAt ? Number(committedAt) : null, refundedAt: refundedAt ? Number(refundedAt) : null, operation: operation || null,
});

/** What every operation of a script store shares: the runner, the key prefix, the script call and the guard. */
interface ScriptContext {
  runner: ScriptRunner;
  prefix: string;
  run: (name: ScriptName, ...args: Array<string | number | null>) => Promise<unknown>;
  guard: <T>(fn: () => Promise<T>) => Promise<T>;
}

function keyOperations({ runner, prefix, run, guard }: ScriptContext): Pick<Store, 'putKey' | 'getKey' | 'revokeKey' | 'countKeys' | 'rotateKey'> {
  return {
    putKey: async (k: KeyRecord) => {
      const created = await guard(() => run('putKey', k.keyHash, k.createdAt, k.revokedAt, k.label));
      if (Number(created) !== 1) throw new Error('credit key already exists');
    },
    getKey: (keyHash) =>
      guard(async () => {
        const h = await runner.hgetall(`${prefix}key:${keyHash}`);
        if (!h || !h.createdAt) return null;
        return { keyHash, createdAt: Number(h.createdAt), revokedAt: h.revokedAt ? Number(h.revokedAt) : null, label: h.label || null };
      }),
    revokeKey: (keyHash, now) => guard(async () => Number(await run('revokeKey', keyHash, now)) === 1),
    countKeys: () => guard(() => runner.scard(`${prefix}keys`)),
    rotateKey: async (oldKeyHash, k, now) => {
      const outcome = Number(await guard(() => run('rotateKey', oldKeyHash, k.keyHash, k.createdAt, k.revokedAt, k.label, now)));
      if (outcome < 0) throw new Error('credit key already exists');
      return outcome === 1;
    },
  };
}

function grantOperations({ run, guard }: ScriptContext): Pick<Store, 'addGrant' | 'updateGrant' | 'listGrants' | 'renewGrant' | 'removeGrantCalls'> {
  return {
    addGrant: (g: Grant) =>
      guard(async () => Number(await run('addGrant', g.id, g.keyHash, g.plan, g.calls, g.used, g.expiresAt, g.createdAt, g.sourceRef)) === 1),
    updateGrant: (grantId, patch) =>
      guard(async () => Number(await run('updateGrant', grantId, patch.calls ?? null, patch.used ?? null, patch.expiresAt ?? null)) === 1),
    listGrants: (keyHash, now) =>
      guard(async () => {
        const rows = (await run('listGrants', keyHash, now)) as string[][];
        return rows
          .map((r): GrantState => {
            const [id, plan, calls, used, expiresAt, createdAt, sourceRef, held] = r.map(str);
            const expired = Number(expiresAt) <= now;
            const remaining = expired ? 0 : Math.max(0, Number(calls) - Number(used) - Number(held));
            return {
              id, keyHash, plan: plan as Grant['plan'], calls: Number(calls), used: Number(used), expiresAt: Number(expiresAt),
              createdAt: Number(createdAt), sourceRef: sourceRef || null, reserved: Number(held), remaining, expired,
            };
          })
          .sort((a, b) => a.expiresAt - b.expiresAt || a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
      }),
    renewGrant: (grantId, r, now, recordTtlMs) =>
      guard(async () => {
        const outcome = await run('renewGrant', grantId, r.appliedRecord, r.appliedFallback, r.periodEnd, r.samePeriodSlackMs, r.calls, r.expiresAt, recordTtlMs, now);
        return str(outcome) as 'renewed' | 'extended' | 'missing';
      }),
    removeGrantCalls: (grantId, r, now, recordTtlMs) =>
      guard(async () => {
        const removed = Number(await run('removeGrantCalls', grantId, r.appliedRecord, r.target, recordTtlMs, now));
        return removed < 0 ? null : removed;
      }),
  };
}

function callOperations({ runner, prefix, run, guard }: ScriptContext): Pick<Store, 'reserveCall' | 'admitCall' | 'commitReservation' | 'finishReservation' | 'releaseReservation' | 'getReservation'> {
  return {
    reserveCall: (keyHash, id, now, holdUntil, operation) =>
      guard(async (): Promise<ReserveResult> => {
        const grantId = await run('reserveCall', keyHash, id, now, holdUntil, operation ?? null);
        return grantId ? { ok: true, grantId: String(grantId) } : { ok: false };
      }),
    admitCall: ({ now, windowMs, ip, key, hold }) =>
      guard(async (): Promise<AdmissionResult> => {
        const windowStart = now - (now % windowMs);
        const held = hold ? [now, hold.reservationId, hold.holdUntil, hold.operation ?? null] : [];
        const outcome = str(await run('admitCall', windowStart, windowMs, ip.bucket, ip.limit, key.keyHash, key.bucket, key.limit, ...held));
        if (outcome === 'admitted') return { admitted: true };
        if (outcome === 'held' || outcome === 'no-calls') return { admitted: true, held: outcome === 'held' };
        if (outcome === 'invalid-key') return { admitted: false, refusal: outcome };
        // Refused past its limit: retry when the window that refused ends, as hitRateLimit says.
        return { admitted: false, refusal: outcome as 'ip-rate-limited' | 'key-rate-limited', retryAfterMs: windowStart + windowMs - now };
      }),
    commitReservation: (id, now) => guard(async () => str(await run('commitReservation', id, now)) as CommitResult),
    finishReservation: (id, now, answer, kept) =>
      guard(async (): Promise<FinishedCall> => {
        const r = kept?.report;
        // The report's fields in putReport's order; its `now` is the finish's own.
        const report = r ? [r.id, r.keyHash, r.operation, r.createdAt, r.creditsUsage, r.target, r.score, r.verdict, r.body, r.input, kept.ttlMs] : [];
        const [commit, left] = (await run('finishReservation', id, now, answer.scope, answer.fingerprint, answer.response, answer.ttlMs, ...report)) as [string, string | null];
        return { commit: commit as CommitResult, callsLeft: left ? Number(left) : null };
      }),
    releaseReservation: (id) => guard(async () => Number(await run('releaseReservation', id)) === 1),
    getReservation: (id) =>
      guard(async (): Promise<Reservation | null> => {
        const h = await runner.hgetall(`${prefix}res:${id}`);
        if (!h || !h.grantId) return null;
        return { id, keyHash: h.keyHash, grantId: h.grantId, state: h.state as Reservation['state'], holdUntil: Number(h.holdUntil) };
      }),
  };
}

function ledgerOperations({ run, guard }: ScriptContext): Pick<Store, 'refundCall' | 'listUsage' | 'scanGrants' | 'scanUsage'> {
  return {
    refundCall: (id, now) =>
      guard(async (): Promise<RefundResult> => {
        const [outcome, a, b] = ((await run('refundCall', id, now)) as unknown[]).map(str);
        if (outcome === 'refunded') return { outcome, keyHash: a, grantId: b };
        if (outcome === 'already') return { outcome, refundedAt: Number(a) };
        if (outcome === 'not-committed') return { outcome, state: a as 'held' | 'released' };
        if (outcome === 'grant-expired') return { outcome, expiresAt: Number(a) };
        return { outcome: 'unknown' };
      }),
    listUsage: (keyHash, limit) =>
      guard(async () => ((await run('listUsage', keyHash, limit)) as unknown[][]).map((r) => usageOf(r.map(str)))),
    scanGrants: (cursor, limit) =>
      guard(async () => {
        const [next, ...rows] = (await run('scanLedger', 'grant', cursor || '0', limit)) as [unknown, ...unknown[][]];
        const items = rows.map((r): LedgerGrant => {
          const [id, keyHash, plan, calls, used, expiresAt, createdAt, sourceRef, removed, periodStart] = r.map(str);
          return {
            id, keyHash, plan: plan as Grant['plan'], calls: Number(calls), used: Number(used), expiresAt: Number(expiresAt),
            createdAt: Number(createdAt), sourceRef: sourceRef || null, removed: Number(removed), periodStart: periodStart ? Number(periodStart) : Number(createdAt),
          };
        });
        return { items, next: str(next) === '0' ? null : str(next) };
      }),
    scanUsage: (cursor, limit) =>
      guard(async () => {
        const [next, ...rows] = (await run('scanLedger', 'res', cursor || '0', limit)) as [unknown, ...unknown[][]];
        return { items: rows.map((r) => usageOf(r.map(str))), next: str(next) === '0' ? null : str(next) };
      }),
  };
}

function idempotencyOperations({ runner, prefix, run, guard }: ScriptContext): Pick<Store, 'beginIdempotent' | 'completeIdempotent' | 'abandonIdempotent' | 'getIdempotent'> {
  return {
    beginIdempotent: (scope, fingerprint, now, ttl) =>
      guard(async (): Promise<IdempotencyRecord | null> => {
        const r = (await run('beginIdempotent', scope, fingerprint, now, ttl)) as string[] | null;
        if (!r) return null;
        const [fp, state, response] = r.map(str);
        return state === 'done' ? { state: 'done', fingerprint: fp, response } : { state: 'in-flight', fingerprint: fp };
      }),
    completeIdempotent: (scope, fingerprint, response, now, ttlMs) =>
      guard(async () => void (await run('completeIdempotent', scope, fingerprint, response, now, ttlMs))),
    abandonIdempotent: (scope, fingerprint) => guard(async () => void (await run('abandonIdempotent', scope, fingerprint))),
    getIdempotent: (scope, now) =>
      guard(async (): Promise<IdempotencyRecord | null> => {
        const h = await runner.hgetall(`${prefix}idem:${scope}`);
        if (!h || !h.fingerprint || (h.expiresAt && Number(h.expiresAt) <= now)) return null;
        return h.state === 'done'
          ? { state: 'done', fingerprint: h.fingerprint, response: h.response ?? '' }
          : { state: 'in-flight', fingerprint: h.fingerprint };
      }),
  };
}

function limitOperations({ run, guard }: ScriptContext): Pick<Store, 'hitRateLimit' | 'returnRateLimit' | 'claimOnce' | 'releaseClaim'> {
  return {
    hitRateLimit: (bucket, limit, windowMs, now) =>
      guard(async (): Promise<RateLimitResult> => {
        const windowStart = now - (now % windowMs);
        const hits = Number(await run('hitRateLimit', bucket, windowStart, windowMs));
        return { allowed: hits <= limit, remaining: Math.max(0, limit - hits), retryAfterMs: hits <= limit ? 0 : windowStart + windowMs - now };
      }),
    returnRateLimit: (bucket, windowMs, now) => guard(async () => void (await run('returnRateLimit', bucket, now - (now % windowMs)))),
    claimOnce: (key, now, ttlMs) => guard(async () => Number(await run('claimOnce', key, now, ttlMs)) === 1),
    releaseClaim: (key) => guard(async () => void (await run('releaseClaim', key))),
  };
}

function recordOperations({ run, guard }: ScriptContext): Pick<Store, 'setRecord' | 'getRecord' | 'takeRecord' | 'listRecords' | 'addCapped' | 'purgeExpired'> {
  return {
    addCapped: (name, amount, cap, now, ttlMs) =>
      guard(async () => {
        const [added, total] = (await run('addCapped', name, amount, cap, now, ttlMs)) as [number, number | string];
        return { added: Number(added) === 1, total: Number(total) };
      }),
    setRecord: (name, value, now, ttlMs) => guard(async () => void (await run('setRecord', name, value, now, ttlMs))),
    getRecord: (name, now) => guard(async () => { const v = await run('getRecord', name, now); return v === null || v === undefined ? null : String(v); }),
    takeRecord: (name, now) => guard(async () => { const v = await run('takeRecord', name, now); return v === null || v === undefined ? null : String(v); }),
    listRecords: (namePrefix, now, limit) =>
      guard(async () => {
        const flat = ((await run('listRecords', globEscape(namePrefix), limit, now)) as unknown[]).map(str);
        const rows: Array<{ name: string; value: string }> = [];
        for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ name: flat[i], value: flat[i + 1] });
        return rows;
      }),
    // Every expiring key carries a native TTL (see the layout above): Redis and KV delete them by themselves.
    purgeExpired: async (): Promise<PurgeCounts> => ({ rateWindows: 0, idempotency: 0, claims: 0, reservations: 0, records: 0, reports: 0 }),
  };
}

function reportOperations({ run, guard }: ScriptContext): Pick<Store, 'putReport' | 'getReport' | 'listReports'> {
  return {
    putReport: (r: StoredReport, now, ttlMs) =>
      guard(async () => void (await run('putReport', r.id, r.keyHash, r.operation, r.createdAt, r.creditsUsage, r.target, r.score, r.verdict, r.body, r.input, now, ttlMs))),
    getReport: (id, now) =>
      guard(async (): Promise<StoredReport | null> => {
        const r = (await run('getReport', id, now)) as unknown[] | null;
        if (!r) return null;
        const [keyHash, operation, createdAt, creditsUsage, target, score, body, verdict, input] = r.map(str);
        // An absent field reads as '' (Lua has no nil in a list): no verdict, no input kept.
        return { id, keyHash, operation, createdAt: Number(createdAt), creditsUsage, target, score: score === '' ? null : Number(score), verdict: verdict || null, body, input: input || null };
      }),
    listReports: (keyHash, now, options) =>
      guard(async () => {
        const rows = (await run('listReports', keyHash, now, options.limit, options.before?.createdAt ?? null, options.before?.id ?? null)) as unknown[][];
        return rows.map((row): ReportSummary => {
          const [id, operation, createdAt, creditsUsage, target, score, verdict] = row.map(str);
          return { id, keyHash, operation, createdAt: Number(createdAt), creditsUsage, target, score: score === '' ? null : Number(score), verdict: verdict || null };
        });
      }),
  };
}

export function createScriptStore(kind: 'redis' | 'vercel-kv', runner: ScriptRunner, prefix = 'pac:'): Store {
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  };
  const run = (name: ScriptName, ...args: Array<string | number | null>) => runner.run(name, [prefix, ...args.map(str)]);
  const context: ScriptContext = { runner, prefix, run, guard };

  return {
    kind,
    close: () => runner.close(),
    ...keyOperations(context),
    ...grantOperations(context),
    ...callOperations(context),
    ...ledgerOperations(context),
    ...idempotencyOperations(context),
    ...limitOperations(context),
    ...recordOperations(context),
    ...reportOperations(context),
  };
}
