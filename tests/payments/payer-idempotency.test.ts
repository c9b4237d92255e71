// The Idempotency-Key of a call paid with a credential belongs to the payer who paid it. Through the
// real gate (the readiness route in-process) on the local rails: a replay needs a new credential, verified,
// from the same payer (an EIP-3009 signer, or the Customer behind a shared payment token), and that credential
// is never settled; a request without one gets the ordinary 402 and learns nothing about the key; another
// payer sending the same key and body is simply charged for its own call.
import type Stripe from 'stripe';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { chainLedger } from './harness';
import { type TestRuntime } from '../support/runtime';
import { readinessPayer } from '../support/readiness-payer';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime, stripeSdk } from '../support/rails-runtime';

const { POST: readinessPOST } = agentCheckRoute('readiness');

const APP_URL = 'http://localhost:3000';
const ONE_USDC = 1_000_000n;

let rails: Rails;
let rt: TestRuntime;
let sdk: Stripe;

beforeAll(async () => {
  rails = await startRails();
  rt = installRailsRuntime(rails, { APP_URL, RATE_LIMIT_PER_IP: '100000' });
  sdk = stripeSdk(rails);
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  await rails?.stop();
});

const { body, readiness, evmCredential, cardCredential } = readinessPayer(readinessPOST, APP_URL, '198.51.100.30', () => sdk);

async function fundedPayer(): Promise<Hex> {
  const key = generatePrivateKey();
  await rails.mintUsdc(privateKeyToAccount(key).address, 10n * ONE_USDC);
  return key;
}

const succeededIntents = () => rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded');

describe('an Idempotency-Key paid with a credential replays only to the same payer', () => {
  it('evm: no credential gets the ordinary 402 (same key and body, or another body: never a replay, never a 409); another payer is charged for its own call; the same payer gets the replay and its new credential is never settled', async () => {
    const alice = await fundedPayer();
    const bob = await fundedPayer();
    const aliceAddress = privateKeyToAccount(alice).address;
    const bobAddress = privateKeyToAccount(bob).address;
    const key = `g3-evm-${Date.now()}`;
    const paidBody = body('Alice workflow');

    const first = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(alice) });
    expect(first.status).toBe(200);
    const paid = (await first.json()) as { paymentIntent: string; assessment: unknown; idempotencyKey: string };
    expect(paid.idempotencyKey).toBe(key);
    expect(paid.paymentIntent).toMatch(/^0x[0-9a-f]{64}$/);

    // Without a credential: exactly the 402 a request without any key gets, nothing of Alice's answer.
    const reference = await readiness(paidBody);
    const referenceProblem = (await reference.json()) as Record<string, unknown>;
    for (const attempt of [paidBody, body('Probing another body')]) {
      const bare = await readiness(attempt, { 'idempotency-key': key });
      expect(bare.status).toBe(402);
      expect(bare.headers.get('idempotent-replayed')).toBeNull();
      expect(bare.headers.get('www-authenticate')).toMatch(/^Payment /);
      const text = await bare.text();
      expect(text).not.toContain(paid.paymentIntent);
      expect(text).not.toContain(key);
      expect(JSON.parse(text)).toEqual(referenceProblem);
    }

    // Another payer, same key and body: its own paid call, not Alice's result.
    const before = await chainLedger(rails);
    const bobBefore = await rails.usdcBalance(bobAddress);
    const other = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(bob) });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    const bobs = (await other.json()) as { paymentIntent: string };
    expect(bobs.paymentIntent).toMatch(/^0x[0-9a-f]{64}$/);
    expect(bobs.paymentIntent).not.toBe(paid.paymentIntent);
    expect(bobBefore - (await rails.usdcBalance(bobAddress))).toBe(ONE_USDC);
    expect((await chainLedger(rails)).payTo - before.payTo).toBe(ONE_USDC);

    // Alice again with a new credential: her stored result, and nothing settled.
    const aliceBefore = await rails.usdcBalance(aliceAddress);
    const txsBefore = (await chainLedger(rails)).facilitatorTxs;
    const retryCredential = await evmCredential(alice);
    const replay = await readiness(paidBody, { 'idempotency-key': key, authorization: retryCredential });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('payment-receipt')).toBe(first.headers.get('payment-receipt'));
    expect(await replay.json()).toEqual(paid);
    expect(await rails.usdcBalance(aliceAddress)).toBe(aliceBefore);
    expect((await chainLedger(rails)).facilitatorTxs).toBe(txsBefore);

    // The credential that proved the replay was claimed, not settled: it cannot pay or prove anything again.
    const reused = await readiness(body('Something new'), { authorization: retryCredential });
    expect(reused.status).toBe(402);
    expect(((await reused.json()) as { reason: string }).reason).toBe('credential-used');
    expect(await rails.usdcBalance(aliceAddress)).toBe(aliceBefore);

    // Alice with another body under her key: the conflict is hers to learn, and nothing is charged.
    const conflict = await readiness(body('Alice, another body'), { 'idempotency-key': key, authorization: await evmCredential(alice) });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);
    expect(await rails.usdcBalance(aliceAddress)).toBe(aliceBefore);
  }, 120_000);

  it('card: the payer is the Customer behind the shared payment token; another Customer is charged anew, the same one gets the replay and no second PaymentIntent', async () => {
    const key = `g3-card-${Date.now()}`;
    const paidBody = body('Card workflow');
    const count = succeededIntents().length;

    const first = await readiness(paidBody, { 'idempotency-key': key, authorization: await cardCredential('cus_alice') });
    expect(first.status).toBe(200);
    const paid = (await first.json()) as { paymentIntent: string };
    expect(paid.paymentIntent).toMatch(/^pi_/);
    expect(succeededIntents()).toHaveLength(count + 1);

    const other = await readiness(paidBody, { 'idempotency-key': key, authorization: await cardCredential('cus_bob') });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(((await other.json()) as { paymentIntent: string }).paymentIntent).not.toBe(paid.paymentIntent);
    expect(succeededIntents()).toHaveLength(count + 2);

    const replay = await readiness(paidBody, { 'idempotency-key': key, authorization: await cardCredential('cus_alice') });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(paid);
    expect(succeededIntents()).toHaveLength(count + 2);
  }, 120_000);
});
