import { createClient } from '@vercel/kv';
import { SCRIPTS, createScriptStore, type ScriptRunner } from './lua';
import type { Store } from './types';

// Vercel KV (Upstash) speaks Redis over a REST API; it runs the same Lua scripts as the Redis adapter.
export function openVercelKvStore(url: string, token: string, prefix?: string): Store {
  // Values are our own strings: turn off the client's JSON decoding so "123" stays "123".
  const kv = createClient({ url, token, automaticDeserialization: false, retry: { retries: 1, backoff: () => 50 } });
  const runner: ScriptRunner = {
    run: (name, args) => kv.eval(SCRIPTS[name], [], args),
    hgetall: async (key) => {
      const h = await kv.hgetall<Record<string, string>>(key);
      return h && Object.keys(h).length ? h : null;
    },
    scard: (key) => kv.scard(key),
    close: async () => {},
  };
  return createScriptStore('vercel-kv', runner, prefix);
}
