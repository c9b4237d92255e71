// Hostile input on the two endpoints fuzz-rest.test.ts does not cover:
//   - POST /api/mcp: arbitrary JSON-RPC-ish envelopes (single and batch), methods, params, _meta payment
//     credentials and Idempotency-Keys, Accept / Content-Type / protocol-version headers, Bearer keys;
//   - POST /api/billing/webhook: arbitrary bodies and Stripe-Signature headers, then validly signed events
//     of every malformed shape.
// Whatever arrives: never a 5xx, always a JSON-RPC error or problem+json, never a charge nobody earned
// (USDC, PaymentIntents, credits) and never a grant (no key created, no existing grant changed).
// Then, against `next start`: a body over the limit is refused with 413 on every POST route, before it is
// read (the answer comes while most of the declared body is still unsent).
import dns from 'node:dns';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { POST as mcpPOST } from '@/app/api/mcp/route';
import { POST as webhookPOST } from '@/app/api/billing/webhook/route';
import { balance, createKey } from '@/lib/credits/ledger';
import { findPlan } from '@/lib/credits/plans';
import { railsFor } from '@/lib/runtime';
import { startRails, type Rails } from '../../scripts/rails/start';
import { WEBHOOK_SECRET, event as stripeEvent, sessionCompleted, sign } from '../billing/events';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { startServer, type RunningServer } from '../support/server';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const APP_URL = 'http://localhost:3000';
const KEY_CALLS = 100_000;
const counts: Record<string, number> = {};

let rails: Rails;
let rt: TestRuntime;
let key: string;
let keyHash: string;
let payerBefore: bigint;
const usageIds = new Set<string>();
let paymentChallenges = 0;
/** The JSON-RPC id of the valid paid call every MCP fuzz run starts with, and the usage it was delivered on. */
const SEED_CALL_ID = 'seed-paid-call';
let seedUsage: string | undefined;

beforeAll(async () => {
  // Nothing fuzzed may reach the network: every name is unknown, so a URL that passes the gate ends in 422.
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (hostname: string) => {
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  }) as never);
  rails = await startRails();
  rt = installTestRuntime({
    ...rails.env,
    APP_URL,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    RATE_LIMIT_PER_IP: '10000000',
    RATE_LIMIT_PER_KEY: '10000000',
  });
  rt.rails = railsFor(rt.config, rt.store);
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-100', { calls: KEY_CALLS }));
  payerBefore = await rails.usdcBalance(rails.payer.address);
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await rt?.dispose();
  await rails?.stop();
  console.log(`fuzz cases run: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join('; ')}; mcp calls delivered on the key ${usageIds.size}, 402 answers with a challenge ${paymentChallenges}`);
});

const printable = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'.split('')), maxLength: 120 });
const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'.split('')), minLength: n, maxLength: n });

// ---------------------------------------------------------------- MCP

const TOOLS = ['agent_payment_readiness_assessment', 'ai_visibility_check', 'list_paid_services'];
const REFUSED_URLS = ['http://127.0.0.1/', 'http://[::1]/', 'http://localhost/', 'https://metadata.google.internal/', 'https://a.b:8443/', 'file:///etc/passwd', 'https://unknown-name.com/'];

const credential = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    printable,
    printable.map((s) => `Payment ${s}`),
    fc.jsonValue(),
    fc.record({
      challenge: fc.record({
        id: printable,
        realm: fc.constantFrom('localhost:3000', 'evil.example'),
        method: fc.constantFrom('evm', 'stripe', 'tempo', ''),
        intent: fc.constantFrom('charge', 'session'),
        request: fc.jsonValue(),
        expires: fc.oneof(printable, fc.date({ noInvalidDate: true }).map((d) => d.toISOString())),
      }),
      payload: fc.oneof(
        fc.jsonValue(),
        fc.record({ spt: fc.oneof(printable, hex(24).map((h) => `spt_${h}`)) }),
        fc.record({ from: hex(40).map((h) => `0x${h}`), nonce: hex(64).map((h) => `0x${h}`), signature: hex(130).map((h) => `0x${h}`), validBefore: fc.nat().map(String) }),
      ),
      source: fc.option(printable, { nil: undefined }),
    }),
  );

const toolArguments = () =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant(validReadinessBody()) },
    fc.tuple(fc.constantFrom('workflow', 'capabilities', 'extra'), fc.jsonValue()).map(([k, v]) => ({ ...validReadinessBody(), [k]: v })),
    fc.constantFrom(...REFUSED_URLS).map((url) => ({ url })),
    printable.map((url) => ({ url })),
    fc.jsonValue(),
    fc.constant(undefined),
  );

const callParams = () =>
  fc.record(
    {
      name: fc.oneof(fc.constantFrom(...TOOLS), printable, fc.jsonValue()),
      arguments: toolArguments(),
      _meta: fc.oneof(
        fc.record(
          {
            'org.paymentauth/credential': credential(),
            idempotencyKey: fc.oneof(printable, fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,20}$/), fc.jsonValue()),
            progressToken: fc.oneof(fc.integer(), printable),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
      ),
    },
    { requiredKeys: [] },
  );

const message = () =>
  fc.record(
    {
      jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.jsonValue()),
      id: fc.oneof(fc.integer(), printable, fc.constant(null), fc.jsonValue()),
      method: fc.oneof(
        fc.constantFrom('tools/call', 'tools/call', 'tools/call', 'tools/list', 'initialize', 'ping', 'notifications/initialized', 'resources/list', 'prompts/get', 'logging/setLevel', 'completion/complete'),
        printable,
      ),
      params: fc.oneof(
        callParams(),
        fc.record({ protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26'), printable), capabilities: fc.jsonValue(), clientInfo: fc.jsonValue() }, { requiredKeys: [] }),
        fc.jsonValue(),
      ),
      result: fc.jsonValue(),
      error: fc.jsonValue(),
    },
    { requiredKeys: ['jsonrpc'] },
  );

/** A well-formed paid tool call whose arguments, _meta and id vary: reaches the gate, not just the parser. */
const nearValidCall = () =>
  fc
    .record({
      id: fc.oneof(fc.integer(), printable),
      name: fc.constantFrom('agent_payment_readiness_assessment', 'agent_payment_readiness_assessment', 'ai_visibility_check'),
      arguments: toolArguments(),
      _meta: fc.record({ 'org.paymentauth/credential': credential(), idempotencyKey: fc.oneof(fc.constant(undefined), fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,20}$/), printable) }, { requiredKeys: [] }),
    })
    .map(({ id, name, arguments: args, _meta }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta } }));

const mcpBody = () =>
  fc.oneof(
    { weight: 5, arbitrary: nearValidCall().map((m) => JSON.stringify(m)) },
    { weight: 4, arbitrary: message().map((m) => JSON.stringify(m)) },
    { weight: 2, arbitrary: fc.array(message(), { minLength: 0, maxLength: 5 }).map((a) => JSON.stringify(a)) },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: printable },
  );

const mcpHeaders = () =>
  fc.record(
    {
      authorization: fc.oneof({ weight: 6, arbitrary: fc.constant('valid-key') }, { weight: 2, arbitrary: fc.constant(undefined) }, printable.map((s) => `Bearer ${s}`), printable.map((s) => `Payment ${s}`), printable),
      accept: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json, text/event-stream') }, fc.constantFrom('application/json', 'text/event-stream', '*/*'), printable),
      'content-type': fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded')),
      'mcp-protocol-version': fc.oneof({ weight: 4, arbitrary: fc.constantFrom(undefined, '2025-06-18', '2025-03-26', '2024-11-05') }, printable),
      'mcp-session-id': fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, printable),
    },
    { requiredKeys: ['authorization', 'accept', 'content-type'] },
  );

type RpcResponse = { jsonrpc?: string; id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };

async function postMcp(body: string, h: Record<string, string | undefined>) {
  const headers = new Headers({ 'x-forwarded-for': '198.51.100.50' });
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined) continue;
    try {
      headers.set(name, value === 'valid-key' ? `Bearer ${key}` : value);
    } catch {
      // A value fetch cannot carry as a header never reaches a server either.
    }
  }
  return mcpPOST(new Request(`${APP_URL}/api/mcp`, { method: 'POST', headers, body }));
}

function assertRpcResponse(r: RpcResponse) {
  expect(r.jsonrpc).toBe('2.0');
  expect(r.result !== undefined || r.error !== undefined).toBe(true);
  if (r.error) {
    expect(Number.isInteger(r.error.code)).toBe(true);
    expect(typeof r.error.message).toBe('string');
    expect(JSON.stringify(r.error)).not.toMatch(/\bat [\w.<>]+ \(|node_modules|viem|revert|ZodError/i);
  }
  if ((r.error as { data?: { httpStatus?: number } } | undefined)?.data?.httpStatus === 402) paymentChallenges += 1;
  const structured = r.result?.structuredContent as { creditsUsage?: string; paymentIntent?: string } | undefined;
  // A machine-payment credential in the fuzz is never valid: no tool result may claim one was settled.
  expect(structured?.paymentIntent).toBeUndefined();
  if (structured?.creditsUsage) usageIds.add(structured.creditsUsage);
  if (r.id === SEED_CALL_ID && structured?.creditsUsage) seedUsage = structured.creditsUsage;
}

/** A valid paid tool call on the valid key: the fuzz's first case, so every run reaches the end of the paid path. */
const seedPaidCall: [string, Record<string, string | undefined>] = [
  JSON.stringify({ jsonrpc: '2.0', id: SEED_CALL_ID, method: 'tools/call', params: { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody(), _meta: {} } }),
  { authorization: 'valid-key', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
];

describe('hostile input on POST /api/mcp', () => {
  it('never a 5xx; always a JSON-RPC answer or error; no charge beyond what the valid key was delivered', async () => {
    await fc.assert(
      fc.asyncProperty(mcpBody(), mcpHeaders(), async (body, h) => {
        counts['mcp envelope'] = (counts['mcp envelope'] ?? 0) + 1;
        const res = await postMcp(body, h);
        expect(res.status).toBeLessThan(500);
        const text = await res.text();
        if (res.status === 202) {
          // Only notifications or responses (or an empty batch): accepted, nothing to answer.
          expect(text).toBe('');
          return;
        }
        const type = res.headers.get('content-type') ?? '';
        if (type.startsWith('application/problem+json')) {
          const p = JSON.parse(text) as { status: number; type: string };
          expect(p.status).toBe(res.status);
          return;
        }
        expect(type).toMatch(/^application\/json/);
        const parsed = JSON.parse(text) as RpcResponse | RpcResponse[];
        if (res.status !== 200) expect(Array.isArray(parsed) ? undefined : parsed.error).toBeDefined();
        for (const r of Array.isArray(parsed) ? parsed : [parsed]) assertRpcResponse(r);
      }),
      { numRuns: RUNS, examples: [seedPaidCall] },
    );
  }, 600_000);

  it('spent exactly one call of the valid key per distinct fulfilled tool call, and moved no money', async () => {
    // The fuzz reached the end of the paid path (calls delivered on the key), not just the parser: its
    // seeded valid call, at least, was delivered and counted (FUZZ_RUNS=0 runs nothing, and fails here).
    expect(seedUsage).toMatch(/^cu_/);
    expect(usageIds.has(seedUsage!)).toBe(true);
    const b = await balance(rt.store, keyHash);
    expect(KEY_CALLS - b.callsLeft).toBe(usageIds.size);
    expect(await rails.usdcBalance(rails.payer.address)).toBe(payerBefore);
    expect(rails.stripe.paymentIntents()).toHaveLength(0);
  });
});

// ---------------------------------------------------------------- Stripe webhook

const HANDLED = ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'customer.subscription.deleted', 'charge.refunded'];
const notAPlan = fc.oneof(printable, fc.jsonValue()).filter((p) => typeof p !== 'string' || findPlan(p) === undefined);
const idLike = (prefix: string) => fc.oneof(hex(12).map((h) => `${prefix}_${h}`), printable, fc.jsonValue(), fc.record({ id: printable }));

/** Stripe objects of the shapes our handlers read, with every field free to be missing or of the wrong type. */
const stripeObject = () =>
  fc.record(
    {
      id: idLike('obj'),
      object: fc.oneof(fc.constantFrom('checkout.session', 'invoice', 'subscription', 'charge'), fc.jsonValue()),
      payment_status: fc.oneof(fc.constantFrom('paid', 'unpaid', 'no_payment_required'), fc.jsonValue()),
      mode: fc.oneof(fc.constantFrom('payment', 'subscription'), fc.jsonValue()),
      metadata: fc.oneof(fc.record({ plan: notAPlan }, { requiredKeys: [] }), fc.jsonValue()),
      customer: idLike('cus'),
      payment_intent: idLike('pi'),
      subscription: idLike('sub'),
      amount: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      amount_refunded: fc.oneof(fc.integer(), fc.double(), fc.jsonValue()),
      refunded: fc.oneof(fc.boolean(), fc.jsonValue()),
      current_period_end: fc.oneof(fc.integer(), fc.jsonValue()),
      ended_at: fc.oneof(fc.integer(), fc.jsonValue()),
      canceled_at: fc.oneof(fc.integer(), fc.jsonValue()),
      items: fc.jsonValue(),
      lines: fc.oneof(fc.record({ data: fc.array(fc.record({ period: fc.record({ end: fc.oneof(fc.integer(), fc.jsonValue()) }), subscription: idLike('sub') }, { requiredKeys: [] }), { maxLength: 3 }) }), fc.jsonValue()),
      parent: fc.jsonValue(),
      payments: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );

const signedEventBody = () =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record(
          {
            id: fc.oneof(hex(16).map((h) => `evt_${h}`), fc.jsonValue()),
            object: fc.constant('event'),
            type: fc.oneof(fc.constantFrom(...HANDLED), printable, fc.jsonValue()),
            data: fc.oneof(fc.record({ object: fc.oneof(stripeObject(), fc.jsonValue()) }), fc.jsonValue()),
            created: fc.oneof(fc.integer(), fc.jsonValue()),
          },
          { requiredKeys: [] },
        )
        .map((e) => JSON.stringify(e)),
    },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: printable },
  );

const forgedSignature = (payload: string) =>
  fc.oneof(
    fc.constant(undefined),
    printable,
    fc.tuple(fc.integer({ min: 0, max: 2 ** 31 }), hex(64)).map(([t, h]) => `t=${t},v1=${h}`),
    fc.constant(sign(payload, 'whsec_wrong_' + 'b'.repeat(32))),
    fc.constant(sign(`${payload} `)),
    // A genuine signature made an hour ago: outside Stripe's 5-minute tolerance.
    fc.constant(sign(payload, WEBHOOK_SECRET, Math.floor(Date.now() / 1000) - 3600)),
    fc.constant(sign(payload).replace(/v1=/, 'v0=')),
  );

async function postWebhook(body: string, signature: string | undefined) {
  const headers = new Headers({ 'content-type': 'application/json' });
  if (signature !== undefined) {
    try {
      headers.set('stripe-signature', signature);
    } catch {
      // not representable as a header
    }
  }
  return webhookPOST(new Request(`${APP_URL}/api/billing/webhook`, { method: 'POST', headers, body }));
}

/** Keys in the store and the existing key's grants: what a forged or malformed event must not touch. */
async function grantState() {
  const grants = await rt.store.listGrants(keyHash, Date.now());
  return { keys: await rt.store.countKeys(), grants: grants.map((g) => ({ id: g.id, calls: g.calls, used: g.used, expiresAt: g.expiresAt })) };
}

describe('hostile input on POST /api/billing/webhook', () => {
  it('unsigned, forged, replayed-late or mismatched signatures: 400 problem+json, nothing recorded', async () => {
    const before = await grantState();
    const arb = fc.oneof(signedEventBody(), fc.constant(JSON.stringify(sessionCompleted('cs_test_forged', { plan: 'bundle-100' }))));
    await fc.assert(
      fc.asyncProperty(arb.chain((body) => fc.tuple(fc.constant(body), forgedSignature(body))), async ([body, signature]) => {
        counts['webhook forged'] = (counts['webhook forged'] ?? 0) + 1;
        const res = await postWebhook(body, signature);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        const p = (await res.json()) as { type: string; status: number };
        expect(p.status).toBe(400);
        expect(p.type).toMatch(/\/(invalid-signature|invalid-request)$/);
      }),
      { numRuns: RUNS },
    );
    expect(await grantState()).toEqual(before);
  }, 600_000);

  it('validly signed but malformed events: never a 5xx, never a key or a grant', async () => {
    const before = await grantState();
    await fc.assert(
      fc.asyncProperty(signedEventBody(), async (body) => {
        counts['webhook signed malformed'] = (counts['webhook signed malformed'] ?? 0) + 1;
        const res = await postWebhook(body, sign(body));
        expect(res.status).toBeLessThan(500);
        const text = await res.text();
        if (res.status === 200) {
          expect((JSON.parse(text) as { received: boolean }).received).toBe(true);
        } else {
          expect(res.status).toBe(400);
          expect(res.headers.get('content-type')).toBe('application/problem+json');
        }
      }),
      { numRuns: RUNS },
    );
    expect(await grantState()).toEqual(before);
  }, 600_000);

  it('control: the same oracle sees a grant when a well-formed paid checkout is signed', async () => {
    const keysBefore = await rt.store.countKeys();
    const body = JSON.stringify(sessionCompleted(`cs_test_control${Date.now()}`, { plan: 'bundle-25' }));
    const res = await postWebhook(body, sign(body));
    expect(res.status).toBe(200);
    expect(await rt.store.countKeys()).toBe(keysBefore + 1);
    // And an event type we do not handle is acknowledged and ignored.
    const other = JSON.stringify(stripeEvent('customer.created', { id: 'cus_test_x' }));
    expect((await (await postWebhook(other, sign(other))).json()) as unknown).toEqual({ received: true, result: 'ignored' });
  });
});

// ---------------------------------------------------------------- body limits under `next start`

const POST_ROUTES: Array<[string, 'problem' | 'jsonrpc']> = [
  ['/api/agent/readiness', 'problem'],
  ['/api/agent/ai-visibility', 'problem'],
  ['/api/mcp', 'jsonrpc'],
  ['/api/billing/checkout', 'problem'],
  ['/api/billing/account', 'problem'],
  ['/api/billing/portal', 'problem'],
  ['/api/billing/webhook', 'problem'],
];

/**
 * Declares `declared` bytes but sends only the first 64 KiB, then waits for the answer: a server that
 * answered has refused the body without reading it. Or streams `chunked` bytes with no declared length.
 */
function oversized(server: RunningServer, path: string, mode: { declared: number } | { chunked: number }) {
  return new Promise<{ status: number; type: string; body: string }>((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if ('declared' in mode) headers['content-length'] = mode.declared;
    let head: { status: number; type: string } | undefined;
    // A fresh connection each time: one left half-written by the previous case must not be reused.
    const req = http.request(`${server.url}${path}`, { method: 'POST', headers, agent: false }, (res) => {
      head = { status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? '') };
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ ...head!, body });
        req.destroy();
      });
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    if ('declared' in mode) {
      // JSON that would parse if it were ever read whole: spaces, then {}.
      req.write(chunk);
    } else {
      let left = mode.chunked;
      const pump = () => {
        while (left > 0) {
          left -= chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end('{}');
      };
      pump();
    }
  });
}

describe('oversized bodies under next start', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET });
  }, 300_000);
  afterAll(async () => {
    await server?.stop();
  });

  it.each(POST_ROUTES)('POST %s: a declared 50 MB body is refused with 413 before it is sent', async (path, kind) => {
    counts['oversized'] = (counts['oversized'] ?? 0) + 1;
    const r = await oversized(server, path, { declared: 50 * 1024 * 1024 });
    expect(r.status).toBe(413);
    if (kind === 'problem') {
      expect(r.type).toBe('application/problem+json');
      expect((JSON.parse(r.body) as { type: string }).type).toMatch(/\/payload-too-large$/);
    } else {
      expect(r.type).toMatch(/^application\/json/);
      expect((JSON.parse(r.body) as RpcResponse).error?.code).toBeTypeOf('number');
    }
  }, 30_000);

  it.each(POST_ROUTES)('POST %s: a 1 MiB chunked body without Content-Length is refused with 413', async (path) => {
    counts['oversized'] = (counts['oversized'] ?? 0) + 1;
    const r = await oversized(server, path, { chunked: 1024 * 1024 });
    expect(r.status).toBe(413);
  }, 30_000);

  it('the server never answered 5xx and stayed up', async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    expect(server.output()).not.toMatch(/"status":5\d\d|internal-error/);
  });
});
