// `npm run bench`: throughput figures reported as ratios against a baseline measured in the same
// run, never as absolute targets (these machines are noisy). Each section prints one line.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, TEST_SECRET } from '../support/server';
import type autocannon from 'autocannon';
import { openSqliteStore } from '@/lib/store/sqlite';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { READINESS_STATES, validReadinessBody } from '../support/runtime';
import { benchAnalysisPool, benchConcurrency, benchExtraction, benchHostileMarkup, benchHostileSite, benchHugePage, benchPageSize, benchRobotsWorstCase } from './visibility';
import { benchPaidOverhead, benchUnpaidChallenge } from './payments';
import { benchLockedStoreWait } from './store';
import { benchRobotsAdversarial } from './timing';
import { benchRender } from './render';
import { benchContention } from './contention';
import { benchRenderer } from './renderer';
import { benchX402Reference } from './x402-reference';
import { benchPaymentEndpoint } from './payment-endpoint';
import { alternating, load, type Load } from './load';
import { buildRevision, checkoutToken, mintKey } from './revision';

const ROOT = path.resolve(__dirname, '../..');

const run = promisify(execFile);

const fmt = (l: Load) => `${l.rps.toFixed(0)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, non-2xx ${l.non2xx}, errors ${l.errors}`;

/** A build the readiness section serves: this checkout, or another revision built by `buildRevision`. */
interface Build {
  label: string;
  /** The built copy's root; this checkout when absent. */
  root?: string;
}

/** One build's `next start` on one store, with a prepaid key minted by that build's own code, warmed. */
async function readinessServer(build: Build, store: { dataDir: string } | { redisUrl: string }) {
  const key = mintKey(build.root ?? ROOT, store, TEST_SECRET);
  const storeEnv: Record<string, string> = 'dataDir' in store ? { DATA_DIR: store.dataDir } : { REDIS_URL: store.redisUrl };
  const server = await startServer({ RATE_LIMIT_PER_IP: '100000000', RATE_LIMIT_PER_KEY: '100000000', LOG_LEVEL: 'silent', ...storeEnv }, build.root ? { root: build.root } : {});
  const trivial = { url: `${server.url}/api/health` };
  // `--distinct`: every request names a workflow of its own and words its evidence its own way, so no request was
  // sent before, though its shape (statuses, evidence counts and kinds) was. `--new-shapes`: every request's shape is
  // new too, so of what the check keeps only the findings for each capability and state are reused.
  // (autocannon's `idReplacement` sent no request at all here.)
  let sent = 0;
  const distinct = (request: autocannon.Request) => {
    const n = sent++;
    const body = validReadinessBody({ workflow: { name: `Checkout agent ${n}`, intendedUsers: 'agents', targetEnvironment: 'production' } });
    const capabilities = Object.entries(body.capabilities).map(([key, c], i) => {
      if (!readinessOptions.newShapes) return [key, c.evidence ? { ...c, evidence: c.evidence.map((e) => `${e} (${n})`) } : c];
      // The request's number in base 6, one digit for each capability from the last, added to its usual state.
      const digit = Math.floor(n / 6 ** (9 - i)) % 6;
      return [key, READINESS_STATES[(READINESS_STATES.findIndex((s) => s.status === c.status) + digit) % READINESS_STATES.length]];
    });
    return { ...request, body: JSON.stringify({ ...body, capabilities: Object.fromEntries(capabilities) }) };
  };
  const paid = {
    url: `${server.url}/api/agent/readiness`,
    method: 'POST' as const,
    body: JSON.stringify(validReadinessBody()),
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...((readinessOptions.distinct || readinessOptions.newShapes) && { requests: [{ setupRequest: distinct }] }),
  };
  // Warm both routes so compilation and first-use costs stay out of the figures.
  await load({ ...trivial, duration: 2 });
  await load({ ...paid, duration: 2 });
  return { build, server, trivial, paid };
}

/**
 * Paid readiness ÷ the trivial route on `store`, for each build: every build's server runs at once, and each round
 * measures them one after the other (the order flips every round), so the machine's drift falls on all alike.
 */
async function paidReadinessOn(label: string, builds: Build[], stores: Array<{ dataDir: string } | { redisUrl: string }>, rounds: number) {
  const servers = [];
  try {
    for (const [i, build] of builds.entries()) servers.push(await readinessServer(build, stores[i]!));
    const ratios: number[][] = builds.map(() => []);
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 ? servers : [...servers].reverse();
      for (const s of order) {
        const [baseline, readiness] = await alternating(s.trivial, s.paid);
        const ratio = readiness.rps / baseline.rps;
        ratios[servers.indexOf(s)]!.push(ratio);
        const who = builds.length > 1 ? `${label}, ${s.build.label}, round ${round}` : label;
        console.log(`[bench] ${who}: trivial JSON route (baseline): ${fmt(baseline)}`);
        console.log(`[bench] ${who}: POST /api/agent/readiness, prepaid key: ${fmt(readiness)}`);
        console.log(`[bench] ${who}: paid readiness / trivial throughput ratio: ${ratio.toFixed(2)} (target >= 0.65)`);
      }
      if (builds.length > 1) console.log(`[bench] ${label}, round ${round}: ${builds.map((b, i) => `${b.label} ${ratios[i]!.at(-1)!.toFixed(2)}`).join(', ')}`);
    }
    const means = ratios.map((r) => r.reduce((a, b) => a + b, 0) / r.length);
    if (builds.length > 1) {
      console.log(`[bench] ${label}, mean over ${rounds} rounds: ${builds.map((b, i) => `${b.label} ${means[i]!.toFixed(2)}`).join(', ')}`);
      console.log(`[bench] ${label}: ${builds[0]!.label} ÷ ${builds[1]!.label}: ${(means[0]! / means[1]!).toFixed(2)}`);
    }
    return builds.map((b, i) => ({ build: b.label, ratios: ratios[i], mean: means[i] }));
  } finally {
    for (const s of servers) await s.server.stop();
  }
}

/**
 * `--against <revision>`: the same section side by side with a build of that revision; `--rounds <n>` rounds of it;
 * `--distinct`: every paid request a different one; `--new-shapes`: every one of a shape never sent before.
 */
const readinessOptions = { against: null as string | null, rounds: 1, distinct: false, newShapes: false };


export async function benchPaidReadiness(): Promise<Record<string, unknown>> {
  const builds: Build[] = [{ label: 'this checkout' }];
  if (readinessOptions.against) builds.push({ label: readinessOptions.against, root: buildRevision(readinessOptions.against) });
  const { rounds } = readinessOptions;
  const dataDirs = builds.map(() => ({ dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'pac-bench-')) }));
  const sqlite = await paidReadinessOn('SQLite store (the default)', builds, dataDirs, rounds);
  // The same run on the Redis adapter shows how much of the gap is the embedded store's own work,
  // which runs on the server's event loop (Redis does it in another process).
  if (!redisServerAvailable()) return { sqlite };
  const redisServers: RedisServer[] = [];
  try {
    for (const _ of builds) redisServers.push(await startRedisServer());
    const redis = await paidReadinessOn('Redis store', builds, redisServers.map((r) => ({ redisUrl: r.url })), rounds);
    return { sqlite, redis };
  } finally {
    for (const r of redisServers) await r.stop();
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
  renderer: benchRenderer,
};

/** Takes `--name value` out of `args`; null when absent. */
function takeOption(args: string[], name: string): string | null {
  const at = args.indexOf(name);
  if (at < 0) return null;
  const value = args[at + 1];
  if (value === undefined || value.startsWith('--')) throw new Error(`${name} needs a value`);
  args.splice(at, 2);
  return value;
}

async function main() {
  const only = process.argv.slice(2);
  readinessOptions.against = takeOption(only, '--against');
  for (const [flag, option] of [['--distinct', 'distinct'], ['--new-shapes', 'newShapes']] as const) {
    readinessOptions[option] = only.includes(flag);
    if (readinessOptions[option]) only.splice(only.indexOf(flag), 1);
  }
  const rounds = takeOption(only, '--rounds');
  readinessOptions.rounds = rounds === null ? (readinessOptions.against ? 3 : 1) : Number(rounds);
  if (!Number.isInteger(readinessOptions.rounds) || readinessOptions.rounds < 1) throw new Error('--rounds must be a whole number from 1');
  // `--list`: the section names, nothing run (tests/bench-sections.test.ts loads every section's module this way).
  if (only.includes('--list')) {
    console.log(Object.keys(SECTIONS).join('\n'));
    return;
  }
  const unknown = only.filter((name) => !(name in SECTIONS));
  // Rebuild this checkout's test build when its code changed since it was built (a stale build benches old code).
  process.env.PAC_BUILD_TOKEN ??= checkoutToken();
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
