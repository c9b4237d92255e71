import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { checkVisibility, visibilityCheckDescription, type VisibilityResult } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { RUBRIC, RUBRIC_VERSION, BLOCKING_SCORE_CAP, VISIBILITY_LIMITS } from '@/lib/checks/visibility/rubric';
import { ProblemError } from '@/lib/problems';
import { visibilityProblem } from '@/lib/checks/visibility/entry';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';
import { goodPage, goodRoutes, httpsOnly, text, xml } from './fixture-pages';
import { stableRequests } from './stable-requests';

const HOSTS = ['site.test', 'www.site.test'];
const sites: FixtureSite[] = [];

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

async function run(routes: Record<string, FixtureRoute>, url = 'https://site.test/guide', budgetMs?: number): Promise<{ result: VisibilityResult; site: FixtureSite }> {
  const site = await startFixtureSite(routes);
  sites.push(site);
  const result = await checkVisibility(url, { hostMap: site.hostMap(HOSTS), ...(budgetMs ? { budgetMs } : {}) });
  return { result, site };
}

/** The check's failure as the edge answers it (lib/checks/visibility/entry.ts visibilityProblem). */
async function problemOf(promise: Promise<unknown>): Promise<ProblemError> {
  try {
    await promise;
  } catch (err) {
    const mapped = visibilityProblem(err);
    if (mapped instanceof ProblemError) return mapped;
    throw err;
  }
  throw new Error('expected a ProblemError');
}

describe('checkVisibility: a well-configured site', () => {
  it('assembles every member of the published report', async () => {
    const { result } = await run(goodRoutes());
    const r = result.report;
    expect(r.checkVersion).toBe('4.0.0');
    expect(r.checkedUrl).toBe('https://site.test/guide');
    expect(r.status).toBe(200);
    expect(r.robotsTxt).toBe('found');
    expect(r.llmsTxt).toBe('found');
    expect(r.scoreMax).toBe(100);
    expect(r.rubricVersion).toBe(RUBRIC_VERSION);
    expect(r.rubric).toEqual(RUBRIC);
    expect(r.scoring.map((s) => s.id)).toEqual(RUBRIC.map((i) => i.id));
    expect(r.score).toBe(100);
    expect(r.findings.filter((f) => f.pointsLost > 0)).toEqual([]);
    expect(result.limits).toEqual([...VISIBILITY_LIMITS]);
  });

  it('fills the page object from the served HTML', async () => {
    const { result } = await run(goodRoutes());
    const p = result.report.page;
    expect(p).toMatchObject({
      title: 'The complete guide to widgets',
      titleLength: 29,
      canonical: 'https://site.test/guide',
      canonicalCount: 1,
      canonicalIsSelf: true,
      noindexMeta: false,
      noindexHeader: false,
      lang: 'en',
      h1Count: 1,
      wordCount: 301,
      truncated: false,
    });
    expect(p.metaDescriptionLength).toBe(p.metaDescription!.length);
    expect(p.jsonLd).toEqual({ blocks: 1, invalid: 0, types: ['Article', 'Organization', 'Person'], keyTypes: ['Organization', 'Article'], problems: [] });
    expect(p.openGraph).toEqual({ title: true, description: true, image: true, url: true, type: true });
  });

  it('fills the site object', async () => {
    const { result } = await run(goodRoutes());
    const s = result.report.site;
    expect(s.requestedUrl).toBe('https://site.test/guide');
    expect(s.redirects).toEqual([]);
    expect(s.https).toEqual({ finalUrlHttps: true, httpRedirectsToHttps: true });
    expect(Number.isInteger(s.ttfbMs) && s.ttfbMs >= 0).toBe(true);
    expect(s.robotsTxt).toEqual({
      state: 'found',
      status: 200,
      sitemaps: ['https://site.test/sitemap.xml'],
      contentSignals: ['Content-Signal: ai-train=no, search=yes'],
      ignoredLines: [],
    });
    expect(s.sitemapXml).toEqual({ url: 'https://site.test/sitemap.xml', status: 200, isSitemap: true });
    expect(s.llmsTxt).toBe('found');
    expect(s.llmsFullTxt).toBe('found');
    // '/' sends the guide's own Markdown too (the fixture negotiates the same copy everywhere): generic there.
    expect(s.markdown).toEqual({ offered: true, contentType: 'text/markdown; charset=utf-8', alternate: null, matchesPage: true, page: 'this-page', home: 'generic' });
    expect(s.siteFiles).toEqual({
      notFoundProbe: { status: 404, catchAll: false },
      robotsTxt: { state: 'found', status: 200 },
      sitemap: { state: 'found', status: 200 },
      llmsTxt: { state: 'found', status: 200 },
      llmsFullTxt: { state: 'found', status: 200 },
    });
    expect(s.llmsTxtLinks).toEqual({ checked: 1, broken: 0, links: [{ url: 'https://site.test/guide', status: 200, outcome: 'ok' }] });
    expect(s.sitemapListsPage).toBe(true);
    expect(s.contentUsage).toEqual([{ userAgent: 'GPTBot', signals: { search: 'yes', 'ai-input': null, 'ai-train': 'no' }, lines: [6] }]);
    expect(s.licensing).toEqual({ tdmReservation: null, tdmPolicy: null, tdmSource: null, rslLicense: null, tdmPolicyReachable: null, rsl: null });
  });

  it('reports the 16 crawlers in table order with the deciding rule and group', async () => {
    const { result } = await run(goodRoutes());
    const crawlers = result.report.crawlers;
    expect(crawlers).toHaveLength(16);
    expect(crawlers.map((c) => c.token)).toEqual(CRAWLERS.map((c) => c.token));
    for (const c of crawlers) {
      expect(Object.keys(c)).toEqual(expect.arrayContaining(['token', 'vendor', 'purpose', 'source', 'allowed', 'rule']));
      expect(['search', 'ai-answers', 'ai-training']).toContain(c.role);
    }
    expect(crawlers.find((c) => c.token === 'GPTBot')).toMatchObject({ allowed: false, rule: 'Disallow: /', group: 'GPTBot' });
    expect(crawlers.find((c) => c.token === 'Googlebot')).toMatchObject({ allowed: true, rule: 'Allow: /', group: '*' });
    expect(result.report.findings.find((f) => f.id === 'training-crawlers-blocked')!.observed).toContain('line 5');
  });

  it('asks for each site file once, the page once plus once per access probe, and nothing else', async () => {
    const { site } = await run(goodRoutes());
    // '/' three times: the http://site.test/ probe, the https address it redirects to, and '/' asked for as
    // Markdown. '/guide' 18 times: the page, the page asked for as Markdown, the one link of llms.txt, the
    // browser baseline and the 14 crawlers that send requests. One random path that cannot exist.
    const guide = Array<string>(18).fill('/guide');
    const notFound = site.requests.filter((p) => /^\/agent-visibility-check-not-found-[0-9a-f]{16}$/.test(p));
    expect(notFound).toHaveLength(1);
    expect([...site.requests].sort()).toEqual(
      [
        '/', '/', '/', ...guide, notFound[0], '/.well-known/tdmrep.json', '/llms-full.txt', '/llms.txt', '/robots.txt', '/sitemap.xml',
        '/.well-known/api-catalog', '/.well-known/mcp/server-card', '/.well-known/agent-card.json', '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource', '/.well-known/http-message-signatures-directory', '/.well-known/agent-skills/index.json',
        '/.well-known/ai-catalog.json',
      ].sort(),
    );
    expect(site.log.filter((r) => r.path === '/guide').map((r) => r.headers.accept)).toEqual(
      expect.arrayContaining(['text/markdown', 'text/markdown,text/plain;q=0.9,text/html;q=0.8,*/*;q=0.5']),
    );
  });
});

describe('checkVisibility: robots.txt states', () => {
  it('a 404 robots.txt is "missing" and allows every crawler', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': { status: 404, body: 'nope' } }));
    expect(result.report.robotsTxt).toBe('missing');
    expect(result.report.site.robotsTxt).toEqual({ state: 'missing', status: 404, sitemaps: [], contentSignals: [], ignoredLines: [] });
    expect(result.report.crawlers.every((c) => c.allowed)).toBe(true);
    expect(result.report.score).toBe(100);
  });

  it('a 503 robots.txt is "unreachable", disallows every crawler and caps the score', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': { status: 503, body: 'down' } }));
    const r = result.report;
    expect(r.robotsTxt).toBe('unreachable');
    expect(r.site.robotsTxt.status).toBe(503);
    expect(r.crawlers.every((c) => !c.allowed)).toBe(true);
    expect(r.score).toBe(BLOCKING_SCORE_CAP);
    expect(r.findings[0]).toMatchObject({ id: 'search-crawlers-blocked', severity: 'critical' });
    expect(r.findings.map((f) => f.id)).toContain('robots-unreachable');
  });

  it('Applebot follows the Googlebot group when no group names it', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': text('User-agent: Googlebot\nDisallow: /guide\n\nUser-agent: *\nAllow: /\n') }));
    const c = result.report.crawlers;
    expect(c.find((x) => x.token === 'Applebot')).toMatchObject({ allowed: false, group: 'Googlebot', fallback: 'Googlebot' });
    expect(c.find((x) => x.token === 'Bingbot')).toMatchObject({ allowed: true });
    expect(result.report.score).toBe(BLOCKING_SCORE_CAP);
    expect(result.report.findings[0].observed).toContain('Googlebot: "Disallow: /guide" (robots.txt line 2');
  });

  it('falls back to the first Sitemap: of robots.txt when /sitemap.xml is not a sitemap', async () => {
    const { result } = await run(
      goodRoutes({
        '/sitemap.xml': { status: 404, body: '' },
        '/robots.txt': text('User-agent: *\nAllow: /\nSitemap: https://site.test/maps/index.xml\n'),
        '/maps/index.xml': xml('<?xml version="1.0"?><!-- generated --><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>'),
      }),
    );
    expect(result.report.site.sitemapXml).toEqual({ url: 'https://site.test/maps/index.xml', status: 200, isSitemap: true });
  });

  it('an HTML page at /sitemap.xml is not a sitemap', async () => {
    const { result } = await run(goodRoutes({ '/sitemap.xml': { body: '<html><body>Home</body></html>' }, '/robots.txt': text('User-agent: *\nAllow: /\n') }));
    expect(result.report.site.sitemapXml).toMatchObject({ status: 200, isSitemap: false });
    expect(result.report.findings.map((f) => f.id)).toContain('sitemap-missing');
  });
});

describe('checkVisibility: llms.txt', () => {
  it('a soft-404 HTML page at /llms.txt and /llms-full.txt counts as missing', async () => {
    const soft = { body: '<!doctype html><html><body>Home page</body></html>' };
    const { result } = await run(goodRoutes({ '/llms.txt': soft, '/llms-full.txt': soft }));
    expect(result.report.llmsTxt).toBe('missing');
    expect(result.report.site.llmsTxt).toBe('missing');
    expect(result.report.site.llmsFullTxt).toBe('missing');
    expect(result.report.scoring.find((s) => s.id === 'site.llms-txt')!.earned).toBe(0);
  });
});

describe('checkVisibility: https and redirects', () => {
  it('records http -> https of the site root as false when http is served as is', async () => {
    const { result } = await run(goodRoutes({ '/': { body: 'plain http home' } }));
    expect(result.report.site.https).toEqual({ finalUrlHttps: true, httpRedirectsToHttps: false });
    expect(result.report.findings.map((f) => f.id)).toContain('http-not-redirected');
  });

  it('follows redirects and reports the chain, the final address and its status', async () => {
    const { result } = await run(goodRoutes({ '/old': { status: 301, redirect: '/guide' } }), 'https://site.test/old');
    const r = result.report;
    expect(r.checkedUrl).toBe('https://site.test/guide');
    expect(r.site.requestedUrl).toBe('https://site.test/old');
    expect(r.site.redirects).toEqual([{ url: 'https://site.test/old', status: 301 }]);
    expect(r.page.canonicalIsSelf).toBe(true);
  });

  it('an http address that redirects to https is reported as such', async () => {
    const { result } = await run(goodRoutes(), 'http://site.test/guide');
    const r = result.report;
    expect(r.checkedUrl).toBe('https://site.test/guide');
    expect(r.site.redirects).toEqual([{ url: 'http://site.test/guide', status: 301 }]);
    expect(r.site.https).toEqual({ finalUrlHttps: true, httpRedirectsToHttps: true });
  });

  it('reads robots.txt of the host that answered after a cross-host redirect', async () => {
    const byHost = (forWww: FixtureResponse, forApex: FixtureResponse): FixtureRoute => (req) => (req.headers.host === 'www.site.test' ? forWww : forApex);
    const { result } = await run(
      goodRoutes({
        '/guide': httpsOnly((req) => (req.headers.host === 'www.site.test' ? { body: goodPage('https://www.site.test/guide') } : { status: 301, redirect: 'https://www.site.test/guide' })),
        '/robots.txt': byHost(text('User-agent: OAI-SearchBot\nDisallow: /guide\n'), text('User-agent: *\nAllow: /\n')),
      }),
    );
    const r = result.report;
    expect(r.checkedUrl).toBe('https://www.site.test/guide');
    expect(r.crawlers.find((c) => c.token === 'OAI-SearchBot')).toMatchObject({ allowed: false, rule: 'Disallow: /guide' });
  });

  it('still reports a page that answers 404, with the score capped', async () => {
    const { result } = await run(goodRoutes({ '/missing': { status: 404, body: '<html><head><title>Oops</title></head><body>Gone</body></html>' } }), 'https://site.test/missing');
    expect(result.report.status).toBe(404);
    expect(result.report.score).toBeLessThanOrEqual(BLOCKING_SCORE_CAP);
    expect(result.report.findings[0]).toMatchObject({ id: 'page-status', severity: 'critical' });
  });
});

describe('checkVisibility: noindex from real response headers', () => {
  it('keeps repeated X-Robots-Tag lines apart and records the bot', async () => {
    const page = (req: IncomingMessage): FixtureResponse => ({
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['X-Robots-Tag', 'googlebot: noindex'],
        ['X-Robots-Tag', 'noarchive'],
      ],
      body: goodPage(`https://site.test${req.url}`),
    });
    const { result } = await run(goodRoutes({ '/guide': httpsOnly(page) }));
    const p = result.report.page;
    expect(p.noindexHeader).toBe(true);
    expect(p.robots.header).toEqual([
      { bot: 'googlebot', directives: ['noindex'], raw: 'X-Robots-Tag: googlebot: noindex' },
      { bot: null, directives: ['noarchive'], raw: 'X-Robots-Tag: noarchive' },
    ]);
    expect(result.report.score).toBe(BLOCKING_SCORE_CAP);
    expect(result.report.findings[0]).toMatchObject({ id: 'noindex', observed: 'X-Robots-Tag: googlebot: noindex' });
  });
});

describe('checkVisibility: failures', () => {
  it('refuses a bad address with invalid-url (400) before any request', async () => {
    for (const input of ['http://10.0.0.1/', 'ftp://site.test/', 'https://site.test:8443/', '']) {
      const p = await problemOf(checkVisibility(input, { hostMap: 'site.test=127.0.0.1:9' }));
      expect(p.problem.status).toBe(400);
      expect(p.problem.type).toMatch(/invalid-url$/);
    }
  });

  it('a page whose connection is reset is site-unreachable (422)', async () => {
    const site = await startFixtureSite(goodRoutes({ '/guide': { reset: true } }));
    sites.push(site);
    const p = await problemOf(checkVisibility('https://site.test/guide', { hostMap: site.hostMap(HOSTS) }));
    expect(p.problem.status).toBe(422);
    expect(p.problem.type).toMatch(/site-unreachable$/);
    expect(p.problem.detail).not.toMatch(/127\.0\.0\.1|ECONN|undici/);
  });

  it('a page that never answers within the budget is site-unreachable', async () => {
    const site = await startFixtureSite(goodRoutes({ '/guide': { hang: true } }));
    sites.push(site);
    const p = await problemOf(checkVisibility('https://site.test/guide', { hostMap: site.hostMap(HOSTS), budgetMs: 300 }));
    expect(p.problem.type).toMatch(/site-unreachable$/);
  });

  it('site files still pending when the budget runs out count as unreachable, and the page is still analysed', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': { hang: true } }), 'https://site.test/guide', 500);
    expect(result.report.robotsTxt).toBe('unreachable');
    expect(result.report.site.robotsTxt).toMatchObject({ state: 'unreachable', status: null });
    expect(result.report.page.title).toBe('The complete guide to widgets');
  });

  it('a host that resolves to a private address is site-unreachable', async () => {
    const p = await problemOf(checkVisibility('https://intranet-app.com/', { hostMap: '', lookup: async () => [{ address: '10.1.2.3', family: 4 }] }));
    expect(p.problem.type).toMatch(/site-unreachable$/);
  });
});

describe('checkVisibility: determinism', () => {
  it('gives the same report twice apart from ttfbMs and the request list\'s times, random path and start order', async () => {
    const routes = goodRoutes({
      '/robots.txt': text('User-agent: *\nDisallow: /private\n\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n'),
      '/llms.txt': { status: 404, body: '' },
      '/': { body: 'http home' },
    });
    const site = await startFixtureSite(routes);
    sites.push(site);
    const once = async () => {
      const { report, limits } = await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(HOSTS) });
      return JSON.stringify({ report: { ...report, site: { ...report.site, ttfbMs: 0 }, requests: stableRequests(report.requests) }, limits });
    };
    const a = await once();
    const b = await once();
    expect(b).toBe(a);
    expect(a).toContain('"http-not-redirected"');
  });
});

describe('visibilityCheckDescription', () => {
  it('describes crawlers, rubric, scoring rule and limits', () => {
    const d = visibilityCheckDescription();
    expect(d.crawlers).toHaveLength(16);
    expect(d.crawlers[2]).toMatchObject({ token: 'Applebot', fallback: 'Googlebot' });
    expect(d.rubric).toEqual(RUBRIC);
    expect(d.rubricVersion).toBe(RUBRIC_VERSION);
    expect(d.checkVersion).toBe('4.0.0');
    expect(d.scoringRule).toContain(String(BLOCKING_SCORE_CAP));
    expect(d.limits).toEqual([...VISIBILITY_LIMITS]);
  });
});
