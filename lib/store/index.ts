import type { Config } from '@/lib/config';
import { openSqliteStore } from './sqlite';
import { openRedisStore } from './redis';
import { openVercelKvStore } from './vercel-kv';
import type { Store } from './types';

export type { Store } from './types';
export { StoreUnavailableError } from './types';

export function openStore(config: Pick<Config, 'storeKind' | 'DATA_DIR' | 'REDIS_URL' | 'KV_REST_API_URL' | 'KV_REST_API_TOKEN'>): Store {
  switch (config.storeKind) {
    case 'redis':
      return openRedisStore(config.REDIS_URL!);
    case 'vercel-kv':
      return openVercelKvStore(config.KV_REST_API_URL!, config.KV_REST_API_TOKEN!);
    default:
      return openSqliteStore(config.DATA_DIR);
  }
}
