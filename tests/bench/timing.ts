// Speed figures that used to be timed assertions in unit tests (issue 11 item 19): the tests now assert
// behaviour only, and these sections measure the timing, each as a ratio against a baseline in the same run.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRobotsTxt, robotsVerdict } from '@/lib/checks/visibility/robots';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';
import type { Store } from '@/lib/store';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Median milliseconds per call of `fn`, over batches of `perBatch` calls. */
function perCall(fn: () => void, batches = 15, perBatch = 50): number {
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const started = performance.now();
    for (let i = 0; i < perBatch; i++) fn();
    times.push((performance.now() - started) / perBatch);
  }
  return median(times);
}

/**
 * A robots.txt verdict on an adversarial wildcard pattern (`/*a*a…*ab`, 2,000 wildcards) against a 5,000-character
 * path, vs the same verdict on a literal pattern of the same length: backtracking would make the ratio explode.
 */
export async function benchRobotsAdversarial() {
  const paths = ['/' + 'a'.repeat(5000), '/' + 'a'.repeat(5000) + 'b'];
  const adversarial = parseRobotsTxt(`User-agent: *\nDisallow: /${'*a'.repeat(2000)}b\n`);
  const literal = parseRobotsTxt(`User-agent: *\nDisallow: /${'a'.repeat(4000)}b\n`);
  const verdicts = (robots: ReturnType<typeof parseRobotsTxt>) => () => {
    for (const p of paths) robotsVerdict(robots, 'x', p);
  };
  perCall(verdicts(adversarial), 3); // warm up both before measuring either
  perCall(verdicts(literal), 3);
  const adversarialMs = perCall(verdicts(adversarial));
  const literalMs = perCall(verdicts(literal));
  const ratio = adversarialMs / literalMs;
  console.log(`[bench] robots verdicts, adversarial wildcard pattern: ${adversarialMs.toFixed(3)} ms; literal pattern of the same length (baseline): ${literalMs.toFixed(3)} ms`);
  console.log(`[bench] adversarial / literal robots verdict ratio: ${ratio.toFixed(1)} (target <= 50)`);
  return { adversarialMs, literalMs, ratio };
}

/** Timer ticks (every `tickMs`) while `work` runs, and how long it ran. */
async function ticksDuring(work: () => Promise<unknown>, tickMs = 20) {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), tickMs);
  const started = performance.now();
  try {
    await work().catch(() => undefined);
  } finally {
    clearInterval(timer);
  }
  return { ticks, ms: performance.now() - started };
}

/**
 * While the SQLite file is write-locked by another process, a store call waits for the lock; the event loop
 * should stay free meanwhile. Measures timer ticks per second during a 1 s lock wait, on the in-thread
 * adapter and on the worker-thread adapter the server runs, against ticks per second of a plain 1 s sleep.
 */
export async function benchStoreLockWait() {
  const LOCK_MS = 1_000;
  const tickRate = (r: { ticks: number; ms: number }) => (r.ticks * 1000) / r.ms;
  const baseline = tickRate(await ticksDuring(() => new Promise((r) => setTimeout(r, LOCK_MS))));
  const underLock = async (open: (dir: string) => Store) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-bench-lock-'));
    const store = open(dir);
    await store.countKeys(); // opened and ready before the lock is taken
    const other = new Database(path.join(dir, 'store.sqlite'));
    other.exec('BEGIN EXCLUSIVE');
    setTimeout(() => {
      other.exec('COMMIT');
      other.close();
    }, LOCK_MS);
    try {
      return tickRate(await ticksDuring(() => store.hitRateLimit('ip:bench', 10, 60_000, Date.now())));
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
  const inThread = await underLock(openSqliteStore);
  const offThread = await underLock(openSqliteStoreOffThread);
  console.log(`[bench] timer ticks/s during a ${LOCK_MS} ms SQLite lock wait: in-thread adapter ${inThread.toFixed(0)}, worker-thread adapter ${offThread.toFixed(0)}; plain sleep (baseline) ${baseline.toFixed(0)}`);
  console.log(`[bench] lock-wait / sleep tick ratio: in-thread ${(inThread / baseline).toFixed(2)} (target >= 0.30), worker-thread ${(offThread / baseline).toFixed(2)} (target >= 0.80)`);
  return { baseline, inThread, offThread, inThreadRatio: inThread / baseline, offThreadRatio: offThread / baseline };
}
