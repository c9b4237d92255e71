import { afterEach, describe, expect, it, vi } from 'vitest';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';
import { StoreUnavailableError, type Store } from '@/lib/store/types';

// Found by the system fault suite (tests/system/store-faults.test.ts) on `next start`; pinned here
// where they run in a second.

describe('StoreUnavailableError', () => {
  it('is recognised when thrown by another copy of the module (next build bundles one per route)', async () => {
    vi.resetModules();
    const copy = await import('@/lib/store/types');
    expect(copy.StoreUnavailableError).not.toBe(StoreUnavailableError);
    expect(new copy.StoreUnavailableError(new Error('gone'))).toBeInstanceOf(StoreUnavailableError);
    expect(new Error('store unavailable')).not.toBeInstanceOf(StoreUnavailableError);
    expect(null).not.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('sqlite: another writer holding the lock', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  function lockedStore(open: (dir: string) => Store = openSqliteStore) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-busy-'));
    dirs.push(dir);
    const store = open(dir);
    const other = new Database(path.join(dir, 'store.sqlite'));
    other.exec('BEGIN EXCLUSIVE');
    return { store, release: () => { other.exec('COMMIT'); other.close(); } };
  }

  /**
   * Lets the lock go from this process's event loop after `ms`, and records whether `call` was still waiting
   * then. A wait that froze the event loop could not let the release run before the call gave up.
   */
  function releaseWhileWaiting<T>(call: Promise<T>, release: () => void, ms: number) {
    let settled = false;
    const outcome = call.then((value) => ({ value }), (error: unknown) => ({ error })).finally(() => (settled = true));
    const waitingAtRelease = new Promise<boolean>((resolve) =>
      setTimeout(() => {
        resolve(!settled);
        release();
      }, ms),
    );
    return { outcome, waitingAtRelease };
  }

  /** Whether a timer set to fire `ms` into the call ran while the call was still waiting. */
  function timerRanDuring<T>(call: Promise<T>, ms: number) {
    let settled = false;
    let ranWhileWaiting = false;
    const timer = setTimeout(() => (ranWhileWaiting = !settled), ms);
    const outcome = call
      .then((value) => ({ value }), (error: unknown) => ({ error }))
      .finally(() => {
        settled = true;
        clearTimeout(timer);
      });
    return outcome.then((o) => ({ ...o, ranWhileWaiting }));
  }

  // How much of the event loop stays free during a lock wait is measured by `npm run bench -- store-lock-wait`.
  it('waits without freezing the process and proceeds once the lock goes', async () => {
    const { store, release } = lockedStore();
    const { outcome, waitingAtRelease } = releaseWhileWaiting(store.hitRateLimit('ip:1', 10, 60_000, Date.now()), release, 1_000);
    expect(await outcome).toEqual({ value: { allowed: true, remaining: 9, retryAfterMs: 0 } });
    expect(await waitingAtRelease).toBe(true);
    await store.close();
  });

  it('answers StoreUnavailableError when the lock outlasts the wait, without freezing the process meanwhile', async () => {
    const { store, release } = lockedStore();
    try {
      const outcome = await timerRanDuring(store.reserveCall('k', 'r1', Date.now(), Date.now() + 1000), 500);
      expect('error' in outcome && outcome.error).toBeInstanceOf(StoreUnavailableError);
      expect(outcome.ranWhileWaiting).toBe(true);
    } finally {
      release();
      await store.close();
    }
  }, 15_000);

  describe('on a worker thread, as the server runs it', () => {
    it('keeps the event loop free while it waits, and proceeds once the lock goes', async () => {
      const { store, release } = lockedStore(openSqliteStoreOffThread);
      const { outcome, waitingAtRelease } = releaseWhileWaiting(store.hitRateLimit('ip:1', 10, 60_000, Date.now()), release, 1_000);
      expect(await outcome).toEqual({ value: { allowed: true, remaining: 9, retryAfterMs: 0 } });
      expect(await waitingAtRelease).toBe(true);
      await store.close();
    });

    it('answers StoreUnavailableError across the thread when the lock outlasts the wait', async () => {
      const { store, release } = lockedStore(openSqliteStoreOffThread);
      try {
        const outcome = await store.reserveCall('k', 'r1', Date.now(), Date.now() + 1000).then((value) => ({ value }), (error: unknown) => ({ error }));
        expect('error' in outcome && outcome.error).toBeInstanceOf(StoreUnavailableError);
      } finally {
        release();
        await store.close();
      }
    }, 15_000);

    it('refuses calls after close with StoreUnavailableError', async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-closed-'));
      dirs.push(dir);
      const store = openSqliteStoreOffThread(dir);
      expect(await store.countKeys()).toBe(0);
      await store.close();
      await expect(store.countKeys()).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });
});
