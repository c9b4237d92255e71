// Payment processors failing under a paid call: the x402 facilitator (MPP evm and x402 rails) and the
// Stripe fake (MPP card rail) are taken down, made to hang, to trickle their answer forever, or to answer
// garbage, at verification and at settlement. Whatever they do, a paid call through the public REST route
// ends with a clear problem+json (503 payments-unavailable, or a fresh 402), never another 5xx, and moves no
// money: on-chain balances, the facilitator's transaction count and the PaymentIntents stay as they were.
//
// The rails are built as railsFor() builds them, with the processor deadlines shortened (1.5 s instead of
// 10 s verify / 60 s settle / 20 s per Stripe attempt) so that "slower than our timeouts" takes seconds; one
// case keeps the production defaults to prove they are bounded too.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { httpFacilitator } from '@/lib/payments/facilitator';
import { storeCredentialClaims } from '@/lib/payments/claims';
import { createPaymentRails } from '@/lib/payments/rails';
import { paymentConfigOf } from '@/lib/payments/config';
import { railsFor } from '@/lib/runtime';
import { startRails, type Rails } from '../../scripts/rails/start';
import type { ProcessorFault } from '../../scripts/rails/faults';
import { LEAK_PATTERN, chainLedger } from '../payments/harness';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { sptFromTestHelper } from '../support/card';
import { agentCheckRoute } from '../support/check-routes';
import { stripeSdk } from '../support/rails-runtime';

const { POST: readinessPOST } = agentCheckRoute('readiness');

const APP_URL = 'http://localhost:3000';
const SHORT_TIMEOUT_MS = 1_500;
const FAULTS: Exclude<ProcessorFault, null>[] = ['down', 'error500', 'hang', 'drip', 'garbage', 'garbage-json'];
type Rail = 'evm' | 'x402' | 'card';

let rails: Rails;
let rt: TestRuntime;
let sdk: Stripe;
const timings: Array<{ name: string; status: number; ms: number }> = [];

beforeAll(async () => {
  rails = await startRails();
  rt = installTestRuntime({ ...rails.env, APP_URL, RATE_LIMIT_PER_IP: '100000' });
  rt.rails = shortTimeoutRails();
  sdk = stripeSdk(rails);
}, 120_000);

afterAll(async () => {
  rails?.faults.facilitator(null);
  rails?.faults.stripe(null);
  await rt?.dispose();
  await rails?.stop();
  if (timings.length) console.log(`rail faults: ${timings.map((t) => `${t.name} ${t.status} ${t.ms} ms`).join('; ')}`);
});

function shortTimeoutRails() {
  const c = rt.config;
  const payments = createPaymentRails(
    paymentConfigOf(c),
    {
      claims: storeCredentialClaims(rt.store),
      facilitator: httpFacilitator(c.X402_FACILITATOR_URL!, { verifyTimeoutMs: SHORT_TIMEOUT_MS, settleTimeoutMs: SHORT_TIMEOUT_MS }),
      stripeTimeoutMs: SHORT_TIMEOUT_MS,
    },
  );
  if (!payments) throw new Error('rails not configured');
  return payments;
}

const readiness = (headers: Record<string, string> = {}) =>
  readinessPOST(
    new Request(`${APP_URL}/api/agent/readiness`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20', ...headers },
      body: JSON.stringify(validReadinessBody()),
    }),
  );

/** Everything a charge would change. */
async function ledger() {
  return {
    ...(await chainLedger(rails)),
    paymentIntents: rails.stripe.paymentIntents().length,
    succeededIntents: rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded').length,
  };
}

async function credentialFor(rail: Rail): Promise<Record<string, string>> {
  const unpaid = await readiness();
  expect(unpaid.status).toBe(402);
  if (rail === 'x402') {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
    return { 'payment-signature': encodePaymentSignatureHeader(await client.createPaymentPayload(required)) };
  }
  const method =
    rail === 'evm'
      ? evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })
      : stripeMethods.charge({
          paymentMethod: 'pm_card_visa',
          createToken: sptFromTestHelper(sdk),
        });
  const client = Mppx.create({ polyfill: false, methods: [method] as never });
  return { authorization: await client.createCredential(unpaid) };
}

function inject(rail: Rail, fault: ProcessorFault, stage: 'verify' | 'settle') {
  if (rail === 'card') rails.faults.stripe(fault);
  else rails.faults.facilitator(fault, stage === 'settle' ? '/settle' : undefined);
}

function clearFaults() {
  rails.faults.facilitator(null);
  rails.faults.stripe(null);
}

async function assertClearRefusal(res: Response, expected: 402 | 503, unconfirmedSettlement = false) {
  expect(res.status).toBe(expected);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('payment-receipt')).toBeNull();
  expect(res.headers.get('payment-response')).toBeNull();
  const text = await res.text();
  expect(text).not.toMatch(LEAK_PATTERN);
  const problem = JSON.parse(text) as { type: string; status: number; reason?: string };
  expect(problem.status).toBe(expected);
  if (expected === 503) {
    expect(problem.type).toBe(`${PROBLEM_BASE}payments-unavailable`);
    // A settle request that got no usable answer may have been acted on: the 503 says so instead of
    // "nothing was charged", and the call is recorded for the reconciler.
    expect(problem.reason).toBe(unconfirmedSettlement ? 'settlement-unconfirmed' : 'processor-unavailable');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  } else {
    // A fresh challenge to pay: the refused credential is spent, a new one is needed.
    expect(problem.type).toBe(`${PROBLEM_BASE}payment-failed`);
    expect(res.headers.get('www-authenticate')).toMatch(/^Payment /);
  }
}

// Which answer each fault must produce. The card processor's well-formed but meaningless 200 is a refusal
// of the credential (mppx reads no succeeded PaymentIntent from it): a fresh 402. Everything else is "we
// could not reach the processor": 503 (`processor-unavailable` at verification, `settlement-unconfirmed` at
// settlement, where the processor may have acted on the request). None of these faults processes anything,
// so the ledger stays unchanged either way.
const expectedStatus = (rail: Rail, fault: ProcessorFault): 402 | 503 => (rail === 'card' && fault === 'garbage-json' ? 402 : 503);

const cases: Array<[Rail, 'verify' | 'settle', Exclude<ProcessorFault, null>]> = [
  ...(['evm', 'x402'] as const).flatMap((rail) => (['verify', 'settle'] as const).flatMap((stage) => FAULTS.map((f) => [rail, stage, f] as [Rail, 'verify' | 'settle', Exclude<ProcessorFault, null>]))),
  // The card rail calls Stripe at verification (who owns the token) and at settlement (create and confirm
  // the PaymentIntent); a Stripe fault covers both.
  ...FAULTS.map((f) => ['card', 'settle', f] as [Rail, 'verify' | 'settle', Exclude<ProcessorFault, null>]),
];

describe('payment processors failing under a paid call', () => {
  it.each(cases)('%s rail, processor %s stage %s: clear refusal, nothing charged', async (rail, stage, fault) => {
    const headers = await credentialFor(rail);
    const before = await ledger();
    inject(rail, fault, stage);
    const started = performance.now();
    let res: Response;
    try {
      res = await readiness(headers);
    } finally {
      clearFaults();
    }
    timings.push({ name: `${rail}/${stage}/${fault}`, status: res.status, ms: Math.round(performance.now() - started) });
    // The card rail asks Stripe who owns the token before it runs the call, so a Stripe fault stops it there.
    await assertClearRefusal(res, expectedStatus(rail, fault), stage === 'settle' && rail !== 'card');
    expect(await ledger()).toEqual(before);
  }, 30_000);

  it('recovers by itself once the processors answer again: each rail then charges exactly once', async () => {
    for (const rail of ['evm', 'x402', 'card'] as const) {
      const before = await ledger();
      const res = await readiness(await credentialFor(rail));
      expect(res.status).toBe(200);
      const after = await ledger();
      if (rail === 'card') {
        expect(after.succeededIntents - before.succeededIntents).toBe(1);
        expect(after.payer).toBe(before.payer);
      } else {
        expect(before.payer - after.payer).toBe(1_000_000n);
        expect(after.payTo - before.payTo).toBe(1_000_000n);
        expect(after.paymentIntents).toBe(before.paymentIntents);
      }
    }
  }, 60_000);

  it('with the production deadlines, a facilitator that never answers ends the call with 503 (bounded, not hung)', async () => {
    const saved = rt.rails;
    rt.rails = railsFor(rt.config, rt.store);
    try {
      const headers = await credentialFor('evm');
      const before = await ledger();
      rails.faults.facilitator('hang');
      const started = performance.now();
      const res = await readiness(headers).finally(clearFaults);
      timings.push({ name: 'evm/verify/hang (default 10 s deadline)', status: res.status, ms: Math.round(performance.now() - started) });
      await assertClearRefusal(res, 503);
      expect(await ledger()).toEqual(before);
    } finally {
      rt.rails = saved;
    }
  }, 30_000);
});
