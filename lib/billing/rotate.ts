import type { Store } from '@/lib/store';
import { hashKey, maskKey, mintKey } from '@/lib/credits/keys';
import { ProblemError } from '@/lib/problems';
import { names, readJson, writeJson, type SubscriptionOwner } from './records';

// Key rotation: a new key takes over everything the old one held, and the old one stops working at once.
// The store moves the grants (with their held calls) and the stored reports and revokes the old key in one
// atomic step; the billing records that name the key by its hash follow here, and a successor record lets
// anything still naming the old hash (a refund of an earlier purchase) find the grants where they went.

/** How many rotations a lookup follows at most (each is a person pressing "rotate"; a loop cannot form). */
const MAX_SUCCESSORS = 64;

/**
 * The hash of the key that holds what `keyHash` held: itself, or the key it was rotated into (repeatedly).
 * @example const holder = await currentKeyHash(store, payment.keyHash, Date.now());
 */
export async function currentKeyHash(store: Store, keyHash: string, now: number): Promise<string> {
  let current = keyHash;
  for (let i = 0; i < MAX_SUCCESSORS; i++) {
    const next = await store.getRecord(names.keySuccessor(current), now);
    if (next === null) return current;
    current = next;
  }
  return current;
}

/**
 * Replaces the key `keyHash` by a new one with the same grants, balance and reports; the old key is refused
 * from this moment. Returns the new key (to be shown once, never stored) and its hash. 401 when the old key
 * is unknown or already revoked (of two rotations at once, one wins).
 * @example const { key } = await rotateCreditsKey({ store, secret: config.CREDITS_KEY_SECRET }, session.keyHash, Date.now());
 */
export async function rotateCreditsKey(
  deps: { store: Store; secret: string },
  keyHash: string,
  now: number,
): Promise<{ key: string; keyHash: string; keyPrefix: string }> {
  const { store } = deps;
  const old = await store.getKey(keyHash);
  const key = mintKey();
  const newHash = hashKey(key, deps.secret);
  const rotated = old !== null && (await store.rotateKey(keyHash, { keyHash: newHash, createdAt: now, revokedAt: null, label: old.label }, now));
  if (!rotated) throw new ProblemError('invalid-credits-key', 'This credits key is no longer valid (revoked or rotated already). Sign in with the current key.');

  // The successor first: from here on a refund of an earlier purchase finds the grants, whatever follows.
  await store.setRecord(names.keySuccessor(keyHash), newHash, now, null);
  // And back: the account's list of spent calls goes on to those of the keys before it.
  await store.setRecord(names.keyPredecessor(newHash), keyHash, now, null);
  const customer = await store.getRecord(names.customer(keyHash), now);
  if (customer !== null) await store.setRecord(names.customer(newHash), customer, now, null);
  const subscriptions = (await readJson<string[]>(store, names.keySubscriptions(keyHash), now)) ?? [];
  if (subscriptions.length) {
    await writeJson(store, names.keySubscriptions(newHash), subscriptions, now, null);
    for (const id of subscriptions) {
      const owner = await readJson<SubscriptionOwner>(store, names.subOwner(id), now);
      if (owner?.keyHash === keyHash) await writeJson(store, names.subOwner(id), { ...owner, keyHash: newHash }, now, null);
    }
  }
  return { key, keyHash: newHash, keyPrefix: maskKey(key) };
}

/** Rotations followed back, at most, when listing a key's spent calls. */
const MAX_PREDECESSORS = 20;

/**
 * The key's hash and those it replaced by rotation, newest first: spent calls stay filed under the key that
 * spent them, so a key's whole usage is theirs together.
 * @example for (const hash of await keyLineage(store, keyHash, Date.now())) rows.push(...(await store.listUsage(hash, 500)));
 */
export async function keyLineage(store: Store, keyHash: string, now: number): Promise<string[]> {
  const lineage = [keyHash];
  for (let i = 0; i < MAX_PREDECESSORS; i++) {
    const before = await store.getRecord(names.keyPredecessor(lineage[lineage.length - 1]), now);
    if (before === null || lineage.includes(before)) break;
    lineage.push(before);
  }
  return lineage;
}
