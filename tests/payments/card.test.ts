// MPP card: a Stripe shared payment token minted through the test helper, paid with mppx/client's stripe
// method, charged by a PaymentIntent on the local Stripe fake (through the official stripe SDK).
import { Credential } from 'mppx';
import { Mppx, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { beforeAll, describe, expect, it } from 'vitest';
import { LEAK_PATTERN, decodeBase64Json, expectPaymentProblem, postJson, rails, server, withPaidServer } from './harness';
import { sptFromTestHelper } from '../support/card';
import { stripeSdk } from '../support/rails-runtime';

let sdk: Stripe;

withPaidServer();
beforeAll(() => {
  sdk = stripeSdk(rails);
});

/** mppx/client's stripe method; createToken mints the SPT with Stripe's test helper, as the mppx CLI does. */
function cardClient(paymentMethod = 'pm_card_visa') {
  return Mppx.create({
    polyfill: false,
    methods: [
      stripeMethods.charge({
        paymentMethod,
        createToken: sptFromTestHelper(sdk),
      }),
    ],
  });
}

async function cardCredential(paymentMethod?: string): Promise<string> {
  const unpaid = await postJson(server.resource, { n: 1 });
  expect(unpaid.status).toBe(402);
  return cardClient(paymentMethod).createCredential(unpaid);
}

const succeeded = () => rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded');

describe('MPP card (Stripe SPT)', () => {
  it('pays by card: 200, Payment-Receipt, exactly one PaymentIntent of 1.00 USD', async () => {
    const before = rails.stripe.paymentIntents().length;
    const res = await cardClient().fetch(server.resource, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json<Record<string, string>>(res.headers.get('payment-receipt'));
    expect(receipt).toMatchObject({ method: 'stripe', status: 'success' });
    expect(receipt.reference).toMatch(/^pi_/);
    const body = (await res.json()) as { paymentIntent: string; rail: string };
    expect(body).toMatchObject({ paymentIntent: receipt.reference, rail: 'stripe' });
    const created = rails.stripe.paymentIntents().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: receipt.reference, amount: 100, currency: 'usd', status: 'succeeded' });
    expect(created[0]!.shared_payment_granted_token).toMatch(/^spt_/);
    // the card rail made exactly the calls we expect of it
    const calls = rails.stripe.requests().map((r) => `${r.method} ${r.path}`);
    expect(calls.filter((c) => c === 'POST /v1/payment_intents')).toHaveLength(1);
  });

  it('a replayed card credential gets a fresh 402 and creates no PaymentIntent', async () => {
    const credential = await cardCredential();
    const ok = await postJson(server.resource, { n: 2 }, { authorization: credential });
    expect(ok.status).toBe(200);
    const count = rails.stripe.paymentIntents().length;
    const replay = await postJson(server.resource, { n: 2 }, { authorization: credential });
    expect(replay.status).toBe(402);
    const p = (await replay.json()) as { reason: string; detail: string };
    expect(p.reason).toBe('credential-used');
    expect(p.detail).not.toMatch(LEAK_PATTERN);
    expect(replay.headers.get('www-authenticate')).toMatch(/method="stripe"/);
    expect(rails.stripe.paymentIntents()).toHaveLength(count);
  });

  it('five concurrent sends of one card credential: exactly one 200 and one PaymentIntent', async () => {
    const credential = await cardCredential();
    const count = succeeded().length;
    const runsBefore = server.runs;
    const results = await Promise.all(
      Array.from({ length: 5 }, () => postJson(server.resource, { n: 3 }, { authorization: credential })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402]);
    expect(succeeded().length - count).toBe(1);
    expect(server.runs - runsBefore).toBe(1); // the paid work ran once, too
  });

  it('a failed run creates no PaymentIntent', async () => {
    const credential = await cardCredential();
    const count = rails.stripe.paymentIntents().length;
    server.failRuns = true;
    const res = await postJson(server.resource, { n: 4 }, { authorization: credential });
    expect(res.status).toBe(422);
    expect(rails.stripe.paymentIntents()).toHaveLength(count);
  });

  it('a declined card: fresh 402 with a safe problem, nothing charged', async () => {
    const credential = await cardCredential('pm_card_chargeDeclined');
    const count = succeeded().length;
    const res = await postJson(server.resource, { n: 5 }, { authorization: credential });
    expect(res.status).toBe(402);
    const p = (await res.json()) as { reason: string; detail: string };
    expect(p.reason).toBe('declined');
    expect(p.detail).not.toMatch(LEAK_PATTERN);
    expect(succeeded()).toHaveLength(count);
  });

  it('Stripe answering 500: 503 problem+json, nothing charged', async () => {
    const credential = await cardCredential();
    const count = succeeded().length;
    rails.faults.stripe('error500');
    const res = await postJson(server.resource, { n: 6 }, { authorization: credential });
    // Stripe documents a 500 as indeterminate: the PaymentIntent may exist, so the charge is unconfirmed.
    await expectPaymentProblem(res, { status: 503, type: 'payments-unavailable', reason: 'settlement-unconfirmed' });
    rails.faults.stripe(null);
    expect(succeeded()).toHaveLength(count);
  });

  it('Stripe unreachable: 503, nothing charged', async () => {
    const credential = await cardCredential();
    const count = succeeded().length;
    rails.faults.stripe('down');
    const res = await postJson(server.resource, { n: 7 }, { authorization: credential });
    expect(res.status).toBe(503);
    rails.faults.stripe(null);
    expect(succeeded()).toHaveLength(count);
  });

  it('a card credential tampered with (amount) is refused', async () => {
    const credential = Credential.deserialize(await cardCredential());
    const tampered = Credential.serialize({
      ...credential,
      challenge: { ...credential.challenge, request: { ...credential.challenge.request, amount: '1' } },
    });
    const count = rails.stripe.paymentIntents().length;
    const res = await postJson(server.resource, { n: 8 }, { authorization: tampered });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { reason: string }).reason).toBe('invalid-challenge');
    expect(rails.stripe.paymentIntents()).toHaveLength(count);
  });
});
