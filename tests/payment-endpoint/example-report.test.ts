// The endpoint check's example answer (lib/checks/payment-endpoint/example.json: the home page's example report,
// the x402 bazaar's example output) is not written by hand: it is what checkPaymentEndpoint answers for this
// service's own readiness endpoint, served on the local rails as seller.test. This test runs the check again and
// requires the stored copy to match, so the example never drifts from what the check says.
// After a deliberate change to the check, rewrite it with:
//   UPDATE_EXAMPLES=1 CI=true npx vitest run tests/payment-endpoint/example-report.test.ts
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { checkPaymentEndpoint } from '@/lib/checks/payment-endpoint/check';
import { endpointCheck } from '@/lib/checks/payment-endpoint/entry';
import { paidBody } from '@/lib/checks/entry';
import { sellerForThisFile } from './seller-per-file';

const STORED = path.resolve(__dirname, '../../lib/checks/payment-endpoint/example.json');
/** When the stored run says it ran: fixed, so the probes that read the clock see the same instant each time. */
const EXAMPLE_CHECKED_AT = '2026-11-01T12:00:00.000Z';

const live = sellerForThisFile();

const HASH = /\b0x[0-9a-fA-F]{64}\b/g;
const ISO_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\b/g;
/** An MPP challenge's id and expiry as a WWW-Authenticate header carries them. */
const AUTH_PARAMS = /\b(id|expires)="[^"]*"/g;
/** An MPP challenge id (an HMAC-SHA256, base64url), wherever it is quoted. */
const CHALLENGE_ID = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/** How long an answer took, as a sentence says it. */
const TOOK = /\bin \d+ ms\b/g;
/** The address of the key a check makes for its bad credentials (new each run). */
const THROWAWAY = /\bSigned by 0x[0-9a-fA-F]{40}\b/g;
/** Members that change from run to run, wherever they are: timings, challenge ids and expiries, nonces, signatures. */
const VOLATILE_KEYS = new Set(['ms', 'expires', 'validAfter', 'validBefore', 'nonce', 'signature', 'timestamp']);

/**
 * A report with what differs between two runs of the same check replaced by a mark: request timings, times,
 * transaction hashes, and an MPP challenge's id and expiry (the server mints them per 402). Everything else must
 * be the same, byte for byte.
 */
function steady(value: unknown, key = ''): unknown {
  if (VOLATILE_KEYS.has(key) && value !== null && value !== undefined) return '<varies>';
  if (typeof value === 'string') {
    return value
      .replace(HASH, '0x<hash>')
      .replace(ISO_TIME, '<time>')
      .replace(AUTH_PARAMS, '$1="<varies>"')
      .replace(CHALLENGE_ID, '<challenge id>')
      .replace(TOOK, 'in <n> ms')
      .replace(THROWAWAY, 'Signed by 0x<new key>');
  }
  if (Array.isArray(value)) return value.map((v) => steady(v));
  if (value && typeof value === 'object') {
    const fields = value as Record<string, unknown>;
    // An MPP challenge (decoded): its id binds its expiry, so it varies with it.
    const challenge = typeof fields.realm === 'string' && typeof fields.method === 'string' && typeof fields.intent === 'string';
    return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, challenge && k === 'id' ? '<varies>' : steady(v, k)]));
  }
  return value;
}

it('the stored example endpoint report is what the check answers for this service as seller', async () => {
  const report = await checkPaymentEndpoint({ url: `${live.seller.origin}/api/agent/readiness`, method: 'POST', paidRoundTrip: false }, { now: new Date(EXAMPLE_CHECKED_AT) });
  const limits = endpointCheck.describe() as { limits: string[] };
  if (process.env.UPDATE_EXAMPLES === '1') {
    fs.writeFileSync(STORED, JSON.stringify({ service: endpointCheck.service, checkedAt: EXAMPLE_CHECKED_AT, report, limits: limits.limits }, null, 2) + '\n');
  }
  const stored = JSON.parse(fs.readFileSync(STORED, 'utf8')) as { checkedAt: string; report: unknown; limits: string[] };
  expect(stored.checkedAt).toBe(EXAMPLE_CHECKED_AT);
  expect(steady(JSON.parse(JSON.stringify(report)))).toEqual(steady(stored.report));
  expect(stored.limits).toEqual(limits.limits);
  // It is what the API answers: the paid envelope around it parses with the check's output schema.
  const answer = endpointCheck.exampleAnswer();
  expect(() => endpointCheck.output.parse(paidBody(endpointCheck.service, 'example-key-0001', { paymentIntent: 'pi_example' }, answer))).not.toThrow();
  // What the example shows: every rubric item, in order, and the requests the check sent, the first three its frame's.
  expect(report.items.map((i) => i.id)).toEqual(['reachability', 'x402-terms', 'mpp-challenges', 'discovery', 'one-price', 'bad-credentials', 'cors', 'mcp', 'paid-round-trip']);
  expect(report.requests.slice(0, 3).map((r) => `${r.method} ${r.url} ${r.status}`)).toEqual([
    'GET http://seller.test/openapi.json 200',
    'POST http://seller.test/api/agent/readiness 402',
    'GET http://seller.test/llms.txt 200',
  ]);
});

it('a run differs from the stored one only where two runs differ', () => {
  const a = { id: 'abc', realm: 'r', method: 'evm', intent: 'charge', expires: '2026-11-01T12:05:00Z', request: 'e30' };
  expect(steady({ ms: 12, txHash: `0x${'ab'.repeat(32)}`, header: 'Payment id="x1", realm="r", expires="2026-11-01T12:05:00Z"', challenge: a })).toEqual({
    ms: '<varies>',
    txHash: '0x<hash>',
    header: 'Payment id="<varies>", realm="r", expires="<varies>"',
    challenge: { id: '<varies>', realm: 'r', method: 'evm', intent: 'charge', expires: '<varies>', request: 'e30' },
  });
  expect(steady({ score: 80, status: 402, id: 'reachability' })).toEqual({ score: 80, status: 402, id: 'reachability' });
});
