import crypto from 'node:crypto';
import { z } from 'zod';
import type { Store } from '@/lib/store';
import type { Grant, GrantState } from '@/lib/store/types';
import { PLAN_IDS, type PlanId } from '@/lib/price';
import { ProblemError } from '@/lib/problems';
import { bundleExpiry, findPlan, monthlyPeriodEnd } from './plans';
import { digestsEqual, hashKey, isWellFormedKey, mintKey } from './keys';

/** A reservation neither committed nor released within this time goes back to the balance by itself. */
export const RESERVATION_HOLD_MS = 2 * 60 * 1000;

const newId = (prefix: string) => prefix + crypto.randomBytes(12).toString('base64url');

export function grantFor(keyHash: string, plan: PlanId, now: number, sourceRef: string | null, calls?: number): Grant {
  const known = findPlan(plan);
  const expiresAt = plan === 'subscription' ? monthlyPeriodEnd(now) : bundleExpiry(now);
  return {
    id: newId('gr_'), keyHash, plan, calls: calls ?? known?.calls ?? 25, used: 0, expiresAt, createdAt: now, sourceRef,
  };
}

/**
 * Adds `grant` unless a grant with its id exists, and returns the grant as stored: the earlier one when
 * this is a retry (its expiry and `used` stay as they were). With an id derived from what paid for it,
 * a purchase is granted once however often its fulfilment runs.
 * @example const stored = await addGrantOnce(store, { ...grantFor(keyHash, 'bundle-25', now, ref), id: 'gr_co_abc' }, now);
 */
export async function addGrantOnce(store: Store, grant: Grant, now: number): Promise<Grant> {
  if (await store.addGrant(grant)) return grant;
  const stored = (await store.listGrants(grant.keyHash, now)).find((g) => g.id === grant.id);
  // The id is taken on another key: only a caller reusing one id for two keys gets here.
  if (!stored) throw new Error(`grant ${grant.id} exists on another key`);
  const { id, keyHash, plan, calls, used, expiresAt, createdAt, sourceRef } = stored;
  return { id, keyHash, plan, calls, used, expiresAt, createdAt, sourceRef };
}

/**
 * Mints a new key holding one grant; the plaintext key is returned once and never stored.
 * @example const { key } = await createKey(store, config.CREDITS_KEY_SECRET, 'bundle-25'); // show `key` once
 */
export async function createKey(
  store: Store,
  secret: string,
  plan: PlanId,
  options: { now?: number; label?: string; sourceRef?: string; calls?: number } = {},
): Promise<{ key: string; keyHash: string; grant: Grant }> {
  const now = options.now ?? Date.now();
  const key = mintKey();
  const keyHash = hashKey(key, secret);
  await store.putKey({ keyHash, createdAt: now, revokedAt: null, label: options.label ?? null });
  const grant = grantFor(keyHash, plan, now, options.sourceRef ?? null, options.calls);
  await store.addGrant(grant);
  return { key, keyHash, grant };
}

/**
 * Resolves a presented key to its hash, or throws 401 for a malformed, unknown or revoked key.
 * @example const keyHash = await authenticateKey(store, config.CREDITS_KEY_SECRET, bearerToken(request.headers)!);
 */
export async function authenticateKey(store: Store, secret: string, presented: string): Promise<string> {
  if (!isWellFormedKey(presented)) throw invalidCreditsKey();
  const keyHash = hashKey(presented, secret);
  const record = await store.getKey(keyHash);
  if (!record || !digestsEqual(record.keyHash, keyHash) || record.revokedAt !== null) throw invalidCreditsKey();
  return keyHash;
}

/**
 * The 401 for a malformed, unknown or revoked key (what `authenticateKey` throws).
 * @example if (admission.refusal === 'invalid-key') throw invalidCreditsKey();
 */
export function invalidCreditsKey(): ProblemError {
  return new ProblemError('invalid-credits-key', 'The credits key is not valid. Check it, or buy a plan at /pricing.');
}

/** One grant as its key's holder sees it (credits endpoint, account page). */
const GrantBalance = z.strictObject({
  id: z.string(), plan: z.enum(PLAN_IDS), calls: z.number().int(), used: z.number().int(), reserved: z.number().int(),
  callsLeft: z.number().int(), expiresAt: z.string(), expired: z.boolean(),
});

/** The calls left on a key, in total and per grant. */
export const Balance = z.strictObject({ callsLeft: z.number().int(), grants: z.array(GrantBalance) });
export type Balance = z.infer<typeof Balance>;

function summariseGrants(grants: GrantState[]): Balance {
  return {
    callsLeft: grants.reduce((n, g) => n + g.remaining, 0),
    grants: grants.map((g) => ({
      id: g.id, plan: g.plan, calls: g.calls, used: g.used, reserved: g.reserved, callsLeft: g.remaining,
      expiresAt: new Date(g.expiresAt).toISOString(), expired: g.expired,
    })),
  };
}

/**
 * The calls left on a key, per live grant (a hold counts as spent until it is committed or released).
 * @example const { callsLeft } = await balance(store, keyHash);
 */
export async function balance(store: Store, keyHash: string, now = Date.now()): Promise<Balance> {
  return summariseGrants(await store.listGrants(keyHash, now));
}

/** How every usage id (a prepaid call's reservation) starts. */
export const USAGE_ID_PREFIX = 'cu_';
/**
 * A new usage id (`cu_…`): the id of one held call, and the `creditsUsage` its answer names.
 * @example await store.admitCall({ ...admission, hold: { reservationId: newUsageId(), holdUntil } });
 */
export const newUsageId = (): string => newId(USAGE_ID_PREFIX);

/**
 * Holds one call; returns its usage id (`cu_…`), or null when the key has no live calls left. `operation`
 * (the paid operation's id) is kept with it for the key's usage list.
 * The paid-call pipeline reserves before the work, then commits (delivered) or releases (failed).
 * @example
 * const usageId = await reserveCall(store, keyHash);
 * if (usageId === null) return creditsExhausted();
 * try { await work(); } catch (e) { await releaseCall(store, usageId); throw e; }
 * await commitCall(store, usageId);
 */
export async function reserveCall(store: Store, keyHash: string, now = Date.now(), holdMs = RESERVATION_HOLD_MS, operation?: string): Promise<string | null> {
  const usageId = newUsageId();
  const result = await store.reserveCall(keyHash, usageId, now, now + holdMs, operation);
  return result.ok ? usageId : null;
}

/**
 * Spends a reserved call (idempotent: `already` on a retry; `lost` when its hold lapsed and the call is gone).
 * A paid call finishes with `Store.finishReservation` instead, which also keeps its answer and counts what is left.
 * @example await commitCall(store, usageId);
 */
export async function commitCall(store: Store, usageId: string, now = Date.now()) {
  return store.commitReservation(usageId, now);
}

/**
 * Gives a reserved call back to its key at once (the work failed, nothing is charged).
 * @example await releaseCall(store, usageId);
 */
export async function releaseCall(store: Store, usageId: string) {
  return store.releaseReservation(usageId);
}
