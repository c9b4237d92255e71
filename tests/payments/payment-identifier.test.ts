// x402's payment-identifier is the call's Idempotency-Key, scoped to the verified payer. Paid by a real x402
// client (@x402/fetch, the id put in by appendPaymentIdentifierToExtensions) through the readiness route
// in-process, on the local chain and facilitator: a resent payment with the same id, body and payer gets the
// stored answer and nothing more is settled; the same id with another body is 409; a stranger who copies the id
// (paying with a signature of its own) gets its own call, never the first payer's answer; an id that differs from
// the Idempotency-Key is 400. A client that resends the very same PAYMENT-SIGNATURE after losing the answer gets
// the stored answer, settled once; the same bytes with another body are 409; a copy that is not those exact bytes
// (the payer's authorization with another signature, or with anything else changed) is refused as used. The
// facilitator is reached through a proxy that can word its refusals as a facilitator without diagnostics does: the
// resend must not depend on that wording.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import type { Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { chainLedger, decodeBase64Json } from './harness';
import { validReadinessBody, type TestRuntime } from '../support/runtime';
import { serveWebHandler, type WebServer } from '../support/web-server';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime } from '../support/rails-runtime';

const { POST: readinessPOST } = agentCheckRoute('readiness');
const APP_URL = 'http://localhost:3000';
const ONE_USDC = 1_000_000n;

/** What a facilitator without diagnostics answers for an authorization whose nonce was already used. */
const GENERIC_REFUSAL = 'invalid_exact_evm_transaction_simulation_failed';

let rails: Rails;
let rt: TestRuntime;
let facilitator: WebServer;
/** `generic`: every refused /verify is worded GENERIC_REFUSAL; `verifies`: the /verify requests it passed on. */
const proxy = { generic: false, verifies: 0 };

beforeAll(async () => {
  rails = await startRails();
  const upstream = rails.env.X402_FACILITATOR_URL!;
  facilitator = await serveWebHandler(async (request) => {
    const { pathname } = new URL(request.url);
    const answer = await fetch(`${upstream}${pathname}`, {
      method: request.method,
      headers: { 'content-type': 'application/json' },
      body: request.method === 'POST' ? await request.text() : undefined,
    });
    let verdict = (await answer.json()) as { isValid?: boolean; payer?: string };
    if (pathname === '/verify') {
      proxy.verifies += 1;
      if (proxy.generic && verdict.isValid === false) verdict = { isValid: false, invalidReason: GENERIC_REFUSAL, payer: verdict.payer } as typeof verdict;
    }
    return Response.json(verdict, { status: answer.status });
  });
  rt = installRailsRuntime(rails, { APP_URL, RATE_LIMIT_PER_IP: '100000', X402_FACILITATOR_URL: facilitator.url });
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  await facilitator?.close();
  await rails?.stop();
});

async function fundedPayer(): Promise<Hex> {
  const key = generatePrivateKey();
  await rails.mintUsdc(privateKeyToAccount(key).address, 10n * ONE_USDC);
  return key;
}

/** The readiness route in-process, as `fetch` for the x402 client. */
const routeFetch: typeof fetch = async (input, init) => readinessPOST(new Request(input, init));

/** A real x402 client paying as `privateKey` that puts `paymentId` in every payment it signs. */
function payingClient(privateKey: Hex, paymentId: string) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (paymentRequired.extensions) appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId);
  });
  const pay = wrapFetchWithPayment(routeFetch, client);
  return (body: unknown, headers: Record<string, string> = {}) =>
    pay(`${APP_URL}/api/agent/readiness`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.41', ...headers },
      body: JSON.stringify(body),
    });
}

/** One payment, signed once by `privateKey` with `paymentId` in it, for `paidBody`'s 402: its PAYMENT-SIGNATURE value. */
async function signedOnce(privateKey: Hex, paymentId: string, paidBody: unknown): Promise<string> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
  const unpaid = await send(paidBody, {});
  expect(unpaid.status).toBe(402);
  const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
  appendPaymentIdentifierToExtensions(required.extensions!, paymentId);
  return encodePaymentSignatureHeader(await client.createPaymentPayload(required));
}

/** The readiness route called with these exact headers, as a client resending a request does. */
function send(paidBody: unknown, headers: Record<string, string>): Promise<Response> {
  return routeFetch(`${APP_URL}/api/agent/readiness`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.42', ...headers },
    body: JSON.stringify(paidBody),
  });
}

const body = (name: string) => validReadinessBody({ workflow: { name, intendedUsers: 'agents', targetEnvironment: 'production' } });

describe('payment-identifier, paid by @x402/fetch', () => {
  it('the same id, body and payer: the stored answer (Idempotent-Replayed) and no second settlement; another body: 409, nothing settled', async () => {
    const alice = await fundedPayer();
    const aliceAddress = privateKeyToAccount(alice).address;
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const pay = payingClient(alice, paymentId);
    const paidBody = body('Alice retries');

    const before = await chainLedger(rails);
    const aliceBefore = await rails.usdcBalance(aliceAddress);
    const first = await pay(paidBody);
    expect(first.status).toBe(200);
    expect(decodeBase64Json<{ success: boolean; payer: string }>(first.headers.get('payment-response'))).toMatchObject({ success: true, payer: aliceAddress });
    const paid = (await first.json()) as { idempotencyKey: string; paymentIntent: string; assessment: unknown };
    expect(paid.idempotencyKey).toBe(paymentId);
    expect(paid.paymentIntent).toMatch(/^0x[0-9a-f]{64}$/);
    const afterFirst = await chainLedger(rails);
    expect(afterFirst.facilitatorTxs - before.facilitatorTxs).toBe(1);
    expect(aliceBefore - (await rails.usdcBalance(aliceAddress))).toBe(ONE_USDC);

    // The resend: a new payment from the same payer with the same id and body gets the stored answer, unsettled.
    const again = await pay(paidBody);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(paid);
    expect((await chainLedger(rails)).facilitatorTxs).toBe(afterFirst.facilitatorTxs);
    expect(aliceBefore - (await rails.usdcBalance(aliceAddress))).toBe(ONE_USDC);

    // The same id with another body: 409, and nothing settled.
    const conflict = await pay(body('Another body'));
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);
    expect((await chainLedger(rails)).facilitatorTxs).toBe(afterFirst.facilitatorTxs);
    expect(aliceBefore - (await rails.usdcBalance(aliceAddress))).toBe(ONE_USDC);
  });

  it("a stranger who copies the id, paying with its own signature, is charged for its own call and never gets the first payer's answer", async () => {
    const alice = await fundedPayer();
    const mallory = await fundedPayer();
    const malloryAddress = privateKeyToAccount(mallory).address;
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const paidBody = body('Alice private workflow');

    const first = await payingClient(alice, paymentId)(paidBody);
    expect(first.status).toBe(200);
    const alicePaid = (await first.json()) as { paymentIntent: string };

    const before = await chainLedger(rails);
    const malloryBefore = await rails.usdcBalance(malloryAddress);
    const copied = await payingClient(mallory, paymentId)(paidBody);
    expect(copied.status).toBe(200);
    expect(copied.headers.get('idempotent-replayed')).toBeNull();
    const own = (await copied.json()) as { paymentIntent: string };
    expect(own.paymentIntent).toMatch(/^0x[0-9a-f]{64}$/);
    expect(own.paymentIntent).not.toBe(alicePaid.paymentIntent);
    expect((await chainLedger(rails)).facilitatorTxs - before.facilitatorTxs).toBe(1);
    expect(malloryBefore - (await rails.usdcBalance(malloryAddress))).toBe(ONE_USDC);
  });

  it('an Idempotency-Key that differs from the payment-identifier: 400, nothing settled; the same value in both pays once', async () => {
    const payer = await fundedPayer();
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const pay = payingClient(payer, paymentId);
    const before = await chainLedger(rails);

    const differs = await pay(body('Two keys'), { 'idempotency-key': 'another-key-0001' });
    expect(differs.status).toBe(400);
    const problem = (await differs.json()) as { type: string; errors: { path: string }[] };
    expect(problem.type).toBe(`${PROBLEM_BASE}invalid-idempotency-key`);
    expect(problem.errors[0]!.path).toBe('header:Idempotency-Key');
    expect((await chainLedger(rails)).facilitatorTxs).toBe(before.facilitatorTxs);

    const same = await pay(body('Two keys'), { 'idempotency-key': paymentId });
    expect(same.status).toBe(200);
    expect(((await same.json()) as { idempotencyKey: string }).idempotencyKey).toBe(paymentId);
    expect((await chainLedger(rails)).facilitatorTxs - before.facilitatorTxs).toBe(1);
  });

  it('the exact same PAYMENT-SIGNATURE resent: the stored answer (Idempotent-Replayed), settled once and 1 USDC moved; the same bytes with another body: 409', async () => {
    const alice = await fundedPayer();
    const aliceAddress = privateKeyToAccount(alice).address;
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const paidBody = body('Alice lost the answer');
    const signature = await signedOnce(alice, paymentId, paidBody);

    const before = await chainLedger(rails);
    const aliceBefore = await rails.usdcBalance(aliceAddress);
    const first = await send(paidBody, { 'payment-signature': signature });
    expect(first.status).toBe(200);
    const paid = (await first.json()) as { idempotencyKey: string; paymentIntent: string };
    expect(paid.idempotencyKey).toBe(paymentId);
    const settlement = first.headers.get('payment-response');
    expect(decodeBase64Json<{ success: boolean; transaction: string }>(settlement)).toMatchObject({ success: true, transaction: paid.paymentIntent });

    // The same bytes again (the legacy X-PAYMENT header carries the same payment): the stored answer, nothing settled.
    for (const header of ['payment-signature', 'x-payment']) {
      const again = await send(paidBody, { [header]: signature });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('payment-response')).toBe(settlement);
      expect(await again.json()).toEqual(paid);
    }
    const conflict = await send(body('Another body'), { 'payment-signature': signature });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);

    expect((await chainLedger(rails)).facilitatorTxs - before.facilitatorTxs).toBe(1);
    expect(aliceBefore - (await rails.usdcBalance(aliceAddress))).toBe(ONE_USDC);
  });

  it('a facilitator that words a used authorization as a generic failure: the exact same PAYMENT-SIGNATURE resent still gets the stored answer, the facilitator never asked, no second USDC moved', async () => {
    const alice = await fundedPayer();
    const aliceAddress = privateKeyToAccount(alice).address;
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const paidBody = body('Alice behind a terse facilitator');
    const signature = await signedOnce(alice, paymentId, paidBody);
    const before = await chainLedger(rails);
    const aliceBefore = await rails.usdcBalance(aliceAddress);
    const first = await send(paidBody, { 'payment-signature': signature });
    expect(first.status).toBe(200);
    const paid = await first.text();

    proxy.generic = true;
    try {
      // What the service would hear of this used authorization: no "nonce", no "used".
      const payment = decodePaymentSignatureHeader(signature);
      const asked = await fetch(`${facilitator.url}/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ x402Version: 2, paymentPayload: payment, paymentRequirements: payment.accepted }),
      });
      expect(await asked.json()).toEqual({ isValid: false, invalidReason: GENERIC_REFUSAL, payer: aliceAddress });

      const verifies = proxy.verifies;
      const again = await send(paidBody, { 'payment-signature': signature });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(await again.text()).toBe(paid);
      expect(proxy.verifies).toBe(verifies);
    } finally {
      proxy.generic = false;
    }
    expect((await chainLedger(rails)).facilitatorTxs - before.facilitatorTxs).toBe(1);
    expect(aliceBefore - (await rails.usdcBalance(aliceAddress))).toBe(ONE_USDC);
  });

  it("a copy of the payer's payment that is not its exact bytes (another signature, or anything else changed) is refused: never the stored answer, nothing settled", async () => {
    const alice = await fundedPayer();
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    const paidBody = body('Alice private answer');
    const signature = await signedOnce(alice, paymentId, paidBody);
    const first = await send(paidBody, { 'payment-signature': signature });
    expect(first.status).toBe(200);
    const alicePaid = await first.text();

    const payment = decodePaymentSignatureHeader(signature);
    const authorization = payment.payload as { signature: string; authorization: Record<string, string> };
    const forged = authorization.signature.slice(0, -2) + (authorization.signature.endsWith('00') ? '01' : '00');
    // The forged signature is refused as invalid or as used, whichever check the rails reach first; the copy whose
    // signature still verifies reaches the used payment's record and is refused there, since it is not what the
    // payer sent.
    const copies = {
      'another signature': { payment: { ...payment, payload: { ...authorization, signature: forged } }, reasons: ['invalid-signature', 'credential-used'] },
      'the resource changed': { payment: { ...payment, resource: { ...payment.resource!, description: 'copied' } }, reasons: ['credential-used'] },
    };
    const before = await chainLedger(rails);
    for (const [name, { payment: copy, reasons }] of Object.entries(copies)) {
      const res = await send(paidBody, { 'payment-signature': encodePaymentSignatureHeader(copy) });
      const text = await res.text();
      expect({ name, status: res.status, replayed: res.headers.get('idempotent-replayed') }).toEqual({ name, status: 402, replayed: null });
      const refusal = JSON.parse(text) as { type: string; reason: string };
      expect(refusal.type).toBe(`${PROBLEM_BASE}payment-failed`);
      expect(reasons).toContain(refusal.reason);
      expect(text).not.toContain(alicePaid.slice(1, -1));
    }
    expect((await chainLedger(rails)).facilitatorTxs).toBe(before.facilitatorTxs);
  });
});
