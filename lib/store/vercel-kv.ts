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
      // With deserialization off the client hands back Redis's flat [field, value, …] reply.
      const reply = (await kv.hgetall(key)) as unknown;
      const pairs = Array.isArray(reply) ? reply.map(String) : Object.entries((reply ?? {}) as Record<string, string>).flat();
      if (!pairs.length) return null;
      const hash: Record<string, string> = {};
      for (let i = 0; i + 1 < pairs.length; i += 2) hash[pairs[i]] = pairs[i + 1];
      return hash;
    },
    scard: (key) => kv.scard(key),
    close: async () => {},
  };
  return createScriptStore('vercel-kv', runner, prefix);
}
