// Every x402 client we know of pays the service over x402 v2 on the local rails (anvil, chain 8453, with USDC and
// the real x402 facilitator): the `mppx` CLI (a child process), mppx/client's evm method, @x402/fetch, and
// @x402/core's x402HTTPClient with @x402/evm's exact scheme, at the REST route; and over MCP (x402's tool-result
// binding, `_meta["x402/payment"]`) every client that has an x402 MCP path: @x402/core's client, and mppx's x402
// signer on the MCP terms. The CLI and @x402/fetch speak HTTP only: an MCP tool's 402 is a JSON-RPC result at
// HTTP 200, which neither reads (docs/PAYMENTS.md). mppx's clients bind a payment to its route and echo the 402's
// enriched `resource` (lib/payments/x402-route-binding.ts): the tests below fail if that echo is refused again.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { x402HTTPClient } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, SettleResponse } from '@x402/core/types';
import { wrapFetchWithPayment } from '@x402/fetch';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PaymentRequest, x402 } from 'mppx';
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { operationOf } from '@/lib/payments/challenge';
import { USDC_EIP712 } from '@/lib/payments/rails';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { connectClient } from '../mcp/support';
import { serveReadinessAndMcp, type ReadinessAndMcp } from './readiness-and-mcp';
import { decodeBase64Json } from './harness';
import { expectUsdcMoved, usdcBalances, x402Payer } from '../support/usdc';

const execFileAsync = promisify(execFile);
const TOOL = readinessCheck.toolName;
const DECLARED = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'org.x402/payment': {} } } };
const MPPX_CLI = path.resolve('node_modules/mppx/dist/bin.js');

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

/** mppx's client, made to take the 402's x402 terms (its x402 challenges are the `x402:`-prefixed ones). */
function mppxX402() {
  return Mppx.create({
    polyfill: false,
    methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: USDC_EIP712 })],
    orderChallenges: (candidates) => candidates.filter((c) => c.challenge.id.startsWith('x402:')),
  });
}

const postInit = (key: string): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify(validReadinessBody()),
});

/** A paid 200 over REST: the answer, the settlement, the body saying x402 paid and which transaction. */
async function paidAnswer(res: Response): Promise<{ body: Record<string, unknown>; settled: SettleResponse }> {
  expect(res.status).toBe(200);
  const settled = decodeBase64Json<SettleResponse>(res.headers.get('payment-response'));
  expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
  const body = (await res.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ service: readinessCheck.service, paymentIntent: settled.transaction });
  expect(readinessCheck.output.safeParse(body).success).toBe(true);
  return { body, settled };
}

/**
 * The `mppx` CLI run as a user runs it: `mppx <url> -J <body> --protocol x402 -s`, the key in MPPX_PRIVATE_KEY; the
 * answer's body (what -s prints), read as JSON. It exits non-zero on an answer that is not 2xx.
 */
async function mppxCli(args: string[]): Promise<Record<string, unknown>> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'mppx-home-'));
  try {
    const { stdout } = await execFileAsync(process.execPath, [MPPX_CLI, url, '-J', JSON.stringify(validReadinessBody()), '--protocol', 'x402', '-s', '-f', ...args], {
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: home, NO_COLOR: '1', MPPX_PRIVATE_KEY: rails.payer.privateKey, NODE_ENV: 'production' },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

describe('x402 clients at POST /api/agent/readiness', () => {
  it('the mppx CLI (--protocol x402) pays 1 USDC and gets the answer; the same call again replays it unpaid', async () => {
    const before = await usdcBalances(rails);
    const first = await mppxCli(['-H', 'Idempotency-Key: x402-cli-000001']);
    expect(first).toMatchObject({ service: readinessCheck.service, idempotencyKey: 'x402-cli-000001' });
    expect(first.paymentIntent).toMatch(/^0x[0-9a-f]{64}$/);
    expect(readinessCheck.output.safeParse(first).success).toBe(true);
    await expectUsdcMoved(rails, before, 1_000_000n);

    // The same call: the CLI pays a new 402 again, and the answer paid first comes back (same transaction, same
    // assessment time) with nothing settled.
    expect(await mppxCli(['-H', 'Idempotency-Key: x402-cli-000001'])).toEqual(first);
    await expectUsdcMoved(rails, before, 1_000_000n);
  });

  it('mppx/client (its evm method, on the x402 terms) pays 1 USDC; the same call again replays it unpaid', async () => {
    const client = mppxX402();
    const sent: Headers[] = [];
    const before = await usdcBalances(rails);
    const first = await paidAnswer(await client.fetch(url, postInit('x402-mppx-000001')));
    await expectUsdcMoved(rails, before, 1_000_000n);
    // It paid with x402, bound to the route: a salted extensions.mppx, and the resource our 402 offered, whole.
    const recording = Mppx.create({
      polyfill: false,
      methods: client.methods,
      orderChallenges: (candidates) => candidates.filter((c) => c.challenge.id.startsWith('x402:')),
      fetch: async (input, init) => (sent.push(new Headers(init?.headers)), fetch(input, init)),
    });
    const again = await recording.fetch(url, postInit('x402-mppx-000001'));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first.body);
    const payment = x402.Header.decodePaymentSignature(sent.map((h) => h.get('payment-signature')).find((v) => v !== null)!) as PaymentPayload;
    expect(typeof (payment.extensions?.mppx as { info: { nonce?: unknown } }).info.nonce).toBe('string');
    expect(payment.resource).toMatchObject({ url, serviceName: 'Paid Agent Checks', description: readinessCheck.summary });
    await expectUsdcMoved(rails, before, 1_000_000n);
  });

  it('@x402/fetch pays 1 USDC; the same call again replays it unpaid', async () => {
    const pay = wrapFetchWithPayment(fetch, x402Payer(rails));
    const before = await usdcBalances(rails);
    const first = await paidAnswer(await pay(url, postInit('x402-fetch-000001')));
    await expectUsdcMoved(rails, before, 1_000_000n);
    const again = await pay(url, postInit('x402-fetch-000001'));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first.body);
    await expectUsdcMoved(rails, before, 1_000_000n);
  });

  it("@x402/core's x402HTTPClient (with @x402/evm's exact scheme) pays 1 USDC; the same call again replays it unpaid", async () => {
    const http = new x402HTTPClient(x402Payer(rails));
    const call = async (key: string) => {
      const unpaid = await fetch(url, postInit(key));
      expect(unpaid.status).toBe(402);
      const required = http.getPaymentRequiredResponse((name) => unpaid.headers.get(name), await unpaid.json());
      const payment = await http.createPaymentPayload(required);
      const init = postInit(key);
      return fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...http.encodePaymentSignatureHeader(payment) } });
    };
    const before = await usdcBalances(rails);
    const res = await call('x402-core-000001');
    const first = await paidAnswer(res);
    expect(http.getPaymentSettleResponse((name) => res.headers.get(name))).toEqual(first.settled);
    await expectUsdcMoved(rails, before, 1_000_000n);
    const again = await call('x402-core-000001');
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(first.body);
    await expectUsdcMoved(rails, before, 1_000_000n);
  });
});

describe("mppx's route binding, checked against the resource our 402 offered", () => {
  /** A payment mppx/client signs for the 402's x402 terms, decoded. */
  async function mppxPayment(): Promise<PaymentPayload> {
    const client = mppxX402();
    const init = postInit('unused-000001');
    const unpaid = await client.rawFetch(url, init);
    expect(unpaid.status).toBe(402);
    const prepared = await client.preparePayment(unpaid, { request: init });
    return x402.Header.decodePaymentSignature(await prepared.createCredential()) as PaymentPayload;
  }

  async function refusal(payment: PaymentPayload): Promise<{ status: number; reason: string }> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': x402.Header.encodePaymentSignature(payment as never) }, body: JSON.stringify(validReadinessBody()) });
    return { status: res.status, reason: ((await res.json()) as { reason: string }).reason };
  }

  it('refuses, and moves nothing for, a bound payment whose echo was changed: the resource, the bound operation, or the salt', async () => {
    const before = await usdcBalances(rails);
    const payment = await mppxPayment();
    const binding = payment.extensions!.mppx as { info: Record<string, string>; schema: unknown };
    const changed: PaymentPayload[] = [
      // A resource other than the one offered (the nonce covers the one offered).
      { ...payment, resource: { ...payment.resource!, description: 'something else' } },
      // Bound to another operation.
      { ...payment, extensions: { ...payment.extensions, mppx: { ...binding, info: { ...binding.info, opaque: PaymentRequest.serialize({ operation: operationOf('POST', `${site.origin}/api/agent/ai-visibility`) }) } } } },
      // Another salt: the signed nonce no longer covers what is echoed.
      { ...payment, extensions: { ...payment.extensions, mppx: { ...binding, info: { ...binding.info, nonce: '00'.repeat(32) } } } },
    ];
    for (const p of changed) expect(await refusal(p)).toEqual({ status: 402, reason: 'terms-mismatch' });
    await expectUsdcMoved(rails, before, 0n);
    // The payment itself, unchanged, pays.
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'payment-signature': x402.Header.encodePaymentSignature(payment as never) }, body: JSON.stringify(validReadinessBody()) });
    await paidAnswer(res);
    await expectUsdcMoved(rails, before, 1_000_000n);
  });
});

describe('x402 clients calling the MCP tool', () => {
  async function client(): Promise<Client> {
    const c = await connectClient(new URL('/api/mcp', site.origin));
    clients.push(c);
    return c;
  }

  async function termsFor(c: Client): Promise<PaymentRequired> {
    const result = (await c.callTool({ name: TOOL, arguments: validReadinessBody(), _meta: DECLARED })) as CallToolResult;
    expect(result.isError).toBe(true);
    return (JSON.parse((result.content as Array<{ text: string }>)[0]!.text) as { 'x402/error': { data: PaymentRequired } })['x402/error'].data;
  }

  async function paidCall(c: Client, payment: PaymentPayload, key: string): Promise<CallToolResult> {
    return (await c.callTool({ name: TOOL, arguments: validReadinessBody(), _meta: { ...DECLARED, idempotencyKey: key, 'x402/payment': payment } })) as CallToolResult;
  }

  function expectPaid(result: CallToolResult): SettleResponse {
    expect(result.isError).toBeFalsy();
    const settled = result._meta?.['x402/payment-response'] as SettleResponse;
    expect(settled).toMatchObject({ success: true, network: 'eip155:8453', payer: rails.payer.address });
    expect(result.structuredContent).toMatchObject({ service: readinessCheck.service, paymentIntent: settled.transaction });
    return settled;
  }

  /** Pays a call with `sign`, then makes the same call with a new payment under the same idempotencyKey. */
  async function paysOnceAndReplays(key: string, sign: (required: PaymentRequired) => Promise<PaymentPayload>): Promise<void> {
    const c = await client();
    const before = await usdcBalances(rails);
    const first = await paidCall(c, await sign(await termsFor(c)), key);
    const settled = expectPaid(first);
    await expectUsdcMoved(rails, before, 1_000_000n);
    const again = await paidCall(c, await sign(await termsFor(c)), key);
    expect(again.isError).toBeFalsy();
    expect(again._meta).toMatchObject({ idempotentReplayed: true, 'x402/payment-response': settled });
    expect(again.structuredContent).toEqual(first.structuredContent);
    await expectUsdcMoved(rails, before, 1_000_000n);
  }

  it("@x402/core's client (with @x402/evm's exact scheme) pays 1 USDC in _meta[\"x402/payment\"]; the same call again replays it unpaid", async () => {
    await paysOnceAndReplays('x402-mcp-core-0001', (required) => x402Payer(rails).createPaymentPayload(required));
  });

  it("mppx's x402 signer (mppx/client's evm method, fed the tool's terms) pays 1 USDC; the same call again replays it unpaid", async () => {
    // mppx 0.11's MCP client (McpClient) speaks MPP's -32042 only; its x402 signing takes the terms as an HTTP 402
    // carries them. So the tool's PaymentRequired is handed to it as PAYMENT-REQUIRED and its PAYMENT-SIGNATURE
    // goes into _meta["x402/payment"], decoded, as x402's MCP binding asks.
    const sign = async (required: PaymentRequired): Promise<PaymentPayload> => {
      const client = mppxX402();
      const offered = new Response(null, { status: 402, headers: { 'payment-required': encodePaymentRequiredHeader(required) } });
      const prepared = await client.preparePayment(offered);
      const payment = x402.Header.decodePaymentSignature(await prepared.createCredential()) as PaymentPayload;
      // Bound to the route as mppx binds: the salt, and the MCP terms' own extensions (the tool's bazaar form).
      expect(typeof (payment.extensions?.mppx as { info: { nonce?: unknown } }).info.nonce).toBe('string');
      expect(payment.extensions?.bazaar).toEqual(required.extensions?.bazaar);
      expect(decodePaymentRequiredHeader(encodePaymentRequiredHeader(required)).resource).toEqual(payment.resource);
      return payment;
    };
    await paysOnceAndReplays('x402-mcp-mppx-0001', sign);
  });
});
