// x402's MCP binding on POST /api/mcp, paid by an x402 MCP client built here from x402's MCP transport spec
// (the MCP SDK client for the protocol, @x402/core's client with @x402/evm's exact scheme for the payment), on
// the local rails: anvil (chain 8453) with USDC and the real x402 facilitator. MPP's binding is
// tests/mcp/mcp.test.ts; an unpaid call that declares nothing stays MPP's -32042.
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec } from '@x402/extensions/bazaar';
import { appendPaymentIdentifierToExtensions } from '@x402/extensions/payment-identifier';
import { Credential } from 'mppx';
import { evm as evmClient } from 'mppx/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { reportMarkdown } from '@/lib/reports/markdown';
import { jsonSchema } from '@/lib/transports/mcp/schema';
import { PROBLEM_BASE } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, decodeBase64Json } from '../payments/harness';
import { post, validReadinessBody } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { callError, connectClient, startMcpServer, type McpTestServer } from './support';
import { expectOneUsdcMoved, usdcBalances, x402Payer } from '../support/usdc';

const TOOL = 'agent_payment_readiness_assessment';
const PAYMENT = 'x402/payment';
const PAYMENT_RESPONSE = 'x402/payment-response';
/** What an x402 MCP client sends on every call: MCP's per-request client capabilities, declaring x402's extension. */
const DECLARED = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'org.x402/payment': {} } } };

const { POST: restReadiness } = agentCheckRoute('readiness');

let rails: Rails;
let srv: McpTestServer;
const clients: Client[] = [];

beforeAll(async () => {
  rails = await startRails();
});
afterAll(async () => {
  await rails?.stop();
});
beforeEach(async () => {
  srv = await startMcpServer(rails);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  await srv.close();
});

async function client(): Promise<Client> {
  const c = await connectClient(srv.endpoint);
  clients.push(c);
  return c;
}

/** `result` is the stored answer of `first` again, replayed with the settlement `first` was paid by. */
function expectStoredAnswer(result: CallToolResult, first: CallToolResult, settled: SettleResponse): void {
  expect(result.isError).toBeFalsy();
  expect(result._meta).toMatchObject({ idempotentReplayed: true, [PAYMENT_RESPONSE]: settled });
  expect(result.structuredContent).toEqual(first.structuredContent);
}

const textOf = (result: CallToolResult) => (result.content as Array<{ type: string; text: string }>)[0]!;

/**
 * The PaymentRequired of an x402 payment-required result, read as the spec tells a client to: from the
 * `x402/error` wrapper in content[0].text (not repeated as structuredContent, which the tool's outputSchema
 * would refuse in the SDK client).
 */
function paymentRequiredOf(result: CallToolResult): PaymentRequired {
  expect(result.isError).toBe(true);
  expect(result.structuredContent).toBeUndefined();
  const wrapped = JSON.parse(textOf(result).text) as { 'x402/error': { code: number; message: string; data: PaymentRequired } };
  expect(Object.keys(wrapped)).toEqual(['x402/error']);
  expect(wrapped['x402/error'].code).toBe(402);
  expect(wrapped['x402/error'].message).toBe(wrapped['x402/error'].data.error);
  return wrapped['x402/error'].data;
}

/** An unpaid, declared call: the x402 terms. */
async function termsFor(c: Client, args: Record<string, unknown>): Promise<PaymentRequired> {
  return paymentRequiredOf((await c.callTool({ name: TOOL, arguments: args, _meta: DECLARED })) as CallToolResult);
}

async function paid(c: Client, args: Record<string, unknown>, payment: PaymentPayload, meta: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name: TOOL, arguments: args, _meta: { ...DECLARED, ...meta, [PAYMENT]: payment } })) as CallToolResult;
}

describe('an x402 MCP client', () => {
  it('lists the tools, gets the terms as an isError result, pays 1 USDC in _meta["x402/payment"] and gets the answer with _meta["x402/payment-response"]', async () => {
    const c = await client();
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['agent_payment_readiness_assessment', 'ai_visibility_check', 'agent_payment_endpoint_check', 'list_paid_services']);

    const args = validReadinessBody();
    const required = await termsFor(c, args);
    // The REST 402's terms and resource: the rails bind an x402 payment to the check's resource.
    const rest = await restReadiness(post(`${srv.url}/api/agent/readiness`, args));
    expect(rest.status).toBe(402);
    const restRequired = decodeBase64Json<PaymentRequired>(rest.headers.get('payment-required'));
    expect(required.x402Version).toBe(2);
    expect(required.resource).toEqual(restRequired.resource);
    expect(required.resource.url).toBe(`${srv.url}/api/agent/readiness`);
    expect(required.accepts).toEqual(restRequired.accepts);
    expect(required.accepts).toHaveLength(1);
    expect(required.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: rails.usdcAddress, payTo: rails.payTo });
    expect(required.error).toBe(`${readinessCheck.service} costs 1.00 USD. Pay with one of the offered challenges, or send a prepaid credits key as Authorization: Bearer.`);

    // The MCP form of the bazaar discovery extension, as @x402/extensions validates it.
    const bazaar = required.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
    expect(bazaar.info.input).toEqual({
      type: 'mcp',
      toolName: TOOL,
      description: readinessCheck.summary,
      transport: 'streamable-http',
      inputSchema: jsonSchema(readinessCheck.input, 'input'),
      example: readinessCheck.example,
    });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });
    expect(validateDiscoveryExtensionSpec(bazaar as unknown as Record<string, unknown>)).toEqual({ valid: true });

    const before = await usdcBalances(rails);
    const payment = await x402Payer(rails).createPaymentPayload(required);
    const result = await paid(c, args, payment);
    expect(result.isError).toBeFalsy();
    const settled = result._meta?.[PAYMENT_RESPONSE] as SettleResponse;
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const body = result.structuredContent as Record<string, unknown>;
    expect(body).toMatchObject({ service: readinessCheck.service, paymentIntent: settled.transaction });
    expect(readinessCheck.output.safeParse(body).success).toBe(true);
    // A wallet's call keeps its report for the paying address (read back with SIGN-IN-WITH-X) and has no key
    // to count: the text is the summary and the report's address, and no calls left.
    const reportUrl = result._meta?.reportUrl as string;
    expect(reportUrl).toMatch(/\/api\/reports\/rep_[A-Za-z0-9_-]+$/);
    expect(textOf(result).text).toBe(`${reportMarkdown('readiness', body).trimEnd()}\n\nReport: ${reportUrl}.`);
    expect(result._meta).not.toHaveProperty('creditsRemaining');
    await expectOneUsdcMoved(rails, before);
  });

  it('a resent payment settles once: the same payment again gets the stored answer, and the same idempotencyKey with a new payment replays unpaid', async () => {
    const c = await client();
    const args = validReadinessBody();
    const required = await termsFor(c, args);
    const payment = await x402Payer(rails).createPaymentPayload(required);
    const before = await usdcBalances(rails);
    const first = await paid(c, args, payment, { idempotencyKey: 'x402-mcp-000001' });
    expect(first.isError).toBeFalsy();
    const settled = first._meta?.[PAYMENT_RESPONSE] as SettleResponse;

    // The same payment resent (its answer lost): the stored answer, settled once.
    const resent = await paid(c, args, payment, { idempotencyKey: 'x402-mcp-000001' });
    expectStoredAnswer(resent, first, settled);

    // A new payment from the same payer under the same key: the stored answer, and the new payment is never settled.
    const second = await x402Payer(rails).createPaymentPayload(required);
    const replay = await paid(c, args, second, { idempotencyKey: 'x402-mcp-000001' });
    expectStoredAnswer(replay, first, settled);

    // The same payment without the key it was paid under: refused as used, with fresh terms.
    const unkeyed = await paid(c, args, payment);
    expect(paymentRequiredOf(unkeyed).accepts).toHaveLength(1);
    expect(unkeyed._meta?.problem).toMatchObject({ type: `${PROBLEM_BASE}payment-failed`, reason: 'credential-used' });
    expect((unkeyed._meta?.problem as { detail: string }).detail).not.toMatch(LEAK_PATTERN);

    await expectOneUsdcMoved(rails, before);
  });

  it('a payment with a payment-identifier in _meta["x402/payment"], resent as is: the stored answer, settled once; the same payment with other arguments: 409', async () => {
    const c = await client();
    const args = validReadinessBody();
    const required = await termsFor(c, args);
    const paymentId = `pay_${crypto.randomUUID().replaceAll('-', '')}`;
    appendPaymentIdentifierToExtensions(required.extensions!, paymentId);
    const payment = await x402Payer(rails).createPaymentPayload(required);
    const before = await usdcBalances(rails);
    const first = await paid(c, args, payment);
    expect(first.isError).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ idempotencyKey: paymentId });
    const settled = first._meta?.[PAYMENT_RESPONSE] as SettleResponse;

    const resent = await paid(c, args, payment);
    expectStoredAnswer(resent, first, settled);

    const conflict = await paid(c, validReadinessBody({ workflow: { name: 'Another workflow', intendedUsers: 'agents', targetEnvironment: 'production' } }), payment);
    expect(conflict.isError).toBe(true);
    expect(conflict._meta?.problem).toMatchObject({ type: `${PROBLEM_BASE}idempotency-conflict` });

    await expectOneUsdcMoved(rails, before);
  });

  it('five concurrent sends of one payment: exactly one answer and exactly 1 USDC moved', async () => {
    const c = await client();
    const args = validReadinessBody();
    const payment = await x402Payer(rails).createPaymentPayload(await termsFor(c, args));
    const before = await usdcBalances(rails);
    const results = await Promise.all(Array.from({ length: 5 }, () => paid(c, args, payment)));
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    for (const refused of results.filter((r) => r.isError)) expect(paymentRequiredOf(refused).accepts).toHaveLength(1);
    await expectOneUsdcMoved(rails, before);
  });

  it('an unreadable payment gets fresh terms (malformed-credential) and nothing moves', async () => {
    const before = await usdcBalances(rails);
    const result = (await (await client()).callTool({ name: TOOL, arguments: validReadinessBody(), _meta: { [PAYMENT]: 'not a payment' } })) as CallToolResult;
    expect(paymentRequiredOf(result).accepts).toHaveLength(1);
    expect(result._meta?.problem).toMatchObject({ reason: 'malformed-credential' });
    expect(await usdcBalances(rails)).toEqual(before);
  });
});

describe('a client that declares nothing', () => {
  it('is answered -32042 as before, and the error data carries the same x402 terms (with which it can pay)', async () => {
    const c = await client();
    const args = validReadinessBody();
    const error = await callError(c, { name: TOOL, arguments: args });
    expect(error.code).toBe(-32042);
    const data = error.data as { challenges: Array<{ method: string }>; x402: PaymentRequired };
    expect(data.challenges.map((ch) => ch.method).sort()).toEqual(['evm', 'stripe']);
    expect(data.x402).toEqual(await termsFor(c, args));

    const before = await usdcBalances(rails);
    const result = await paid(c, args, await x402Payer(rails).createPaymentPayload(data.x402));
    expect((result._meta?.[PAYMENT_RESPONSE] as SettleResponse).success).toBe(true);
    const after = await usdcBalances(rails);
    expect(before.payer - after.payer).toBe(1_000_000n);
  });

  it('an MPP credential and an x402 payment together are invalid params, and nothing moves', async () => {
    const c = await client();
    const args = validReadinessBody();
    const unpaid = await callError(c, { name: TOOL, arguments: args });
    const data = unpaid.data as { challenges: Array<{ method: string }>; x402: PaymentRequired };
    const method = evmClient.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } });
    const challenge = data.challenges.find((ch) => ch.method === 'evm') as Parameters<typeof method.createCredential>[0]['challenge'];
    const credential = Credential.deserialize(await method.createCredential({ challenge, context: undefined as never }));
    const payment = await x402Payer(rails).createPaymentPayload(data.x402);
    const before = await usdcBalances(rails);
    const error = await callError(c, { name: TOOL, arguments: args, _meta: { 'org.paymentauth/credential': credential, [PAYMENT]: payment } });
    expect(error.code).toBe(-32602);
    expect((error.data as { errors: Array<{ path: string }> }).errors).toEqual([{ path: '$._meta["x402/payment"]', message: 'not allowed beside $._meta["org.paymentauth/credential"]' }]);
    expect(await usdcBalances(rails)).toEqual(before);
  });
});
