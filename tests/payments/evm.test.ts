// MPP evm (USDC authorization) paid with mppx/client against the local chain and the real facilitator.
import { Challenge, Credential } from 'mppx';
import { Mppx, evm } from 'mppx/client';
import { createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { LEAK_PATTERN, decodeBase64Json, expectPaymentProblem, parseWwwAuthenticate, postJson, rails, server, withPaidServer } from './harness';

const USDC_DOMAIN = { name: 'USD Coin', version: '2' };
withPaidServer();

function payerClient(privateKey: Hex = rails.payer.privateKey) {
  return Mppx.create({
    methods: [evm.charge({ account: privateKeyToAccount(privateKey), authorization: USDC_DOMAIN })],
    polyfill: false,
  });
}

/** Gets a 402 and signs an evm credential for it without sending it. */
async function evmCredential(privateKey?: Hex): Promise<string> {
  const client = payerClient(privateKey);
  const unpaid = await postJson(server.resource, { n: 1 });
  expect(unpaid.status).toBe(402);
  return client.createCredential(unpaid);
}

async function balances() {
  return { payer: await rails.usdcBalance(rails.payer.address), payTo: await rails.usdcBalance(rails.payTo) };
}

describe('MPP evm', () => {
  it('pays with mppx/client: 200, Payment-Receipt, payer -1 USDC and payTo +1 USDC on chain', async () => {
    const before = await balances();
    const res = await payerClient().fetch(server.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { paymentIntent: string; rail: string };
    const receipt = decodeBase64Json<Record<string, string>>(res.headers.get('payment-receipt'));
    expect(receipt).toMatchObject({ method: 'evm', status: 'success' });
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.paymentIntent).toBe(receipt.reference);
    expect(body.rail).toBe('evm');
    expect(res.headers.get('payment-response')).toBeNull();
    const after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);
    const { createPublicClient } = await import('viem');
    const tx = await createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) }).getTransactionReceipt({
      hash: receipt.reference as Hex,
    });
    expect(tx.status).toBe('success');
  });

  it('a replayed credential gets a fresh 402 and moves nothing', async () => {
    const credential = await evmCredential();
    const first = await postJson(server.resource, { n: 2 }, { authorization: credential });
    expect(first.status).toBe(200);
    const before = await balances();
    const replay = await postJson(server.resource, { n: 2 }, { authorization: credential });
    await expectPaymentProblem(replay, { status: 402, type: 'payment-failed', reason: 'credential-used' });
    // the fresh challenge is a new one
    const oldId = Credential.deserialize(credential).challenge.id;
    const fresh = parseWwwAuthenticate(replay.headers.get('www-authenticate')!);
    expect(fresh.map((c) => c.params.id)).not.toContain(oldId);
    expect(replay.headers.get('payment-required')).not.toBeNull();
    expect(await balances()).toEqual(before);
  });

  it('five concurrent sends of one credential: exactly one 200 and exactly 1 USDC moved', async () => {
    const credential = await evmCredential();
    const before = await balances();
    const runsBefore = server.runs;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => postJson(server.resource, { n: 3 }, { authorization: credential })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 402, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) {
      const p = (await r.json()) as { reason: string };
      expect(p.reason).toBe('credential-used');
    }
    const after = await balances();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);
    expect(server.runs - runsBefore).toBe(1);
  });

  it('a failed run is never settled, and its credential is spent', async () => {
    const credential = await evmCredential();
    const before = await balances();
    server.failRuns = true;
    const res = await postJson(server.resource, { n: 4 }, { authorization: credential });
    expect(res.status).toBe(422);
    expect(res.headers.get('payment-receipt')).toBeNull();
    expect(await balances()).toEqual(before);
    server.failRuns = false;
    const retry = await postJson(server.resource, { n: 4 }, { authorization: credential });
    expect(retry.status).toBe(402);
    expect(await balances()).toEqual(before);
  });

  it('an expired challenge gets a fresh 402 (reason expired) and moves nothing', async () => {
    const unpaid = await postJson(server.resource, { n: 5 });
    const evmChallenge = Challenge.fromResponseList(unpaid).find((c) => c.method === 'evm')!;
    // Same terms, signed by this server's key, but already expired.
    const expired = Challenge.from({
      secretKey: rails.env.MPP_SECRET_KEY,
      realm: evmChallenge.realm,
      method: 'evm',
      intent: 'charge',
      request: evmChallenge.request,
      opaque: evmChallenge.opaque,
      expires: new Date(Date.now() - 1000).toISOString(),
    });
    // mppx's client refuses expired challenges, so sign with the evm method directly.
    const method = evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_DOMAIN });
    const credential = await method.createCredential({ challenge: expired as never, context: undefined as never });
    const before = await balances();
    const res = await postJson(server.resource, { n: 5 }, { authorization: credential });
    expect(res.status).toBe(402);
    const p = (await res.json()) as { reason: string; detail: string };
    expect(p.reason).toBe('expired');
    expect(p.detail).not.toMatch(LEAK_PATTERN);
    expect(await balances()).toEqual(before);
  });

  it('a credential for a challenge this server did not issue is refused', async () => {
    const credential = await evmCredential();
    const parsed = Credential.deserialize(credential);
    const forged = Credential.serialize({ ...parsed, challenge: { ...parsed.challenge, id: 'A'.repeat(43) } });
    const res = await postJson(server.resource, { n: 6 }, { authorization: forged });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { reason: string }).reason).toBe('invalid-challenge');
  });

  it('a payer without USDC (the chain would revert) gets a sanitised 402 and nothing moves', async () => {
    const poor = generatePrivateKey();
    const credential = await evmCredential(poor);
    const before = await balances();
    const res = await postJson(server.resource, { n: 7 }, { authorization: credential });
    expect(res.status).toBe(402);
    const text = await res.text();
    expect(text).not.toMatch(LEAK_PATTERN);
    expect(text.length).toBeLessThan(600);
    const p = JSON.parse(text) as { reason: string };
    expect(p.reason).toBe('insufficient-funds');
    expect(await balances()).toEqual(before);
  });

  it('a transfer that reverts at settlement is not charged and the 402 is sanitised', async () => {
    const credential = await evmCredential();
    const before = await balances();
    // Between validation and settlement the payer moves all its USDC away: the transfer now reverts on chain.
    const payerWallet = createWalletClient({
      account: privateKeyToAccount(rails.payer.privateKey),
      chain: rails.chain,
      transport: http(rails.rpcUrl),
    });
    const sink = privateKeyToAccount(generatePrivateKey()).address;
    server.beforeSettle = async () => {
      await payerWallet.writeContract({
        address: rails.usdcAddress,
        abi: rails.usdcAbi,
        functionName: 'transfer',
        args: [sink, before.payer],
      });
    };
    const res = await postJson(server.resource, { n: 8 }, { authorization: credential });
    expect(res.status).toBe(402);
    const text = await res.text();
    expect(text).not.toMatch(LEAK_PATTERN);
    expect(res.headers.get('payment-receipt')).toBeNull();
    expect(await rails.usdcBalance(rails.payTo)).toBe(before.payTo);
    expect(await rails.usdcBalance(sink)).toBe(before.payer);
    // give the payer its USDC back for the other tests
    await rails.mintUsdc(rails.payer.address, before.payer);
  });
});

describe('facilitator faults', () => {
  it('facilitator unreachable at validation: 503, nothing charged, and the credential still pays later', async () => {
    const credential = await evmCredential();
    const before = await balances();
    rails.faults.facilitator('down');
    const res = await postJson(server.resource, { n: 9 }, { authorization: credential });
    await expectPaymentProblem(res, { status: 503, type: 'payments-unavailable', reason: 'processor-unavailable' });
    expect(await balances()).toEqual(before);
    rails.faults.facilitator(null);
    const retry = await postJson(server.resource, { n: 9 }, { authorization: credential });
    expect(retry.status).toBe(200);
  });

  it('facilitator answering 500: 503 and nothing charged', async () => {
    const credential = await evmCredential();
    const before = await balances();
    rails.faults.facilitator('error500');
    const res = await postJson(server.resource, { n: 10 }, { authorization: credential });
    expect(res.status).toBe(503);
    expect(await balances()).toEqual(before);
  });

  it('facilitator lost between validation and settlement: 503 and nothing charged', async () => {
    const credential = await evmCredential();
    const before = await balances();
    server.beforeSettle = async () => rails.faults.facilitator('down');
    const res = await postJson(server.resource, { n: 11 }, { authorization: credential });
    expect(res.status).toBe(503);
    // The connection dropped after the settle request went out: from our side the charge is unknown.
    expect(((await res.json()) as { reason: string }).reason).toBe('settlement-unconfirmed');
    expect(await balances()).toEqual(before);
  });
});
