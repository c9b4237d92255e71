// POST /api/mcp with the official SDK Client over Streamable HTTP, on the local rails: anvil (chain 8453)
// with USDC, the real x402 facilitator, and the Stripe fake. Every paid path is the REST gate's.
import { Challenge, Credential } from 'mppx';
import { evm as evmClient, stripe as stripeClient } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type Stripe from 'stripe';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checks } from '@/lib/checks/registry';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { jsonSchema } from '@/lib/transports/mcp/schema';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, parseWwwAuthenticate } from '../payments/harness';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { post, validReadinessBody } from '../support/runtime';
import { callError, connectClient, startMcpServer, type McpTestServer } from './support';
import { sptFromTestHelper } from '../support/card';
import { agentCheckRoute } from '../support/check-routes';
import { stripeSdk } from '../support/rails-runtime';

const { POST: restReadiness } = agentCheckRoute('readiness');

const USDC_DOMAIN = { name: 'USD Coin', version: '2' };
const CREDENTIAL = 'org.paymentauth/credential';
const RECEIPT = 'org.paymentauth/receipt';
const PAGE = `<!doctype html><html lang="en"><head><title>Widgets, explained</title>
<meta name="description" content="Everything about widgets."></head><body><h1>Widgets</h1><p>${'word '.repeat(300)}</p></body></html>`;

let rails: Rails;
let site: FixtureSite;
let srv: McpTestServer;
let sdk: Stripe;
const clients: Client[] = [];

beforeAll(async () => {
  rails = await startRails();
  sdk = stripeSdk(rails);
  site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n' },
    '/reset': { reset: true },
  });
});
afterAll(async () => {
  await site?.close();
  await rails?.stop();
});
beforeEach(async () => {
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  srv = await startMcpServer(rails);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  delete process.env.CHECK_HOST_MAP;
  await srv.close();
});

async function client(headers: Record<string, string> = {}): Promise<Client> {
  const c = await connectClient(srv.endpoint, headers);
  clients.push(c);
  return c;
}

async function newKey(plan: 'bundle-25' = 'bundle-25') {
  const { key, keyHash } = await createKey(srv.runtime.store, srv.runtime.config.CREDITS_KEY_SECRET, plan);
  return { key, callsLeft: async () => (await balance(srv.runtime.store, keyHash)).callsLeft };
}

/**
 * Stops the paid-call pipeline's clock 10 s into a one-minute window (the next one, so no grant is dated after
 * it), so calls meant for one rate window land in it whatever the machine's speed. Returns that time.
 */
function freezePipelineClock(): number {
  const at = Date.now() - (Date.now() % 60_000) + 70_000;
  Object.assign(srv.runtime, { now: () => new Date(at) });
  return at;
}

async function usdc() {
  return { payer: await rails.usdcBalance(rails.payer.address), payTo: await rails.usdcBalance(rails.payTo) };
}

interface PaymentData {
  httpStatus: number;
  challenges: Challenge.Challenge[];
  problem: { type: string; detail: string; reason?: string };
}

type EvmChallenge = Parameters<ReturnType<typeof evmMethod>['createCredential']>[0]['challenge'];

function evmMethod() {
  return evmClient.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_DOMAIN });
}

function cardMethod() {
  return stripeClient.charge({
    paymentMethod: 'pm_card_visa',
    createToken: sptFromTestHelper(sdk),
  });
}

/** Signs an evm credential for the challenge of an unpaid call, as the object mppx clients put in `_meta`. */
async function evmCredentialFor(c: Client, name: string, args: Record<string, unknown>) {
  const unpaid = await callError(c, { name, arguments: args });
  const method = evmMethod();
  const challenge = (unpaid.data as PaymentData).challenges.find((ch) => ch.method === 'evm')! as EvmChallenge;
  return Credential.deserialize(await method.createCredential({ challenge, context: undefined as never }));
}

describe('tools/list', () => {
  it('advertises the three paid tools and list_paid_services, with schemas generated from the registry', async () => {
    const { tools } = await (await client()).listTools();
    expect(tools.map((t) => t.name)).toEqual(['agent_payment_readiness_assessment', 'ai_visibility_check', 'agent_payment_endpoint_check', 'list_paid_services']);
    for (const op of checks()) {
      const tool = tools.find((t) => t.name === op.toolName)!;
      expect(tool.inputSchema).toEqual(jsonSchema(op.input, 'input'));
      expect(tool.outputSchema).toEqual(jsonSchema(op.output, 'output'));
      expect(tool.description).toContain('1.00 USD');
    }
    const readiness = tools[0]!;
    expect(readiness.inputSchema).toMatchObject({ type: 'object', required: ['workflow', 'capabilities'], additionalProperties: false });
    expect(tools[1]!.inputSchema).toMatchObject({ type: 'object', required: ['url'], properties: { url: { type: 'string', maxLength: 2000 } } });
    expect(tools[2]!.inputSchema).toMatchObject({
      type: 'object', required: ['url'], additionalProperties: false,
      properties: { url: { type: 'string', maxLength: 2000 }, method: { enum: ['GET', 'POST'], default: 'POST' }, paidRoundTrip: { type: 'boolean', default: false } },
    });
    expect(tools[3]!.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('answers GET with 405 (stateless: no stream to open)', async () => {
    const res = await fetch(srv.endpoint, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('list_paid_services', () => {
  it('lists each paid service: name, description, price, rails, REST path, tool name and input schema', async () => {
    const result = (await (await client()).callTool({ name: 'list_paid_services', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    const list = result.structuredContent as { services: Array<Record<string, unknown>>; mcpPayment: Record<string, unknown> };
    expect(list.services).toHaveLength(3);
    expect(list.services[0]).toEqual({
      name: readinessCheck.service,
      toolName: 'agent_payment_readiness_assessment',
      operationId: readinessCheck.operationId,
      description: readinessCheck.description,
      price: { amount: '1.00', currency: 'USD', cents: 100 },
      rails: ['stripe', 'evm', 'x402'],
      rest: { method: 'POST', path: '/api/agent/readiness', url: `${srv.url}/api/agent/readiness` },
      inputSchema: jsonSchema(readinessCheck.input, 'input'),
    });
    expect(list.services[1]).toMatchObject({ toolName: 'ai_visibility_check', rest: { path: '/api/agent/ai-visibility' } });
    expect(list.services[2]).toMatchObject({
      name: 'Agent Payment Endpoint Check', toolName: 'agent_payment_endpoint_check', price: { amount: '1.00', currency: 'USD', cents: 100 },
      rest: { method: 'POST', path: '/api/agent/payment-endpoint', url: `${srv.url}/api/agent/payment-endpoint` },
    });
    expect(list.mcpPayment).toMatchObject({ methods: ['stripe', 'evm'], paymentRequiredCode: -32042, credentialMetaKey: CREDENTIAL, receiptMetaKey: RECEIPT });
    expect((result.content as Array<{ text: string }>)[0]!.text).toContain('ai_visibility_check');
  });
});

describe('an unpaid paid call', () => {
  it('is answered -32042 with the card and evm challenges of the HTTP 402', async () => {
    const error = await callError(await client(), { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() });
    expect(error.code).toBe(-32042);
    const data = error.data as PaymentData;
    expect(data.httpStatus).toBe(402);
    expect(data.problem.type).toBe(`${PROBLEM_BASE}payment-required`);
    expect(data.challenges.map((c) => c.method).sort()).toEqual(['evm', 'stripe']);
    const card = data.challenges.find((c) => c.method === 'stripe')!;
    const evm = data.challenges.find((c) => c.method === 'evm')!;
    expect(card).toMatchObject({ intent: 'charge', realm: new URL(srv.url).host, request: { amount: '100', currency: 'usd', methodDetails: { paymentMethodTypes: ['card', 'link'] } } });
    expect(evm).toMatchObject({ intent: 'charge', request: { amount: '1000000', currency: rails.usdcAddress, recipient: rails.payTo, methodDetails: { chainId: 8453, decimals: 6 } } });
    for (const c of data.challenges) expect(Date.parse(c.expires!)).toBeGreaterThan(Date.now());

    // The same terms as the REST 402 (only id and expires differ per challenge).
    const rest = await restReadiness(post(`${srv.url}/api/agent/readiness`, validReadinessBody()));
    expect(rest.status).toBe(402);
    const restChallenges = parseWwwAuthenticate(rest.headers.get('www-authenticate')!);
    const terms = (list: Array<{ method: string; request: unknown; realm?: string; intent: string }>) =>
      list.map(({ method, request, realm, intent }) => ({ method, request, realm, intent })).sort((a, b) => a.method.localeCompare(b.method));
    expect(terms(data.challenges)).toEqual(terms(restChallenges.map((c) => ({ method: c.params.method!, intent: c.params.intent!, realm: c.params.realm, request: c.request }))));
  });
});

describe('paying in-band', () => {
  it('pays with mppx McpClient (evm): 1 USDC moves on chain and the receipt comes back in _meta', async () => {
    const c = McpClient.wrap(await client(), { methods: [evmMethod()] });
    const before = await usdc();
    const result = (await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult & { receipt?: Record<string, string> };
    expect(result.isError).toBeFalsy();
    const receipt = result._meta?.[RECEIPT] as Record<string, string>;
    expect(receipt).toMatchObject({ method: 'evm', status: 'success' });
    expect(receipt.reference).toMatch(/^0x[0-9a-f]{64}$/);
    expect(receipt.challengeId).toEqual(expect.any(String));
    expect(result.receipt).toEqual(receipt);
    const body = result.structuredContent as Record<string, unknown>;
    expect(body).toMatchObject({ service: readinessCheck.service, paymentIntent: receipt.reference, assessment: { scoreMax: 100 } });
    expect(readinessCheck.output.safeParse(body).success).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^# Agent payment readiness: Checkout agent\n\nAssessed \d{1,2} \w+ \d{4}, \d\d:\d\d UTC\n\n\*\*Verdict: Not ready\*\*, score \d+\/100\n/);
    // The paying wallet's report, readable later with SIGN-IN-WITH-X; no key, so no calls left to count.
    expect(result._meta?.reportUrl).toMatch(/\/api\/reports\/rep_[A-Za-z0-9_-]{32}$/);
    expect(result._meta?.reportApiUrl).toBe(result._meta?.reportUrl);
    expect(result._meta?.creditsRemaining).toBeUndefined();
    const after = await usdc();
    expect(before.payer - after.payer).toBe(1_000_000n);
    expect(after.payTo - before.payTo).toBe(1_000_000n);
  });

  it('pays by card through the local Stripe fake: one PaymentIntent of 1.00 USD', async () => {
    const c = McpClient.wrap(await client(), { methods: [cardMethod()] });
    const before = rails.stripe.paymentIntents().length;
    const result = (await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult;
    const receipt = result._meta?.[RECEIPT] as Record<string, string>;
    expect(receipt).toMatchObject({ method: 'stripe', status: 'success' });
    expect(receipt.reference).toMatch(/^pi_/);
    const created = rails.stripe.paymentIntents().slice(before);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: receipt.reference, amount: 100, currency: 'usd', status: 'succeeded' });
    expect((result.structuredContent as Record<string, unknown>).paymentIntent).toBe(receipt.reference);
    // A card has no address to sign in with later: no report is kept for it.
    expect(result._meta?.reportUrl).toBeUndefined();
  });

  it('a replayed credential gets a fresh challenge and is not charged again', async () => {
    const c = await client();
    const args = validReadinessBody();
    const credential = await evmCredentialFor(c, 'agent_payment_readiness_assessment', args);
    const first = (await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: args, _meta: { [CREDENTIAL]: credential } })) as CallToolResult;
    expect((first._meta?.[RECEIPT] as { method: string }).method).toBe('evm');
    const before = await usdc();
    const replay = await callError(c, { name: 'agent_payment_readiness_assessment', arguments: args, _meta: { [CREDENTIAL]: credential } });
    expect(replay.code).toBe(-32043);
    const data = replay.data as PaymentData;
    expect(data.problem).toMatchObject({ type: `${PROBLEM_BASE}payment-failed`, reason: 'credential-used' });
    expect(data.problem.detail).not.toMatch(LEAK_PATTERN);
    expect(data.challenges.map((ch) => ch.method).sort()).toEqual(['evm', 'stripe']);
    expect(data.challenges.map((ch) => ch.id)).not.toContain(credential.challenge.id);
    expect(McpClient.isPaymentRequiredError(replay)).toBe(true);
    expect(await usdc()).toEqual(before);
  });

  it('an unreadable credential gets a fresh challenge (invalid params) and nothing is charged', async () => {
    const before = await usdc();
    const error = await callError(await client(), { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody(), _meta: { [CREDENTIAL]: { nonsense: true } } });
    expect(error.code).toBe(-32602);
    const data = error.data as PaymentData;
    expect(data.problem).toMatchObject({ reason: 'malformed-credential' });
    expect(data.challenges).toHaveLength(2);
    expect(await usdc()).toEqual(before);
  });
});

describe('prepaid key', () => {
  it('Authorization: Bearer on the MCP request spends one call, and _meta.idempotencyKey replays without a second', async () => {
    const { key, callsLeft } = await newKey();
    const c = await client({ authorization: `Bearer ${key}` });
    const call = () =>
      c.callTool({ name: 'ai_visibility_check', arguments: { url: 'https://site.test/' }, _meta: { idempotencyKey: 'mcp-vis-000001' } }) as Promise<CallToolResult>;
    const result = await call();
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { creditsUsage: string; idempotencyKey: string; report: { checkedUrl: string; crawlers: Array<{ token: string; allowed: boolean }> } };
    expect(body.creditsUsage).toMatch(/^cu_/);
    expect(body.idempotencyKey).toBe('mcp-vis-000001');
    expect(body.report.checkedUrl).toBe('https://site.test/');
    expect(body.report.crawlers.find((x) => x.token === 'GPTBot')!.allowed).toBe(false);
    expect(visibilityCheck.output.safeParse(body).success).toBe(true);
    expect(result._meta?.[RECEIPT]).toBeUndefined();
    expect(await callsLeft()).toBe(24);

    const replay = await call();
    expect(replay._meta?.idempotentReplayed).toBe(true);
    expect(replay.structuredContent).toEqual(body);
    expect(await callsLeft()).toBe(24);
  });

  it('an invalid key is a tool error, and no challenge is issued', async () => {
    const result = (await (await client({ authorization: 'Bearer pac_live_nope' })).callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.problem as { type: string }).type).toBe(`${PROBLEM_BASE}invalid-credits-key`);
  });
});

describe('invalid arguments', () => {
  it('are JSON-RPC invalid params listing each bad field with its JSON path; no challenge', async () => {
    const body = validReadinessBody({ workflow: { name: '', intendedUsers: 'robots', targetEnvironment: 'production' }, extra: 1 });
    const error = await callError(await client(), { name: 'agent_payment_readiness_assessment', arguments: body });
    expect(error.code).toBe(-32602);
    const data = error.data as { httpStatus: number; errors: Array<{ path: string; message: string }>; challenges?: unknown };
    expect(data.httpStatus).toBe(400);
    expect(data.errors.map((e) => e.path).sort()).toEqual(['$.extra', '$.workflow.intendedUsers', '$.workflow.name']);
    expect(data.challenges).toBeUndefined();
  });

  it('an address that cannot be checked and a bad idempotency key name their paths', async () => {
    const c = await client();
    const url = await callError(c, { name: 'ai_visibility_check', arguments: { url: 'http://127.0.0.1/' } });
    expect(url.code).toBe(-32602);
    expect((url.data as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(['$.url']);
    const key = await callError(c, { name: 'ai_visibility_check', arguments: { url: 'https://site.test/' }, _meta: { idempotencyKey: 'short' } });
    expect((key.data as { errors: Array<{ path: string }> }).errors.map((e) => e.path)).toEqual(['$._meta.idempotencyKey']);
  });

  it('an unknown tool is invalid params', async () => {
    const error = await callError(await client(), { name: 'no_such_tool', arguments: {} });
    expect(error.code).toBe(-32602);
  });
});

describe('a visibility check that fails', () => {
  it('is a tool error with the reason, and neither the credential nor the key is charged', async () => {
    const c = await client();
    const args = { url: 'https://site.test/reset' };
    const credential = await evmCredentialFor(c, 'ai_visibility_check', args);
    const before = await usdc();
    const result = (await c.callTool({ name: 'ai_visibility_check', arguments: args, _meta: { [CREDENTIAL]: credential } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^The site could not be checked: /);
    expect((result.content as Array<{ text: string }>)[0]!.text).not.toMatch(/ECONNRESET|undici|at .*\.ts/);
    expect((result._meta?.problem as { type: string }).type).toBe(`${PROBLEM_BASE}site-unreachable`);
    expect(result._meta?.[RECEIPT]).toBeUndefined();
    expect(await usdc()).toEqual(before);

    const { key, callsLeft } = await newKey();
    const keyed = (await (await client({ authorization: `Bearer ${key}` })).callTool({ name: 'ai_visibility_check', arguments: args })) as CallToolResult;
    expect(keyed.isError).toBe(true);
    expect(await callsLeft()).toBe(25);
  });
});

describe('the rest of the gate', () => {
  it('the same _meta.idempotencyKey with other arguments is a tool error (conflict), and spends nothing', async () => {
    const { key, callsLeft } = await newKey();
    const c = await client({ authorization: `Bearer ${key}` });
    const meta = { idempotencyKey: 'mcp-conflict-0001' };
    await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody(), _meta: meta });
    const other = validReadinessBody({ workflow: { name: 'Another agent', intendedUsers: 'agents', targetEnvironment: 'sandbox' } });
    const result = (await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: other, _meta: meta })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.problem as { type: string }).type).toBe(`${PROBLEM_BASE}idempotency-conflict`);
    expect(await callsLeft()).toBe(24);
  });

  it('the per-host budget holds over MCP too: a spent host is a tool error (rate-limited), and the key keeps its call', async () => {
    await srv.close();
    srv = await startMcpServer(rails, { CHECKS_PER_SITE_PER_MINUTE: '1' });
    const at = freezePipelineClock();
    const { key, callsLeft } = await newKey();
    const c = await client({ authorization: `Bearer ${key}` });
    // Another caller's check of the same site a moment ago, in this minute's window.
    await srv.runtime.store.hitRateLimit('target-host:site.test', 1, 60_000, at);
    const result = (await c.callTool({ name: 'ai_visibility_check', arguments: { url: 'https://site.test/' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.problem as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect(result._meta?.retryAfterSeconds).toBe(50);
    expect(await callsLeft()).toBe(25);
  });

  it('rate limits per client IP are a tool error with retryAfterSeconds', async () => {
    await srv.close();
    srv = await startMcpServer(rails, { RATE_LIMIT_PER_IP: '2' });
    freezePipelineClock();
    const { key } = await newKey();
    const c = await client({ authorization: `Bearer ${key}` });
    const results: CallToolResult[] = [];
    for (let i = 0; i < 3; i++) results.push((await c.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult);
    expect(results.map((r) => Boolean(r.isError))).toEqual([false, false, true]);
    expect((results[2]!._meta?.problem as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect(results[2]!._meta?.retryAfterSeconds).toBe(50);
    // tools/list and the free catalogue are not counted against the paid-call limit.
    expect((await c.callTool({ name: 'list_paid_services', arguments: {} })).isError).toBeFalsy();
  });
});

describe('machine payments unavailable', () => {
  it('is a clear tool error (503 payments-unavailable), not a challenge', async () => {
    srv.runtime.rails = null;
    const result = (await (await client()).callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.problem as { type: string; status: number })).toMatchObject({ type: `${PROBLEM_BASE}payments-unavailable`, status: 503 });
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^Machine payments not available right now: .* Retry after 60 s\.$/);
  });
});
