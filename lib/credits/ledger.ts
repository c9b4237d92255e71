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

/** Mints a new key holding one grant; the plaintext key is returned once and never stored. */
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

/** Resolves a presented key to its hash, or throws 401 for a malformed, unknown or revoked key. */
export async function authenticateKey(store: Store, secret: string, presented: string): Promise<string> {
  const invalid = () => new ProblemError('invalid-credits-key', 'The credits key is not valid. Check it, or buy a plan at /pricing.');
  if (!isWellFormedKey(presented)) throw invalid();
  const keyHash = hashKey(presented, secret);
  const record = await store.getKey(keyHash);
  if (!record || !digestsEqual(record.keyHash, keyHash) || record.revokedAt !== null) throw invalid();
  return keyHash;
}

/** One grant as its key's holder sees it (credits endpoint, account page). */
export const GrantBalance = z.strictObject({
  id: z.string(), plan: z.enum(PLAN_IDS), calls: z.number().int(), used: z.number().int(), reserved: z.number().int(),
  callsLeft: z.number().int(), expiresAt: z.string(), expired: z.boolean(),
});

/** The calls left on a key, in total and per grant. */
export const Balance = z.strictObject({ callsLeft: z.number().int(), grants: z.array(GrantBalance) });
export type Balance = z.infer<typeof Balance>;

export function summariseGrants(grants: GrantState[]): Balance {
  return {
    callsLeft: grants.reduce((n, g) => n + g.remaining, 0),
    grants: grants.map((g) => ({
      id: g.id, plan: g.plan, calls: g.calls, used: g.used, reserved: g.reserved, callsLeft: g.remaining,
      expiresAt: new Date(g.expiresAt).toISOString(), expired: g.expired,
    })),
  };
}

export async function balance(store: Store, keyHash: string, now = Date.now()): Promise<Balance> {
  return summariseGrants(await store.listGrants(keyHash, now));
}

/** Holds one call; returns its usage id (`cu_…`), or null when the key has no live calls left. */
export async function reserveCall(store: Store, keyHash: string, now = Date.now(), holdMs = RESERVATION_HOLD_MS): Promise<string | null> {
  const usageId = newId('cu_');
  const result = await store.reserveCall(keyHash, usageId, now, now + holdMs);
  return result.ok ? usageId : null;
}

export async function commitCall(store: Store, usageId: string, now = Date.now()) {
  return store.commitReservation(usageId, now);
}

export async function releaseCall(store: Store, usageId: string) {
  return store.releaseReservation(usageId);
}
