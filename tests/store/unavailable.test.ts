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
   * Runs `work` while the lock is held, releasing it from a timer on this same thread after `releaseAfterMs`.
   * The call can only succeed if this thread's event loop keeps running while it waits: a store that froze
   * the process until the lock went would never let the release run, and would answer unavailable.
   * (How free the loop stays is measured, as a ratio, by `npm run bench -- store-lock-wait`.)
   */
  async function releasedWhileWaiting<T>(work: () => Promise<T>, release: () => void, releaseAfterMs: number) {
    let settled = false;
    let pendingAtRelease: boolean | undefined;
    const outcome = work().finally(() => (settled = true));
    setTimeout(() => {
      pendingAtRelease = !settled;
      release();
    }, releaseAfterMs);
    return { value: await outcome, pendingAtRelease };
  }

  /** The order in which a timer set during the wait and the store's answer arrive. */
  async function orderDuring<T>(work: () => Promise<T>) {
    const order: string[] = [];
    const outcome = work().then(
      (value) => (order.push('store answered'), { value }),
      (error: unknown) => (order.push('store answered'), { error }),
    );
    setTimeout(() => order.push('timer ran'), 100);
    return { ...(await outcome), order };
  }

  it('waits without freezing the process and proceeds once the lock goes', async () => {
    const { store, release } = lockedStore();
    const { value, pendingAtRelease } = await releasedWhileWaiting(() => store.hitRateLimit('ip:1', 10, 60_000, Date.now()), release, 300);
    expect(value).toMatchObject({ allowed: true });
    // It really waited for the lock: still pending when the lock went.
    expect(pendingAtRelease).toBe(true);
    await store.close();
  });

  it('answers StoreUnavailableError when the lock outlasts the wait, without freezing the process meanwhile', async () => {
    const { store, release } = lockedStore();
    try {
      const outcome = await orderDuring(() => store.reserveCall('k', 'r1', Date.now(), Date.now() + 1000));
      expect('error' in outcome && outcome.error).toBeInstanceOf(StoreUnavailableError);
      // A timer set after the call started ran before the store gave up: the wait did not hold the thread.
      expect(outcome.order).toEqual(['timer ran', 'store answered']);
    } finally {
      release();
      await store.close();
    }
  }, 15_000);

  describe('on a worker thread, as the server runs it', () => {
    it('keeps the event loop free while it waits, and proceeds once the lock goes', async () => {
      const { store, release } = lockedStore(openSqliteStoreOffThread);
      const { value, pendingAtRelease } = await releasedWhileWaiting(() => store.hitRateLimit('ip:1', 10, 60_000, Date.now()), release, 300);
      expect(value).toEqual({ allowed: true, remaining: 9, retryAfterMs: 0 });
      expect(pendingAtRelease).toBe(true);
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
