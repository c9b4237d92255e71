import { describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, CRITICAL_SCORE_CAP } from '@/lib/checks/payment-endpoint/check';
import { startSeller } from './seller';
import { sellerForThisFile } from './seller-per-file';

// The check's frame against this service as seller: the discovery documents are read, the example body comes
// from the seller's OpenAPI document, and the unpaid request is answered 402.

const live = sellerForThisFile();

describe('the endpoint check against this service', () => {
  it('reads the OpenAPI document first, builds the body from its example and sends it unpaid', async () => {
    const report = await checkPaymentEndpoint({ url: `${live.seller.origin}/api/agent/readiness`, method: 'POST', paidRoundTrip: false });
    expect(report.requests.slice(0, 3).map((r) => [r.purpose, r.method, r.url, r.status])).toEqual([
      ['OpenAPI document', 'GET', 'http://seller.test/openapi.json', 200],
      ['unpaid request', 'POST', 'http://seller.test/api/agent/readiness', 402],
      ['llms.txt', 'GET', 'http://seller.test/llms.txt', 200],
    ]);
    expect(report.endpoint.bodySource).toBe('openapi');
  });

  it('a critical finding caps the score at 49 however much else passes: a seller that serves any credential, even garbage', async () => {
    const credulous = (request: Request) => request.headers.has('payment-signature') || /^payment /i.test(request.headers.get('authorization') ?? '');
    const free = await startSeller(live.rails, {
      tamper: async (request, next) => (new URL(request.url).pathname === '/api/agent/readiness' && credulous(request) ? Response.json({ served: true }) : next(request)),
    });
    try {
      const report = await checkPaymentEndpoint({ url: `${free.origin}/api/agent/readiness`, method: 'POST', paidRoundTrip: false });
      expect(report.findings.map((f) => [f.id, f.severity])).toEqual([['bad-credential-accepted', 'critical']]);
      // 90 of the 100 points tested were earned; the cap keeps such an endpoint from reading as payable.
      expect(report.coverage.testedPoints).toBe(90);
      expect(report.score).toBe(CRITICAL_SCORE_CAP);
      expect(report.verdict).toBe('not-ready');
    } finally {
      await free.close();
    }
  });
});
