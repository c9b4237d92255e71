import { Worker } from 'node:worker_threads';
import path from 'node:path';
import { StoreUnavailableError, type Store } from './types';
import type { StoreCall, StoreReply } from './sqlite-thread-worker';

// The embedded SQLite store, run on a worker thread. better-sqlite3 is synchronous: on the server's
// own thread every statement, page write and WAL checkpoint stops all other requests, and measured
// under load that work cost about a third of a trivial route's time per paid call (`npm run bench --
// readiness`). On its own thread it runs beside the event loop, and a lock held by another
// process (busy_timeout sleeps) stalls only the store, never the HTTP server. Same adapter and SQL
// (sqlite.ts): only the thread it runs on differs.

const METHODS = [
  'putKey', 'getKey', 'revokeKey', 'countKeys', 'addGrant', 'updateGrant', 'renewGrant', 'removeGrantCalls', 'listGrants',
  'admitCall', 'reserveCall', 'commitReservation', 'finishReservation', 'releaseReservation', 'getReservation',
  'beginIdempotent', 'completeIdempotent', 'abandonIdempotent', 'getIdempotent',
  'hitRateLimit', 'returnRateLimit', 'claimOnce', 'releaseClaim', 'setRecord', 'getRecord', 'takeRecord', 'listRecords', 'addCapped', 'purgeExpired',
  'refundCall', 'listUsage', 'scanGrants', 'scanUsage',
  'putReport', 'getReport', 'listReports', 'rotateKey',
] as const satisfies ReadonlyArray<Exclude<keyof Store, 'kind' | 'close'>>;

async function startThread(dataDir: string): Promise<Worker> {
  if (process.env.NEXT_RUNTIME) return (await import('./sqlite-thread-build')).startCompiledStoreThread(dataDir);
  // Under tsx and vitest the worker script is still TypeScript: load it through tsx.
  const script = path.join(__dirname, 'sqlite-thread-worker.ts');
  return new Worker(`require('tsx/cjs'); require(${JSON.stringify(script)});`, { eval: true, workerData: { dataDir } });
}

export function openSqliteStoreOffThread(dataDir: string): Store {
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  let nextId = 0;
  let closed = false;
  /** The live thread, and the promise of it while it starts. */
  let current: Worker | null = null;
  let starting: Promise<Worker> | null = null;

  // A thread that dies fails the calls it held with StoreUnavailableError (each call is one SQLite
  // transaction: applied whole or not at all, and a lost answer is treated as for any networked
  // store), and the next call starts a new thread.
  const lost = (worker: Worker, error: Error) => {
    if (current !== worker) return;
    current = null;
    starting = null;
    for (const p of pending.values()) p.reject(new StoreUnavailableError(error));
    pending.clear();
  };

  const ensureThread = (): Promise<Worker> => (starting ??= startThread(dataDir).then(listen));
  const listen = (worker: Worker): Worker => {
    current = worker;
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
    return worker;
  };

  const call = async (method: StoreCall['method'], args: unknown[]): Promise<unknown> => {
    if (closed) throw new StoreUnavailableError(new Error('store closed'));
    const worker = await ensureThread().catch((error: unknown) => {
      starting = null;
      throw new StoreUnavailableError(error);
    });
    // The thread may have died while this call waited for it to start.
    if (worker !== current) throw new StoreUnavailableError(new Error('store thread exited'));
    return new Promise<unknown>((resolve, reject) => {
      const id = nextId++;
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, args } satisfies StoreCall);
    });
  };

  const store = Object.fromEntries(METHODS.map((method) => [method, (...args: unknown[]) => call(method, args)]));
  return {
    ...(store as Omit<Store, 'kind' | 'close'>),
    kind: 'sqlite',
    close: async () => {
      if (closed) return;
      const worker = current;
      if (worker) await call('close', []).catch(() => {});
      closed = true;
      current = null;
      starting = null;
      await worker?.terminate();
    },
  };
}
