// Proof of every fetch: a visibility report lists every request the check sent, one line per redirect hop, and
// every request it chose not to send with who refused it. The fixture site's own access log is the witness.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility, type VisibilityReport } from '@/lib/checks/visibility/check';
import { PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
import { createRequestLog } from '@/lib/outbound/request-log';
import type { LookupFn } from '@/lib/outbound/safe-fetch';
import { startFixtureSite, type FixtureSite } from './fixture-site';
import { goodPage, goodRoutes } from './fixture-pages';

const LLMS = [
  '# Site',
  '',
  '> Widgets and guides.',
  '',
  '## Docs',
  '',
  '- [Guide](https://site.test/guide): the guide',
  '- [Moved](https://site.test/moved.md): moved once',
  '- [Internal](https://files.widgetcdn.net/notes.md): a name that resolves to a private address',
  '- [Local](http://localhost/admin.md): an internal name',
  '',
].join('\n');

// Only the names the fixture does not stand in for reach this resolver.
const lookup: LookupFn = async (hostname) => (hostname === 'files.widgetcdn.net' ? [{ address: '10.0.0.7', family: 4 }] : []);

let site: FixtureSite;
let report: VisibilityReport;

beforeAll(async () => {
  site = await startFixtureSite(
    goodRoutes({
      '/old': { status: 301, redirect: 'https://site.test/' },
      '/moved.md': { status: 302, redirect: 'https://site.test/guide' },
      '/llms.txt': { headers: { 'content-type': 'text/markdown' }, body: LLMS },
    }),
  );
  ({ report } = await checkVisibility('https://site.test/old', { hostMap: site.hostMap(['site.test']), lookup }));
}, 120_000);
afterAll(() => site?.close());

const sent = () => report.requests.entries.filter((e) => e.refusedBy === null);
const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe("a visibility report's request list", () => {
  it('lists exactly the requests the site received: the same paths with the same user agents, as many times each', () => {
    const listed = sent().map((e) => `${pathOf(e.url)} ${e.userAgent}`).sort();
    const received = site.log.map((r) => `${r.path} ${r.headers['user-agent']}`).sort();
    expect(listed).toEqual(received);
    expect(report.requests.omitted).toBe(0);
    // Everything listed as sent was answered: nothing on this site fails.
    expect(sent().every((e) => e.failed === null && e.status !== null)).toBe(true);
  });

  it('starts with the page, each redirect hop a line of its own pointing at the next', () => {
    const [first, second] = report.requests.entries;
    expect(first).toMatchObject({ purpose: 'the page', method: 'GET', url: 'https://site.test/old', status: 301, redirectTo: 'https://site.test/', bytes: 0, refusedBy: null });
    expect(first.userAgent).toMatch(/^PaidAgentChecks\//);
    expect(second).toMatchObject({ purpose: 'the page', url: 'https://site.test/', status: 200, redirectTo: null, contentType: 'text/html; charset=utf-8' });
    expect(second.bytes).toBe(Buffer.byteLength(goodPage('https://site.test/')));
    const moved = report.requests.entries.filter((e) => e.purpose === 'llms.txt link' && e.status !== null);
    expect(moved.map((e) => [pathOf(e.url), e.status, e.redirectTo])).toEqual(
      expect.arrayContaining([
        ['/moved.md', 302, 'https://site.test/guide'],
        ['/guide', 200, null],
      ]),
    );
  });

  it('names each request by its purpose, the access probes by the user agent they pose as', () => {
    const purposes = new Set(report.requests.entries.map((e) => e.purpose));
    for (const purpose of ['the page', 'the page as Markdown', 'robots.txt', 'sitemap.xml', 'llms.txt', 'llms-full.txt', 'tdmrep.json', 'http:// to https:// redirect', 'llms.txt link', 'probe as a browser']) {
      expect(purposes, purpose).toContain(purpose);
    }
    for (const crawler of PROBED_CRAWLERS) {
      const probe = report.requests.entries.filter((e) => e.purpose === `probe as ${crawler.token}`);
      expect(probe.map((e) => [e.url, e.userAgent]), crawler.token).toEqual([['https://site.test/', crawler.userAgent]]);
    }
  });

  it('lists the requests it would not send, with who refused them and why', () => {
    const refused = report.requests.entries.filter((e) => e.refusedBy !== null && e.purpose === 'llms.txt link');
    expect(refused.map((e) => [e.url, e.refusedBy, e.status])).toEqual(
      expect.arrayContaining([
        ['https://files.widgetcdn.net/notes.md', 'ssrf-guard', null],
        ['http://localhost/admin.md', 'url-rules', null],
      ]),
    );
    expect(refused).toHaveLength(2);
    for (const line of refused) expect(line.why?.length).toBeGreaterThan(10);
    expect(site.log.some((r) => r.path.includes('notes.md') || r.path.includes('admin.md'))).toBe(false);
  });

  it('keeps the first lines in the order they started, and counts the rest', () => {
    const log = createRequestLog(2);
    const close = ['a', 'b', 'c'].map((p) => log.start({ purpose: p, method: 'GET', url: `https://site.test/${p}`, userAgent: null }));
    // Closed out of order: the list keeps the order they started in.
    close[1]({ status: 404 });
    close[2]({ status: 200 });
    close[0]({ status: 200, bytes: 10 });
    const list = log.list();
    expect(list.entries.map((e) => [e.purpose, e.status, e.bytes])).toEqual([
      ['a', 200, 10],
      ['b', 404, 0],
    ]);
    expect(list.omitted).toBe(1);
  });
});
