// The v2 site signals end to end: fixture sites on 127.0.0.1 (through the host map) for Markdown, llms.txt
// links, sitemap listing, licensing, Content-Signal conflicts and incomplete JSON-LD, and the SSRF guard on
// llms.txt links.
import { afterEach, describe, expect, it } from 'vitest';
import { checkVisibility, type VisibilityResult } from '@/lib/checks/visibility/check';
import type { LookupFn } from '@/lib/outbound/safe-fetch';
import { startFixtureSite, type FixtureRoute, type FixtureSite } from './fixture-site';
import { goodPage, goodRoutes, httpsOnly, LLMS, text, xml } from './fixture-pages';

const HOSTS = ['site.test', 'other.test'];
const sites: FixtureSite[] = [];

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

async function run(routes: Record<string, FixtureRoute>, url = 'https://site.test/guide', lookup?: LookupFn): Promise<{ result: VisibilityResult; site: FixtureSite }> {
  const site = await startFixtureSite(routes);
  sites.push(site);
  const result = await checkVisibility(url, { hostMap: site.hostMap(HOSTS), ...(lookup ? { lookup } : {}) });
  return { result, site };
}

const finding = (r: VisibilityResult, id: string) => r.report.findings.find((f) => f.id === id);
const html = (body: string) => httpsOnly({ body });
const markdownFile = (body = '# Page\n\nText.\n') => ({ headers: { 'content-type': 'text/markdown; charset=utf-8' }, body });

describe('site.markdown', () => {
  it('is offered when the page answers Accept: text/markdown with Markdown (the fixture site does)', async () => {
    const { result } = await run(goodRoutes());
    expect(result.report.site.markdown).toEqual({ offered: true, contentType: 'text/markdown; charset=utf-8', alternate: null, matchesPage: true, page: 'this-page', home: 'generic' });
    expect(result.report.scoring.find((s) => s.id === 'agents.markdown')).toEqual({ id: 'agents.markdown', points: 2, earned: 2 });
  });

  it('is offered when the page links an alternate text/markdown copy, resolved against the page', async () => {
    const page = goodPage('https://site.test/guide').replace('<head>', '<head><link rel="alternate" type="text/markdown" href="/guide.md">');
    const { result } = await run(goodRoutes({ '/guide': html(page) }));
    expect(result.report.site.markdown).toEqual({ offered: true, contentType: 'text/html; charset=utf-8', alternate: 'https://site.test/guide.md', matchesPage: null, page: 'nothing', home: 'this-page' });
    expect(finding(result, 'markdown-not-offered')).toBeUndefined();
  });

  it('is not offered by an HTML-only page: markdown-not-offered, 2 points', async () => {
    const { result } = await run(goodRoutes({ '/guide': html(goodPage('https://site.test/guide')) }));
    expect(result.report.site.markdown).toEqual({ offered: false, contentType: 'text/html; charset=utf-8', alternate: null, matchesPage: null, page: 'nothing', home: 'this-page' });
    expect(finding(result, 'markdown-not-offered')).toMatchObject({ severity: 'low', pointsLost: 2 });
    expect(result.report.score).toBe(98);
  });

  it('a 200 text/markdown error page is not the page: markdown-not-the-page (medium), 2 points', async () => {
    const notFound = (req: { headers: { accept?: string } }) =>
      /text\/markdown/.test(req.headers.accept ?? '')
        ? markdownFile('# Not found\n\nThe page you asked for does not exist.\n')
        : { headers: { 'content-type': 'text/html; charset=utf-8' }, body: goodPage('https://site.test/guide') };
    const { result } = await run(goodRoutes({ '/guide': httpsOnly(notFound as FixtureRoute) }));
    expect(result.report.site.markdown).toEqual({ offered: false, contentType: 'text/markdown; charset=utf-8', alternate: null, matchesPage: false, page: 'generic', home: 'this-page' });
    expect(finding(result, 'markdown-not-the-page')).toMatchObject({ severity: 'medium', pointsLost: 2, rubric: 'agents.markdown' });
    expect(finding(result, 'markdown-not-offered')).toBeUndefined();
  });

  it('a Markdown copy without the title but with most of the page\'s words is the page', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
    const copy = (req: { headers: { accept?: string } }) =>
      /text\/markdown/.test(req.headers.accept ?? '')
        ? markdownFile(`# Widgets\n\n${words}\n`)
        : { headers: { 'content-type': 'text/html; charset=utf-8' }, body: goodPage('https://site.test/guide') };
    const { result } = await run(goodRoutes({ '/guide': httpsOnly(copy as FixtureRoute) }));
    expect(result.report.site.markdown).toMatchObject({ offered: true, matchesPage: true });
  });
});

describe('site.llmsTxtLinks', () => {
  const llms = '# Site\n\n> Widgets.\n\n## Docs\n\n- [Guide](https://site.test/guide.md): ok\n- [Gone](/gone.md)\n- [Soft](/soft.md)\n- [Page](/guide)\n- [Down](/down)\n- [Sixth](/sixth.md)\n';
  const routes = () =>
    goodRoutes({
      '/llms.txt': { headers: { 'content-type': 'text/markdown' }, body: llms },
      '/guide.md': markdownFile(),
      '/soft.md': { body: '<!doctype html><html><title>Home</title></html>' },
      '/down': { status: 503, body: 'busy' },
      '/sixth.md': markdownFile(),
    });

  it('checks the first 5 links: a 404, an HTML page where Markdown is promised and a 503 are broken', async () => {
    const { result, site } = await run(routes());
    expect(result.report.site.llmsTxtLinks).toEqual({
      checked: 5,
      broken: 3,
      links: [
        { url: 'https://site.test/guide.md', status: 200, outcome: 'ok' },
        { url: 'https://site.test/gone.md', status: 404, outcome: 'http-error' },
        { url: 'https://site.test/soft.md', status: 200, outcome: 'html-not-markdown' },
        { url: 'https://site.test/guide', status: 200, outcome: 'ok' },
        { url: 'https://site.test/down', status: 503, outcome: 'http-error' },
      ],
    });
    expect(site.requests).not.toContain('/sixth.md');
    expect(finding(result, 'llms-txt-broken-links')).toMatchObject({
      severity: 'low',
      rubric: 'site.llms-txt-links',
      pointsLost: 1,
      observed: '3 of 5 links checked: https://site.test/gone.md answered an error (HTTP 404); https://site.test/soft.md answered an HTML page instead of Markdown (HTTP 200); https://site.test/down answered an error (HTTP 503)',
    });
  });

  it('refuses links to private addresses and counts them broken, without ever requesting them', async () => {
    const site = await startFixtureSite({});
    sites.push(site);
    const privateLlms = `# Site\n\n> Widgets.\n\n## Docs\n\n- [Literal](http://127.0.0.1:${site.port}/secret.md)\n- [Internal](https://intranet.private.test/secret.md)\n- [Guide](https://site.test/guide)\n`;
    Object.assign(site.routes, goodRoutes({ '/llms.txt': { headers: { 'content-type': 'text/markdown' }, body: privateLlms }, '/secret.md': markdownFile('# Secret\n') }));
    const lookup: LookupFn = async (host) => (host === 'intranet.private.test' ? [{ address: '10.0.0.7', family: 4 }] : []);
    const result = await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(HOSTS), lookup });
    expect(result.report.site.llmsTxtLinks).toEqual({
      checked: 3,
      broken: 2,
      links: [
        { url: `http://127.0.0.1:${site.port}/secret.md`, status: null, outcome: 'refused' },
        { url: 'https://intranet.private.test/secret.md', status: null, outcome: 'refused' },
        { url: 'https://site.test/guide', status: 200, outcome: 'ok' },
      ],
    });
    expect(site.requests).not.toContain('/secret.md');
  });

  it('follows no link when llms.txt is an HTML page', async () => {
    const { result, site } = await run(goodRoutes({ '/llms.txt': { body: `<!doctype html><html><body>${LLMS}</body></html>` } }));
    expect(result.report.site.llmsTxtLinks).toEqual({ checked: 0, broken: 0, links: [] });
    // Ours twice (the page, the page as Markdown), the browser baseline and the 14 probed crawlers: no link.
    expect(site.log.filter((r) => r.path === '/guide' && /^PaidAgentChecks\//.test(String(r.headers['user-agent'])))).toHaveLength(2);
    expect(site.requests.filter((p) => p === '/guide')).toHaveLength(2 + 15);
  });
});

describe('site.sitemapListsPage', () => {
  it('false when the whole sitemap leaves the page out: page-not-in-sitemap', async () => {
    const { result } = await run(goodRoutes({ '/sitemap.xml': xml('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://site.test/</loc></url><url><loc>https://site.test/guide/</loc></url></urlset>') }));
    expect(result.report.site.sitemapListsPage).toBe(false);
    expect(finding(result, 'page-not-in-sitemap')).toMatchObject({
      severity: 'low',
      pointsLost: 1,
      observed: 'https://site.test/sitemap.xml has no <loc> equal to https://site.test/guide',
    });
    expect(result.report.score).toBe(99);
  });

  it('reads the first child of a sitemap index (robots.txt names the index; /sitemap.xml is missing)', async () => {
    const { result, site } = await run(
      goodRoutes({
        '/sitemap.xml': { status: 404, body: 'none' },
        '/robots.txt': text('User-agent: *\nAllow: /\n\nSitemap: https://site.test/index.xml\n'),
        '/index.xml': xml('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://site.test/maps/pages.xml</loc></sitemap><sitemap><loc>https://site.test/maps/posts.xml</loc></sitemap></sitemapindex>'),
        '/maps/pages.xml': xml('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://site.test/guide</loc></url></urlset>'),
      }),
    );
    expect(result.report.site.sitemapXml).toEqual({ url: 'https://site.test/index.xml', status: 200, isSitemap: true });
    expect(result.report.site.sitemapListsPage).toBe(true);
    expect(site.requests).toContain('/maps/pages.xml');
    expect(site.requests).not.toContain('/maps/posts.xml');
  });

  it('never requests a sitemap child at a private address: the listing is unknown', async () => {
    const site = await startFixtureSite({});
    sites.push(site);
    Object.assign(site.routes, goodRoutes({
      '/sitemap.xml': xml(`<sitemapindex><sitemap><loc>http://127.0.0.1:${site.port}/child.xml</loc></sitemap></sitemapindex>`),
      '/child.xml': xml('<urlset><url><loc>https://site.test/guide</loc></url></urlset>'),
    }));
    const result = await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(HOSTS) });
    expect(result.report.site.sitemapListsPage).toBeNull();
    expect(site.requests).not.toContain('/child.xml');
  });

  it('null when the page is not in the first of several children: unknown is not scored', async () => {
    const { result } = await run(
      goodRoutes({
        '/sitemap.xml': xml('<sitemapindex><sitemap><loc>/maps/a.xml</loc></sitemap><sitemap><loc>/maps/b.xml</loc></sitemap></sitemapindex>'),
        '/maps/a.xml': xml('<urlset><url><loc>https://site.test/other</loc></url></urlset>'),
      }),
    );
    expect(result.report.site.sitemapListsPage).toBeNull();
    expect(finding(result, 'page-not-in-sitemap')).toBeUndefined();
  });
});

describe('site.licensing', () => {
  it('reads tdmrep.json and the RSL License: line', async () => {
    const { result } = await run(
      goodRoutes({
        '/.well-known/tdmrep.json': { headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ location: '/guide', 'tdm-reservation': 1, 'tdm-policy': 'https://site.test/tdm-policy.json' }, { location: '/', 'tdm-reservation': 0 }]) },
        '/robots.txt': text('User-agent: *\nAllow: /\n\nLicense: https://site.test/license.xml\nSitemap: https://site.test/sitemap.xml\n'),
        '/license.xml': xml('<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">search,ai-input</permits><prohibits type="usage">ai-train</prohibits><payment type="free"/></license></content></rsl>'),
      }),
    );
    expect(result.report.site.licensing).toEqual({
      tdmReservation: 1,
      tdmPolicy: 'https://site.test/tdm-policy.json',
      tdmSource: 'file',
      rslLicense: 'https://site.test/license.xml',
      tdmPolicyReachable: false,
      rsl: { url: 'https://site.test/license.xml', status: 'found', valid: true, httpStatus: 200, permits: ['search', 'ai-input'], prohibits: ['ai-train'], payment: { type: 'free', amount: null, currency: null }, problem: null },
    });
    expect(finding(result, 'licensing-signals')).toMatchObject({ severity: 'info', pointsLost: 0 });
    expect(finding(result, 'tdm-policy-unreachable')).toMatchObject({ severity: 'low', pointsLost: 0, observed: 'TDMRep tdm-policy https://site.test/tdm-policy.json (from the /.well-known/tdmrep.json rule) does not answer 2xx' });
    expect(result.report.score).toBe(100);
  });

  it('the header beats the file, the meta tag beats the header', async () => {
    const tdmFile = { headers: { 'content-type': 'application/json' }, body: '[{"location":"/","tdm-reservation":0}]' };
    const headerOnly = await run(
      goodRoutes({ '/.well-known/tdmrep.json': tdmFile, '/guide': httpsOnly({ headers: [['Content-Type', 'text/html'], ['tdm-reservation', '1'], ['tdm-policy', 'https://site.test/h.json']], body: goodPage('https://site.test/guide') }) }),
    );
    expect(headerOnly.result.report.site.licensing).toMatchObject({ tdmReservation: 1, tdmPolicy: 'https://site.test/h.json', tdmSource: 'header' });
    const page = goodPage('https://site.test/guide').replace('<head>', '<head><meta name="tdm-reservation" content="0">');
    const withMeta = await run(goodRoutes({ '/.well-known/tdmrep.json': tdmFile, '/guide': httpsOnly({ headers: [['Content-Type', 'text/html'], ['tdm-reservation', '1']], body: page }) }));
    expect(withMeta.result.report.site.licensing).toEqual({ tdmReservation: 0, tdmPolicy: null, tdmSource: 'meta', rslLicense: null, tdmPolicyReachable: null, rsl: null });
  });
});

describe('site.contentUsage and content-signal-conflict', () => {
  it('search=no in the * group while search crawlers may fetch the page is a conflict', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': text('User-agent: *\nContent-Signal: search=no, ai-input=yes\nAllow: /\n\nUser-agent: GPTBot\nContent-Signal: ai-train=no\nDisallow: /\n') }));
    expect(result.report.site.contentUsage).toEqual([
      { userAgent: '*', signals: { search: 'no', 'ai-input': 'yes', 'ai-train': null }, lines: [2] },
      { userAgent: 'GPTBot', signals: { search: null, 'ai-input': null, 'ai-train': 'no' }, lines: [6] },
    ]);
    expect(result.report.site.robotsTxt.contentSignals).toEqual(['Content-Signal: search=no, ai-input=yes', 'Content-Signal: ai-train=no']);
    expect(finding(result, 'content-signal-conflict')).toMatchObject({
      severity: 'medium',
      rubric: 'signals.consistent',
      pointsLost: 2,
      observed: 'search=no (robots.txt line 2) while robots.txt allows Googlebot, Bingbot, Applebot',
    });
  });
});

describe('page.jsonLd.problems and page.textToHtmlRatio', () => {
  it('lists each incomplete entity of the six types: jsonld-incomplete', async () => {
    const blocks = [
      { '@type': 'Organization', url: 'https://site.test/' },
      { '@type': 'WebSite', name: 'Site' },
      { '@type': 'BlogPosting', headline: 'Widgets' },
      { '@type': 'Product', name: 'Widget' },
      { '@type': 'FAQPage', mainEntity: [{ '@type': 'Question', name: 'Why?' }] },
      { '@type': 'BreadcrumbList', itemListElement: [{ '@type': 'ListItem', position: 1, name: 'Home' }] },
    ];
    const page = goodPage('https://site.test/guide').replace('</head>', `${blocks.map((b) => `<script type="application/ld+json">${JSON.stringify(b)}</script>`).join('')}</head>`);
    const { result } = await run(goodRoutes({ '/guide': html(page) }));
    expect(result.report.page.jsonLd.problems).toEqual([
      { type: 'Organization', missing: ['name'] },
      { type: 'WebSite', missing: ['url'] },
      { type: 'BlogPosting', missing: ['author', 'datePublished'] },
      { type: 'Product', missing: ['one of offers, review, aggregateRating'] },
      { type: 'FAQPage', missing: ['mainEntity[0].acceptedAnswer.text'] },
      { type: 'BreadcrumbList', missing: ['itemListElement (at least two ListItems)'] },
    ]);
    const f = finding(result, 'jsonld-incomplete')!;
    expect(f).toMatchObject({ severity: 'low', rubric: 'sd.complete', pointsLost: 3 });
    expect(f.fix).toContain('Product: one of offers, review, aggregateRating');
  });

  it('reports visible text bytes over HTML bytes', async () => {
    const body = '<!doctype html><html><head><title>T</title><script>var x = "not text";</script></head><body><p>héllo   world</p></body></html>';
    const { result } = await run({ '/guide': html(body), '/robots.txt': text('User-agent: *\nAllow: /\n') });
    // "héllo world" (whitespace collapsed) is 12 UTF-8 bytes; the document is 127.
    expect(Buffer.byteLength(body)).toBe(127);
    expect(result.report.page.textToHtmlRatio).toBe(0.0945);
  });
});
