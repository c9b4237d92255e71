// Machine payments against the running service (`next start` on a production build) on the local rails:
// anvil (chain 8453) with USDC at its Base address, a real x402 facilitator, and the Stripe fake. Every
// payment is checked where it lands: USDC balances read on chain, PaymentIntents counted on the fake.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Credential } from 'mppx';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { createPublicClient, createWalletClient, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { openSqliteStore } from '@/lib/store/sqlite';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, decodeBase64Json, parseWwwAuthenticate, expectSpecPaymentTerms, expectSameTermsNewChallenges } from '../payments/harness';
import { validReadinessBody } from '../support/runtime';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { sptFromTestHelper } from '../support/card';
import { stripeSdk } from '../support/rails-runtime';

const READINESS = '/api/agent/readiness';
const VISIBILITY = '/api/agent/ai-visibility';
const ONE_USDC = 1_000_000n;
const USDC_DOMAIN = { name: 'USD Coin', version: '2' };

let rails: Rails;
let server: RunningServer;
let sdk: Stripe;

beforeAll(async () => {
  rails = await startRails();
  server = await startServer({ ...rails.env, RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000' });
  sdk = stripeSdk(rails);
}, 240_000);
afterAll(async () => {
  await server?.stop();
  await rails?.stop();
});
beforeEach(() => {
  rails.faults.facilitator(null);
  rails.faults.stripe(null);
});

// ---------- helpers ----------

const url = (path: string) => `${server.url}${path}`;

function send(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url(path), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/** A readiness body made distinct by its workflow name (idempotency and fingerprints depend on the body). */
const readinessBody = (name = 'Checkout agent') => validReadinessBody({ workflow: { name, intendedUsers: 'agents', targetEnvironment: 'production' } });

async function balances(payer: Hex = rails.payer.address) {
  return { payer: await rails.usdcBalance(payer), payTo: await rails.usdcBalance(rails.payTo) };
}

const succeededIntents = () => rails.stripe.paymentIntents().filter((pi) => pi.status === 'succeeded');

function evmClient(privateKey: Hex = rails.payer.privateKey, record?: (h: Headers) => void) {
  return Mppx.create({
    polyfill: false,
    methods: [evm.charge({ account: privateKeyToAccount(privateKey), authorization: USDC_DOMAIN })],
    ...(record
      ? {
          fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
            const request = new Request(input, init);
            record(new Headers(request.headers));
            return fetch(request);
          },
        }
      : {}),
  });
}

function cardClient(record?: (h: Headers) => void) {
  return Mppx.create({
    polyfill: false,
    methods: [
      stripeMethods.charge({
        paymentMethod: 'pm_card_visa',
        // Mint the SPT with Stripe's test helper, as the mppx CLI does with a test key.
        createToken: sptFromTestHelper(sdk),
      }),
    ],
    ...(record
      ? {
          fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
            const request = new Request(input, init);
            record(new Headers(request.headers));
            return fetch(request);
          },
        }
      : {}),
  });
}

function x402(privateKey: Hex = rails.payer.privateKey): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
  return client;
}

/** Asks the service for a 402 and signs an MPP evm credential for it (not sent). */
async function evmCredential(privateKey?: Hex, path = READINESS): Promise<string> {
  const unpaid = await send(path, path === READINESS ? readinessBody() : { url: 'https://example.com/' });
  expect(unpaid.status).toBe(402);
  return evmClient(privateKey).createCredential(unpaid);
}

async function cardCredential(): Promise<string> {
  const unpaid = await send(READINESS, readinessBody());
  expect(unpaid.status).toBe(402);
  return cardClient().createCredential(unpaid);
}

/** Asks the service for a 402 and signs an x402 v2 payload for it, encoded for PAYMENT-SIGNATURE / X-PAYMENT. */
async function x402Payload(privateKey?: Hex): Promise<string> {
  const unpaid = await send(READINESS, readinessBody());
  expect(unpaid.status).toBe(402);
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
  return encodePaymentSignatureHeader(await x402(privateKey).createPaymentPayload(required));
}

interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  reason?: string;
  [k: string]: unknown;
}

/** A refused payment: never a 500, problem+json, a safe detail; returns the body. */
async function expectSafeProblem(res: Response, status: number): Promise<ProblemBody> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('payment-receipt')).toBeNull();
  expect(res.headers.get('payment-response')).toBeNull();
  const text = await res.text();
  expect(text).not.toMatch(LEAK_PATTERN);
  expect(text.length).toBeLessThan(1000);
  const body = JSON.parse(text) as ProblemBody;
  expect(body.status).toBe(status);
  expect(body.detail.length).toBeGreaterThan(10);
  return body;
}

/** A 402 that carries a complete, fresh challenge (both MPP methods and PAYMENT-REQUIRED). */
function expectFreshChallenge(res: Response, notId?: string) {
  const challenges = parseWwwAuthenticate(res.headers.get('www-authenticate') ?? '');
  expect(challenges.map((c) => c.params.method)).toEqual(['stripe', 'evm']);
  if (notId) expect(challenges.map((c) => c.params.id)).not.toContain(notId);
  expect(decodeBase64Json<{ x402Version: number }>(res.headers.get('payment-required')).x402Version).toBe(2);
}

// ---------- the 402 ----------

describe('the 402 on the running service (spec 5.2)', () => {
  it.each([
    [READINESS, readinessBody()],
    [VISIBILITY, { url: 'https://example.com/pricing' }],
  ])('POST %s without payment: 402 problem+json, no-store, two Payment challenges and PAYMENT-REQUIRED, field by field', async (path, body) => {
    const res = await send(path, body);
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const problem = (await res.json()) as ProblemBody;
    expect(problem).toMatchObject({ type: `${PROBLEM_BASE}payment-required`, title: 'Payment required', status: 402, plans: `${server.url}/api/agent/credits` });
    expect(problem.detail).toMatch(/1\.00 USD/);

    expectSpecPaymentTerms(res, rails, { realm: new URL(server.url).host, resourceUrl: `${server.url}${path}` });
  });

  it('offers identical terms for two different bodies, each with its own challenge', async () => {
    const a = await send(READINESS, readinessBody('First workflow'));
    const b = await send(READINESS, validReadinessBody({ workflow: { name: 'Another', intendedUsers: 'humans', targetEnvironment: 'sandbox' } }));
    expect([a.status, b.status]).toEqual([402, 402]);
    expectSameTermsNewChallenges(a, b);
  });

  it('derives realm and resource.url from APP_URL, whatever Host the request came through', async () => {
    const viaProxy = await send(READINESS, readinessBody(), { 'x-forwarded-host': 'proxy.internal.example', 'x-forwarded-proto': 'https' });
    expect(viaProxy.status).toBe(402);
    expect(parseWwwAuthenticate(viaProxy.headers.get('www-authenticate')!).map((c) => c.params.realm)).toEqual([new URL(server.url).host, new URL(server.url).host]);
    expect(decodeBase64Json<{ resource: { url: string } }>(viaProxy.headers.get('payment-required')).resource.url).toBe(`${server.url}${READINESS}`);

    const behindProxy = await startServer({ ...rails.env, APP_URL: 'https://checks.example.com' });
    try {
      const res = await fetch(`${behindProxy.url}${VISIBILITY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'https://example.com/' }) });
      expect(res.status).toBe(402);
      expect(parseWwwAuthenticate(res.headers.get('www-authenticate')!).map((c) => c.params.realm)).toEqual(['checks.example.com', 'checks.example.com']);
      expect(decodeBase64Json<{ resource: { url: string } }>(res.headers.get('payment-required')).resource.url).toBe(`https://checks.example.com${VISIBILITY}`);
    } finally {
      await behindProxy.stop();
    }
  }, 120_000);

  it.each([
    ['an invalid body', READINESS, { workflow: { name: '' } }, {}, 'invalid-request'],
    ['an invalid visibility address', VISIBILITY, { url: 'http://127.0.0.1/' }, {}, 'invalid-url'],
    ['an invalid Idempotency-Key', READINESS, readinessBody(), { 'idempotency-key': 'short' }, 'invalid-idempotency-key'],
  ])('answers %s with 400 and no challenge', async (_, path, body, headers, type) => {
    const res = await send(path, body, headers);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.headers.get('payment-required')).toBeNull();
    expect(((await res.json()) as ProblemBody).type).toBe(`${PROBLEM_BASE}${type}`);
  });
});

// ---------- paying ----------

describe('paying the running service', () => {
  it('MPP evm with mppx/client: 200 + Payment-Receipt, paymentIntent = tx hash, payer -1 USDC and recipient +1 USDC; a replay gets a fresh 402 and moves nothing', async () => {
    const sent: Headers[] = [];
    const before = await balances();
    const res = await evmClient(undefined, (h) => sent.push(h)).fetch(url(READINESS), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(readinessBody()),
    });
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json<Record<string, string>>(res.headers.get('payment-receipt'));
    expect(receipt).toMatchObject({ method: 'evm', status: 'success' });
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get('payment-response')).toBeNull();
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ service: 'Agent Payment Readiness Assessment', paymentIntent: receipt.reference });
    expect(body.assessment).toBeTypeOf('object');
    expect(body.creditsUsage).toBeUndefined();
    const after = await balances();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
    const tx = await createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) }).getTransactionReceipt({ hash: receipt.reference as Hex });
    expect(tx.status).toBe('success');

    const credential = sent.map((h) => h.get('authorization')).find((v) => v?.startsWith('Payment '));
    expect(credential).toBeTruthy();
    const replay = await send(READINESS, readinessBody(), { authorization: credential! });
    const problem = await expectSafeProblem(replay, 402);
    expect(problem).toMatchObject({ type: `${PROBLEM_BASE}payment-failed`, reason: 'credential-used' });
    expectFreshChallenge(replay, Credential.deserialize(credential!).challenge.id);
    expect(await balances()).toEqual(after);
  });

  it('x402 with @x402/fetch (PAYMENT-SIGNATURE): 200 + PAYMENT-RESPONSE, exactly 1 USDC moved; a replay moves nothing', async () => {
    const sent: Headers[] = [];
    const recordingFetch: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      sent.push(new Headers(request.headers));
      return fetch(request);
    };
    const before = await balances();
    const res = await wrapFetchWithPayment(recordingFetch, x402())(url(READINESS), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(readinessBody()),
    });
    expect(res.status).toBe(200);
    const settled = decodeBase64Json<{ success: boolean; transaction: string; network: string; payer: string }>(res.headers.get('payment-response'));
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(((await res.json()) as { paymentIntent: string }).paymentIntent).toBe(settled.transaction);
    const after = await balances();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);

    const signature = sent.map((h) => h.get('payment-signature')).find((v) => v !== null);
    expect(signature).toBeTruthy();
    for (const header of ['PAYMENT-SIGNATURE', 'X-PAYMENT']) {
      const replay = await send(READINESS, readinessBody(), { [header]: signature! });
      const problem = await expectSafeProblem(replay, 402);
      expect(problem.type).toBe(`${PROBLEM_BASE}payment-failed`);
      expect(['credential-used', 'verification-failed']).toContain(problem.reason);
      expectFreshChallenge(replay);
    }
    expect(await balances()).toEqual(after);
  });

  it('x402 payload sent as the legacy X-PAYMENT: 200 + PAYMENT-RESPONSE, exactly 1 USDC moved; a replay moves nothing', async () => {
    const payload = await x402Payload();
    const before = await balances();
    const res = await send(READINESS, readinessBody(), { 'X-PAYMENT': payload });
    expect(res.status).toBe(200);
    const settled = decodeBase64Json<{ success: boolean; transaction: string }>(res.headers.get('payment-response'));
    expect(settled.success).toBe(true);
    expect(((await res.json()) as { paymentIntent: string }).paymentIntent).toBe(settled.transaction);
    const after = await balances();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);

    const replay = await send(READINESS, readinessBody(), { 'X-PAYMENT': payload });
    await expectSafeProblem(replay, 402);
    expectFreshChallenge(replay);
    expect(await balances()).toEqual(after);
  });

  it('card with an SPT through mppx/client: 200, exactly one PaymentIntent of 1.00 USD, paymentIntent = pi_…; a replay creates none', async () => {
    const sent: Headers[] = [];
    const intentsBefore = rails.stripe.paymentIntents().length;
    const chainBefore = await balances();
    const res = await cardClient((h) => sent.push(h)).fetch(url(READINESS), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(readinessBody()),
    });
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json<Record<string, string>>(res.headers.get('payment-receipt'));
    expect(receipt).toMatchObject({ method: 'stripe', status: 'success' });
    const body = (await res.json()) as { paymentIntent: string };
    expect(body.paymentIntent).toMatch(/^pi_/);
    expect(body.paymentIntent).toBe(receipt.reference);
    const created = rails.stripe.paymentIntents().slice(intentsBefore);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: body.paymentIntent, amount: 100, currency: 'usd', status: 'succeeded' });
    expect(created[0]!.shared_payment_granted_token).toMatch(/^spt_/);
    expect(await balances()).toEqual(chainBefore);

    const credential = sent.map((h) => h.get('authorization')).find((v) => v?.startsWith('Payment '));
    const replay = await send(READINESS, readinessBody(), { authorization: credential! });
    const problem = await expectSafeProblem(replay, 402);
    expect(problem.reason).toBe('credential-used');
    expectFreshChallenge(replay);
    expect(rails.stripe.paymentIntents()).toHaveLength(intentsBefore + 1);
  });

  it('five concurrent sends of one evm credential: exactly one 200 and exactly 1 USDC moved', async () => {
    const credential = await evmCredential();
    const before = await balances();
    const results = await Promise.all(Array.from({ length: 5 }, () => send(READINESS, readinessBody(), { authorization: credential })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402]);
    for (const r of results.filter((x) => x.status === 402)) expect((await expectSafeProblem(r, 402)).reason).toBe('credential-used');
    const after = await balances();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
  });

  it('five concurrent sends of one x402 PAYMENT-SIGNATURE: exactly one 200 and exactly 1 USDC moved', async () => {
    const payload = await x402Payload();
    const before = await balances();
    const results = await Promise.all(Array.from({ length: 5 }, () => send(READINESS, readinessBody(), { 'PAYMENT-SIGNATURE': payload })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402]);
    const after = await balances();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
  });

  it('five concurrent sends of one card credential: exactly one 200 and one PaymentIntent', async () => {
    const credential = await cardCredential();
    const count = succeededIntents().length;
    const results = await Promise.all(Array.from({ length: 5 }, () => send(READINESS, readinessBody(), { authorization: credential })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402]);
    expect(succeededIntents()).toHaveLength(count + 1);
  });
});

// ---------- idempotency ----------

describe('idempotency with payments', () => {
  it('same key + same body replays to the same payer without a second charge; without a credential it is the plain 402; another body is 409 for that payer and charges nothing', async () => {
    const key = `pay-idem-${Date.now()}`;
    const body = readinessBody('Idempotent workflow');
    const first = await send(READINESS, body, { 'idempotency-key': key, authorization: await evmCredential() });
    expect(first.status).toBe(200);
    const paid = (await first.json()) as Record<string, unknown>;
    expect(paid.idempotencyKey).toBe(key);
    const afterFirst = await balances();

    // A retry carrying a new, valid credential of the same payer: the stored result, and the credential is not charged.
    const proof = await evmCredential();
    const replay = await send(READINESS, body, { 'idempotency-key': key, authorization: proof });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('payment-receipt')).toBe(first.headers.get('payment-receipt'));
    expect(await replay.json()).toEqual(paid);
    expect(await balances()).toEqual(afterFirst);

    // A retry with no payment at all: the key belongs to the payer who paid, so this is the plain 402.
    const bare = await send(READINESS, body, { 'idempotency-key': key });
    const problem = await expectSafeProblem(bare, 402);
    expect(problem.type).toBe(`${PROBLEM_BASE}payment-required`);
    expect(bare.headers.get('idempotent-replayed')).toBeNull();
    expectFreshChallenge(bare);
    expect(JSON.stringify(problem)).not.toContain(String(paid.paymentIntent));

    // The same payer with another body: 409, and nothing charged.
    const conflict = await send(READINESS, readinessBody('Another workflow'), { 'idempotency-key': key, authorization: await evmCredential() });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as ProblemBody).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);
    expect(await balances()).toEqual(afterFirst);

    // The credential that proved the replay was claimed, never settled: it cannot be spent again.
    const later = await send(READINESS, body, { 'idempotency-key': `${key}-b`, authorization: proof });
    expect((await expectSafeProblem(later, 402)).reason).toBe('credential-used');
    expect(await balances()).toEqual(afterFirst);
  });

  it('a card replay under the same key creates no second PaymentIntent', async () => {
    const key = `pay-idem-card-${Date.now()}`;
    const count = rails.stripe.paymentIntents().length;
    const first = await send(READINESS, readinessBody('Card idempotency'), { 'idempotency-key': key, authorization: await cardCredential() });
    expect(first.status).toBe(200);
    const replay = await send(READINESS, readinessBody('Card idempotency'), { 'idempotency-key': key, authorization: await cardCredential() });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(rails.stripe.paymentIntents()).toHaveLength(count + 1);
  });
});

// ---------- faults ----------

describe('faults: no 500, no charge, a clear and safe problem', () => {
  it('facilitator down: the evm credential is answered 503 payments-unavailable and nothing moves; it pays once the facilitator is back', async () => {
    const credential = await evmCredential();
    const before = await balances();
    rails.faults.facilitator('down');
    const res = await send(READINESS, readinessBody(), { authorization: credential });
    const problem = await expectSafeProblem(res, 503);
    expect(problem).toMatchObject({ type: `${PROBLEM_BASE}payments-unavailable`, reason: 'processor-unavailable' });
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await balances()).toEqual(before);
    rails.faults.facilitator(null);
    const retry = await send(READINESS, readinessBody(), { authorization: credential });
    expect(retry.status).toBe(200);
    expect(before.payer - (await balances()).payer).toBe(ONE_USDC);
  });

  it('facilitator down: an x402 payload is answered 503 and nothing moves', async () => {
    const payload = await x402Payload();
    const before = await balances();
    rails.faults.facilitator('down');
    const res = await send(READINESS, readinessBody(), { 'PAYMENT-SIGNATURE': payload });
    expect((await expectSafeProblem(res, 503)).type).toBe(`${PROBLEM_BASE}payments-unavailable`);
    expect(await balances()).toEqual(before);
  });

  it('facilitator answering 500: 503 and nothing moves', async () => {
    const credential = await evmCredential();
    const before = await balances();
    rails.faults.facilitator('error500');
    const res = await send(READINESS, readinessBody(), { authorization: credential });
    await expectSafeProblem(res, 503);
    expect(await balances()).toEqual(before);
  });

  it('Stripe answering 500: 503 payments-unavailable and no PaymentIntent succeeds', async () => {
    const credential = await cardCredential();
    const count = succeededIntents().length;
    rails.faults.stripe('error500');
    const res = await send(READINESS, readinessBody(), { authorization: credential });
    const problem = await expectSafeProblem(res, 503);
    expect(problem).toMatchObject({ type: `${PROBLEM_BASE}payments-unavailable`, reason: 'processor-unavailable' });
    rails.faults.stripe(null);
    expect(succeededIntents()).toHaveLength(count);
  });

  it('a payer without USDC (the transfer would revert on chain): 402 insufficient-funds with a fresh challenge, nothing moves', async () => {
    const poor = generatePrivateKey();
    const poorAddress = privateKeyToAccount(poor).address;
    for (const [name, headers] of [
      ['MPP evm', { authorization: await evmCredential(poor) }],
      ['x402', { 'PAYMENT-SIGNATURE': await x402Payload(poor) }],
    ] as const) {
      const before = await balances(poorAddress);
      const res = await send(READINESS, readinessBody(), headers);
      const problem = await expectSafeProblem(res, 402);
      expect(problem.type, name).toBe(`${PROBLEM_BASE}payment-failed`);
      expect(problem.reason, name).toBe('insufficient-funds');
      expectFreshChallenge(res);
      expect(await balances(poorAddress)).toEqual(before);
    }
  });

  it('an authorization already executed on chain (its transfer would revert): 402, no second transfer', async () => {
    const credential = await evmCredential();
    const { payload } = Credential.deserialize(credential) as unknown as {
      payload: { from: Hex; to: Hex; value: string; validAfter: string; validBefore: string; nonce: Hex; signature: Hex };
    };
    // Anyone holding the signed authorization can submit it; here the payer's own wallet does, first.
    const wallet = createWalletClient({ account: privateKeyToAccount(rails.payer.privateKey), chain: rails.chain, transport: http(rails.rpcUrl) });
    const hash = await wallet.writeContract({
      address: rails.usdcAddress,
      abi: rails.usdcAbi,
      functionName: 'transferWithAuthorization',
      args: [payload.from, payload.to, BigInt(payload.value), BigInt(payload.validAfter), BigInt(payload.validBefore), payload.nonce, payload.signature],
    });
    await createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const before = await balances();
    const res = await send(READINESS, readinessBody(), { authorization: credential });
    expect((await expectSafeProblem(res, 402)).type).toBe(`${PROBLEM_BASE}payment-failed`);
    expectFreshChallenge(res);
    expect(await balances()).toEqual(before);
  });

  it('two credentials racing for a payer holding exactly 1 USDC: one 200, one 402, exactly 1 USDC moved', async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await rails.mintUsdc(address, ONE_USDC);
    const [a, b] = [await evmCredential(key), await evmCredential(key)];
    const payToBefore = await rails.usdcBalance(rails.payTo);
    const results = await Promise.all([
      send(READINESS, readinessBody(), { authorization: a }),
      send(READINESS, readinessBody(), { authorization: b }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 402]);
    const refused = results.find((r) => r.status === 402)!;
    expect((await expectSafeProblem(refused, 402)).type).toBe(`${PROBLEM_BASE}payment-failed`);
    expect(await rails.usdcBalance(address)).toBe(0n);
    expect((await rails.usdcBalance(rails.payTo)) - payToBefore).toBe(ONE_USDC);
  });

  it('the service logged no internal error through all of this', () => {
    expect(server.output()).not.toMatch(/internal-error/);
  });
});

// ---------- prepaid key, exhausted ----------

describe('a prepaid key with no calls left', () => {
  it('gets 402 credits-exhausted carrying the payment challenge, and nothing is spent', async () => {
    const store = openSqliteStore(server.dataDir);
    let key: string;
    try {
      ({ key } = await createKey(store, TEST_SECRET, 'bundle-25', { calls: 1 }));
    } finally {
      await store.close();
    }
    const spend = await send(READINESS, readinessBody(), { authorization: `Bearer ${key}` });
    expect(spend.status).toBe(200);
    expect(((await spend.json()) as { creditsUsage: string }).creditsUsage).toMatch(/^cu_/);

    const res = await send(READINESS, readinessBody(), { authorization: `Bearer ${key}` });
    expect(res.status).toBe(402);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expectFreshChallenge(res);
    const problem = (await res.json()) as ProblemBody;
    expect(problem).toMatchObject({
      type: `${PROBLEM_BASE}credits-exhausted`,
      status: 402,
      plans: `${server.url}/api/agent/credits`,
      purchase: `${server.url}/pricing`,
    });
    const credits = (await (await fetch(url('/api/agent/credits'), { headers: { authorization: `Bearer ${key}` } })).json()) as { callsLeft: number };
    expect(credits.callsLeft).toBe(0);
  });
});
