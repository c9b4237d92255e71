// The face the paid-call pipeline sees: challenge(), verify() with the credential as data, settle on demand.
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { storeCredentialClaims } from '../../lib/payments/claims';
import { credentialFromHeaders } from '../../lib/payments/verify';
import { problem } from '@/lib/problems';
import { parseWwwAuthenticate, postJson, rails, server, withPaidServer } from './harness';

withPaidServer();

describe('PaymentRails', () => {
  it('challenges, verifies without charging, and settles on demand', async () => {
    const gateRails = server.payments;
    const path = new URL(server.resource).pathname;
    expect(gateRails.live).toEqual(['stripe', 'evm', 'x402']);
    const unpaid = new Request(server.resource, { method: 'POST', body: '{}' });
    expect(credentialFromHeaders(unpaid.headers)).toBeNull();
    const c = await gateRails.challenge(path, problem('payment-required', 'pay', { plans: 'x' }));
    expect(c.status).toBe(402);
    expect(c.problem).toMatchObject({ detail: 'pay', plans: 'x', status: 402 });
    expect(parseWwwAuthenticate(c.wwwAuthenticate)).toHaveLength(2);
    expect(c.challenges).toHaveLength(2);
    expect(c.x402?.accepts[0]).toMatchObject({ scheme: 'exact', amount: '1000000' });

    const client = Mppx.create({
      polyfill: false,
      methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
    });
    const credential = await client.createCredential(await postJson(server.resource, {}));
    const paid = new Request(server.resource, { method: 'POST', headers: { authorization: credential }, body: '{}' });
    expect(credentialFromHeaders(paid.headers)).toEqual({ scheme: 'mpp', authorization: credential });
    const before = await rails.usdcBalance(rails.payTo);
    const verified = await gateRails.verify({ scheme: 'mpp', authorization: credential }, path);
    expect(verified.ok).toBe(true);
    expect(await rails.usdcBalance(rails.payTo)).toBe(before); // validated, not charged
    if (!verified.ok) return;
    const settled = await verified.settle();
    expect(settled.ok).toBe(true);
    if (settled.ok) {
      expect(settled.reference).toMatch(/^0x[0-9a-f]{64}$/);
      expect(settled.receipt).toEqual({ mpp: expect.objectContaining({ method: 'evm', reference: settled.reference, status: 'success' }), x402: null });
    }
    expect((await rails.usdcBalance(rails.payTo)) - before).toBe(1_000_000n);

    const replay = await gateRails.verify({ scheme: 'mpp', authorization: credential }, path);
    expect(replay.ok).toBe(false);
    if (!replay.ok) expect(replay).toMatchObject({ status: 402, problem: { reason: 'credential-used' } });
  });

  it('storeCredentialClaims passes keys and TTL to the store in milliseconds', async () => {
    const calls: unknown[][] = [];
    const claims = storeCredentialClaims({
      claimOnce: async (...args) => {
        calls.push(args);
        return calls.length === 1;
      },
    });
    expect(await claims.claimOnce('k', 90)).toBe(true);
    expect(await claims.claimOnce('k', 90)).toBe(false);
    expect(calls[0]![0]).toBe('k');
    expect(calls[0]![2]).toBe(90_000);
  });
});
