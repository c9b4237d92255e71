import type { EndpointReport } from '@/lib/checks/payment-endpoint/check';
import type { Finding, ItemResult } from '@/lib/checks/payment-endpoint/types';

// An endpoint report as the site's view reads it, with every item state, findings with verify steps and sources,
// decoded evidence and a transfer: what the stored example (a run against a correct seller) cannot show all of.
// Written for the view's tests (tests/site/report-view.test.ts, tests/browser/endpoint-report.spec.ts); its
// finding ids are illustrations, not the check's catalog.

const URL_PAID = 'https://api.shop.example/v1/quote';
const TX = `0x${'5e'.repeat(32)}`;

const items: ItemResult[] = [
  {
    id: 'reachability', title: 'Reachability', state: 'pass', points: 15, pointsMax: 15,
    why: 'POST answered 402 with Cache-Control: no-store.',
    evidence: [{ request: `POST ${URL_PAID} with no credential`, status: 402, answer: { 'cache-control': 'no-store', 'content-type': 'application/problem+json' } }],
  },
  {
    id: 'x402-terms', title: 'x402 terms', state: 'warn', points: 13, pointsMax: 15,
    why: 'PAYMENT-REQUIRED decodes to a valid v2 PaymentRequired; one entry has no maxTimeoutSeconds.',
    evidence: [{
      request: `POST ${URL_PAID} with no credential`, status: 402,
      answer: { x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '10000', payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', extra: { name: 'USD Coin', version: '2' } }] },
    }],
  },
  { id: 'mpp-challenges', title: 'MPP challenges', state: 'not-applicable', points: 0, pointsMax: 10, why: 'The 402 carries no WWW-Authenticate: Payment challenge.', evidence: [] },
  {
    id: 'discovery', title: 'Discovery', state: 'fail', points: 5, pointsMax: 15,
    why: 'The 402 states no bazaar extension, so directories cannot list the endpoint.',
    evidence: [{ request: 'GET https://api.shop.example/openapi.json', status: 200, answer: { operation: 'POST /v1/quote', 'x-payment-info': null }, note: 'The operation is there, without its price.' }],
  },
  { id: 'one-price', title: 'One price', state: 'pass', points: 10, pointsMax: 10, why: '0.01 USD in x402 and llms.txt alike.', evidence: [] },
  { id: 'bad-credentials', title: 'Bad credentials', state: 'pass', points: 10, pointsMax: 10, why: 'A malformed PAYMENT-SIGNATURE got a fresh 402.', evidence: [] },
  { id: 'cors', title: 'CORS for browser agents', state: 'pass', points: 5, pointsMax: 5, why: 'Every payment header is exposed and allowed.', evidence: [] },
  { id: 'mcp', title: 'MCP', state: 'not-tested', points: 0, pointsMax: 10, why: 'No MCP endpoint was given, and none answered at /api/mcp or /mcp.', evidence: [] },
  {
    id: 'paid-round-trip', title: 'Paid round trip', state: 'pass', points: 10, pointsMax: 10,
    why: 'Paid once; the transfer on chain matches the terms; a replay was refused.',
    evidence: [{ request: `POST ${URL_PAID} with a PAYMENT-SIGNATURE`, status: 200, answer: { 'PAYMENT-RESPONSE': { success: true, network: 'eip155:84532', transaction: TX } }, txHashes: [TX] }],
  },
];

const findings: Finding[] = [
  {
    id: 'bazaar-missing', item: 'discovery', severity: 'high', title: 'No bazaar extension in the 402', pointsLost: 10,
    observed: 'PAYMENT-REQUIRED has no extensions.bazaar.',
    why: 'Directories list a paid endpoint from its bazaar extension; without it agents do not find the endpoint.',
    fix: 'Declare the bazaar extension (input example and schema, output example) in the route config.',
    verify: ['Decode PAYMENT-REQUIRED of an unpaid request: extensions.bazaar is there.', 'Run the Agent Payment Endpoint Check again: the Discovery item passes.'],
    references: [{ title: 'x402 bazaar extension', url: 'https://github.com/coinbase/x402/blob/main/specs/extensions/bazaar.md' }],
  },
  {
    id: 'x402-timeout-missing', item: 'x402-terms', severity: 'low', title: 'An accepts entry has no maxTimeoutSeconds', pointsLost: 2,
    observed: 'accepts[0].maxTimeoutSeconds is absent.',
    why: 'A client cannot tell how long its signed authorization stays good.',
    fix: 'State maxTimeoutSeconds in every accepts entry.',
    verify: ['Run the Agent Payment Endpoint Check again: the x402 terms item passes.'],
    references: [{ title: 'x402 v2 specification', url: 'https://github.com/coinbase/x402/blob/main/specs/x402-specification-v2.md' }],
  },
];

/** The fixture's 200 body: the envelope's members the view reads, and the report. */
export function endpointFixtureBody(): { service: string; checkedAt: string; report: EndpointReport; limits: string[] } {
  return {
    service: 'Agent Payment Endpoint Check',
    checkedAt: '2026-11-01T12:00:00.000Z',
    report: {
      checkVersion: '1.0.0',
      rubricVersion: '1',
      endpoint: { url: URL_PAID, method: 'POST', bodySource: 'openapi', mcp: null },
      score: 85,
      scoreMax: 100,
      coverage: { testedPoints: 80, totalPoints: 100 },
      verdict: 'gaps',
      items,
      findings,
      requests: [
        { purpose: 'OpenAPI document', method: 'GET', url: 'https://api.shop.example/openapi.json', status: 200, bytes: 5120, ms: 41 },
        { purpose: 'unpaid request', method: 'POST', url: URL_PAID, status: 402, bytes: 312, ms: 58 },
        { purpose: 'llms.txt', method: 'GET', url: 'https://api.shop.example/llms.txt', status: null, bytes: 0, ms: 10_000, error: 'timed out after 10 s' },
        { purpose: 'first payment', method: 'POST', url: URL_PAID, status: 200, bytes: 904, ms: 1210 },
      ],
      transfers: [{ network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', payTo: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', txHash: TX, step: 'first payment' }],
      outbound: { requests: 4, maxPerDomain: 25, domains: 1 },
    },
    limits: ['What a seller does with a payment after answering is not visible to the check.'],
  };
}
