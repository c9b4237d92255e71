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

  /** Counts timer ticks while `work` runs: a frozen event loop ticks (almost) never. */
  async function ticksDuring<T>(work: Promise<T>) {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 20);
    try {
      const outcome = await work.then((value) => ({ value }), (error: unknown) => ({ error }));
      return { ticks, ...outcome };
    } finally {
      clearInterval(timer);
    }
  }

  it('waits without freezing the process and proceeds once the lock goes', async () => {
    const { store, release } = lockedStore();
    setTimeout(release, 1_000);
    const started = Date.now();
    const { ticks, ...outcome } = await ticksDuring(store.hitRateLimit('ip:1', 10, 60_000, Date.now()));
    expect(outcome).toMatchObject({ value: { allowed: true } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(ticks).toBeGreaterThan(15);
    await store.close();
  });

  it('answers StoreUnavailableError when the lock outlasts the wait, without freezing the process meanwhile', async () => {
    const { store, release } = lockedStore();
    try {
      const { ticks, ...outcome } = await ticksDuring(store.reserveCall('k', 'r1', Date.now(), Date.now() + 1000));
      expect('error' in outcome && outcome.error).toBeInstanceOf(StoreUnavailableError);
      expect(ticks).toBeGreaterThan(100);
    } finally {
      release();
      await store.close();
    }
  }, 15_000);

  describe('on a worker thread, as the server runs it', () => {
    it('keeps the event loop entirely free while it waits, and proceeds once the lock goes', async () => {
      const { store, release } = lockedStore(openSqliteStoreOffThread);
      setTimeout(release, 1_000);
      const { ticks, ...outcome } = await ticksDuring(store.hitRateLimit('ip:1', 10, 60_000, Date.now()));
      expect(outcome).toMatchObject({ value: { allowed: true } });
      // 1 s of 20 ms ticks: the in-thread adapter loses some to busy_timeout sleeps, this one none.
      expect(ticks).toBeGreaterThan(40);
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
