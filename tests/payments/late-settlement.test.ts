// A charge that completes after our deadline. Through the real gate (the readiness route
// in-process) on the local rails, with the processor deadlines shortened to 1 s and processors that do the
// work only LATE_ANSWER_MS (3 s) after the request arrived: the x402 facilitator settles the USDC transfer on
// chain, the Stripe stand-in confirms the PaymentIntent. The call is answered 503 `settlement-unconfirmed`
// with an honest detail and the Idempotency-Key to retry with; the settlement is recorded; the reconciler
// (on the retry itself, in a timer pass, or `npm run ledger -- reconcile`) asks the chain / Stripe; the
// payer's retry (same key, new credential from the same payer) receives the stored result, charged once.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type Stripe from 'stripe';
import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { httpFacilitator } from '@/lib/payments/facilitator';
import { storeCredentialClaims } from '@/lib/payments/claims';
import { createPaymentRails } from '@/lib/payments/rails';
import { paymentConfigOf } from '@/lib/payments/config';
import { listSettlements, reconcilePending, startReconciler } from '@/lib/payments/settlements';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LATE_ANSWER_MS } from '../../scripts/rails/faults';
import { LEAK_PATTERN } from './harness';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { readinessPayer } from '../support/readiness-payer';
import { agentCheckRoute } from '../support/check-routes';
import { stripeSdk } from '../support/rails-runtime';

const { POST: readinessPOST } = agentCheckRoute('readiness');

const APP_URL = 'http://localhost:3000';
const DEADLINE_MS = 1_000;
const ONE_USDC = 1_000_000n;

let rails: Rails;
let rt: TestRuntime;
let sdk: Stripe;

beforeAll(async () => {
  rails = await startRails();
  rt = installTestRuntime({ ...rails.env, APP_URL, RATE_LIMIT_PER_IP: '100000' });
  const payments = createPaymentRails(
    paymentConfigOf({ ...rails.env, APP_URL }),
    {
      claims: storeCredentialClaims(rt.store),
      facilitator: httpFacilitator(rails.env.X402_FACILITATOR_URL, { verifyTimeoutMs: 10_000, settleTimeoutMs: DEADLINE_MS }),
      stripeTimeoutMs: DEADLINE_MS,
      rpcUrl: rails.rpcUrl,
    },
  );
  rt.rails = payments!;
  sdk = stripeSdk(rails);
}, 120_000);

afterAll(async () => {
  rails?.faults.facilitator(null);
  rails?.faults.stripe(null);
  await rt?.dispose();
  await rails?.stop();
});

beforeEach(() => {
  rails.faults.facilitator(null);
  rails.faults.stripe(null);
});

const { body, readiness, evmCredential, cardCredential } = readinessPayer(readinessPOST, APP_URL, '198.51.100.40', () => sdk);

async function fundedPayer(): Promise<{ key: Hex; address: Hex }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await rails.mintUsdc(address, 10n * ONE_USDC);
  return { key, address };
}

/** Waits (polling, no time assertion) until `condition` holds; the late processors finish within seconds. */
async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const giveUp = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > giveUp) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The transaction that executed the payer's authorization, read from the USDC contract's own event. */
async function authorizationTransfer(payer: Hex): Promise<Hex> {
  const chain = createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) });
  const logs = await chain.getLogs({
    address: rails.usdcAddress,
    event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
    args: { authorizer: payer },
    fromBlock: 0n,
  });
  expect(logs).toHaveLength(1);
  return logs[0]!.transactionHash;
}

/** The 503 a settlement without an answer gets: honest about the charge, naming the key to retry with. */
async function expectUnconfirmed(res: Response, idempotencyKey: string) {
  expect(res.status).toBe(503);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('payment-receipt')).toBeNull();
  const text = await res.text();
  expect(text).not.toMatch(LEAK_PATTERN);
  const problem = JSON.parse(text) as { type: string; reason: string; detail: string; idempotencyKey: string };
  expect(problem.type).toBe(`${PROBLEM_BASE}payments-unavailable`);
  expect(problem.reason).toBe('settlement-unconfirmed');
  expect(problem.detail).toMatch(/may still complete/);
  expect(problem.detail).not.toMatch(/nothing was charged/i);
  expect(problem.idempotencyKey).toBe(idempotencyKey);
}

describe('a charge that completes after our deadline', () => {
  it('evm: a facilitator that settles after the deadline; the retry with the same key and a new credential from the same payer gets the stored result, charged once, and the audit shows it', async () => {
    const payer = await fundedPayer();
    const key = `g1-evm-${Date.now()}`;
    const paidBody = body('Late facilitator');
    const payToBefore = await rails.usdcBalance(rails.payTo);

    rails.faults.facilitator('late', '/settle');
    const res = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) });
    await expectUnconfirmed(res, key);
    expect(rt.logs.some((e) => e.event === 'settlement-unconfirmed' && e.rail === 'evm')).toBe(true);

    // The facilitator finishes on its own time: the money moves after we answered.
    await eventually(async () => (await rails.usdcBalance(payer.address)) === 9n * ONE_USDC, 'the late transfer');
    rails.faults.facilitator(null);
    const transfer = await authorizationTransfer(payer.address);

    const retryCredential = await evmCredential(payer.key);
    const retry = await readiness(paidBody, { 'idempotency-key': key, authorization: retryCredential });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const delivered = (await retry.json()) as { idempotencyKey: string; paymentIntent: string; assessment: unknown; service: string };
    expect(delivered).toMatchObject({ service: 'Agent Payment Readiness Assessment', idempotencyKey: key, paymentIntent: transfer });
    expect(delivered.assessment).toBeTypeOf('object');
    // Charged exactly once: the retry's credential was never settled.
    expect(await rails.usdcBalance(payer.address)).toBe(9n * ONE_USDC);
    expect((await rails.usdcBalance(rails.payTo)) - payToBefore).toBe(ONE_USDC);

    // A second retry replays the same result, still without a charge.
    const again = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(delivered);
    expect(await rails.usdcBalance(payer.address)).toBe(9n * ONE_USDC);

    // The audit: the settlement record keeps its outcome, and the reconciliation was logged.
    const audit = (await listSettlements(rt.store, Date.now())).filter((s) => s.idempotencyKey === key);
    expect(audit).toMatchObject([{ status: 'charged', reference: transfer, operation: 'createAgentReadinessAssessment' }]);
    expect(rt.logs).toContainEqual(expect.objectContaining({ event: 'settlement-reconciled', rail: 'evm', outcome: 'charged', reference: transfer }));
  }, 120_000);

  it('evm: the reconciler (`npm run ledger -- reconcile`) finds the late transfer before any retry, and the retry then replays it', async () => {
    const payer = await fundedPayer();
    const key = `g1-cli-${Date.now()}`;
    const paidBody = body('Late facilitator, reconciled by the CLI');

    rails.faults.facilitator('late', '/settle');
    await expectUnconfirmed(await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) }), key);
    await eventually(async () => (await rails.usdcBalance(payer.address)) === 9n * ONE_USDC, 'the late transfer');
    rails.faults.facilitator(null);
    const transfer = await authorizationTransfer(payer.address);

    const cli = await promisify(execFile)(process.execPath, [path.join('node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/ledger.ts', 'reconcile'], {
      env: { ...process.env, ...rails.env, APP_URL, DATA_DIR: rt.config.DATA_DIR, CREDITS_KEY_SECRET: rt.config.CREDITS_KEY_SECRET, LOG_LEVEL: 'silent' },
    });
    expect(cli.stdout).toContain(JSON.stringify({ rail: 'evm', status: 'charged', reference: transfer }));
    const [record] = (await listSettlements(rt.store, Date.now())).filter((s) => s.idempotencyKey === key);
    expect(record).toMatchObject({ status: 'charged', reference: transfer });

    const retry = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { paymentIntent: string }).paymentIntent).toBe(transfer);
    expect(await rails.usdcBalance(payer.address)).toBe(9n * ONE_USDC);
  }, 120_000);

  it('evm: the server\'s reconciler timer resolves a late transfer by itself, and logs it', async () => {
    const payer = await fundedPayer();
    const key = `g1-timer-${Date.now()}`;
    rails.faults.facilitator('late', '/settle');
    await expectUnconfirmed(await readiness(body('Late, found by the timer'), { 'idempotency-key': key, authorization: await evmCredential(payer.key) }), key);
    await eventually(async () => (await rails.usdcBalance(payer.address)) === 9n * ONE_USDC, 'the late transfer');
    rails.faults.facilitator(null);
    const transfer = await authorizationTransfer(payer.address);

    // What lib/startup.ts starts in the server, on a short interval.
    const stop = startReconciler({ store: rt.store, probe: rt.rails!.settlements, intervalMs: 200, log: rt.log });
    try {
      await eventually(async () => (await listSettlements(rt.store, Date.now())).some((s) => s.idempotencyKey === key && s.status === 'charged'), 'the timer pass');
    } finally {
      stop();
    }
    const [record] = (await listSettlements(rt.store, Date.now())).filter((s) => s.idempotencyKey === key);
    expect(record).toMatchObject({ status: 'charged', reference: transfer });
    expect(rt.logs).toContainEqual(expect.objectContaining({ event: 'settlement-reconciled', outcome: 'charged', reference: transfer }));
  }, 120_000);

  it('evm: while the chain shows nothing the retry is told to wait and is not charged; once the authorization has lapsed unused, the retry pays with its new credential, once', async () => {
    const payer = await fundedPayer();
    const key = `g1-none-${Date.now()}`;
    const paidBody = body('Facilitator that never settles');

    // A facilitator that never answers and never settles: the charge is unknown, then known not to have happened.
    rails.faults.facilitator('hang', '/settle');
    await expectUnconfirmed(await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) }), key);
    rails.faults.facilitator(null);

    const waiting = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) });
    expect(waiting.status).toBe(503);
    expect(((await waiting.json()) as { reason: string }).reason).toBe('settlement-unconfirmed');
    expect(Number(waiting.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await rails.usdcBalance(payer.address)).toBe(10n * ONE_USDC);

    // The reconciler's pass at a time past the authorization's validBefore: it can never move money now.
    const [pending] = (await listSettlements(rt.store, Date.now())).filter((s) => s.idempotencyKey === key);
    expect(pending!.status).toBe('pending');
    const lapsed = (pending!.trace as { validBefore: number }).validBefore * 1000 + 1;
    const results = await reconcilePending(rt.store, rt.rails!.settlements, lapsed, rt.log);
    expect(results).toContainEqual(expect.objectContaining({ rail: 'evm', outcome: { status: 'not-charged' } }));

    const retry = await readiness(paidBody, { 'idempotency-key': key, authorization: await evmCredential(payer.key) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await rails.usdcBalance(payer.address)).toBe(9n * ONE_USDC);
  }, 120_000);

  it('card: a processor that confirms after the deadline; the retry with a new token of the same Customer gets the stored result with that PaymentIntent, and no second one', async () => {
    const key = `g1-card-${Date.now()}`;
    const paidBody = body('Late card processor');
    const succeeded = () => rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded');
    const count = succeeded().length;

    rails.faults.stripe('late');
    const res = await readiness(paidBody, { 'idempotency-key': key, authorization: await cardCredential('cus_late') });
    await expectUnconfirmed(res, key);
    await eventually(async () => succeeded().length === count + 1, 'the late PaymentIntent');
    // The client retried once under the same idempotency key: still one PaymentIntent.
    await new Promise((resolve) => setTimeout(resolve, LATE_ANSWER_MS));
    rails.faults.stripe(null);
    expect(succeeded()).toHaveLength(count + 1);
    const intent = succeeded().at(-1)!;

    const retry = await readiness(paidBody, { 'idempotency-key': key, authorization: await cardCredential('cus_late') });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { paymentIntent: string }).paymentIntent).toBe(intent.id);
    expect(succeeded()).toHaveLength(count + 1);
    const [record] = (await listSettlements(rt.store, Date.now())).filter((s) => s.idempotencyKey === key);
    expect(record).toMatchObject({ status: 'charged', reference: intent.id });
  }, 120_000);
});
