import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { openSqliteStore } from '@/lib/store/sqlite';
import { openSqliteStoreOffThread } from '@/lib/store/sqlite-thread';
import { openRedisStore } from '@/lib/store/redis';
import { openVercelKvStore } from '@/lib/store/vercel-kv';
import type { Store } from '@/lib/store';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { startUpstashShim } from '../support/upstash-shim';

// Every store adapter, each able to hand out fresh isolated stores, for the contract suite.

export interface AdapterHarness {
  name: 'sqlite' | 'sqlite on a worker thread' | 'redis' | 'vercel-kv';
  available: boolean;
  setup(): Promise<void>;
  /** A new empty store; Redis and KV stores live under `prefix` (random unless given). */
  fresh(prefix?: string): Store;
  teardown(): Promise<void>;
}

const hasRedis = redisServerAvailable();

/** `offThread`: the same adapter run on a worker thread, as the server runs it (lib/store/sqlite-thread.ts). */
export function sqliteHarness(options: { offThread?: boolean } = {}): AdapterHarness {
  const dirs: string[] = [];
  const stores: Store[] = [];
  return {
    name: options.offThread ? 'sqlite on a worker thread' : 'sqlite', available: true,
    setup: async () => {},
    fresh: () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-store-'));
      dirs.push(dir);
      const s = options.offThread ? openSqliteStoreOffThread(dir) : openSqliteStore(dir);
      stores.push(s);
      return s;
    },
    teardown: async () => {
      await Promise.all(stores.map((s) => s.close()));
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

export function redisHarness(): AdapterHarness & { server(): RedisServer } {
  let server: RedisServer;
  const stores: Store[] = [];
  return {
    name: 'redis', available: hasRedis,
    server: () => server,
    setup: async () => { server = await startRedisServer(); },
    fresh: (prefix = `t${crypto.randomBytes(4).toString('hex')}:`) => {
      const s = openRedisStore(server.url, prefix);
      stores.push(s);
      return s;
    },
    teardown: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await server?.stop();
    },
  };
}

export function vercelKvHarness(): AdapterHarness & { server(): RedisServer } {
  let server: RedisServer;
  let shim: Awaited<ReturnType<typeof startUpstashShim>>;
  return {
    name: 'vercel-kv', available: hasRedis,
    server: () => server,
    setup: async () => {
      server = await startRedisServer();
      shim = await startUpstashShim(server.url, 'test-token');
    },
    fresh: (prefix = `t${crypto.randomBytes(4).toString('hex')}:`) => openVercelKvStore(shim.url, shim.token, prefix),
    teardown: async () => {
      await shim?.close();
      await server?.stop();
    },
  };
}
