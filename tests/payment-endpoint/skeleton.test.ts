import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint } from '@/lib/checks/payment-endpoint/check';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';

let site: FixtureSite;
beforeAll(async () => {
  site = await startFixtureSite({ '/paid': { status: 402, headers: { 'cache-control': 'no-store' }, body: '{}' } });
  process.env.CHECK_HOST_MAP = site.hostMap(['seller.test']);
});
afterAll(async () => {
  delete process.env.CHECK_HOST_MAP;
  await site.close();
});

describe('skeleton', () => {
  it('runs', async () => {
    const report = await checkPaymentEndpoint({ url: 'http://seller.test/paid', method: 'POST', paidRoundTrip: false });
    expect(report.requests.map((r) => [r.purpose, r.status])).toEqual([['OpenAPI document', 404], ['unpaid request', 402], ['llms.txt', 404]]);
  });
});
