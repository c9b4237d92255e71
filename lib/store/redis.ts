import Redis from 'ioredis';
import { SCRIPTS, createScriptStore, type ScriptName, type ScriptRunner } from './lua';
import type { Store } from './types';

type ScriptedRedis = Redis & Record<ScriptName, (...args: string[]) => Promise<unknown>>;

export function openRedisStore(url: string, prefix?: string): Store {
  const redis = new Redis(url, {
    // Fail a command within a bounded time when Redis is gone, so a request answers 503
    // instead of waiting on a reconnect loop; the client keeps reconnecting in the background.
    maxRetriesPerRequest: 1,
    commandTimeout: 2_000,
    connectTimeout: 2_000,
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  }) as ScriptedRedis;
  redis.on('error', () => {
    // Connection errors surface per command as StoreUnavailableError; the event itself is noise.
  });
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    // defineCommand sends EVALSHA and falls back to EVAL once, so the script text crosses the wire rarely.
    redis.defineCommand(name, { numberOfKeys: 0, lua });
  }
  const runner: ScriptRunner = {
    run: (name, args) => redis[name](...args),
    hgetall: async (key) => {
      const h = await redis.hgetall(key);
      return Object.keys(h).length ? h : null;
    },
    scard: (key) => redis.scard(key),
    close: async () => void redis.disconnect(),
  };
  return createScriptStore('redis', runner, prefix);
}
