import { z } from 'zod';
import type { Store } from '@/lib/store';
import { StoreUnavailableError } from '@/lib/store';
import { ProblemError, problem, type Problem } from '@/lib/http/problem';
import { Balance, authenticateKey, balance } from './ledger';
import { maskKey } from './keys';
import { PlanEntry, planList } from '@/lib/http/describe';
import { PRICE_USD } from '@/lib/price';

/** The 200 body of GET /api/agent/credits: the plans without a key, the calls left with one. */
export const CreditsAnswer = z.union([
  z.strictObject({ plans: z.array(PlanEntry), pricePerCall: z.strictObject({ amount: z.string(), currency: z.literal('USD') }) }),
  Balance.extend({ key: z.string() }),
]);

/** GET /api/agent/credits: the plans without a key; calls left with one (spec 4.3). */
export async function creditsAnswer(
  deps: { store: Store; config: { APP_URL: string; CREDITS_KEY_SECRET: string } },
  authorization: string | null,
  now = Date.now(),
): Promise<{ status: number; body: z.infer<typeof CreditsAnswer>; headers?: Record<string, string> } | { status: number; problem: Problem; headers?: Record<string, string> }> {
  if (authorization === null) {
    return { status: 200, body: { plans: planList(deps.config.APP_URL), pricePerCall: { amount: PRICE_USD, currency: 'USD' } } };
  }
  const match = authorization.match(/^Bearer\s+(\S+)\s*$/i);
  try {
    if (!match) throw new ProblemError('invalid-credits-key', 'Send the credits key as Authorization: Bearer <key>.');
    const keyHash = await authenticateKey(deps.store, deps.config.CREDITS_KEY_SECRET, match[1]);
    const b = await balance(deps.store, keyHash, now);
    return { status: 200, body: { key: maskKey(match[1]), callsLeft: b.callsLeft, grants: b.grants } };
  } catch (error) {
    if (error instanceof ProblemError) return { status: error.problem.status, problem: error.problem };
    if (error instanceof StoreUnavailableError) {
      return { status: 503, problem: problem('store-unavailable', 'Our data store is not answering; retry shortly.'), headers: { 'Retry-After': '5' } };
    }
    throw error;
  }
}
