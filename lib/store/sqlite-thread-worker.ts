import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteStore } from './sqlite';
import { StoreUnavailableError, type Store } from './types';

// The thread behind `openSqliteStoreOffThread`: one SQLite connection, serving the main thread's calls
// in the order they arrive. See sqlite-thread.ts for why.

export interface StoreCall { id: number; method: keyof Store; args: unknown[] }
export type StoreReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; unavailable: boolean; message: string; code?: string };

const store = openSqliteStore((workerData as { dataDir: string }).dataDir);
const port = parentPort!;

async function serve({ id, method, args }: StoreCall): Promise<StoreReply> {
  try {
    const value = await (store[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    return { id, ok: true, value };
  } catch (error) {
    const e = error as Error & { code?: string };
    return { id, ok: false, unavailable: error instanceof StoreUnavailableError, message: e.message, ...(e.code ? { code: e.code } : {}) };
  }
}

// Calls run in the order they arrive: each one's SQL runs synchronously as it starts.
port.on('message', async (call: StoreCall) => {
  port.postMessage(await serve(call));
});
