import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { StoreUnavailableError, type Store } from './types';
import type { StoreCall, StoreReply } from './sqlite-thread-worker';

// The embedded SQLite store, run on a worker thread. better-sqlite3 is synchronous: on the server's
// own thread every statement, page write and WAL checkpoint stops all other requests, and measured
// under load that work cost about a third of a trivial route's time per paid call (`npm run bench --
// readiness`). On its own thread it runs beside the event loop, and a lock held by another
// process (busy_timeout sleeps) stalls only the store, never the HTTP server. Same adapter and SQL
// (sqlite.ts): only the thread it runs on differs.

const METHODS = [
  'putKey', 'getKey', 'revokeKey', 'countKeys', 'addGrant', 'updateGrant', 'listGrants',
  'reserveCall', 'commitReservation', 'releaseReservation', 'getReservation',
  'beginIdempotent', 'completeIdempotent', 'abandonIdempotent', 'getIdempotent',
  'hitRateLimit', 'claimOnce', 'setRecord', 'getRecord', 'takeRecord',
] as const satisfies ReadonlyArray<Exclude<keyof Store, 'kind' | 'close'>>;

function startThread(dataDir: string): Worker {
  // Inside Next the bundler compiles the script, and it recognises only the inline
  // `new Worker(new URL(…))` form. Under tsx and vitest the script is still TypeScript, loaded through tsx.
  return process.env.NEXT_RUNTIME
    ? new Worker(new URL('./sqlite-thread-worker.ts', import.meta.url), { workerData: { dataDir } })
    : new Worker(`require('tsx/cjs'); require(${JSON.stringify(fileURLToPath(import.meta.url).replace(/sqlite-thread\.ts$/, 'sqlite-thread-worker.ts'))});`, {
        eval: true,
        workerData: { dataDir },
      });
}

export function openSqliteStoreOffThread(dataDir: string): Store {
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let nextId = 0;
  let thread: Worker | null = null;
  let closed = false;

  // A thread that dies fails the calls it held with StoreUnavailableError (each call is one SQLite
  // transaction: applied whole or not at all, and a lost answer is treated as for any networked
  // store), and the next call starts a new thread.
  const lost = (worker: Worker, error: Error) => {
    if (thread !== worker) return;
    thread = null;
    for (const p of pending.values()) p.reject(new StoreUnavailableError(error));
    pending.clear();
  };

  const ensureThread = (): Worker => {
    if (thread) return thread;
    const worker = startThread(dataDir);
    worker.on('error', (error) => lost(worker, error));
    worker.on('exit', (code) => lost(worker, new Error(`store thread exited with code ${code}`)));
    worker.on('message', (reply: StoreReply) => {
      const p = pending.get(reply.id);
      if (!p) return;
      pending.delete(reply.id);
      // An idle store must not keep a command-line process alive; a call in flight must.
      if (pending.size === 0) worker.unref();
      if (reply.ok) p.resolve(reply.value);
      else if (reply.unavailable) p.reject(new StoreUnavailableError(new Error(reply.message)));
      else p.reject(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
    });
    worker.unref();
    thread = worker;
    return worker;
  };

  const call = (method: StoreCall['method'], args: unknown[]) =>
    new Promise<unknown>((resolve, reject) => {
      if (closed) return reject(new StoreUnavailableError(new Error('store closed')));
      const worker = ensureThread();
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args } satisfies StoreCall);
    });

  const store = Object.fromEntries(METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]));
  return {
    ...(store as Omit<Store, 'kind' | 'close'>),
    kind: 'sqlite',
    close: async () => {
      if (closed) return;
      const worker = thread;
      if (worker) await call('close', []).catch(() => {});
      closed = true;
      thread = null;
      await worker?.terminate();
    },
  };
}
