// The visibility check's example answer (lib/checks/visibility/example.json: the home page's example report, the
// x402 bazaar's example) is not written by hand: it is what checkVisibility answers for the fixture shop in
// example-site.ts. This test runs the check again and requires the stored copy to match, so the example can
// never drift from what the check says.
// After a deliberate change to the check, rewrite it with: UPDATE_EXAMPLES=1 npx vitest run tests/site/example-report.test.ts
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { visibilityExample } from '../support/example-bodies';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { EXAMPLE_HOST, EXAMPLE_URL, exampleRoutes } from './example-site';
import { stableRequests } from '../visibility/stable-requests';

const STORED = path.resolve(__dirname, '../../lib/checks/visibility/example.json');
/** When the stored run says it ran: fixed, so regenerating without a change gives the same file. */
const EXAMPLE_CHECKED_AT = '2026-11-01T12:00:00.000Z';
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite(exampleRoutes());
});
afterAll(async () => {
  await site?.close();
});

it('the stored example visibility report is what the check answers for the example shop', async () => {
  const { report, limits } = await checkVisibility(EXAMPLE_URL, { hostMap: site.hostMap([EXAMPLE_HOST]) });
  if (process.env.UPDATE_EXAMPLES === '1') {
    // The one sampled number is pinned, so regenerating without a change gives the same file.
    report.site.ttfbMs = 42;
    report.requests = stableRequests(report.requests, 'as-run');
    fs.writeFileSync(STORED, JSON.stringify({ service: visibilityCheck.service, checkedAt: EXAMPLE_CHECKED_AT, report, limits }, null, 2) + '\n');
  }
  const stored = visibilityExample();
  // Time to first byte is one sample of a local socket; everything else must be the same, byte for byte.
  // and so is the request list's timing and the order of requests that ran at once.
  const comparable = (r: typeof report) => ({ ...r, site: { ...r.site, ttfbMs: 0 }, requests: stableRequests(r.requests) });
  expect(comparable(report)).toEqual(comparable(stored.report));
  expect(limits).toEqual(stored.limits);
  // The example shows what it is meant to show: crawlers refused, findings with fixes, a score short of full.
  expect(report.crawlers.filter((c) => !c.allowed).map((c) => c.token)).toEqual(['GPTBot', 'CCBot']);
  expect(report.findings.length).toBeGreaterThan(2);
  expect(report.score).toBeLessThan(100);
});
