// Since @x402/extensions 2.16 a client's echo of a 402's extensions is compared strictly (all but the fields an
// extension marks dynamic), so an extension `info` that differed between two 402s for one resource (an id, a date,
// a key order) would break payment for a client that paid the terms of one with the echo of the other. Two 402s
// for the same resource carry byte-identical `bazaar` and `payment-identifier` extensions: two unpaid requests,
// two rails built in one process, and rails built by a fresh load of the modules (what a restart does); REST and
// MCP forms each. A client echoing the first 402's extensions into a payment against the second's terms is paid.
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { x402 } from 'mppx';
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { paymentConfigOf } from '@/lib/payments/config';
import { USDC_EIP712, createPaymentRails } from '@/lib/payments/rails';
import { problem } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { connectClient } from '../mcp/support';
import { serveReadinessAndMcp, type ReadinessAndMcp } from './readiness-and-mcp';
import { expectOneUsdcMoved, usdcBalances, x402Payer } from '../support/usdc';

const TOOL = readinessCheck.toolName;
const DECLARED = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'org.x402/payment': {} } } };
/** The extensions whose `info` has no per-response field: a client's echo of them is compared whole. */
const STABLE = ['bazaar', 'payment-identifier'] as const;

let rails: Rails;
let site: ReadinessAndMcp;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  rails = await startRails();
  site = await serveReadinessAndMcp(rails);
  url = site.url;
}, 120_000);
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
});
afterAll(async () => {
  await site?.close();
  await rails?.stop();
});

const paymentConfig = () => paymentConfigOf({ ...rails.env, APP_URL: site.origin });

async function restTerms(): Promise<PaymentRequired> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(validReadinessBody()) });
  expect(res.status).toBe(402);
  return decodePaymentRequiredHeader(res.headers.get('payment-required')!);
}

async function mcpClient(): Promise<Client> {
  const c = await connectClient(new URL('/api/mcp', site.origin));
  clients.push(c);
  return c;
}

async function mcpTerms(c: Client): Promise<PaymentRequired> {
  const result = (await c.callTool({ name: TOOL, arguments: validReadinessBody(), _meta: DECLARED })) as CallToolResult;
  expect(result.isError).toBe(true);
  return (JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { 'x402/error': { data: PaymentRequired } })['x402/error'].data;
}

/**
 * The REST and MCP terms of the readiness check as a fresh load of the modules makes them (nothing kept from the
 * modules this file loaded): what the service offers after a restart, with the same configuration.
 */
async function termsAfterRestart(): Promise<{ rest: PaymentRequired; mcp: PaymentRequired }> {
  vi.resetModules();
  const [freshRails, freshConfig, freshEntry, freshMcp] = await Promise.all([
    import('@/lib/payments/rails'),
    import('@/lib/payments/config'),
    import('@/lib/checks/readiness/entry'),
    import('@/lib/transports/mcp/x402'),
  ]);
  expect(freshEntry.readinessCheck).not.toBe(readinessCheck);
  const fresh = freshRails.createPaymentRails(freshConfig.paymentConfigOf({ ...rails.env, APP_URL: site.origin }))!;
  const rest = (await fresh.challenge(readinessCheck.path, problem('payment-required', 'Pay.'))).x402!;
  return { rest, mcp: freshMcp.mcpPaymentRequired(freshEntry.readinessCheck, rest, 'Pay.')! };
}

/** The stable extensions of `a` and `b` are byte-identical JSON (and present). */
function expectSameStableExtensions(a: PaymentRequired, b: PaymentRequired): void {
  for (const name of STABLE) {
    expect(a.extensions?.[name]).toBeDefined();
    expect(JSON.stringify(a.extensions![name])).toBe(JSON.stringify(b.extensions![name]));
  }
}

async function payRest(signature: string): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': signature }, body: JSON.stringify(validReadinessBody()) });
}

describe('two 402s for one resource carry byte-identical bazaar and payment-identifier extensions', () => {
  it('REST: two unpaid requests, two rails built in one process, and rails built after a restart', async () => {
    const [first, second] = [await restTerms(), await restTerms()];
    expectSameStableExtensions(first, second);
    const built = await Promise.all(
      [createPaymentRails(paymentConfig())!, createPaymentRails(paymentConfig())!].map(async (r) => (await r.challenge(readinessCheck.path, problem('payment-required', 'Pay.'))).x402!),
    );
    for (const terms of built) expectSameStableExtensions(first, terms);
    expectSameStableExtensions(first, (await termsAfterRestart()).rest);
    // The bazaar form is REST's here: an HTTP input.
    expect((first.extensions!.bazaar as { info: { input: { type: string } } }).info.input.type).toBe('http');
  });

  it("MCP: two unpaid tool calls, and a restart's terms", async () => {
    const c = await mcpClient();
    const [first, second] = [await mcpTerms(c), await mcpTerms(await mcpClient())];
    expectSameStableExtensions(first, second);
    expectSameStableExtensions(first, (await termsAfterRestart()).mcp);
    expect((first.extensions!.bazaar as { info: { input: { type: string } } }).info.input.type).toBe('mcp');
  });
});

describe("a payment against the second 402's terms, echoing the first 402's extensions (from before a restart)", () => {
  it('@x402/core over REST: paid, 1 USDC moved', async () => {
    const first = (await termsAfterRestart()).rest;
    const second = await restTerms();
    const before = await usdcBalances(rails);
    const payment = await x402Payer(rails).createPaymentPayload({ ...second, extensions: first.extensions });
    expect(payment.extensions).toEqual(first.extensions);
    const res = await payRest(encodePaymentSignatureHeader(payment));
    expect(res.status).toBe(200);
    await expectOneUsdcMoved(rails, before);
  });

  it("mppx/client over REST (whose route-bound nonce covers the echoed extensions): paid, 1 USDC moved", async () => {
    const first = (await termsAfterRestart()).rest;
    const second = await restTerms();
    const client = Mppx.create({
      polyfill: false,
      methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_EIP712 })],
    });
    const offered = new Response(null, { status: 402, headers: { 'payment-required': encodePaymentRequiredHeader({ ...second, extensions: first.extensions }) } });
    const signature = await (await client.preparePayment(offered)).createCredential();
    const payment = x402.Header.decodePaymentSignature(signature) as PaymentPayload;
    expect(payment.extensions?.bazaar).toEqual(first.extensions!.bazaar);
    const before = await usdcBalances(rails);
    const res = await payRest(signature);
    expect(res.status).toBe(200);
    await expectOneUsdcMoved(rails, before);
  });

  it('@x402/core over MCP: paid, 1 USDC moved', async () => {
    const first = (await termsAfterRestart()).mcp;
    const c = await mcpClient();
    const second = await mcpTerms(c);
    const before = await usdcBalances(rails);
    const payment = await x402Payer(rails).createPaymentPayload({ ...second, extensions: first.extensions });
    const result = (await c.callTool({ name: TOOL, arguments: validReadinessBody(), _meta: { ...DECLARED, 'x402/payment': payment } })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result._meta?.['x402/payment-response'] as SettleResponse).success).toBe(true);
    await expectOneUsdcMoved(rails, before);
  });
});
