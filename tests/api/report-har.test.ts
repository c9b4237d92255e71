// GET /api/reports/<id>/har: a stored visibility report's request list as a HAR 1.2 file, to whoever may read the
// report and to no one else. The file is checked against the HAR 1.2 schema (har-validator) and against the
// report's own list, entry for entry. In-process route handlers on a real SQLite store, paid with credits keys.
import type { Har } from 'har-format';
import { har as validateHar } from 'har-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as reportRoute } from '@/app/api/reports/[id]/route';
import { GET as harRoute } from '@/app/api/reports/[id]/har/route';
import { createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import type { RequestList } from '@/lib/outbound/request-log';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { goodRoutes } from '../visibility/fixture-pages';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST: visibility } = agentCheckRoute('ai-visibility');
const { POST: readiness } = agentCheckRoute('readiness');
const BASE = 'http://localhost:3000';

let rt: TestRuntime;
let site: FixtureSite;
let a: { key: string };
let b: { key: string };
let visibilityId: string;
let readinessId: string;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const idFromLink = (res: Response) => /^<\/api\/reports\/(rep_[A-Za-z0-9_-]{32})>; rel="related"$/.exec(res.headers.get('link') ?? '')?.[1] ?? 'no-link';
const context = (id: string) => ({ params: Promise.resolve({ id }) });
const getHar = (id: string, headers: Record<string, string> = {}) => harRoute(new Request(`${BASE}/api/reports/${id}/har`, { headers }), context(id));
const getReport = (id: string, headers: Record<string, string> = {}) => reportRoute(new Request(`${BASE}/api/reports/${id}`, { headers }), context(id));

beforeAll(async () => {
  site = await startFixtureSite(goodRoutes({ '/old': { status: 301, redirect: 'https://site.test/' } }));
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  rt = installTestRuntime();
  a = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  b = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  const checked = await visibility(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/old' }, { ...bearer(a.key), 'idempotency-key': 'har-visibility-1' }));
  expect(checked.status).toBe(200);
  visibilityId = idFromLink(checked);
  const planned = await readiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { ...bearer(a.key), 'idempotency-key': 'har-readiness-1' }));
  expect(planned.status).toBe(200);
  readinessId = idFromLink(planned);
}, 120_000);
afterAll(async () => {
  delete process.env.CHECK_HOST_MAP;
  await rt?.dispose();
  await site?.close();
});

describe('GET /api/reports/<id>/har', () => {
  it('is a valid HAR 1.2 download with one entry per request of the report, in the same order, with the same addresses and statuses', async () => {
    const res = await getHar(visibilityId, bearer(a.key));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${visibilityId}.har"`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const har = (await res.json()) as Har;
    // har-validator resolves with the file it was given, or rejects listing what breaks the schema.
    await expect(validateHar(har)).resolves.toEqual(har);

    const stored = (await (await getReport(visibilityId, bearer(a.key))).json()) as { report: { checkVersion: string; requests: RequestList } };
    const lines = stored.report.requests.entries;
    expect(lines.length).toBe(site.log.length);
    expect(har.log.version).toBe('1.2');
    expect(har.log.creator).toEqual({ name: 'Paid Agent Checks (ai-visibility)', version: stored.report.checkVersion });
    expect(har.log.pages).toEqual([{ id: visibilityId, title: 'ai-visibility check of https://site.test/', startedDateTime: lines[0].startedAt, pageTimings: {} }]);
    expect(har.log.entries.map((e) => [e.request.method, e.request.url, e.response.status, e.response.redirectURL, e.pageref, e.startedDateTime, e.time])).toEqual(
      lines.map((l) => [l.method, l.url, l.status ?? 0, l.redirectTo ?? '', visibilityId, l.startedAt, l.ms]),
    );
    // The first hop is the redirect the page answered, with its Location; the next entry follows it.
    const [hop, page] = har.log.entries;
    expect(hop.response).toMatchObject({ status: 301, statusText: 'Moved Permanently', redirectURL: 'https://site.test/', headers: [{ name: 'Content-Type', value: 'text/html; charset=utf-8' }, { name: 'Location', value: 'https://site.test/' }] });
    expect(page.request.url).toBe('https://site.test/');
    expect(page.response.content).toEqual({ size: lines[1].bytes, mimeType: 'text/html; charset=utf-8' });
    expect(page.request.headers).toEqual([{ name: 'User-Agent', value: lines[1].userAgent }]);
  });

  it("answers another key's report, an unknown id and a reader with no key exactly as the report route does", async () => {
    for (const [id, headers] of [
      [visibilityId, bearer(b.key)],
      ['rep_' + 'x'.repeat(32), bearer(a.key)],
      ['not-an-id', bearer(a.key)],
    ] as const) {
      const [har, report] = await Promise.all([getHar(id, headers), getReport(id, headers)]);
      expect(har.status).toBe(404);
      expect(har.headers.get('content-type')).toBe('application/problem+json');
      expect(await har.json()).toEqual(await report.json());
    }
    const [har, report] = await Promise.all([getHar(visibilityId), getReport(visibilityId)]);
    expect([har.status, report.status]).toEqual([401, 401]);
    const [harProblem, reportProblem] = (await Promise.all([har.json(), report.json()])) as Array<{ type: string; detail: string }>;
    expect(harProblem.type).toBe(`${PROBLEM_BASE}not-signed-in`);
    expect(harProblem.detail).toBe(reportProblem.detail);
  });

  it('answers a report without a request list (another check) with a 404 that says why', async () => {
    const res = await getHar(readinessId, bearer(a.key));
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await res.json()) as { type: string; detail: string };
    expect(problem.type).toBe(`${PROBLEM_BASE}not-found`);
    expect(problem.detail).toBe(
      'This report has no request list to export: only AI Visibility reports from check version 4 on list the requests they sent. Run the check again for one that does.',
    );
  });
});
