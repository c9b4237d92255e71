import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { balance, createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import type { Store } from '@/lib/store';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import {
  ROOT, countStates, isStoreUnavailable, pidListeningOn, readLedger, recordFigures, runLoad, sleep,
  type Answer, type Kind, type LedgerReading, type LoadRun,
} from './harness';

// The store goes away under load (Redis killed and restarted; the SQLite file write-locked by another
// process past busy_timeout), and a server is SIGKILLed with calls reserved but not committed.
// Throughout: a failure is a 503 problem+json that charged nothing, and service comes back by itself.

/** Short, so a reservation orphaned by a crash returns within the test; requests here take far less. */
const HOLD_SECONDS = 3;
/**
 * The SIGKILL test's hold: long enough that every call under its load ends well inside it, so a reservation
 * still held at the kill is one the kill orphaned. The withheld calls are read on a clock the test sets, so
 * the hold need not outlast anything else.
 */
const SIGKILL_HOLD_SECONDS = 30;
const CALLS = 1_000_000;
const BODY = JSON.stringify(validReadinessBody());
const ENV = { RATE_LIMIT_PER_IP: '1000000000', RATE_LIMIT_PER_KEY: '1000000000', LOG_LEVEL: 'silent', CREDITS_RESERVATION_HOLD_SECONDS: String(HOLD_SECONDS) };

let rails: Rails;
const faults: Record<string, unknown> = {};

beforeAll(async () => {
  rails = await startRails();
}, 240_000);

afterAll(async () => {
  await rails?.stop();
  recordFigures('storeFaults', faults);
});

function faultLoad(key: string, workers = 4): Kind[] {
  const json = { 'content-type': 'application/json' };
  const bearer = { authorization: `Bearer ${key}` };
  const tagged = (w: number, n: number) => `fault-${process.pid}-${Date.now().toString(36)}-${w}-${n}`;
  return [
    {
      name: 'prepaid',
      workers,
      next: (w, n) => {
        const idem = tagged(w, n);
        return { method: 'POST', path: '/api/agent/readiness', headers: { ...json, ...bearer, 'idempotency-key': idem }, body: BODY, tag: idem };
      },
    },
    { name: 'probe402', workers: Math.max(1, workers / 2), next: () => ({ method: 'POST', path: '/api/agent/readiness', headers: json, body: BODY }) },
    { name: 'credits', workers: Math.max(1, workers / 2), next: () => ({ method: 'GET', path: '/api/agent/credits', headers: bearer }) },
  ];
}

async function mintKey(store: Store) {
  const { key, keyHash } = await createKey(store, TEST_SECRET, 'bundle-100', { calls: CALLS, label: 'faults' });
  await store.close();
  return { key, keyHash };
}

async function waitFor(what: string, predicate: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

const usage = (a: Answer) => a.body?.creditsUsage as string | undefined;
const liveHolds = (ledger: LedgerReading, now = Date.now()) => [...ledger.reservations.values()].filter((r) => r.state === 'held' && r.holdUntil > now).length;

/**
 * Runs the fault load while `inject` takes the store away and gives it back; returns the answers and
 * the windows (performance.now() clock) in which the store was certainly gone.
 */
async function underFault(servers: RunningServer[], key: string, inject: () => Promise<{ down: number; up: number }>) {
  const recoveredOn = new Set<number>();
  let up = Infinity;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  const load = runLoad(servers.map((s) => s.url), faultLoad(key), { stop: stopped }, (a) => {
    if (a.start > up && a.kind === 'prepaid' && a.status === 200) recoveredOn.add(a.server);
  });
  try {
    await sleep(2_000);
    const window = await inject();
    up = window.up;
    await waitFor('both servers to fulfil prepaid calls again', () => recoveredOn.size === servers.length, 30_000);
    const recovered = performance.now();
    await sleep(1_500);
    stop();
    const run = await load;
    return { run, ...window, recovered };
  } finally {
    stop();
    await load.catch(() => undefined);
  }
}

/** What every store outage must show: 503 store-unavailable while down, no other 5xx, and service back afterwards. */
function checkOutage(run: LoadRun, down: number, up: number, recovered: number, writesOnly: boolean) {
  const { answers } = run;
  expect(answers.filter((a) => a.error).slice(0, 3), 'connection-level failures').toEqual([]);
  const bad5xx = answers.filter((a) => a.status >= 500 && !isStoreUnavailable(a));
  expect(bad5xx.slice(0, 3).map((a) => ({ kind: a.kind, status: a.status, body: a.body })), '5xx other than store-unavailable').toEqual([]);

  // Entirely inside the outage: nothing that needs the store can have succeeded.
  const inside = answers.filter((a) => a.start > down && a.end < up && (!writesOnly || a.kind !== 'credits'));
  const notRefused = inside.filter((a) => !isStoreUnavailable(a));
  expect(notRefused.slice(0, 3).map((a) => ({ kind: a.kind, status: a.status, type: a.body?.type })), 'answers inside the outage that are not 503 store-unavailable').toEqual([]);
  expect(inside.length, 'requests refused during the outage').toBeGreaterThan(0);
  expect(answers.filter((a) => a.kind === 'prepaid' && isStoreUnavailable(a)).length, 'prepaid calls refused').toBeGreaterThan(0);

  // After recovery every kind is served normally again.
  const after = answers.filter((a) => a.start > recovered);
  const expected: Record<string, number> = { prepaid: 200, probe402: 402, credits: 200 };
  expect(after.filter((a) => a.status !== expected[a.kind]).slice(0, 3).map((a) => ({ kind: a.kind, status: a.status, body: a.body }))).toEqual([]);
  expect(after.length).toBeGreaterThan(0);
  return { refusedDuringOutage: inside.length, served503: answers.filter(isStoreUnavailable).length, outageSeconds: round((up - down) / 1000), recoverySeconds: round((recovered - up) / 1000), answers: answers.length };
}

/** Nothing was charged that was not delivered, the held calls came back, and the balance says so. */
async function checkNothingCharged(run: LoadRun, where: { sqliteDir: string } | { redisUrl: string }, keyHash: string, servers: RunningServer[], key: string) {
  const delivered = run.answers.filter((a) => a.kind === 'prepaid' && a.status === 200).map((a) => usage(a)!);
  expect(new Set(delivered).size).toBe(delivered.length);
  // Requests cut off mid-outage may have left holds; they lapse after HOLD_SECONDS.
  await sleep((HOLD_SECONDS + 0.5) * 1000);
  const ledger = await readLedger(where, keyHash);
  const committed = [...ledger.reservations].filter(([, r]) => r.state === 'committed').map(([id]) => id);
  const deliveredSet = new Set(delivered);
  expect(committed.filter((id) => !deliveredSet.has(id)).slice(0, 5), 'committed calls never delivered (charged for a 503)').toEqual([]);
  expect(committed.length, 'delivered calls = committed calls').toBe(delivered.length);
  expect(ledger.used).toBe(committed.length);
  expect(liveHolds(ledger), 'reservations still held').toBe(0);
  for (const s of servers) {
    const res = await fetch(`${s.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await res.json()) as { callsLeft: number }).callsLeft, 'calls granted - calls committed = calls left').toBe(CALLS - committed.length);
  }
  return { committed: committed.length, orphanedHoldsLapsed: countStates(ledger).held, discrepancies: 0 };
}

const round = (n: number) => Math.round(n * 10) / 10;

describe('the store goes away under load', () => {
  describe.skipIf(!redisServerAvailable())('redis', () => {
    let redis: RedisServer;
    const servers: RunningServer[] = [];
    beforeAll(async () => { redis = await startRedisServer({ persist: true }); });
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await redis?.stop();
    });

    it('Redis killed mid-load and restarted: 503 store-unavailable while down, nothing charged, service resumes without a server restart', async () => {
      const { key, keyHash } = await mintKey(openRedisStore(redis.url));
      servers.push(...(await Promise.all([0, 1].map(() => startServer({ ...rails.env, ...ENV, REDIS_URL: redis.url })))));
      const { run, down, up, recovered } = await underFault(servers, key, async () => {
        await redis.stop();
        const down = performance.now();
        await sleep(5_000);
        const up = performance.now();
        await redis.restart();
        return { down, up };
      });
      const outage = checkOutage(run, down, up, recovered, false);
      const ledger = await checkNothingCharged(run, { redisUrl: redis.url }, keyHash, servers, key);
      console.log(`[system] fault redis-killed: ${outage.refusedDuringOutage} requests answered 503 store-unavailable during a ${outage.outageSeconds} s outage (${outage.served503} in all), both servers serving again ${outage.recoverySeconds} s after Redis returned; ${ledger.committed} calls committed = delivered, ${ledger.orphanedHoldsLapsed} orphaned holds lapsed, 0 discrepancies`);
      faults.redisKilled = { ...outage, ...ledger };
    });
  });

  it('SQLite write-locked by another process past busy_timeout: 503 store-unavailable, nothing charged, resumes when the lock goes', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-lock-'));
    const servers: RunningServer[] = [];
    try {
      const { key, keyHash } = await mintKey(openSqliteStore(dataDir));
      servers.push(...(await Promise.all([0, 1].map(() => startServer({ ...rails.env, ...ENV, DATA_DIR: dataDir })))));
      // busy_timeout is 5 s in the adapter: hold the write lock well past it.
      const LOCK_MS = 15_000;
      const { run, down, up, recovered } = await underFault(servers, key, () => holdWriteLock(path.join(dataDir, 'store.sqlite'), LOCK_MS));
      // WAL readers are not blocked by a writer, so credits lookups may still succeed while locked.
      const outage = checkOutage(run, down, up, recovered, true);
      const ledger = await checkNothingCharged(run, { sqliteDir: dataDir }, keyHash, servers, key);
      console.log(`[system] fault sqlite-locked: ${outage.refusedDuringOutage} writing requests answered 503 store-unavailable during a ${outage.outageSeconds} s exclusive lock (${outage.served503} in all), both servers serving again ${outage.recoverySeconds} s after it went; ${ledger.committed} calls committed = delivered, ${ledger.orphanedHoldsLapsed} orphaned holds lapsed, 0 discrepancies`);
      faults.sqliteLocked = { ...outage, ...ledger };
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** A separate process takes the database's write lock (BEGIN EXCLUSIVE) and keeps it for `ms`. */
async function holdWriteLock(file: string, ms: number): Promise<{ down: number; up: number }> {
  const script = `
    const db = require('better-sqlite3')(process.env.LOCK_FILE);
    db.pragma('busy_timeout = 10000');
    db.exec('BEGIN EXCLUSIVE');
    console.log('LOCK-HELD');
    setTimeout(() => { console.log('LOCK-RELEASING'); db.exec('COMMIT'); db.close(); }, Number(process.env.LOCK_MS));`;
  const child = spawn(process.execPath, ['-e', script], { cwd: ROOT, env: { ...process.env, LOCK_FILE: file, LOCK_MS: String(ms) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let down = 0;
  let up = 0;
  child.stdout.on('data', (d) => {
    out += d;
    // Both marks are on the safe side: taken after the lock is held and before it is let go.
    if (!down && out.includes('LOCK-HELD')) down = performance.now();
    if (!up && out.includes('LOCK-RELEASING')) up = performance.now();
  });
  child.stderr.on('data', (d) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0 || !down || !up) throw new Error(`lock holder failed (${code}):\n${out}`);
  return { down, up };
}

// On Redis every store call between reserving and committing is a network round trip, so under load
// a kill finds calls held. On SQLite that stretch is a few synchronous statements with no await on I/O
// in between: a kill virtually never lands inside it (0 held in 8 tries), so it is exercised on Redis.
describe.skipIf(!redisServerAvailable())('a server SIGKILLed between reserving and committing calls (redis)', () => {
  let redis: RedisServer | undefined;
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await redis?.stop();
    if (server) fs.rmSync(server.dataDir, { recursive: true, force: true });
  });

  it('the held calls come back after the reservation timeout', async () => {
    redis = await startRedisServer();
    const where = { redisUrl: redis.url };
    const { key, keyHash } = await mintKey(openRedisStore(redis.url));
    server = await startServer({ ...rails.env, ...ENV, CREDITS_RESERVATION_HOLD_SECONDS: String(SIGKILL_HOLD_SECONDS), REDIS_URL: redis.url });

    // Whether the kill lands while some request holds a reservation is chance: try until one does.
    const MAX_ATTEMPTS = 10;
    let attempts = 0;
    let held = 0;
    let before: LedgerReading | undefined;
    let delivered = 0;
    while (held === 0 && attempts < MAX_ATTEMPTS) {
      attempts += 1;
      if (attempts > 1) await server.restart();
      let stop!: () => void;
      const stopped = new Promise<void>((r) => (stop = r));
      const load = runLoad([server.url], [faultLoad(key, 48)[0]], { stop: stopped });
      await sleep(1_500);
      process.kill(pidListeningOn(server.port), 'SIGKILL');
      stop();
      const run = await load;
      delivered += run.answers.filter((a) => a.status === 200).length;
      before = await readLedger(where, keyHash);
      held = liveHolds(before);
    }
    expect(held, `reservations left held by a SIGKILL in ${attempts} attempts`).toBeGreaterThan(0);
    const committed = countStates(before!).committed;

    // Until the holds lapse the orphaned calls are withheld, every one of them. Read on the store's own terms
    // (every expiry is decided on the caller's clock), at a moment inside every hold and at one past them all,
    // so no server restart or slow machine can decide which of the two is seen.
    const holds = [...before!.reservations.values()].filter((r) => r.state === 'held').map((r) => r.holdUntil);
    expect(holds).toHaveLength(held);
    const [firstLapse, maxHold] = [Math.min(...holds), Math.max(...holds)];
    const store = openRedisStore(redis.url);
    try {
      expect((await balance(store, keyHash, firstLapse - 1)).callsLeft, 'calls left while the orphaned holds last').toBe(CALLS - committed - held);
      expect((await balance(store, keyHash, maxHold + 1)).callsLeft, 'calls left once every hold lapsed').toBe(CALLS - committed);
    } finally {
      await store.close();
    }

    // And the restarted server gives them back once the holds have lapsed on the wall clock.
    await server.restart();
    await sleep(Math.max(0, maxHold - Date.now()) + 200);
    const res = await fetch(`${server.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { callsLeft: number }).callsLeft, 'calls granted - calls committed = calls left, after the hold').toBe(CALLS - committed);
    const after = await readLedger(where, keyHash);
    expect(after.used).toBe(committed);
    expect(liveHolds(after)).toBe(0);
    // A call committed just before the kill may not have reached its client; none is delivered uncommitted.
    expect(delivered).toBeLessThanOrEqual(committed);
    console.log(`[system] fault sigkill redis: ${held} reservations orphaned by SIGKILL (attempt ${attempts}), back in the balance after the ${SIGKILL_HOLD_SECONDS} s hold; ${committed} committed, ${committed - delivered} committed but cut off before the answer reached the client`);
    faults.sigkillRedis = { held, attempts, committed, deliveredBeforeKill: delivered, callsBack: true };
  });
});
