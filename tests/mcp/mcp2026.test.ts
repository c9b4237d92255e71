// MCP 2026-07-28 on POST /api/mcp, with the official v2 SDK client (@modelcontextprotocol/client) pinned to that
// revision, paying on the local rails (anvil, chain 8453, with USDC; the real x402 facilitator) in each of the
// three bindings: MPP's (-32042, credential in _meta), x402's tool-result binding, and x402's extension binding
// (`org.x402/payment`: a `payment_required` result). The same paid-call pipeline answers as over 2025-11-25
// (tests/mcp/mcp.test.ts, tests/mcp/x402.test.ts): one settlement per payment, a resend gets the stored answer.
import { Client, ProtocolError, SdkError, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import { validateDiscoveryExtension } from '@x402/extensions/bazaar';
import { Credential, type Challenge } from 'mppx';
import { evm as evmClient } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checks } from '@/lib/checks/registry';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { jsonSchema } from '@/lib/transports/mcp/schema';
import { startRails, type Rails } from '../../scripts/rails/start';
import { decodeBase64Json } from '../payments/harness';
import { post, validReadinessBody } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import { startMcpServer, type McpTestServer } from './support';
import { expectOneUsdcMoved, usdcBalances, x402Payer } from '../support/usdc';

const MODERN = '2026-07-28';
const TOOL = 'agent_payment_readiness_assessment';
const CREDENTIAL = 'org.paymentauth/credential';
const RECEIPT = 'org.paymentauth/receipt';
const PAYMENT = 'x402/payment';
const PAYMENT_RESPONSE = 'x402/payment-response';
const X402_EXTENSION = 'org.x402/payment';

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

/** A v2 SDK client and every JSON-RPC response body it received, as sent (the SDK lifts `resultType` off results). */
interface ModernClient {
  client: Client;
  /** The `result` of the last response, as it was on the wire. */
  lastResult(): Record<string, unknown>;
}

async function modernClient(options: { x402Extension?: boolean; headers?: Record<string, string>; negotiation?: 'pin' | 'auto' } = {}): Promise<ModernClient> {
  const wire: Array<{ result?: Record<string, unknown> }> = [];
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (res.headers.get('content-type')?.startsWith('application/json')) wire.push((await res.clone().json()) as (typeof wire)[number]);
    return res;
  };
  const client = new Client(
    { name: 'paid-agent-checks-tests', version: '1.0.0' },
    {
      versionNegotiation: { mode: options.negotiation === 'auto' ? 'auto' : { pin: MODERN } },
      capabilities: options.x402Extension ? { extensions: { [X402_EXTENSION]: {} } } : {},
    },
  );
  await client.connect(new StreamableHTTPClientTransport(srv.endpoint, { fetch: recording, requestInit: { headers: options.headers ?? {} } }));
  clients.push(client);
  return {
    client,
    lastResult: () => {
      const result = wire.at(-1)?.result;
      if (!result) throw new Error(`the last response had no result: ${JSON.stringify(wire.at(-1)).slice(0, 300)}`);
      return result;
    },
  };
}

function evmMethod() {
  return evmClient.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } });
}

interface PaymentData {
  challenges: Challenge.Challenge[];
  x402: PaymentRequired;
  problem: { type: string; reason?: string };
}

/** Calls a tool that must fail with a JSON-RPC error, and returns that error. */
async function callError(c: Client, params: Parameters<Client['callTool']>[0]): Promise<ProtocolError> {
  const error: unknown = await c.callTool(params).then(
    (result) => new Error(`expected a JSON-RPC error, got ${JSON.stringify(result).slice(0, 300)}`),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  return error as ProtocolError;
}

/** The REST 402's x402 terms for the same body. */
async function restTerms(args: Record<string, unknown>): Promise<PaymentRequired> {
  const rest = await restReadiness(post(`${srv.url}/api/agent/readiness`, args));
  expect(rest.status).toBe(402);
  return decodeBase64Json<PaymentRequired>(rest.headers.get('payment-required'));
}

/** A paid answer: complete on the wire, the readiness body in structuredContent. */
function expectCompleteAnswer(m: ModernClient, result: CallToolResult): Record<string, unknown> {
  expect(result.isError).toBeFalsy();
  expect(m.lastResult().resultType).toBe('complete');
  const body = result.structuredContent as Record<string, unknown>;
  expect(readinessCheck.output.safeParse(body).success).toBe(true);
  return body;
}

describe('connecting on 2026-07-28', () => {
  it('server/discover lists the version, the tools capability and the org.x402/payment extension, with cache fields', async () => {
    const { client } = await modernClient();
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const discovered = client.getDiscoverResult()!;
    expect(discovered.supportedVersions).toEqual([MODERN]);
    expect(discovered.capabilities).toEqual({ tools: { listChanged: false }, extensions: { [X402_EXTENSION]: {} } });
    expect(discovered).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    expect(discovered.instructions).toMatch(/payment_required/);
    // A client negotiating (not pinned) picks 2026-07-28 too.
    expect((await modernClient({ negotiation: 'auto' })).client.getNegotiatedProtocolVersion()).toBe(MODERN);
  });

  it('tools/list: the paid tools and list_paid_services, schemas from the registry, a complete result', async () => {
    const m = await modernClient();
    const { tools } = await m.client.listTools();
    expect(m.lastResult()).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect(tools.map((t) => t.name)).toEqual([...checks().map((c) => c.toolName), 'list_paid_services']);
    for (const op of checks()) {
      const tool = tools.find((t) => t.name === op.toolName)!;
      expect(tool.inputSchema).toEqual(jsonSchema(op.input, 'input'));
      expect(tool.outputSchema).toEqual(jsonSchema(op.output, 'output'));
    }
  });

  it('the same v2 client without negotiation speaks 2025-11-25 to the same path', async () => {
    const client = new Client({ name: 'paid-agent-checks-tests', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(srv.endpoint));
    clients.push(client);
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(TOOL);
  });
});

describe('MPP on 2026-07-28', () => {
  it('an unpaid call is -32042 with the card and evm challenges, and the x402 terms in data.x402', async () => {
    const { client } = await modernClient();
    const args = validReadinessBody();
    const error = await callError(client, { name: TOOL, arguments: args });
    expect(error.code).toBe(-32042);
    const data = error.data as PaymentData;
    expect(data.challenges.map((ch) => ch.method).sort()).toEqual(['evm', 'stripe']);
    expect(data.x402.accepts).toEqual((await restTerms(args)).accepts);
  });

  it("mppx's McpClient pays with an evm credential over the v2 client: 1 USDC, the receipt in _meta, a complete result", async () => {
    const m = await modernClient();
    McpClient.wrap(m.client as never, { methods: [evmMethod()] });
    const before = await usdcBalances(rails);
    const result = await m.client.callTool({ name: TOOL, arguments: validReadinessBody() });
    const body = expectCompleteAnswer(m, result);
    const receipt = result._meta?.[RECEIPT] as Record<string, string>;
    expect(receipt).toMatchObject({ method: 'evm', status: 'success', challengeId: expect.any(String) });
    expect(body.paymentIntent).toBe(receipt.reference);
    await expectOneUsdcMoved(rails, before);
  });

  it('a call resent under the same idempotencyKey gets the stored answer without a second charge; the same credential again is refused as used', async () => {
    const m = await modernClient();
    const args = validReadinessBody();
    const credentialFor = async () => {
      const unpaid = await callError(m.client, { name: TOOL, arguments: args });
      const method = evmMethod();
      const challenge = (unpaid.data as PaymentData).challenges.find((ch) => ch.method === 'evm') as Parameters<typeof method.createCredential>[0]['challenge'];
      return Credential.deserialize(await method.createCredential({ challenge, context: undefined as never }));
    };
    const credential = await credentialFor();
    const before = await usdcBalances(rails);
    const first = await m.client.callTool({ name: TOOL, arguments: args, _meta: { [CREDENTIAL]: credential, idempotencyKey: 'mcp2026-mpp-0001' } });
    const body = expectCompleteAnswer(m, first);
    expect((first._meta?.[RECEIPT] as { method: string }).method).toBe('evm');

    // The answer lost, the call resent with a new credential under the same key: the stored answer, the new credential never settled.
    const resent = await m.client.callTool({ name: TOOL, arguments: args, _meta: { [CREDENTIAL]: await credentialFor(), idempotencyKey: 'mcp2026-mpp-0001' } });
    expectCompleteAnswer(m, resent);
    expect(resent._meta).toMatchObject({ idempotentReplayed: true });
    expect(resent.structuredContent).toEqual(body);

    // An MPP credential is single-use: sent again, it is refused with a fresh challenge, as over 2025-11-25.
    const reused = await callError(m.client, { name: TOOL, arguments: args, _meta: { [CREDENTIAL]: credential, idempotencyKey: 'mcp2026-mpp-0001' } });
    expect(reused.code).toBe(-32043);
    expect((reused.data as PaymentData).problem).toMatchObject({ reason: 'credential-used' });
    await expectOneUsdcMoved(rails, before);
  });

  it('a credits key as Authorization: Bearer pays, and _meta.creditsRemaining says what is left', async () => {
    const { key, keyHash } = await createKey(srv.runtime.store, srv.runtime.config.CREDITS_KEY_SECRET, 'bundle-25');
    const m = await modernClient({ headers: { authorization: `Bearer ${key}` } });
    const result = await m.client.callTool({ name: TOOL, arguments: validReadinessBody() });
    expectCompleteAnswer(m, result);
    expect(result._meta?.creditsRemaining).toBe(24);
    expect((await balance(srv.runtime.store, keyHash)).callsLeft).toBe(24);
  });
});

describe("x402's tool-result binding on 2026-07-28 (a client that does not declare the extension)", () => {
  it('pays with the terms of the -32042, gets the settlement in _meta and a complete result; a resend gets the stored answer', async () => {
    const m = await modernClient();
    const args = validReadinessBody();
    const required = ((await callError(m.client, { name: TOOL, arguments: args })).data as PaymentData).x402;
    const payment = await x402Payer(rails).createPaymentPayload(required);
    const meta = { [PAYMENT]: payment, idempotencyKey: 'mcp2026-x402-0001' };
    const before = await usdcBalances(rails);
    const first = await m.client.callTool({ name: TOOL, arguments: args, _meta: meta });
    const body = expectCompleteAnswer(m, first);
    const settled = first._meta?.[PAYMENT_RESPONSE] as SettleResponse;
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(body.paymentIntent).toBe(settled.transaction);

    const resent = await m.client.callTool({ name: TOOL, arguments: args, _meta: meta });
    expectCompleteAnswer(m, resent);
    expect(resent._meta).toMatchObject({ idempotentReplayed: true, [PAYMENT_RESPONSE]: settled });
    expect(resent.structuredContent).toEqual(body);
    await expectOneUsdcMoved(rails, before);
  });

  it('an unreadable payment is an isError tool result carrying fresh terms, with resultType "complete"; nothing moves', async () => {
    const m = await modernClient();
    const before = await usdcBalances(rails);
    const result = await m.client.callTool({ name: TOOL, arguments: validReadinessBody(), _meta: { [PAYMENT]: 'not a payment' } });
    expect(result.isError).toBe(true);
    expect(m.lastResult().resultType).toBe('complete');
    const wrapped = JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { 'x402/error': { code: number; data: PaymentRequired } };
    expect(wrapped['x402/error'].code).toBe(402);
    expect(wrapped['x402/error'].data.accepts).toHaveLength(1);
    expect(result._meta?.problem).toMatchObject({ reason: 'malformed-credential' });
    expect(await usdcBalances(rails)).toEqual(before);
  });
});

describe("x402's extension binding (org.x402/payment declared in the client's capabilities)", () => {
  /** An unpaid (or refused) call: the v2 SDK client refuses the result type it does not know; the wire has it. */
  async function paymentRequiredFor(m: ModernClient, args: Record<string, unknown>, meta: Record<string, unknown> = {}) {
    const refused: unknown = await m.client.callTool({ name: TOOL, arguments: args, _meta: meta }).then(
      (result) => new Error(`expected payment_required, got ${JSON.stringify(result).slice(0, 300)}`),
      (thrown: unknown) => thrown,
    );
    expect(refused).toBeInstanceOf(SdkError);
    expect((refused as SdkError).data).toEqual({ resultType: 'payment_required', method: 'tools/call' });
    const wire = m.lastResult();
    expect(Object.keys(wire).sort()).toEqual(['_meta', 'paymentRequired', 'resultType']);
    expect(wire.resultType).toBe('payment_required');
    return { paymentRequired: wire.paymentRequired as PaymentRequired, meta: wire._meta as Record<string, unknown> };
  }

  it('an unpaid call is answered { resultType: "payment_required", paymentRequired } with the REST terms; paid once, a resend gets the stored answer', async () => {
    const m = await modernClient({ x402Extension: true });
    const args = validReadinessBody();
    const { paymentRequired } = await paymentRequiredFor(m, args);
    const rest = await restTerms(args);
    expect(paymentRequired.x402Version).toBe(2);
    expect(paymentRequired.resource).toEqual(rest.resource);
    expect(paymentRequired.accepts).toEqual(rest.accepts);
    expect(paymentRequired.accepts[0]).toMatchObject({ scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: rails.usdcAddress, payTo: rails.payTo });
    const bazaar = paymentRequired.extensions?.bazaar as Parameters<typeof validateDiscoveryExtension>[0];
    expect(bazaar.info.input).toMatchObject({ type: 'mcp', toolName: TOOL });
    expect(validateDiscoveryExtension(bazaar)).toEqual({ valid: true });

    const payment: PaymentPayload = await x402Payer(rails).createPaymentPayload(paymentRequired);
    const meta = { [PAYMENT]: payment, idempotencyKey: 'mcp2026-ext-00001' };
    const before = await usdcBalances(rails);
    const first = await m.client.callTool({ name: TOOL, arguments: args, _meta: meta });
    const body = expectCompleteAnswer(m, first);
    const settled = first._meta?.[PAYMENT_RESPONSE] as SettleResponse;
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(body).toMatchObject({ service: readinessCheck.service, paymentIntent: settled.transaction });

    const resent = await m.client.callTool({ name: TOOL, arguments: args, _meta: meta });
    expectCompleteAnswer(m, resent);
    expect(resent._meta).toMatchObject({ idempotentReplayed: true, [PAYMENT_RESPONSE]: settled });
    expect(resent.structuredContent).toEqual(body);

    // The same payment without the key it was paid under: refused as used, answered payment_required again.
    const reused = await paymentRequiredFor(m, args, { [PAYMENT]: payment });
    expect(reused.paymentRequired.accepts).toEqual(rest.accepts);
    expect(reused.meta.problem).toMatchObject({ type: `${PROBLEM_BASE}payment-failed`, reason: 'credential-used' });
    await expectOneUsdcMoved(rails, before);
  });

  it('an MPP credential beside the declaration is answered in MPP’s binding', async () => {
    const m = await modernClient({ x402Extension: true });
    const error = await callError(m.client, { name: TOOL, arguments: validReadinessBody(), _meta: { [CREDENTIAL]: { nonsense: true } } });
    expect(error.code).toBe(-32602);
    expect((error.data as PaymentData).problem).toMatchObject({ reason: 'malformed-credential' });
  });
});
