import type { Store } from '@/lib/store';
import { createKey } from './ledger';

/** On an empty store (a first development start), mints a 25-call demo key and returns it once. */
export async function mintDemoKeyIfEmpty(store: Store, secret: string): Promise<string | null> {
  if ((await store.countKeys()) > 0) return null;
  const { key } = await createKey(store, secret, 'bundle-25', { label: 'demo', sourceRef: 'demo' });
  return key;
}
