import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKey, grantFor } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import type { Store } from '@/lib/store';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { countStates, figures, readLedger, recordFigures, runLoad, type Answer, type Kind, type LoadRun } from './harness';

// Two `next start` processes behind one store take a mixed load that saturates this machine; then
// the ledger must balance to the call. Throughput and latency are printed and recorded, never asserted.

const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 60);
/** Closed-loop connections per request kind, spread over both servers; 4 kinds. */
const WORKERS_PER_KIND = Number(process.env.LOAD_WORKERS_PER_KIND ?? 12);
/** The first grant runs dry mid-load, so spending crosses from one grant to the next under contention. */
const FIRST_GRANT_CALLS = 1_500;
const SECOND_GRANT_CALLS = 1_000_000;
const REPLAY_KEYS = 16;

const BODY = JSON.stringify(validReadinessBody());
const HIGH_LIMITS = { RATE_LIMIT_PER_IP: '1000000000', RATE_LIMIT_PER_KEY: '1000000000', LOG_LEVEL: 'silent' };

let rails: Rails;
const results: Record<string, unknown> = {};

beforeAll(async () => {
  rails = await startRails();
}, 240_000);

afterAll(async () => {
  await rails?.stop();
  recordFigures('load', { seconds: LOAD_SECONDS, workersPerKind: WORKERS_PER_KIND, cores: os.cpus().length, stores: results });
});

function mixedLoad(store: string, key: string): Kind[] {
  const json = { 'content-type': 'application/json' };
  const bearer = { authorization: `Bearer ${key}` };
  return [
    { name: 'probe402', workers: WORKERS_PER_KIND, next: () => ({ method: 'POST', path: '/api/agent/readiness', headers: json, body: BODY }) },
    {
      name: 'prepaid',
      workers: WORKERS_PER_KIND,
      // Half without Idempotency-Key (the gate makes one up), half with a key never used before.
      next: (w, n) => {
        const idem = n % 2 === 0 ? null : `load-${store}-${w}-${n}`;
        return { method: 'POST', path: '/api/agent/readiness', headers: { ...json, ...bearer, ...(idem ? { 'idempotency-key': idem } : {}) }, body: BODY, tag: idem ?? undefined };
      },
    },
    {
      name: 'replay',
      workers: WORKERS_PER_KIND,
      next: (w, n) => {
        const idem = `replay-${store}-${(w * 7 + n) % REPLAY_KEYS}`;
        return { method: 'POST', path: '/api/agent/readiness', headers: { ...json, ...bearer, 'idempotency-key': idem }, body: BODY, tag: idem };
      },
    },
    { name: 'credits', workers: WORKERS_PER_KIND, next: () => ({ method: 'GET', path: '/api/agent/credits', headers: bearer }) },
  ];
}

async function mintLoadKey(store: Store): Promise<{ key: string; keyHash: string; granted: number }> {
  const now = Date.now();
  const { key, keyHash } = await createKey(store, TEST_SECRET, 'bundle-100', { now, calls: FIRST_GRANT_CALLS, label: 'load' });
  // Expires later than the first, so the first is spent first.
  await store.addGrant({ ...grantFor(keyHash, 'bundle-100', now + 1_000, 'load-2', SECOND_GRANT_CALLS) });
  return { key, keyHash, granted: FIRST_GRANT_CALLS + SECOND_GRANT_CALLS };
}

const usage = (a: Answer) => a.body?.creditsUsage as string | undefined;

/** Every check the ledger and the answers must pass after a load run. Returns what it counted. */
async function checkRun(run: LoadRun, where: { sqliteDir: string } | { redisUrl: string }, keyHash: string, granted: number, servers: RunningServer[], key: string) {
  const { answers } = run;
  const failures = answers.filter((a) => a.error);
  expect(failures.slice(0, 5), 'connection-level failures').toEqual([]);
  const fivexx = answers.filter((a) => a.status >= 500);
  expect(fivexx.slice(0, 5).map((a) => ({ kind: a.kind, status: a.status, body: a.body })), '5xx answers').toEqual([]);

  const of = (kind: string) => answers.filter((a) => a.kind === kind);

  // Unpaid probes: a real 402 with the x402 terms, every time.
  const probes = of('probe402');
  expect(probes.filter((a) => !(a.status === 402 && a.paymentRequired && a.contentType === 'application/problem+json')).slice(0, 3)).toEqual([]);

  // Prepaid calls: each one fulfilled, none a replay.
  const prepaid = of('prepaid');
  expect(prepaid.filter((a) => a.status !== 200 || a.replayed || !usage(a)).slice(0, 3).map((a) => ({ status: a.status, body: a.body }))).toEqual([]);

  // Replays: per key, one fulfilment; every other 200 is that same answer replayed; a 409 only while
  // the first was still running.
  const replays = of('replay');
  const byKey = new Map<string, Answer[]>();
  for (const a of replays) {
    if (!byKey.has(a.tag!)) byKey.set(a.tag!, []);
    byKey.get(a.tag!)!.push(a);
  }
  const replayFulfilled: Answer[] = [];
  let inFlight409 = 0;
  for (const [idem, list] of byKey) {
    const fulfilled = list.filter((a) => a.status === 200 && !a.replayed);
    expect(fulfilled.length, `fulfilments under Idempotency-Key ${idem}`).toBe(1);
    replayFulfilled.push(fulfilled[0]);
    const first = fulfilled[0];
    for (const a of list) {
      if (a === first) continue;
      if (a.status === 200) {
        expect(a.replayed).toBe(true);
        expect(usage(a)).toBe(usage(first));
        expect(a.body).toEqual(first.body);
      } else {
        expect({ status: a.status, type: a.body?.type }).toEqual({ status: 409, type: 'https://paid-agent-checks.dev/problems/idempotency-in-flight' });
        expect(a.start).toBeLessThan(first.end);
        inFlight409 += 1;
      }
    }
  }

  // Credits lookups: always answered, never more than was granted.
  const lookups = of('credits');
  expect(lookups.filter((a) => a.status !== 200 || typeof a.body?.callsLeft !== 'number' || (a.body.callsLeft as number) > granted).slice(0, 3)).toEqual([]);

  // The ledger, read from the store itself.
  const delivered = [...prepaid, ...replayFulfilled].map((a) => usage(a)!);
  expect(new Set(delivered).size, 'each creditsUsage id appears once').toBe(delivered.length);
  const ledger = await readLedger(where, keyHash);
  const states = countStates(ledger);
  const notCommitted = delivered.filter((id) => ledger.reservations.get(id)?.state !== 'committed');
  expect(notCommitted.slice(0, 5), 'delivered usage ids that are not committed reservations').toEqual([]);
  expect(states.held, 'reservations left held').toBe(0);
  expect(states.committed, 'fulfilled prepaid 200s = calls committed').toBe(delivered.length);
  expect(ledger.used, 'grants used = calls committed').toBe(states.committed);
  expect(ledger.granted).toBe(granted);
  const callsLeft = granted - states.committed;
  for (const s of servers) {
    const res = await fetch(`${s.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { callsLeft: number }).callsLeft, 'calls granted - calls committed = calls left').toBe(callsLeft);
  }
  return { committed: states.committed, released: states.released, inFlight409, callsLeft, discrepancies: 0 };
}

function report(store: string, run: LoadRun, ledger: Record<string, number>) {
  const f = figures(run);
  const total = run.answers.length / run.seconds;
  console.log(`[system] load ${store}: ${Math.round(total)} req/s over ${run.seconds.toFixed(1)} s, 2 servers, ${WORKERS_PER_KIND * 4} connections, CPU busy ${(run.cpuBusy * 100).toFixed(0)}%`);
  for (const [kind, k] of Object.entries(f)) {
    console.log(`[system] load ${store} ${kind.padEnd(8)} ${String(k.requestsPerSecond).padStart(7)} req/s  p50 ${k.p50Ms} ms  p99 ${k.p99Ms} ms  (${k.requests} requests: ${JSON.stringify(k.statuses)})`);
  }
  console.log(`[system] load ${store} ledger: ${ledger.committed} calls committed, ${ledger.callsLeft} left, ${ledger.released} released (replay races), ${ledger.inFlight409} in-flight 409s, 0 discrepancies`);
  results[store] = { requestsPerSecond: Math.round(total), seconds: Math.round(run.seconds * 10) / 10, cpuBusy: Math.round(run.cpuBusy * 100) / 100, kinds: f, ledger };
}

describe('mixed load on two next start processes', () => {
  it('sqlite (one DATA_DIR): no 5xx, and the ledger balances to the call', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-load-'));
    const store = openSqliteStore(dataDir);
    const servers: RunningServer[] = [];
    try {
      const { key, keyHash, granted } = await mintLoadKey(store);
      await store.close();
      servers.push(...(await Promise.all([0, 1].map(() => startServer({ ...rails.env, ...HIGH_LIMITS, DATA_DIR: dataDir })))));
      const run = await runLoad(servers.map((s) => s.url), mixedLoad('sqlite', key), { seconds: LOAD_SECONDS });
      const ledger = await checkRun(run, { sqliteDir: dataDir }, keyHash, granted, servers, key);
      report('sqlite', run, ledger);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  describe.skipIf(!redisServerAvailable())('redis', () => {
    let redis: RedisServer;
    beforeAll(async () => { redis = await startRedisServer(); });
    afterAll(() => redis?.stop());

    it('redis (one REDIS_URL): no 5xx, and the ledger balances to the call', async () => {
      const store = openRedisStore(redis.url);
      const servers: RunningServer[] = [];
      try {
        const { key, keyHash, granted } = await mintLoadKey(store);
        await store.close();
        servers.push(...(await Promise.all([0, 1].map(() => startServer({ ...rails.env, ...HIGH_LIMITS, REDIS_URL: redis.url })))));
        const run = await runLoad(servers.map((s) => s.url), mixedLoad('redis', key), { seconds: LOAD_SECONDS });
        const ledger = await checkRun(run, { redisUrl: redis.url }, keyHash, granted, servers, key);
        report('redis', run, ledger);
      } finally {
        await Promise.all(servers.map((s) => s.stop()));
        for (const s of servers) fs.rmSync(s.dataDir, { recursive: true, force: true });
      }
    });
  });
});
