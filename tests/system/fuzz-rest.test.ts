import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createKey, balance } from '@/lib/credits/ledger';
import { railsFor } from '@/lib/runtime';
import { startRails, type Rails } from '../../scripts/rails/start';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST: readinessPOST } = agentCheckRoute('readiness');
const { POST: visibilityPOST } = agentCheckRoute('ai-visibility');

// Hostile input against both paid routes, with every payment rail live: whatever the body and
// headers, the answer is never a 5xx, an error is always problem+json, and nothing is charged
// except a call of the one valid credits key for a request that was actually fulfilled.

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
let rails: Rails;
let rt: TestRuntime;
let key: string;
let keyHash: string;
let payerBefore: bigint;
let fulfilled = 0;

beforeAll(async () => {
  rails = await startRails();
  rt = installTestRuntime({ ...rails.env, APP_URL: 'http://localhost:3000', RATE_LIMIT_PER_IP: '1000000', RATE_LIMIT_PER_KEY: '1000000' });
  rt.rails = railsFor(rt.config, rt.store);
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-100', { calls: 100_000 }));
  payerBefore = await rails.usdcBalance(rails.payer.address);
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  await rails?.stop();
});

const printable = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~'.split('')), maxLength: 200 });
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64');

const authorization = () =>
  fc.oneof(
    fc.constant(undefined),
    printable,
    printable.map((s) => `Bearer ${s}`),
    fc.constant('valid-key'),
    fc.string({ unit: fc.constantFrom(...'0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'.split('')), minLength: 32, maxLength: 64 }).map((s) => `Bearer pac_live_${s}`),
    fc.jsonValue().map((v) => `Payment ${Buffer.from(JSON.stringify(v)).toString('base64url')}`),
    printable.map((s) => `Payment ${s}`),
    printable.map((s) => `Basic ${b64(s)}`),
  );

const x402Payload = () =>
  fc.oneof(
    printable,
    fc.jsonValue().map(b64),
    fc.record({ x402Version: fc.oneof(fc.constant(2), fc.integer()), payload: fc.jsonValue(), accepted: fc.jsonValue() }).map(b64),
  );

const headers = () =>
  fc.record(
    {
      authorization: authorization(),
      'payment-signature': x402Payload(),
      'x-payment': x402Payload(),
      'idempotency-key': fc.oneof(printable, fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{7,40}$/)),
      'content-type': fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-8'),
    },
    { requiredKeys: [] },
  );

/** Valid bodies with one part mutated, and arbitrary JSON / non-JSON. */
const readinessBody = () =>
  fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    printable,
    fc.constant(JSON.stringify(validReadinessBody())),
    fc.tuple(fc.constantFrom('workflow', 'capabilities', 'extra'), fc.jsonValue()).map(([k, v]) => JSON.stringify({ ...validReadinessBody(), [k]: v })),
    fc.tuple(fc.constantFrom('machine_discovery', 'idempotency', 'wallet_ownership'), fc.jsonValue()).map(([k, v]) => {
      const body = validReadinessBody();
      return JSON.stringify({ ...body, capabilities: { ...body.capabilities, [k]: v } });
    }),
  );

/** URLs that must be refused (or never fetched, because no valid payment comes with them). */
const visibilityBody = () =>
  fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.webUrl({ withFragments: true, withQueryParameters: true }).map((url) => JSON.stringify({ url })),
    printable.map((url) => JSON.stringify({ url })),
    fc.constantFrom('http://127.0.0.1/', 'http://[::ffff:127.0.0.1]/', 'http://0x7f.1/', 'http://localhost/', 'https://metadata.google.internal/', 'https://a.b:8443/', 'file:///etc/passwd').map((url) => JSON.stringify({ url })),
  );

async function assertSafe(res: Response, spentKey: boolean) {
  expect(res.status).toBeLessThan(500);
  const text = await res.text();
  if (res.status === 200) {
    expect(spentKey).toBe(true);
    fulfilled += 1;
    return;
  }
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const problem = JSON.parse(text) as { type: string; status: number; detail: string };
  expect(problem.status).toBe(res.status);
  expect(problem.type).toMatch(/^https:\/\/paid-agent-checks\.dev\/problems\//);
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|viem|revert/i);
}

function request(url: string, body: string, h: Record<string, string | undefined>) {
  const hdrs = new Headers({ 'x-forwarded-for': '198.51.100.9' });
  for (const [name, value] of Object.entries(h)) {
    if (value === undefined) continue;
    hdrs.set(name, value === 'valid-key' ? `Bearer ${key}` : value);
  }
  return new Request(url, { method: 'POST', headers: hdrs, body });
}

describe('hostile input on the paid REST routes', () => {
  it('POST /api/agent/readiness: never 5xx, always problem+json, never a charge it did not deliver', async () => {
    await fc.assert(
      fc.asyncProperty(readinessBody(), headers(), async (body, h) => {
        const res = await readinessPOST(request('http://localhost:3000/api/agent/readiness', body, h));
        await assertSafe(res, h.authorization === 'valid-key');
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('POST /api/agent/ai-visibility: never 5xx, always problem+json, no fetch without payment', async () => {
    await fc.assert(
      fc.asyncProperty(visibilityBody(), headers().map((h) => ({ ...h, authorization: h.authorization === 'valid-key' ? undefined : h.authorization })), async (body, h) => {
        const res = await visibilityPOST(request('http://localhost:3000/api/agent/ai-visibility', body, h));
        await assertSafe(res, false);
      }),
      { numRuns: RUNS },
    );
  }, 600_000);

  it('moved no USDC, created no PaymentIntent, and spent exactly one call per fulfilled request', async () => {
    expect(await rails.usdcBalance(rails.payer.address)).toBe(payerBefore);
    expect(rails.stripe.paymentIntents()).toHaveLength(0);
    const b = await balance(rt.store, keyHash);
    expect(100_000 - b.callsLeft).toBe(fulfilled);
  });
});
