import { z } from 'zod';
import type { Store } from '@/lib/store';
import { ProblemError } from '@/lib/problems';
import { Balance, authenticateKey, balance } from './ledger';
import { maskKey } from './keys';
import { PlanEntry, planList } from './plans';
import { PRICE_USD } from '@/lib/price';

/** The 200 body of GET /api/agent/credits: the plans without a key, the calls left with one. */
export const CreditsAnswer = z.union([
  z.strictObject({ plans: z.array(PlanEntry), pricePerCall: z.strictObject({ amount: z.string(), currency: z.literal('USD') }) }),
  Balance.extend({ key: z.string() }),
]);

/**
 * GET /api/agent/credits: the plans without a key; calls left with one (spec 4.3). Throws ProblemError
 * (401 invalid-credits-key) or StoreUnavailableError; the route answers them through lib/problems.ts.
 * @example const body = await creditsAnswer(getRuntime(), request.headers.get('authorization'))
 */
export async function creditsAnswer(
  deps: { store: Store; config: { APP_URL: string; CREDITS_KEY_SECRET: string } },
  authorization: string | null,
  now = Date.now(),
): Promise<z.infer<typeof CreditsAnswer>> {
  if (authorization === null) {
    return { plans: planList(deps.config.APP_URL), pricePerCall: { amount: PRICE_USD, currency: 'USD' } };
  }
  const match = authorization.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match) throw new ProblemError('invalid-credits-key', 'Send the credits key as Authorization: Bearer <key>.');
  const keyHash = await authenticateKey(deps.store, deps.config.CREDITS_KEY_SECRET, match[1]);
  const b = await balance(deps.store, keyHash, now);
  return { key: maskKey(match[1]), callsLeft: b.callsLeft, grants: b.grants };
}
