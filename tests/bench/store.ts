// How free the event loop stays while the SQLite store waits for another process's write lock: timer
// ticks during the wait, as a ratio of the ticks an idle loop gets in the same run. (Timing belongs here:
// tests/store/unavailable.test.ts asserts the behaviour only.)
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';
import type { Store } from '@/lib/store';

const LOCK_MS = 2_000;
const TICK_MS = 20;

/** Timer ticks on this thread while `work` runs; `work` is given a function that releases the lock after LOCK_MS. */
async function ticksDuring(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => (ticks += 1), TICK_MS);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

async function lockedWait(open: (dir: string) => Store): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-bench-lock-'));
  const store = open(dir);
  await store.countKeys();
  const other = new Database(path.join(dir, 'store.sqlite'));
  other.exec('BEGIN EXCLUSIVE');
  setTimeout(() => {
    other.exec('COMMIT');
    other.close();
  }, LOCK_MS);
  try {
    return await ticksDuring(() => store.hitRateLimit('ip:bench', 10, 60_000, Date.now()));
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchLockedStoreWait(): Promise<Record<string, unknown>> {
  const idle = await ticksDuring(() => new Promise((resolve) => setTimeout(resolve, LOCK_MS)));
  const inThread = await lockedWait(openSqliteStore);
  const offThread = await lockedWait(openSqliteStoreOffThread);
  const ratios = { inThread: inThread / idle, offThread: offThread / idle };
  const ok = ratios.offThread >= 0.9 && ratios.inThread >= 0.3;
  console.log(`[bench] SQLite store waiting ${LOCK_MS} ms for another process's lock: idle loop ${idle} ticks of ${TICK_MS} ms (baseline)`);
  console.log(`[bench] ticks while waiting / idle: store on the server's thread ${ratios.inThread.toFixed(2)} (target >= 0.30), on its worker thread ${ratios.offThread.toFixed(2)} (target >= 0.90): ${ok ? 'ok' : 'FAILED'}`);
  if (!ok) process.exitCode = 1;
  return { idle, inThread, offThread, ratios };
}
