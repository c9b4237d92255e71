// Whole reports of fixture sites, compared byte for byte with the serialised copies in __snapshots__.
// They pin what a refactor of the rubric or the analysis must not change: score, scoring, findings (ids,
// order, texts), the published rubric and the free description. A deliberate change to any of them
// changes CHECK_VERSION (RUBRIC_VERSION too when the scoring changes): a report says which check made it,
// so two reports with one version must mean the same. `__snapshots__/report-versions.json` records, for
// each pair of versions, the SHA-256 of the snapshots made with it; the last test below fails when the
// snapshots differ from the ones recorded for the current versions. After a deliberate change: bump the
// version, rewrite the snapshots (`npx vitest run tests/visibility/report-snapshot.test.ts -u`) and append
// the new pair with the hash the failure prints. Earlier entries are never edited.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECK_VERSION, checkVisibility, visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { RUBRIC_VERSION, scoreReport, type ScoreInput } from '@/lib/checks/visibility/rubric';
import { goodPage, goodRoutes, httpsOnly, text, xml } from './fixture-pages';
import { startFixtureSite, type FixtureRoute, type FixtureSite } from './fixture-site';
import { stableRequests } from './stable-requests';

const HOSTS = ['site.test', 'www.site.test', 'other.test'];
const sites: FixtureSite[] = [];

afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

function weakPage(url: string): string {
  return `<!doctype html><html lang="en_XX!"><head>
<title>Widgets</title>
<meta name="description" content="${'A description that runs on and on. '.repeat(6)}">
<meta name="robots" content="max-snippet:20, noai, noarchive">
<link rel="canonical" href="https://site.test/elsewhere"><link rel="canonical" href="${url}">
<meta property="og:title" content="Widgets">
<script type="application/ld+json">{ "@type": "WebSite", </script>
<script type="application/ld+json">{ "@type": "Product" }</script>
</head><body><h1>One</h1><h1>Two</h1><p>${words(100)}</p></body></html>`;
}

const SCENARIOS: Array<{ name: string; url: string; routes: Record<string, FixtureRoute> }> = [
  {
    name: 'a well-configured site',
    url: 'https://site.test/guide',
    routes: goodRoutes(),
  },
  {
    name: 'blocked for everyone, noindex, HTML where llms.txt should be',
    url: 'https://site.test/',
    routes: {
      '/': httpsOnly({ headers: [['X-Robots-Tag', 'googlebot: nosnippet'], ['Content-Type', 'text/html']], body: goodPage('https://site.test/').replace('<head>', '<head><meta name="robots" content="noindex">') }),
      '/robots.txt': text('User-agent: *\nDisallow: /\n'),
      '/llms.txt': { body: '<!doctype html><html><title>Home</title></html>' },
      '/llms-full.txt': { body: '<!DOCTYPE html><html></html>' },
    },
  },
  {
    name: 'weak content, mixed robots groups, a sitemap only robots.txt names, http not redirected',
    url: 'https://site.test/guide',
    routes: {
      '/guide': { body: weakPage('https://site.test/guide') },
      '/': { body: 'plain over http' },
      '/robots.txt': text(
        'User-agent: Googlebot\nDisallow: /guide\n\nUser-agent: bingbot\nUser-agent: OAI-SearchBot\nDisallow: /gui\n\n' +
          'User-agent: ChatGPT-User\nUser-agent: Claude-User\nUser-agent: ClaudeBot\nDisallow: /\n\nUser-agent: *\nAllow: /\n\nSitemap: https://site.test/map.xml\n',
      ),
      '/map.xml': xml('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></sitemapindex>'),
      '/llms.txt': text('# Site\n\nNo summary, no sections.\n'),
      '/llms-full.txt': text('Full text without a title line.\n'),
    },
  },
  {
    name: 'robots.txt down, a 404 page, no site files',
    url: 'https://site.test/gone',
    routes: {
      '/gone': { status: 404, body: '<!doctype html><title>Not found</title>' },
      '/robots.txt': { status: 503, body: 'busy' },
      '/llms.txt': text('Just some text\n# Title later\n'),
    },
  },
  {
    name: 'a soft 404 after a cross-host redirect, served over http',
    url: 'https://site.test/old',
    routes: {
      '/old': { status: 301, redirect: 'http://other.test/new' },
      '/new': { body: '<html><head><title>Page not found</title></head><body><p>Sorry.</p></body></html>' },
      '/robots.txt': (req) => (req.headers.host === 'other.test' ? text('User-agent: PerplexityBot\nDisallow: /new\n') : text('User-agent: *\nDisallow: /\n')),
      '/sitemap.xml': { status: 200, body: '<html>not a sitemap</html>' },
    },
  },
  {
    name: 'not HTML, a 206, and an llms.txt without a link list',
    url: 'https://site.test/data',
    routes: {
      '/data': { status: 206, headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
      '/robots.txt': { status: 429, body: '' },
      '/llms.txt': text('# Site\n> Summary.\n## Docs\nno links here\n'),
    },
  },
];

const TOKENS = ['Googlebot', 'Bingbot', 'Applebot', 'OAI-SearchBot', 'ChatGPT-User', 'GPTBot', 'PerplexityBot', 'Claude-User'];
const base: ScoreInput = {
  finalUrl: 'https://site.test/guide',
  status: 200,
  contentType: 'text/html',
  redirects: 0,
  page: {
    title: 'A complete guide to widgets',
    titleLength: 27,
    metaDescription: 'Everything about widgets: how they work, what they cost, and how to choose one.',
    metaDescriptionLength: 80,
    canonical: 'https://site.test/guide',
    canonicalCount: 1,
    canonicalDistinct: 1,
    canonicalIsSelf: true,
    canonicalInBody: false,
    noindexMeta: false,
    noindexHeader: true,
    robots: { meta: [], header: [{ bot: null, directives: ['noindex', 'nocache'], raw: 'X-Robots-Tag: noindex, nocache' }], nosnippet: false, maxSnippet: 0, noarchive: false, nocache: true, noai: false, noimageai: true, unavailableAfter: null, unavailableAfterPassed: false },
    jsonLd: { blocks: 1, invalid: 0, types: ['Article'], keyTypes: ['Article'], problems: [] },
    openGraph: { title: true, description: false, image: false, url: false, type: false },
    lang: 'en',
    h1Count: 1,
    textLength: 3000,
    wordCount: 500,
    textToHtmlRatio: 0.25,
    truncated: false,
    headBrokenAt: null,
    incomplete: [],
  },
  headTruncated: false,
  crawlers: TOKENS.map((token) => ({ token, role: token === 'GPTBot' ? 'ai-training' : 'search', allowed: true, rule: null, group: null, line: null })),
  robots: { state: 'found', status: 200, contentSignals: [] },
  https: { finalUrlHttps: true, httpRedirectsToHttps: false },
  sitemapXml: { url: null, status: null, isSitemap: false },
  llmsTxt: { state: 'missing', level: 'error', status: null, problems: [] },
  llmsFullTxt: { state: 'found', status: 200, bytesRead: 8192, truncated: true },
  signals: {
    markdown: { offered: false, contentType: 'text/html', alternate: null, matchesPage: null },
    llmsTxtLinks: { checked: 0, broken: 0, links: [] },
    sitemapListsPage: null,
    contentSignalConflicts: [],
    licensing: { tdmReservation: null, tdmPolicy: null, tdmSource: null, rslLicense: null },
  },
};

/** Each snapshot's text as this run made it (under -u, what the file is rewritten with at the end of the run). */
const made = new Map<string, string>();
function snapshotText(file: string, text: string): string {
  made.set(file, text);
  return text;
}

/** The serialised result, with what one run samples (ttfb, the request list's times and order) fixed so the bytes compare. */
function serialise(value: unknown): string {
  return JSON.stringify(value, (key, v) => (key === 'ttfbMs' ? 0 : key === 'requests' && Array.isArray(v?.entries) ? stableRequests(v) : v), 2) + '\n';
}

describe('reports stay byte-identical', () => {
  it.each(SCENARIOS)('$name', async ({ name, url, routes }) => {
    const site = await startFixtureSite(routes);
    sites.push(site);
    const result = await checkVisibility(url, { hostMap: site.hostMap(HOSTS) });
    const file = name.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '').toLowerCase();
    await expect(snapshotText(`${file}.json`, serialise(result))).toMatchFileSnapshot(`./__snapshots__/reports/${file}.json`);
  });

  it('the free description, published rubric included', async () => {
    await expect(snapshotText('description.json', serialise(visibilityCheckDescription()))).toMatchFileSnapshot('./__snapshots__/reports/description.json');
  });

  it('scoring branches the fixture sites do not reach', async () => {
    const inputs: ScoreInput[] = [
      { ...base, robots: { state: 'unreachable', status: 200, contentSignals: [], tooComplex: { rules: 34_000, pathLength: 1_900, cost: 64_600_000 } }, crawlers: base.crawlers.map((c) => ({ ...c, allowed: false, rule: 'too complex', group: null, line: null })) },
      { ...base, robots: { state: 'unreachable', status: null, contentSignals: [] }, crawlers: base.crawlers.map((c) => ({ ...c, allowed: false, rule: 'no answer', group: null, line: null })) },
      { ...base, headTruncated: true, page: { ...base.page, truncated: true, title: null, titleLength: 0, metaDescription: '', canonicalCount: 0, canonical: null, lang: null, h1Count: 0, wordCount: 10, jsonLd: { blocks: 0, invalid: 0, types: [], keyTypes: [], problems: [] }, openGraph: { title: false, description: false, image: false, url: false, type: false } } },
      { ...base, page: { ...base.page, truncated: true, canonical: null, jsonLd: { blocks: 2, invalid: 2, types: [], keyTypes: [], problems: [] } }, status: 204, https: { finalUrlHttps: true, httpRedirectsToHttps: null }, sitemapXml: { url: 'https://site.test/sitemap.xml', status: null, isSitemap: false } },
    ];
    await expect(snapshotText('score-branches.json', serialise(inputs.map(scoreReport)))).toMatchFileSnapshot('./__snapshots__/reports/score-branches.json');
  });

  // Last in the file: it hashes the snapshots the tests above made, which are the files' contents (or, under
  // -u, what the files are being rewritten with), so a rewrite under the same versions fails in that very run.
  it('snapshots that changed come with a new CHECK_VERSION or RUBRIC_VERSION, recorded in report-versions.json', () => {
    const dir = path.join(__dirname, '__snapshots__');
    expect([...made.keys()].sort(), 'every snapshot made in this run (run the whole file)').toEqual(fs.readdirSync(path.join(dir, 'reports')).sort());
    const hash = crypto.createHash('sha256');
    for (const name of [...made.keys()].sort()) hash.update(`${name}\0${made.get(name)}\0`);
    const sha256 = hash.digest('hex');
    const { versions } = JSON.parse(fs.readFileSync(path.join(dir, 'report-versions.json'), 'utf8')) as {
      versions: Array<{ checkVersion: string; rubricVersion: string; sha256: string }>;
    };
    const pairs = versions.map((v) => `${v.checkVersion} / ${v.rubricVersion}`);
    expect(new Set(pairs).size, 'each pair of versions is recorded once').toBe(pairs.length);
    const recorded = versions.find((v) => v.checkVersion === CHECK_VERSION && v.rubricVersion === RUBRIC_VERSION);
    expect(recorded, `no entry for check ${CHECK_VERSION} / rubric ${RUBRIC_VERSION}: append one with sha256 ${sha256}`).toBeDefined();
    expect(versions.at(-1), 'the current versions are the last entry').toBe(recorded);
    expect(
      recorded!.sha256,
      `the report snapshots changed while CHECK_VERSION (${CHECK_VERSION}) and RUBRIC_VERSION (${RUBRIC_VERSION}) did not: bump CHECK_VERSION, rewrite the snapshots, and append the new versions with their sha256 (now ${sha256})`,
    ).toBe(sha256);
  });
});
