// Every limit is counted in the store, so N instances of the service allow what one does. Two instances here are
// two runtimes (each with its own config and its own store connection) over ONE store: one SQLite file opened
// twice, or one redis-server reached by two clients. Calls go to the instances in turn, as a round-robin load
// balancer would send them, and each limit allows exactly its count across both, then refuses on both.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as signIn } from '@/app/api/session/route';
import { GET as listReports } from '@/app/api/reports/route';
import { POST as checkout } from '@/app/api/billing/checkout/route';
import { proxy } from '@/proxy';
import { balance, createKey } from '@/lib/credits/ledger';
import { parseConfig } from '@/lib/config';
import { addressKey } from '@/lib/outbound/outbound';
import { PROBLEM_BASE } from '@/lib/problems';
import { setRuntimeForTests, type Runtime } from '@/lib/runtime';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import type { Store } from '@/lib/store';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { goodRoutes } from '../visibility/fixture-pages';
import { post, validReadinessBody } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';

const BASE = 'http://localhost:3000';
const readiness = agentCheckRoute('readiness');
const visibility = agentCheckRoute('ai-visibility');
// One fixed window for every count, whatever the machine's speed: only Date is frozen.
const FROZEN_AT = new Date('2026-11-28T12:00:10Z');
const LIMIT = 5;

/** The limits under test, each at LIMIT; the others out of the way so each test meets only its own. */
const ENV = {
  NODE_ENV: 'test',
  CREDITS_KEY_SECRET: 'x'.repeat(40),
  APP_URL: BASE,
  TRUSTED_PROXY: '1',
  RATE_LIMIT_PER_IP: '1000',
  RATE_LIMIT_PER_KEY: '1000',
  RATE_LIMIT_REPORTS_PER_IP: String(LIMIT),
  RATE_LIMIT_SESSION_PER_IP: String(LIMIT),
  RATE_LIMIT_CHECKOUT_PER_IP: String(LIMIT),
  CHECKS_PER_SITE_PER_MINUTE: '1000000',
  OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '1000000',
  OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: '1000000',
};

interface Backend {
  /** A new connection to the one store both instances share. */
  connect(): Store;
  dataDir: string;
}

/** Two instances over one store; `on(i, work)` runs `work` as instance i serves it. */
function cluster(backend: Backend, env: Record<string, string> = {}) {
  const instances: Runtime[] = [0, 1].map(() => ({
    config: parseConfig({ ...ENV, DATA_DIR: backend.dataDir, ...env }),
    store: backend.connect(),
    rails: null,
    log: () => {},
  }));
  return {
    instances,
    /** Calls are sequential: the installed runtime is the process's one, so two calls must not overlap. */
    async on<T>(i: number, work: () => Promise<T>): Promise<T> {
      setRuntimeForTests(instances[i % 2]);
      try {
        return await work();
      } finally {
        setRuntimeForTests(undefined);
      }
    },
    close: () => Promise.all(instances.map((r) => r.store.close())),
  };
}

type Cluster = ReturnType<typeof cluster>;

/** Sends `count` requests, the n-th to instance n % 2, and answers their statuses in order. */
async function roundRobin(c: Cluster, count: number, send: (n: number) => Promise<Response>): Promise<number[]> {
  const statuses: number[] = [];
  for (let n = 0; n < count; n++) statuses.push((await c.on(n, () => send(n))).status);
  return statuses;
}

const times = <T,>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

async function expectRateLimited(res: Response): Promise<void> {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  // 12:00:10 in a window that ends at 12:01:00.
  expect(res.headers.get('retry-after')).toBe('50');
  expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
}

function limitsAcrossInstances(name: string, open: () => Promise<Backend & { close(): Promise<void> }>) {
  describe(`two instances over one ${name} store`, () => {
    let backend: Backend & { close(): Promise<void> };
    let site: FixtureSite;
    let c: Cluster | undefined;

    beforeAll(async () => {
      site = await startFixtureSite({ ...goodRoutes(), '/reset': { reset: true } });
    });
    afterAll(async () => {
      await site?.close();
    });
    beforeEach(async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(FROZEN_AT);
      backend = await open();
      site.requests.length = 0;
      process.env.CHECK_HOST_MAP = site.hostMap(['site.test', 'www.site.test']);
    });
    afterEach(async () => {
      vi.useRealTimers();
      delete process.env.CHECK_HOST_MAP;
      await c?.close();
      c = undefined;
      await backend.close();
    });

    const keys = async (n: number) => {
      const minted = [];
      for (let i = 0; i < n; i++) minted.push(await createKey(c!.instances[0].store, ENV.CREDITS_KEY_SECRET, 'bundle-25'));
      return minted;
    };

    it('paid calls per client address (RATE_LIMIT_PER_IP): 5 across both, then 429 on either', async () => {
      c = cluster(backend, { RATE_LIMIT_PER_IP: String(LIMIT) });
      const [{ key }] = await keys(1);
      const call = () => readiness.POST(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.7' }));
      expect(await roundRobin(c, LIMIT, call)).toEqual(times(LIMIT, 200));
      await expectRateLimited(await c.on(0, call));
      await expectRateLimited(await c.on(1, call));
    });

    it('paid calls per key (RATE_LIMIT_PER_KEY): 5 across both from five addresses, then 429 on either', async () => {
      c = cluster(backend, { RATE_LIMIT_PER_KEY: String(LIMIT) });
      const [{ key, keyHash }] = await keys(1);
      const call = (n: number) => readiness.POST(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${key}`, 'x-forwarded-for': `203.0.113.${10 + n}` }));
      expect(await roundRobin(c, LIMIT, call)).toEqual(times(LIMIT, 200));
      await expectRateLimited(await c.on(0, () => call(50)));
      await expectRateLimited(await c.on(1, () => call(51)));
      expect((await balance(c.instances[1].store, keyHash)).callsLeft).toBe(25 - LIMIT);
    });

    it('checks of one site (CHECKS_PER_SITE_PER_MINUTE): 5 across both by five callers, then 429, nothing charged for it', async () => {
      c = cluster(backend, { CHECKS_PER_SITE_PER_MINUTE: String(LIMIT) });
      const callers = await keys(LIMIT + 1);
      const call = (n: number) =>
        visibility.POST(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/guide' }, { authorization: `Bearer ${callers[n].key}`, 'x-forwarded-for': `203.0.113.${20 + n}` }));
      expect(await roundRobin(c, LIMIT, call)).toEqual(times(LIMIT, 200));
      const requestsBefore = site.requests.length;
      const refused = await c.on(LIMIT, () => call(LIMIT));
      await expectRateLimited(refused);
      expect((await balance(c.instances[0].store, callers[LIMIT].keyHash)).callsLeft).toBe(25);
      expect(site.requests.length).toBe(requestsBefore);
    });

    // The host map points site.test at the fixture's port on 127.0.0.1: the address budget counts that address.
    it.each([
      { budget: 'domain', setting: 'OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE', bucket: () => 'outbound:site.test' },
      { budget: 'address', setting: 'OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE', bucket: () => `outbound:address:${addressKey('127.0.0.1', site.port)}` },
    ])('requests to one $budget ($setting): what one instance sent, the other counts', async ({ setting, bucket }) => {
      const budget = 1000;
      c = cluster(backend, { [setting]: String(budget) });
      const [a, b] = await keys(2);
      const check = (key: string) => visibility.POST(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/guide' }, { authorization: `Bearer ${key}` }));
      expect((await c.on(0, () => check(a.key))).status).toBe(200);
      const sent = site.requests.length;
      expect(sent).toBeGreaterThan(1);
      // Instance 1's own connection sees every request instance 0 sent there this minute (this hit is one more).
      const seen = await c.instances[1].store.hitRateLimit(bucket(), budget, 60_000, Date.now());
      expect(seen.remaining).toBe(budget - sent - 1);
      // Instance 0 spends the rest of the minute; instance 1 then refuses a check there, sending nothing.
      for (let i = sent + 1; i < budget; i++) await c.instances[0].store.hitRateLimit(bucket(), budget, 60_000, Date.now());
      const refused = await c.on(1, () => check(b.key));
      await expectRateLimited(refused);
      expect(site.requests.length).toBe(sent);
      expect((await balance(c.instances[1].store, b.keyHash)).callsLeft).toBe(25);
    });

    it('checks that fail uncharged (RATE_LIMIT_COSTLY_FAILURES): 5 across both, then 429 before paying on either', async () => {
      c = cluster(backend, { RATE_LIMIT_COSTLY_FAILURES: String(LIMIT) });
      const [{ key, keyHash }] = await keys(1);
      // The site resets the connection before it answers: a failure that is never charged, so it is counted.
      const call = () => visibility.POST(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/reset' }, { authorization: `Bearer ${key}`, 'x-forwarded-for': '203.0.113.60' }));
      expect(await roundRobin(c, LIMIT, call)).toEqual(times(LIMIT, 422));
      await expectRateLimited(await c.on(0, call));
      await expectRateLimited(await c.on(1, call));
      // Refused before the site was asked again, and none of it charged.
      expect(site.requests.filter((p) => p === '/reset')).toHaveLength(LIMIT);
      expect((await balance(c.instances[0].store, keyHash)).callsLeft).toBe(25);
    });

    it('report reads per address (RATE_LIMIT_REPORTS_PER_IP): 5 across both, then 429 on either', async () => {
      c = cluster(backend);
      const read = () => listReports(new Request(`${BASE}/api/reports`, { headers: { 'x-forwarded-for': '203.0.113.30' } }));
      // No key: each read is refused 401, and each is counted first.
      expect(await roundRobin(c, LIMIT, read)).toEqual(times(LIMIT, 401));
      await expectRateLimited(await c.on(0, read));
      await expectRateLimited(await c.on(1, read));
    });

    it('report pages per address (RATE_LIMIT_REPORTS_PER_IP, in the proxy): 5 across both, then a 429 page on either', async () => {
      c = cluster(backend);
      const view = () => proxy(new NextRequest(`${BASE}/reports/rep_x`, { headers: { 'x-forwarded-for': '203.0.113.31' } }));
      expect(await roundRobin(c, LIMIT, view)).toEqual(times(LIMIT, 200));
      // Counted in the store, not in this process: instance 1's connection finds the window full.
      expect(await c.instances[1].store.hitRateLimit('reports-page:203.0.113.31', LIMIT, 60_000, Date.now())).toEqual({ allowed: false, remaining: 0, retryAfterMs: 50_000 });
      for (const i of [0, 1]) {
        const limited = await c.on(i, view);
        expect([limited.status, limited.headers.get('retry-after'), limited.headers.get('content-type')]).toEqual([429, '50', 'text/html; charset=utf-8']);
      }
      // Another address has its own window.
      expect((await c.on(0, () => proxy(new NextRequest(`${BASE}/account`, { headers: { 'x-forwarded-for': '203.0.113.32' } })))).status).toBe(200);
    });

    it('sign-in attempts per address (RATE_LIMIT_SESSION_PER_IP): 5 across both, then 429 on either', async () => {
      c = cluster(backend);
      const guess = () => signIn(post(`${BASE}/api/session`, { key: `pac_live_${'B'.repeat(40)}` }, { origin: BASE, 'x-forwarded-for': '203.0.113.40' }));
      expect(await roundRobin(c, LIMIT, guess)).toEqual(times(LIMIT, 401));
      await expectRateLimited(await c.on(0, guess));
      await expectRateLimited(await c.on(1, guess));
    });

    it('checkouts per address (RATE_LIMIT_CHECKOUT_PER_IP): 5 across both, then 429 on either', async () => {
      c = cluster(backend);
      // No Stripe here: an admitted checkout is told billing is unavailable (503), after it was counted.
      const buy = () => checkout(post(`${BASE}/api/billing/checkout`, { plan: 'bundle-25' }, { 'x-forwarded-for': '203.0.113.50' }));
      expect(await roundRobin(c, LIMIT, buy)).toEqual(times(LIMIT, 503));
      await expectRateLimited(await c.on(0, buy));
      await expectRateLimited(await c.on(1, buy));
    });
  });
}

limitsAcrossInstances('SQLite', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-cluster-'));
  return { dataDir, connect: () => openSqliteStore(dataDir), close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
});

describe.skipIf(!redisServerAvailable())('redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  let n = 0;
  limitsAcrossInstances('Redis', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-cluster-'));
    // A prefix per test: one redis-server, a fresh keyspace each time.
    const prefix = `pac-cluster-${process.pid}-${n++}:`;
    return { dataDir, connect: () => openRedisStore(redis.url, prefix), close: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  });
});
