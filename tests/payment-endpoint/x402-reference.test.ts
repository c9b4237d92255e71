import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, type EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { BASE_USDC_ADDRESS, startRails, type Rails } from '../../scripts/rails/start';
import { prepareReference, startReference } from '../support/x402-reference';

// The official @x402/next middleware as a seller: the x402 reference app (withX402 on POST /api/paid, 1 USD in
// USDC on Base) built and started with `next start` on the local rails, reached as http://reference.test. It
// offers x402 only: no MPP challenge, no OpenAPI document, no llms.txt, no bazaar; and withX402 names the
// resource by the URL Next gives the route (the address Next listens on), not the one the agent called.

const ITEMS = ['x402-terms', 'mpp-challenges', 'discovery', 'one-price'];

let rails: Rails;
let reference: Awaited<ReturnType<typeof startReference>>;
let report: EndpointReport;
const previousMap = process.env.CHECK_HOST_MAP;
beforeAll(async () => {
  // Installs and builds only when its sources changed: about 20 s and 55 s on a 2-core machine the first time.
  prepareReference();
  rails = await startRails();
  reference = await startReference({ X402_FACILITATOR_URL: rails.facilitatorUrl, PAY_TO_ADDRESS: rails.payTo });
  process.env.CHECK_HOST_MAP = [previousMap, `reference.test=${new URL(reference.url).host}`].filter(Boolean).join(',');
  report = await checkPaymentEndpoint({ url: 'http://reference.test/api/paid', method: 'POST', paidRoundTrip: false });
}, 600_000);
afterAll(async () => {
  if (previousMap === undefined) delete process.env.CHECK_HOST_MAP;
  else process.env.CHECK_HOST_MAP = previousMap;
  await reference?.stop();
  await rails?.stop();
});

const item = (id: string) => report.items.find((i) => i.id === id)!;

describe('the terms items against the @x402/next reference app', () => {
  it('give exactly these findings', () => {
    expect(report.findings.filter((f) => ITEMS.includes(f.item)).map((f) => [f.item, f.id, f.severity, f.pointsLost]).sort()).toEqual(
      [
        ['discovery', 'bazaar-missing', 'medium', 5],
        ['discovery', 'llms-txt-missing', 'low', 2],
        ['discovery', 'openapi-missing', 'medium', 6],
        ['x402-terms', 'x402-resource-mismatch', 'medium', 5],
      ].sort(),
    );
    expect(ITEMS.map((id) => [id, item(id).state])).toEqual([
      ['x402-terms', 'fail'],
      ['mpp-challenges', 'not-applicable'],
      ['discovery', 'fail'],
      ['one-price', 'pass'],
    ]);
  });

  it("read withX402's terms: valid v2, Base USDC, named by the address Next listens on", () => {
    const answer = item('x402-terms').evidence[0]!.answer as { paymentRequired: { x402Version: number; resource: { url: string }; accepts: unknown[]; extensions: string[] } };
    expect(answer.paymentRequired.x402Version).toBe(2);
    expect(answer.paymentRequired.accepts).toEqual([
      { scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: BASE_USDC_ADDRESS, payTo: rails.payTo, maxTimeoutSeconds: 300, extra: { name: 'USD Coin', version: '2' } },
    ]);
    expect(answer.paymentRequired.extensions).toEqual([]);
    const port = new URL(reference.url).port;
    expect(report.findings.find((f) => f.id === 'x402-resource-mismatch')!.observed).toBe(`resource.url is http://localhost:${port}/api/paid; the check asked http://reference.test/api/paid`);
  });

  it('found no discovery documents and compared the echo of a second unpaid request', () => {
    expect(report.requests.map((r) => [r.purpose, r.method, r.url, r.status])).toEqual([
      ['OpenAPI document', 'GET', 'http://reference.test/openapi.json', 404],
      ['unpaid request', 'POST', 'http://reference.test/api/paid', 402],
      ['llms.txt', 'GET', 'http://reference.test/llms.txt', 404],
      ['second unpaid request (extension echo)', 'POST', 'http://reference.test/api/paid', 402],
      ...report.requests.slice(4).map((r) => [r.purpose, r.method, r.url, r.status]),
    ]);
    expect(item('one-price').evidence[0]!.answer).toEqual({
      stated: [{ source: 'x402 accepts[0] (eip155:8453)', cents: 100, stated: `1000000 ${BASE_USDC_ADDRESS}` }],
      recipients: { 'x402 eip155': [rails.payTo.toLowerCase()] },
    });
  });
});
