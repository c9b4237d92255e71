// A payment is bound to the operation whose 402 offered it. The readiness and visibility routes and the MCP
// endpoint served in-process on one runtime over the local rails (anvil chain 8453, the x402 facilitator, the
// Stripe stand-in), the checked site a fixture reached through CHECK_HOST_MAP: a credential made for the
// readiness 402 is refused at the visibility route and tool (402 / -32043, reason operation-mismatch) before
// anything is claimed or settled, and still pays for readiness; an x402 payment whose resource was removed pays
// for nothing. The prices are equal today, so nothing else would tell the two apart.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Credential } from 'mppx';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type Stripe from 'stripe';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as mcpPOST } from '@/app/api/mcp/route';
import { CREDENTIAL_META_KEY, PAYMENT_VERIFICATION_FAILED_CODE } from '@/lib/transports/mcp/payment';
import { PROBLEM_BASE } from '@/lib/problems';
import { USDC_EIP712 } from '@/lib/payments/rails';
import type { Rails } from '../../scripts/rails/start';
import { chainLedger } from './harness';
import { validReadinessBody } from '../support/runtime';
import type { WebServer } from '../support/web-server';
import type { FixtureSite } from '../visibility/fixture-site';
import { sptFromTestHelper } from '../support/card';
import { agentCheckRoute } from '../support/check-routes';
import { startPaidSite, type PaidSite } from '../support/rails-runtime';
import { callError, connectClient } from '../mcp/support';

const READINESS = '/api/agent/readiness';
const VISIBILITY = '/api/agent/ai-visibility';
const routes: Record<string, (request: Request) => Promise<Response>> = {
  [READINESS]: agentCheckRoute('readiness').POST,
  [VISIBILITY]: agentCheckRoute('ai-visibility').POST,
  '/api/mcp': mcpPOST,
};
const PAGE = `<!doctype html><html lang="en"><head><title>Widgets</title></head><body><h1>Widgets</h1><p>${'word '.repeat(300)}</p></body></html>`;
const ONE_USDC = 1_000_000n;

let rails: Rails;
let site: FixtureSite;
let server: WebServer;
let sdk: Stripe;
let paid: PaidSite;

beforeAll(async () => {
  paid = await startPaidSite({
    routes: {
      '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    },
    hosts: ['site.test'],
    handle: (request: Request) => routes[new URL(request.url).pathname]?.(request) ?? new Response('not found', { status: 404 }),
    env: { RATE_LIMIT_PER_IP: '100000' },
  });
  ({ rails, site, server, sdk } = paid);
}, 120_000);

afterAll(() => paid?.close());

const readinessBody = validReadinessBody();
const visibilityBody = { url: 'https://site.test/' };

function send(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

async function readiness402(): Promise<Response> {
  const res = await send(READINESS, readinessBody);
  expect(res.status).toBe(402);
  return res;
}

/** An x402 payment for the readiness 402, signed by the rails' payer, as @x402/core's client makes it. */
async function readinessX402Payment(): Promise<PaymentPayload> {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
  return client.createPaymentPayload(decodePaymentRequiredHeader((await readiness402()).headers.get('payment-required')!));
}

const withoutResource = ({ resource: _resource, ...payment }: PaymentPayload) => payment as PaymentPayload;

/** What must not change while a credential is refused: USDC on chain, the facilitator's transactions, PaymentIntents, the site's requests. */
async function untouched() {
  return { ledger: await chainLedger(rails), paymentIntents: rails.stripe.paymentIntents().length, siteRequests: site.requests.length };
}

async function expectOperationMismatch(res: Response): Promise<void> {
  expect(res.status).toBe(402);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await res.json()) as { type: string; reason: string; detail: string };
  expect(problem).toEqual({
    type: `${PROBLEM_BASE}payment-failed`,
    title: 'The payment credential was not accepted',
    status: 402,
    reason: 'operation-mismatch',
    detail:
      'This payment was offered for another operation, or does not say which: a credential pays only for the route or tool whose 402 issued it (x402: its resource.url). Nothing was charged. Pay the new challenge in this response.',
  });
  // The fresh terms are the visibility route's own.
  expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).resource.url).toBe(`${server.url}${VISIBILITY}`);
}

describe('x402: the payment resource names the operation', () => {
  it('a payment for the readiness 402 is refused at the visibility route, with its resource or without it; then it pays for readiness, exactly 1 USDC', async () => {
    const payment = await readinessX402Payment();
    const before = await untouched();
    for (const sent of [withoutResource(payment), payment]) {
      await expectOperationMismatch(await send(VISIBILITY, visibilityBody, { 'payment-signature': encodePaymentSignatureHeader(sent) }));
    }
    expect(await untouched()).toEqual(before);

    // Refused before anything was claimed: the payment still pays for the operation it was made for.
    const paid = await send(READINESS, readinessBody, { 'payment-signature': encodePaymentSignatureHeader(payment) });
    expect(paid.status).toBe(200);
    const after = await chainLedger(rails);
    expect(before.ledger.payer - after.payer).toBe(ONE_USDC);
    expect(after.facilitatorTxs - before.ledger.facilitatorTxs).toBe(1);
  });

  it('a payment whose resource was removed pays for nothing, not even the readiness route it was made for', async () => {
    const stripped = encodePaymentSignatureHeader(withoutResource(await readinessX402Payment()));
    const before = await untouched();
    const res = await send(READINESS, readinessBody, { 'payment-signature': stripped });
    expect(res.status).toBe(402);
    expect(((await res.json()) as { reason: string }).reason).toBe('operation-mismatch');
    expect(decodePaymentRequiredHeader(res.headers.get('payment-required')!).resource.url).toBe(`${server.url}${READINESS}`);
    expect(await untouched()).toEqual(before);
  });
});

describe('MPP: the challenge names the operation (HMAC-bound)', () => {
  const evmClient = () => Mppx.create({ polyfill: false, methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_EIP712 })] });
  const cardClient = () => Mppx.create({ polyfill: false, methods: [stripeMethods.charge({ paymentMethod: 'pm_card_visa', createToken: sptFromTestHelper(sdk) })] });

  it.each([
    ['evm', evmClient],
    ['card', cardClient],
  ])('a %s credential for the readiness 402 is refused at the visibility route; then it pays for readiness', async (_name, client) => {
    const credential = await client().createCredential(await readiness402());
    const before = await untouched();
    await expectOperationMismatch(await send(VISIBILITY, visibilityBody, { authorization: credential }));
    expect(await untouched()).toEqual(before);

    const paid = await send(READINESS, readinessBody, { authorization: credential });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('payment-receipt')).not.toBeNull();
  });

  it('an evm credential for the readiness tool is refused by the visibility tool (-32043, operation-mismatch), nothing settled; the readiness tool takes it', async () => {
    const mcp = await connectClient(new URL('/api/mcp', server.url));
    try {
      const unpaid = await callError(mcp, { name: 'agent_payment_readiness_assessment', arguments: readinessBody });
      const offered = (unpaid.data as { challenges: Parameters<ReturnType<typeof evm.charge>['createCredential']>[0]['challenge'][] }).challenges.find((c) => c.method === 'evm')!;
      const method = evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_EIP712 });
      const credential = Credential.deserialize(await method.createCredential({ challenge: offered, context: undefined as never }));
      const before = await untouched();

      const refused = await callError(mcp, { name: 'ai_visibility_check', arguments: visibilityBody, _meta: { [CREDENTIAL_META_KEY]: credential } });
      expect(refused.code).toBe(PAYMENT_VERIFICATION_FAILED_CODE);
      expect((refused.data as { problem: { type: string; reason: string } }).problem).toMatchObject({ type: `${PROBLEM_BASE}payment-failed`, reason: 'operation-mismatch' });
      expect(await untouched()).toEqual(before);

      const paid = (await mcp.callTool({ name: 'agent_payment_readiness_assessment', arguments: readinessBody, _meta: { [CREDENTIAL_META_KEY]: credential } })) as CallToolResult;
      expect(paid.isError).toBeUndefined();
      expect((paid._meta?.['org.paymentauth/receipt'] as { method: string }).method).toBe('evm');
      expect(before.ledger.payer - (await chainLedger(rails)).payer).toBe(ONE_USDC);
    } finally {
      await mcp.close();
    }
  });
});
