import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openRedisStore } from '@/lib/store/redis';
import type { Store } from '@/lib/store';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';

// Four OS processes spend one balance at the same time; the final count must be exact.

const run = promisify(execFile);
const WORKER = path.join(__dirname, 'race-worker.ts');
const CALLS = 1000;
const PROCESSES = 4;

async function race(kind: 'sqlite' | 'sqlite-thread' | 'redis', where: string, prefix: string, store: Store) {
  const now = Date.now();
  await store.addGrant({ id: 'g1', keyHash: 'race', plan: 'bundle-100', calls: CALLS / 2, used: 0, expiresAt: now + 1e9, createdAt: now, sourceRef: null });
  await store.addGrant({ id: 'g2', keyHash: 'race', plan: 'bundle-100', calls: CALLS / 2, used: 0, expiresAt: now + 2e9, createdAt: now, sourceRef: null });
  const startAt = String(Date.now() + 8_000);
  const outputs = await Promise.all(
    Array.from({ length: PROCESSES }, () =>
      run(process.execPath, ['--import', 'tsx', WORKER, kind, where, 'race', prefix, startAt], { cwd: path.join(__dirname, '../..') }),
    ),
  );
  const spent = outputs.flatMap((o) => JSON.parse(o.stdout) as string[]);
  const grants = await store.listGrants('race', Date.now());
  return { spent, perProcess: outputs.map((o) => (JSON.parse(o.stdout) as string[]).length), grants };
}

describe('multi-process spending', () => {
  it.each([
    ['sqlite', 'on each process\'s own thread'],
    ['sqlite-thread', 'on a worker thread in each process, as the server runs it'],
  ] as const)('%s: 4 processes on one file spend exactly the balance (%s)', async (kind, _where) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-race-'));
    const store = openSqliteStore(dir);
    try {
      const { spent, perProcess, grants } = await race(kind, dir, '', store);
      expect(spent).toHaveLength(CALLS);
      expect(new Set(spent).size).toBe(CALLS);
      expect(perProcess.filter((n) => n > 0).length).toBeGreaterThan(1);
      expect(grants.map((g) => g.used)).toEqual([CALLS / 2, CALLS / 2]);
      expect(grants.every((g) => g.remaining === 0)).toBe(true);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  describe.skipIf(!redisServerAvailable())('redis', () => {
    let server: RedisServer;
    beforeAll(async () => { server = await startRedisServer(); });
    afterAll(() => server?.stop());

    it('4 processes on one Redis spend exactly the balance', async () => {
      const store = openRedisStore(server.url, 'race:');
      try {
        const { spent, grants } = await race('redis', server.url, 'race:', store);
        expect(spent).toHaveLength(CALLS);
        expect(new Set(spent).size).toBe(CALLS);
        expect(grants.map((g) => g.used)).toEqual([CALLS / 2, CALLS / 2]);
      } finally {
        await store.close();
      }
    }, 120_000);
  });
});
