import type { CommitResult, Grant, GrantState, IdempotencyRecord, KeyRecord, RateLimitResult, Reservation, ReserveResult, Store } from './types';
import { StoreUnavailableError } from './types';

// The Redis and Vercel KV adapters share everything but the client: each multi-key operation
// is one Lua script, which Redis runs atomically. Scripts build related key names from a
// prefix (ARGV[1]) because the grant ids of a key are only known inside the script; this is
// fine on single-node Redis and on Upstash/Vercel KV, which run a database on one shard.
//
// Layout (prefix "pac:"):
//   key:<hash>            hash  createdAt revokedAt label
//   keys                  set   all key hashes (countKeys)
//   key:<hash>:grants     set   grant ids
//   grant:<id>            hash  keyHash plan calls used expiresAt createdAt sourceRef
//   grant:<id>:holds      zset  reservation id -> holdUntil
//   res:<id>              hash  keyHash grantId state holdUntil
//   idem:<scope>          hash  fingerprint state response   (with a TTL)
//   rl:<bucket>:<window>  string counter                     (with a TTL)
//   claim:<key>           string                             (with a TTL)
//   rec:<name>            string                             (TTL optional)

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

  reserveCall: GRANT_AVAILABLE + `
local p = ARGV[1]
local now = tonumber(ARGV[4])
local best, bestExpiry, bestCreated = nil, nil, nil
for _, gid in ipairs(redis.call('SMEMBERS', p .. 'key:' .. ARGV[2] .. ':grants')) do
  local left, expiresAt = available(p, gid, now)
  if left > 0 then
    local createdAt = tonumber(redis.call('HGET', p .. 'grant:' .. gid, 'createdAt'))
    if not best or expiresAt < bestExpiry or (expiresAt == bestExpiry and (createdAt < bestCreated or (createdAt == bestCreated and gid < best))) then
      best, bestExpiry, bestCreated = gid, expiresAt, createdAt
    end
  end
end
if not best then return false end
redis.call('ZADD', p .. 'grant:' .. best .. ':holds', ARGV[5], ARGV[3])
redis.call('HSET', p .. 'res:' .. ARGV[3], 'keyHash', ARGV[2], 'grantId', best, 'state', 'held', 'holdUntil', ARGV[5])
return best`,

  commitReservation: GRANT_AVAILABLE + `
local p = ARGV[1]
local now = tonumber(ARGV[3])
local r = redis.call('HMGET', p .. 'res:' .. ARGV[2], 'grantId', 'state', 'holdUntil')
if not r[1] then return 'lost' end
if r[2] == 'committed' then return 'already' end
if r[2] == 'released' then return 'lost' end
local holds = p .. 'grant:' .. r[1] .. ':holds'
if tonumber(r[3]) <= now then
  redis.call('ZREM', holds, ARGV[2])
  local left = available(p, r[1], now)
  if left <= 0 then
    redis.call('HSET', p .. 'res:' .. ARGV[2], 'state', 'released')
    return 'lost'
  end
end
redis.call('ZREM', holds, ARGV[2])
redis.call('HINCRBY', p .. 'grant:' .. r[1], 'used', 1)
redis.call('HSET', p .. 'res:' .. ARGV[2], 'state', 'committed', 'committedAt', ARGV[3])
return 'committed'`,

  releaseReservation: `
local p = ARGV[1]
local r = redis.call('HMGET', p .. 'res:' .. ARGV[2], 'grantId', 'state')
if not r[1] or r[2] ~= 'held' then return 0 end
redis.call('ZREM', p .. 'grant:' .. r[1] .. ':holds', ARGV[2])
redis.call('HSET', p .. 'res:' .. ARGV[2], 'state', 'released')
return 1`,

  beginIdempotent: `
local k = ARGV[1] .. 'idem:' .. ARGV[2]
local r = redis.call('HMGET', k, 'fingerprint', 'state', 'response')
if r[1] then return {r[1], r[2], r[3] or ''} end
redis.call('HSET', k, 'fingerprint', ARGV[3], 'state', 'in-flight')
redis.call('PEXPIRE', k, ARGV[4])
return false`,

  completeIdempotent: `
local k = ARGV[1] .. 'idem:' .. ARGV[2]
redis.call('HSET', k, 'fingerprint', ARGV[3], 'state', 'done', 'response', ARGV[4])
redis.call('PEXPIRE', k, ARGV[5])
return 1`,

  abandonIdempotent: `
local k = ARGV[1] .. 'idem:' .. ARGV[2]
local r = redis.call('HMGET', k, 'fingerprint', 'state')
if r[1] == ARGV[3] and r[2] == 'in-flight' then redis.call('DEL', k) end
return 1`,

  hitRateLimit: `
local k = ARGV[1] .. 'rl:' .. ARGV[2] .. ':' .. ARGV[3]
local hits = redis.call('INCR', k)
if hits == 1 then redis.call('PEXPIRE', k, ARGV[4]) end
return hits`,

  setRecord: `
local k = ARGV[1] .. 'rec:' .. ARGV[2]
if ARGV[4] == '' then redis.call('SET', k, ARGV[3]) else redis.call('SET', k, ARGV[3], 'PX', ARGV[4]) end
return 1`,

  getRecord: `
return redis.call('GET', ARGV[1] .. 'rec:' .. ARGV[2])`,

  takeRecord: `
local k = ARGV[1] .. 'rec:' .. ARGV[2]
local v = redis.call('GET', k)
redis.call('DEL', k)
return v`,

  // SCAN walks the keyspace in bounded steps; the pattern's glob characters are escaped by the caller.
  listRecords: `
local base = ARGV[1] .. 'rec:'
local found = {}
local cursor = '0'
local limit = tonumber(ARGV[3])
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', base .. ARGV[2] .. '*', 'COUNT', 500)
  cursor = page[1]
  for _, k in ipairs(page[2]) do
    if #found >= limit * 2 then break end
    local v = redis.call('GET', k)
    if v then
      table.insert(found, string.sub(k, #base + 1))
      table.insert(found, v)
    end
  end
until cursor == '0' or #found >= limit * 2
return found`,

  claimOnce: `
local ok = redis.call('SET', ARGV[1] .. 'claim:' .. ARGV[2], '1', 'NX', 'PX', ARGV[3])
if ok then return 1 end
return 0`,
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

export function createScriptStore(kind: 'redis' | 'vercel-kv', runner: ScriptRunner, prefix = 'pac:'): Store {
  const guard = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
  };
  const run = (name: ScriptName, ...args: Array<string | number | null>) => runner.run(name, [prefix, ...args.map(str)]);

  return {
    kind,
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
    addGrant: (g: Grant) =>
      guard(async () => void (await run('addGrant', g.id, g.keyHash, g.plan, g.calls, g.used, g.expiresAt, g.createdAt, g.sourceRef))),
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
    reserveCall: (keyHash, id, now, holdUntil) =>
      guard(async (): Promise<ReserveResult> => {
        const grantId = await run('reserveCall', keyHash, id, now, holdUntil);
        return grantId ? { ok: true, grantId: String(grantId) } : { ok: false };
      }),
    commitReservation: (id, now) => guard(async () => str(await run('commitReservation', id, now)) as CommitResult),
    releaseReservation: (id) => guard(async () => Number(await run('releaseReservation', id)) === 1),
    getReservation: (id) =>
      guard(async (): Promise<Reservation | null> => {
        const h = await runner.hgetall(`${prefix}res:${id}`);
        if (!h || !h.grantId) return null;
        return { id, keyHash: h.keyHash, grantId: h.grantId, state: h.state as Reservation['state'], holdUntil: Number(h.holdUntil) };
      }),
    beginIdempotent: (scope, fingerprint, _now, ttl) =>
      guard(async (): Promise<IdempotencyRecord | null> => {
        const r = (await run('beginIdempotent', scope, fingerprint, ttl)) as string[] | null;
        if (!r) return null;
        const [fp, state, response] = r.map(str);
        return state === 'done' ? { state: 'done', fingerprint: fp, response } : { state: 'in-flight', fingerprint: fp };
      }),
    completeIdempotent: (scope, fingerprint, response, _now, ttlMs) =>
      guard(async () => void (await run('completeIdempotent', scope, fingerprint, response, ttlMs))),
    abandonIdempotent: (scope, fingerprint) => guard(async () => void (await run('abandonIdempotent', scope, fingerprint))),
    getIdempotent: (scope) =>
      guard(async (): Promise<IdempotencyRecord | null> => {
        const h = await runner.hgetall(`${prefix}idem:${scope}`);
        if (!h || !h.fingerprint) return null;
        return h.state === 'done'
          ? { state: 'done', fingerprint: h.fingerprint, response: h.response ?? '' }
          : { state: 'in-flight', fingerprint: h.fingerprint };
      }),
    hitRateLimit: (bucket, limit, windowMs, now) =>
      guard(async (): Promise<RateLimitResult> => {
        const windowStart = now - (now % windowMs);
        const hits = Number(await run('hitRateLimit', bucket, windowStart, windowMs));
        return { allowed: hits <= limit, remaining: Math.max(0, limit - hits), retryAfterMs: hits <= limit ? 0 : windowStart + windowMs - now };
      }),
    claimOnce: (key, _now, ttlMs) => guard(async () => Number(await run('claimOnce', key, ttlMs)) === 1),
    setRecord: (name, value, _now, ttlMs) => guard(async () => void (await run('setRecord', name, value, ttlMs))),
    getRecord: (name) => guard(async () => { const v = await run('getRecord', name); return v === null || v === undefined ? null : String(v); }),
    takeRecord: (name) => guard(async () => { const v = await run('takeRecord', name); return v === null || v === undefined ? null : String(v); }),
    listRecords: (namePrefix, _now, limit) =>
      guard(async () => {
        const flat = ((await run('listRecords', globEscape(namePrefix), limit)) as unknown[]).map(str);
        const rows: Array<{ name: string; value: string }> = [];
        for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ name: flat[i], value: flat[i + 1] });
        return rows;
      }),
    close: () => runner.close(),
  };
}
