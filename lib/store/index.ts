import type { Config } from '@/lib/config';
import { openSqliteStore } from './sqlite';
import { openSqliteStoreOffThread } from './sqlite-thread';
import { openRedisStore } from './redis';
import { openVercelKvStore } from './vercel-kv';
import type { Store } from './types';

export type { Store } from './types';
export { StoreUnavailableError } from './types';

/**
 * The store the configuration names. `sqliteOffThread`: the server runs the embedded store on a
 * worker thread (see sqlite-thread.ts); command-line tools keep it on their own thread.
 * @example const store = openStore(parseConfig(process.env), { sqliteOffThread: true });
 */
export function openStore(
  config: Pick<Config, 'storeKind' | 'DATA_DIR' | 'REDIS_URL' | 'KV_REST_API_URL' | 'KV_REST_API_TOKEN'>,
  options: { sqliteOffThread?: boolean } = {},
): Store {
  switch (config.storeKind) {
    case 'redis':
      return openRedisStore(config.REDIS_URL!);
    case 'vercel-kv':
      return openVercelKvStore(config.KV_REST_API_URL!, config.KV_REST_API_TOKEN!);
    default:
      return options.sqliteOffThread ? openSqliteStoreOffThread(config.DATA_DIR) : openSqliteStore(config.DATA_DIR);
  }
}
