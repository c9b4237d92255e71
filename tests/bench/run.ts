// `npm run bench`: throughput figures reported as ratios against a baseline measured in the same
// run, never as absolute targets (these machines are noisy). Each section prints one line.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, TEST_SECRET } from '../support/server';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import { redisServerAvailable, startRedisServer } from '../support/redis-server';
import { createKey } from '@/lib/credits/ledger';
import { validReadinessBody } from '../support/runtime';
import { benchAnalysisPool, benchConcurrency, benchExtraction, benchHostileMarkup, benchHostileSite, benchHugePage, benchPageSize, benchRobotsWorstCase } from './visibility';
import { benchPaidOverhead, benchUnpaidChallenge } from './payments';
import { benchLockedStoreWait } from './store';
import { benchRobotsAdversarial } from './timing';
import { benchRender } from './render';
import { benchContention } from './contention';
import { benchX402Reference } from './x402-reference';
import { benchPaymentEndpoint } from './payment-endpoint';
import { alternating, load, type Load } from './load';

const run = promisify(execFile);

const fmt = (l: Load) => `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, non-2xx ${l.non2xx}, errors ${l.errors}`;

/** Paid readiness with a prepaid key against the trivial route, both served by one `next start` on `store`. */
async function paidReadinessOn(label: string, env: Record<string, string>, createBenchKey: () => Promise<string>) {
  const key = await createBenchKey();
  const server = await startServer({ RATE_LIMIT_PER_IP: '100000000', RATE_LIMIT_PER_KEY: '100000000', LOG_LEVEL: 'silent', ...env });
  try {
    // Warm both routes so compilation and first-use costs stay out of the figures.
    await load({ url: `${server.url}/api/health`, duration: 2 });
    const body = JSON.stringify(validReadinessBody());
    const paid = { url: `${server.url}/api/agent/readiness`, method: 'POST' as const, body, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
    await load({ ...paid, duration: 2 });
    const [baseline, readiness] = await alternating({ url: `${server.url}/api/health` }, paid);
    const ratio = readiness.rps / baseline.rps;
    console.log(`[bench] ${label}: trivial JSON route (baseline): ${fmt(baseline)}`);
    console.log(`[bench] ${label}: POST /api/agent/readiness, prepaid key: ${fmt(readiness)}`);
    console.log(`[bench] ${label}: paid readiness / trivial throughput ratio: ${ratio.toFixed(2)} (target >= 0.65)`);
    return { baseline, readiness, ratio };
  } finally {
    await server.stop();
  }
}

export async function benchPaidReadiness(): Promise<Record<string, unknown>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-bench-'));
  const sqlite = await paidReadinessOn('SQLite store (the default)', { DATA_DIR: dataDir }, async () => {
    const store = openSqliteStore(dataDir);
    const { key } = await createKey(store, TEST_SECRET, 'bundle-100', { calls: 10_000_000 });
    await store.close();
    return key;
  });
  // The same run on the Redis adapter shows how much of the gap is the embedded store's own work,
  // which runs on the server's event loop (Redis does it in another process).
  if (!redisServerAvailable()) return { sqlite };
  const redisServer = await startRedisServer();
  try {
    const redis = await paidReadinessOn('Redis store', { REDIS_URL: redisServer.url }, async () => {
      const store = openRedisStore(redisServer.url);
      const { key } = await createKey(store, TEST_SECRET, 'bundle-100', { calls: 10_000_000 });
      await store.close();
      return key;
    });
    return { sqlite, redis };
  } finally {
    await redisServer.stop();
  }
}

export async function benchSqliteSpends(): Promise<Record<string, unknown>> {
  const worker = path.join(__dirname, '../store/race-worker.ts');
  const spendWith = async (processes: number, calls: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-bench-spend-'));
    const store = openSqliteStore(dir);
    const now = Date.now();
    await store.addGrant({ id: 'g', keyHash: 'bench', plan: 'bundle-100', calls, used: 0, expiresAt: now + 1e10, createdAt: now, sourceRef: null });
    const startAt = Date.now() + 6_000;
    const outs = await Promise.all(
      Array.from({ length: processes }, () =>
        run(process.execPath, ['--import', 'tsx', worker, 'sqlite', dir, 'bench', '', String(startAt)], { cwd: path.join(__dirname, '../..') }),
      ),
    );
    const seconds = (Date.now() - startAt) / 1000;
    const spent = outs.reduce((n, o) => n + (JSON.parse(o.stdout) as string[]).length, 0);
    const [grant] = await store.listGrants('bench', Date.now());
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    return { spendsPerSecond: spent / seconds, spent, used: grant.used, overspend: grant.used - calls };
  };
  const one = await spendWith(1, 20_000);
  const two = await spendWith(2, 20_000);
  const ratio = two.spendsPerSecond / one.spendsPerSecond;
  console.log(`[bench] SQLite reserve+commit, 1 process: ${one.spendsPerSecond.toFixed(0)} spends/s (baseline), over-spend ${one.overspend}`);
  console.log(`[bench] SQLite reserve+commit, 2 processes: ${two.spendsPerSecond.toFixed(0)} spends/s, over-spend ${two.overspend}`);
  console.log(`[bench] 2-process / 1-process spend rate ratio: ${ratio.toFixed(2)}; over-spend must be 0: ${two.overspend === 0 && one.overspend === 0 ? 'ok' : 'FAILED'}`);
  if (two.overspend !== 0 || one.overspend !== 0) process.exitCode = 1;
  return { one, two, ratio };
}

const SECTIONS: Record<string, () => Promise<unknown>> = {
  readiness: benchPaidReadiness,
  spends: benchSqliteSpends,
  'store-lock-wait': benchLockedStoreWait,
  'visibility-concurrency': benchConcurrency,
  'visibility-extraction': benchExtraction,
  'visibility-huge-page': benchHugePage,
  'visibility-page-size': benchPageSize,
  'visibility-hostile': benchHostileSite,
  'visibility-hostile-markup': benchHostileMarkup,
  'visibility-robots': benchRobotsWorstCase,
  'visibility-pool': benchAnalysisPool,
  'visibility-render': benchRender,
  'payments-challenge': benchUnpaidChallenge,
  'payments-paid-overhead': benchPaidOverhead,
  'x402-reference': benchX402Reference,
  'robots-adversarial': benchRobotsAdversarial,
  contention: benchContention,
  'payment-endpoint': benchPaymentEndpoint,
};

async function main() {
  const only = process.argv.slice(2);
  // `--list`: the section names, nothing run (tests/bench-sections.test.ts loads every section's module this way).
  if (only.includes('--list')) {
    console.log(Object.keys(SECTIONS).join('\n'));
    return;
  }
  const unknown = only.filter((name) => !(name in SECTIONS));
  if (unknown.length) throw new Error(`no bench section named ${unknown.join(', ')}; the sections: ${Object.keys(SECTIONS).join(', ')}`);
  for (const [name, fn] of Object.entries(SECTIONS)) {
    if (only.length && !only.includes(name)) continue;
    await fn();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
