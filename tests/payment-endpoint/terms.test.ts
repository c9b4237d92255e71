import { Challenge } from 'mppx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, type EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { priceCentsFromText } from '@/lib/checks/payment-endpoint/price';
import { BASE_USDC_ADDRESS, startRails, type Rails } from '../../scripts/rails/start';
import { startSeller } from './seller';

// The terms items (x402 terms, MPP challenges, discovery, one price) against this service as seller on the local
// rails, and against sellers with one defect each: the bazaar stripped from PAYMENT-REQUIRED, bazaar info that
// changes per 402, a different price in the OpenAPI document. Each defect is reported by its own finding id and
// no other finding of these items.

const ITEMS = ['x402-terms', 'mpp-challenges', 'discovery', 'one-price'] as const;
const READINESS = '/api/agent/readiness';

type Handler = (request: Request) => Promise<Response>;
type Tamper = (request: Request, next: Handler) => Promise<Response>;

let rails: Rails;
beforeAll(async () => {
  rails = await startRails();
}, 120_000);
afterAll(async () => {
  await rails?.stop();
});

async function checkSeller(tamper?: Tamper): Promise<EndpointReport> {
  const seller = await startSeller(rails, tamper ? { tamper } : {});
  try {
    return await checkPaymentEndpoint({ url: `${seller.origin}${READINESS}`, method: 'POST', paidRoundTrip: false });
  } finally {
    await seller.close();
  }
}

const ours = (report: EndpointReport) => report.findings.filter((f) => (ITEMS as readonly string[]).includes(f.item)).map((f) => f.id);
const item = (report: EndpointReport, id: (typeof ITEMS)[number]) => report.items.find((i) => i.id === id)!;

/** The answer with its PAYMENT-REQUIRED rewritten by `change` (decoded, changed, encoded again). */
async function rewritePaymentRequired(response: Response, change: (paymentRequired: Record<string, unknown>) => void): Promise<Response> {
  const header = response.headers.get('payment-required');
  if (header === null) return response;
  const decoded = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Record<string, unknown>;
  change(decoded);
  const headers = new Headers(response.headers);
  headers.set('payment-required', Buffer.from(JSON.stringify(decoded)).toString('base64'));
  return new Response(await response.text(), { status: response.status, headers });
}

describe('priceCentsFromText', () => {
  it('reads the first price a text states, in USD cents', () => {
    expect(priceCentsFromText('Three checks at 1.00 USD per fulfilled request; probes spend at most 0.10 USDC')).toBe(100);
    expect(priceCentsFromText('Costs $0.05 a call')).toBe(5);
    expect(priceCentsFromText('USD 2.5 each')).toBe(250);
    expect(priceCentsFromText('25 cents per lookup')).toBe(25);
    expect(priceCentsFromText('1 USDC on Base')).toBe(100);
    expect(priceCentsFromText('$0.001 per token')).toBe(0.1);
    expect(priceCentsFromText('free for now')).toBeNull();
  });
});

describe('the terms items against this service', () => {
  let report: EndpointReport;
  beforeAll(async () => {
    report = await checkSeller();
  }, 120_000);

  it('pass with no finding', () => {
    expect(ITEMS.map((id) => [id, item(report, id).state])).toEqual(ITEMS.map((id) => [id, 'pass']));
    expect(ours(report)).toEqual([]);
  });

  it('show the decoded x402 terms and the size of the headers', () => {
    const [evidence] = item(report, 'x402-terms').evidence;
    expect(evidence!.request).toBe('POST http://seller.test/api/agent/readiness (body from the OpenAPI example, no credential)');
    expect(evidence!.status).toBe(402);
    const answer = evidence!.answer as { paymentRequired: { x402Version: number; resource: { url: string }; accepts: Array<Record<string, unknown>>; extensions: string[] }; headerBlockBytes: number; limit: number };
    expect(answer.paymentRequired.x402Version).toBe(2);
    expect(answer.paymentRequired.resource.url).toBe('http://seller.test/api/agent/readiness');
    expect(answer.paymentRequired.accepts).toEqual([
      { scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: BASE_USDC_ADDRESS, payTo: rails.payTo, maxTimeoutSeconds: 300, extra: { assetTransferMethod: 'eip3009', name: 'USD Coin', version: '2' } },
    ]);
    expect(answer.paymentRequired.extensions.sort()).toEqual(['bazaar', 'mppx', 'payment-identifier']);
    expect(answer.limit).toBe(16384);
    expect(answer.headerBlockBytes).toBeLessThan(16384);
  });

  it('show each MPP challenge as mppx parsed it', () => {
    const answer = item(report, 'mpp-challenges').evidence[0]!.answer as { challenges: Array<{ method: string; intent: string; realm: string; request: Record<string, unknown>; validated: string }> };
    expect(answer.challenges.map((c) => [c.method, c.intent, c.realm, c.validated])).toEqual([
      ['stripe', 'charge', 'seller.test', 'mppx stripe request schema'],
      ['evm', 'charge', 'seller.test', 'mppx evm request schema'],
    ]);
    expect(answer.challenges[1]!.request).toEqual({ amount: '1000000', currency: BASE_USDC_ADDRESS, methodDetails: { chainId: 8453, credentialTypes: ['authorization'], decimals: 6 }, recipient: rails.payTo });
  });

  it("sends the bazaar's example and compares the extensions of two 402s", () => {
    const bazaarRequest = report.requests.filter((r) => r.purpose === 'bazaar example request');
    expect(bazaarRequest.map((r) => [r.method, r.url, r.status])).toEqual([['POST', 'http://seller.test/api/agent/readiness', 402]]);
    const evidence = item(report, 'discovery').evidence;
    expect(evidence.map((e) => [e.request.split(' (')[0], e.status])).toEqual([
      ['GET http://seller.test/openapi.json', 200],
      ['POST http://seller.test/api/agent/readiness', 402],
      ['POST http://seller.test/api/agent/readiness', 402],
      ['GET http://seller.test/llms.txt', 200],
    ]);
    expect(evidence[0]!.answer).toMatchObject({ operation: 'POST /api/agent/readiness', responses: expect.arrayContaining(['402']) });
    expect(evidence[2]!.answer).toEqual({ extensionsCompared: ['mppx', 'bazaar', 'payment-identifier'], changed: [], dynamicLeftOut: ['sign-in-with-x'] });
  });

  it('finds one price, 100 cents, in every place it is stated', () => {
    const answer = item(report, 'one-price').evidence[0]!.answer as { stated: Array<{ source: string; cents: number | null }>; recipients: Record<string, string[]> };
    expect(answer.stated.map((s) => [s.source, s.cents])).toEqual([
      ['MPP stripe/charge challenge', 100],
      ['MPP evm/charge challenge', 100],
      ['x402 accepts[0] (eip155:8453)', 100],
      ['x402 resource.description', 100],
      ['OpenAPI x-payment-info.offers[0] (stripe)', 100],
      ['OpenAPI x-payment-info.offers[1] (evm)', 100],
      ['OpenAPI x-payment-info.offers[2] (x402)', 100],
      ['OpenAPI x-payment-info.price', 100],
      ['llms.txt (summary)', 100],
      // The MCP item runs first and keeps the tool it chose; this service's tool states the price in its description.
      ['MCP tool agent_payment_readiness_assessment (description)', 100],
    ]);
    expect(answer.recipients).toEqual({ 'x402 eip155': [rails.payTo.toLowerCase()], 'MPP evm': [rails.payTo.toLowerCase()] });
  });
});

describe('sellers with one defect each', () => {
  it('no bazaar: bazaar-missing, and only it', async () => {
    const report = await checkSeller(async (request, next) =>
      rewritePaymentRequired(await next(request), (pr) => {
        delete (pr.extensions as Record<string, unknown>).bazaar;
      }),
    );
    expect(ours(report)).toEqual(['bazaar-missing']);
    expect(item(report, 'discovery').state).toBe('fail');
    expect(report.findings.find((f) => f.id === 'bazaar-missing')).toMatchObject({ item: 'discovery', severity: 'medium', pointsLost: 5, observed: 'PAYMENT-REQUIRED\'s extensions are ["mppx","payment-identifier"], no bazaar' });
    // Without a bazaar example, the declared request is sent again to compare the echo.
    expect(report.requests.filter((r) => r.purpose.startsWith('second unpaid')).map((r) => r.status)).toEqual([402]);
    expect(['x402-terms', 'mpp-challenges', 'one-price'].map((id) => item(report, id as (typeof ITEMS)[number]).state)).toEqual(['pass', 'pass', 'pass']);
  }, 120_000);

  it('echo-unstable bazaar: extension-echo-unstable, and only it', async () => {
    let served = 0;
    const report = await checkSeller(async (request, next) =>
      rewritePaymentRequired(await next(request), (pr) => {
        const info = (pr.extensions as Record<string, { info: { output: { example: Record<string, unknown> } } }>).bazaar!.info;
        info.output.example = { ...info.output.example, idempotencyKey: `served-${++served}` };
      }),
    );
    expect(ours(report)).toEqual(['extension-echo-unstable']);
    const finding = report.findings.find((f) => f.id === 'extension-echo-unstable')!;
    expect(finding).toMatchObject({ item: 'discovery', severity: 'high', pointsLost: 6 });
    expect(finding.observed).toBe('extensions bazaar: info differs between two 402s (bazaar: info.output.example.idempotencyKey was "served-1", then "served-2")');
    expect(item(report, 'discovery').evidence[2]!.answer).toMatchObject({ changed: ['bazaar'] });
  }, 120_000);

  it('wrong price in OpenAPI: price-mismatch, and only it', async () => {
    const report = await checkSeller(async (request, next) => {
      const response = await next(request);
      if (new URL(request.url).pathname !== '/openapi.json') return response;
      const doc = (await response.json()) as { paths: Record<string, { post: { 'x-payment-info': { price: { amount: string } } } }> };
      doc.paths[READINESS]!.post['x-payment-info'].price.amount = '2.00';
      return new Response(JSON.stringify(doc), { status: response.status, headers: response.headers });
    });
    expect(ours(report)).toEqual(['price-mismatch']);
    const finding = report.findings.find((f) => f.id === 'price-mismatch')!;
    expect(finding).toMatchObject({ item: 'one-price', severity: 'high', pointsLost: 10 });
    expect(finding.observed).toContain('OpenAPI x-payment-info.price: 200 cents');
    expect(finding.observed).toContain('x402 accepts[0] (eip155:8453): 100 cents');
    expect(item(report, 'one-price').state).toBe('fail');
    expect(item(report, 'discovery').state).toBe('pass');
  }, 120_000);
  it("x402 extra.name not the token's EIP-712 domain: x402-eip712-domain, and only it", async () => {
    const report = await checkSeller(async (request, next) =>
      rewritePaymentRequired(await next(request), (pr) => {
        (pr.accepts as Array<{ extra: Record<string, string> }>)[0]!.extra.name = 'USDC';
      }),
    );
    expect(ours(report)).toEqual(['x402-eip712-domain']);
    expect(report.findings.find((f) => f.id === 'x402-eip712-domain')!.observed).toBe(
      'accepts[0].extra has name "USDC", version "2"; USDC on eip155:8453 signs as name "USD Coin", version "2"',
    );
  }, 120_000);

  it("a 402 whose headers pass Node's 16 KiB: x402-header-too-large, and only it", async () => {
    const report = await checkSeller(async (request, next) =>
      rewritePaymentRequired(await next(request), (pr) => {
        const resource = pr.resource as { description: string };
        resource.description = `${resource.description} ${'and more '.repeat(500)}`;
      }),
    );
    expect(ours(report)).toEqual(['x402-header-too-large']);
    expect(report.findings.find((f) => f.id === 'x402-header-too-large')!.observed).toMatch(/^the 402's header block is \d+ bytes \(PAYMENT-REQUIRED \d+\); Node refuses 16384 and more$/);
  }, 120_000);

  it('an MPP challenge already expired: mpp-challenge-expired, and only it', async () => {
    const past = '2020-01-01T00:00:00.000Z';
    const report = await checkSeller(async (request, next) => {
      const response = await next(request);
      const header = response.headers.get('www-authenticate');
      if (response.status !== 402 || header === null) return response;
      const headers = new Headers(response.headers);
      const challenges = Challenge.deserializeList(header).map((c) => (c.method === 'stripe' ? { ...c, expires: past } : c));
      headers.set('www-authenticate', challenges.map((c) => Challenge.serialize(c)).join(', '));
      return new Response(await response.text(), { status: response.status, headers });
    });
    expect(ours(report)).toEqual(['mpp-challenge-expired']);
    expect(report.findings.find((f) => f.id === 'mpp-challenge-expired')!.observed).toMatch(/^stripe\/charge challenge "[\w-]{16}" expires "2020-01-01T00:00:00.000Z"; the check read it at /);
  }, 120_000);
});
