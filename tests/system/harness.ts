import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import Redis from 'ioredis';
import { Pool } from 'undici';

// Shared by the load and fault suites: a closed-loop load generator that keeps every answer it
// gets, figures computed from those answers, and a direct reading of the ledger in the store.
//
// Why not autocannon: a duration-bound autocannon run destroys its sockets when time is up, so the
// answers to requests still in flight are lost while the server goes on to charge them. The ledger
// must balance to the call, so every request sent here is awaited to its answer before a run ends.

export const ROOT = path.resolve(__dirname, '../..');

interface Sent {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Carried into the record, e.g. the Idempotency-Key, so checks can group answers. */
  tag?: string;
}

export interface Answer {
  kind: string;
  server: number;
  tag?: string;
  status: number;
  contentType: string;
  replayed: boolean;
  paymentRequired: boolean;
  /** Parsed JSON body, or null when it did not parse. */
  body: Record<string, unknown> | null;
  /** Connection-level failure (no HTTP answer at all). */
  error?: string;
  start: number;
  end: number;
}

export interface Kind {
  name: string;
  /** Closed-loop workers (connections) for this kind, spread over the servers in turn. */
  workers: number;
  /** Builds the n-th request of one worker. */
  next(worker: number, n: number): Sent;
}

export interface LoadRun {
  answers: Answer[];
  seconds: number;
  /** Share of the machine's CPU time spent busy during the run (0..1). */
  cpuBusy: number;
}

function cpuTimes() {
  return os.cpus().reduce(
    (acc, c) => {
      const t = c.times;
      acc.busy += t.user + t.nice + t.sys + t.irq;
      acc.total += t.user + t.nice + t.sys + t.irq + t.idle;
      return acc;
    },
    { busy: 0, total: 0 },
  );
}

/**
 * Runs every kind's workers against the servers until `stop()` resolves (or `seconds` pass), then
 * waits for the last answers. `onAnswer` sees each answer as it lands (fault tests use it).
 */
export async function runLoad(
  urls: string[],
  kinds: Kind[],
  until: { seconds: number } | { stop: Promise<unknown> },
  onAnswer?: (a: Answer) => void,
): Promise<LoadRun> {
  const pools = urls.map((u) => new Pool(u, { connections: 64, pipelining: 1, headersTimeout: 60_000, bodyTimeout: 60_000 }));
  const answers: Answer[] = [];
  let done = false;
  const timer = 'seconds' in until ? setTimeout(() => (done = true), until.seconds * 1000) : null;
  if ('stop' in until) void until.stop.then(() => (done = true));
  const cpu0 = cpuTimes();
  const t0 = performance.now();

  const worker = async (kind: Kind, w: number) => {
    const server = w % urls.length;
    for (let n = 0; !done; n++) {
      const req = kind.next(w, n);
      const start = performance.now();
      let answer: Answer;
      try {
        const res = await pools[server].request({ method: req.method, path: req.path, headers: req.headers, body: req.body });
        const text = await res.body.text();
        let body: Record<string, unknown> | null = null;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = null;
        }
        const header = (name: string) => {
          const v = res.headers[name];
          return Array.isArray(v) ? v.join(', ') : (v ?? '');
        };
        answer = {
          kind: kind.name, server, tag: req.tag, status: res.statusCode, contentType: header('content-type'),
          replayed: header('idempotent-replayed') === 'true', paymentRequired: header('payment-required') !== '',
          body, start, end: performance.now(),
        };
      } catch (error) {
        answer = {
          kind: kind.name, server, tag: req.tag, status: 0, contentType: '', replayed: false, paymentRequired: false, body: null,
          error: error instanceof Error ? `${error.name}: ${error.message}` : String(error), start, end: performance.now(),
        };
        // A refused connection would otherwise spin this loop at full speed.
        await new Promise((r) => setTimeout(r, 20));
      }
      answers.push(answer);
      onAnswer?.(answer);
    }
  };

  await Promise.all(kinds.flatMap((kind) => Array.from({ length: kind.workers }, (_, w) => worker(kind, w))));
  const seconds = (performance.now() - t0) / 1000;
  const cpu1 = cpuTimes();
  if (timer) clearTimeout(timer);
  await Promise.all(pools.map((p) => p.close()));
  return { answers, seconds, cpuBusy: (cpu1.busy - cpu0.busy) / Math.max(1, cpu1.total - cpu0.total) };
}

export interface KindFigures {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function figures(run: LoadRun): Record<string, KindFigures> {
  const byKind = new Map<string, Answer[]>();
  for (const a of run.answers) {
    if (!byKind.has(a.kind)) byKind.set(a.kind, []);
    byKind.get(a.kind)!.push(a);
  }
  const out: Record<string, KindFigures> = {};
  for (const [kind, list] of byKind) {
    const latencies = list.map((a) => a.end - a.start).sort((x, y) => x - y);
    const statuses: Record<string, number> = {};
    for (const a of list) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    out[kind] = {
      requests: list.length,
      requestsPerSecond: Math.round((list.length / run.seconds) * 10) / 10,
      p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
      p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
      statuses,
    };
  }
  return out;
}

/** Merges one section into test-results/system-figures.json (other system suites write theirs beside it). */
export function recordFigures(section: string, value: unknown): void {
  const file = path.join(ROOT, 'test-results', 'system-figures.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    all = {};
  }
  all[section] = value;
  fs.writeFileSync(file, JSON.stringify(all, null, 2) + '\n');
}

export interface LedgerReading {
  granted: number;
  used: number;
  reservations: Map<string, { state: string; holdUntil: number }>;
}

/** The ledger for one key, read from the store's own data rather than through the service. */
export async function readLedger(where: { sqliteDir: string } | { redisUrl: string }, keyHash: string): Promise<LedgerReading> {
  const reservations = new Map<string, { state: string; holdUntil: number }>();
  if ('sqliteDir' in where) {
    const db = new Database(path.join(where.sqliteDir, 'store.sqlite'), { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 10000');
      const g = db.prepare('SELECT COALESCE(SUM(calls), 0) AS calls, COALESCE(SUM(used), 0) AS used FROM grants WHERE key_hash = ?').get(keyHash) as { calls: number; used: number };
      for (const r of db.prepare('SELECT id, state, hold_until FROM reservations WHERE key_hash = ?').all(keyHash) as Array<{ id: string; state: string; hold_until: number }>) {
        reservations.set(r.id, { state: r.state, holdUntil: r.hold_until });
      }
      return { granted: g.calls, used: g.used, reservations };
    } finally {
      db.close();
    }
  }
  const redis = new Redis(where.redisUrl, { maxRetriesPerRequest: 2 });
  try {
    let granted = 0;
    let used = 0;
    for (const gid of await redis.smembers(`pac:key:${keyHash}:grants`)) {
      const [calls, u] = await redis.hmget(`pac:grant:${gid}`, 'calls', 'used');
      granted += Number(calls);
      used += Number(u);
    }
    const ids: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'pac:res:*', 'COUNT', 2000);
      cursor = next;
      ids.push(...keys);
    } while (cursor !== '0');
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const pipe = redis.pipeline();
      for (const k of batch) pipe.hmget(k, 'keyHash', 'state', 'holdUntil');
      const rows = (await pipe.exec()) ?? [];
      rows.forEach(([err, row], j) => {
        if (err) throw err;
        const [kh, state, holdUntil] = row as [string, string, string];
        if (kh === keyHash) reservations.set(batch[j].slice('pac:res:'.length), { state, holdUntil: Number(holdUntil) });
      });
    }
    return { granted, used, reservations };
  } finally {
    redis.disconnect();
  }
}

export function countStates(ledger: LedgerReading): Record<string, number> {
  const counts: Record<string, number> = { held: 0, committed: 0, released: 0 };
  for (const r of ledger.reservations.values()) counts[r.state] = (counts[r.state] ?? 0) + 1;
  return counts;
}

/** The pid of the process listening on a loopback port (the `next start` server behind a RunningServer). */
export function pidListeningOn(port: number): number {
  const out = execFileSync('ss', ['-Hltnp', `sport = :${port}`], { encoding: 'utf8' });
  const match = out.match(/pid=(\d+)/);
  if (!match) throw new Error(`nothing listens on port ${port}:\n${out}`);
  return Number(match[1]);
}

export const isStoreUnavailable = (a: Answer) =>
  a.status === 503 && a.contentType === 'application/problem+json' && a.body?.type === 'https://paid-agent-checks.dev/problems/store-unavailable';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
