// A credential's single-use marker (claimOnce) expires on the store, on every adapter;
// by then the credential itself has expired, so it stays unusable. Real mppx evm credentials against the
// local chain and facilitator; the process clock is moved forward (Date only) instead of sleeping.
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CredentialClaims } from '@/lib/payments/claims';
import type { Store } from '@/lib/store';
import { redisHarness, sqliteHarness, vercelKvHarness } from '../store/adapters';
import { chainLedger, expectPaymentProblem, postJson, rails, server, withPaidServer } from './harness';

let current: Store;
const claimed: Array<{ key: string; ttlSeconds: number; first: boolean }> = [];
/** The store's claims on the caller's clock, as lib/payments/claims.ts `storeCredentialClaims` wires them. */
const claims: CredentialClaims = {
  async claimOnce(key, ttlSeconds) {
    const first = await current.claimOnce(key, Date.now(), ttlSeconds * 1000);
    claimed.push({ key, ttlSeconds, first });
    return first;
  },
};
withPaidServer({ claims });

async function evmCredential(): Promise<string> {
  const client = Mppx.create({
    methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
    polyfill: false,
  });
  const unpaid = await postJson(server.resource, { n: 1 });
  expect(unpaid.status).toBe(402);
  return client.createCredential(unpaid);
}

for (const harness of [sqliteHarness(), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`credential claim expiry: ${harness.name}`, () => {
    beforeAll(async () => {
      await harness.setup();
      current = harness.fresh();
    });
    afterAll(() => harness.teardown());
    afterEach(() => vi.useRealTimers());

    it('the marker expires after its ttl, and the credential it guarded is refused as expired, moving nothing', async () => {
      claimed.length = 0;
      const runsBefore = server.runs;
      const credential = await evmCredential();
      server.failRuns = true;
      expect((await postJson(server.resource, { n: 2 }, { authorization: credential })).status).toBe(422);
      expect(claimed).toHaveLength(1);
      const [{ key, ttlSeconds, first }] = claimed;
      expect(first).toBe(true);
      server.failRuns = false;
      const before = await chainLedger(rails);

      // While the marker lives, the credential is a replay.
      await expectPaymentProblem(await postJson(server.resource, { n: 2 }, { authorization: credential }), {
        status: 402, type: 'payment-failed', reason: 'credential-used',
      });

      // The moment the marker expires, on the same clock the store is given.
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + ttlSeconds * 1000 });
      const late = await postJson(server.resource, { n: 2 }, { authorization: credential });
      await expectPaymentProblem(late, { status: 402, type: 'payment-failed', reason: 'expired' });
      expect(await chainLedger(rails)).toEqual(before);
      expect(server.runs - runsBefore).toBe(1);
      // It was the credential's own expiry that refused it, before any claim (the two are the first try and
      // the replay); and the store's marker had indeed gone by then.
      expect(claimed).toHaveLength(2);
      expect(await current.claimOnce(key, Date.now(), 1_000)).toBe(true);
    });
  });
}
