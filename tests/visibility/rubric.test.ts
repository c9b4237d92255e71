import { describe, expect, it } from 'vitest';
import { severityFor, SEVERITY_RULE } from '@/lib/checks/severity';
import { visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { RUBRIC_CHANGE_GROUPS_3, RUBRIC_CHANGES, RUBRIC_CHANGES_2, RUBRIC_CHANGES_3, RUBRIC_CHANGES_4 } from '@/lib/checks/visibility/rubric-changes';
import type { AccessOutcome, CrawlerAccess } from '@/lib/checks/visibility/access-types';
import type { PageFacts } from '@/lib/checks/visibility/extract';
import {
  assessLlmsTxt,
  BLOCKING_SCORE_CAP,
  RUBRIC,
  RUBRIC_VERSION,
  scoreReport,
  SEVERITY_ORDER,
  VISIBILITY_LIMITS,
  type ScoreInput,
  type ScoredCrawler,
  type ScoredSignals,
} from '@/lib/checks/visibility/rubric';

const URL_ = 'https://www.example.com/guide';

const TOKENS: Array<[string, string]> = [
  ['Googlebot', 'search'], ['Bingbot', 'search'], ['Applebot', 'search'],
  ['OAI-SearchBot', 'ai-answers'], ['ChatGPT-User', 'ai-answers'], ['GPTBot', 'ai-training'],
  ['Claude-SearchBot', 'ai-answers'], ['Claude-User', 'ai-answers'], ['ClaudeBot', 'ai-training'],
  ['PerplexityBot', 'ai-answers'], ['Perplexity-User', 'ai-answers'], ['Google-Extended', 'ai-training'],
  ['Applebot-Extended', 'ai-training'], ['CCBot', 'ai-training'], ['Meta-ExternalAgent', 'ai-training'],
];

function crawlers(blocked: string[] = [], rule = 'Disallow: /', line = 3): ScoredCrawler[] {
  return TOKENS.map(([token, role]) =>
    blocked.includes(token)
      ? { token, role, allowed: false, rule, group: '*', line }
      : { token, role, allowed: true, rule: null, group: null, line: null },
  );
}

/** Every crawler allowed by robots.txt and probed `ok`, except the refusals given (and the robots.txt blocks). */
function probed(refusals: Record<string, CrawlerAccess>, blocked: string[] = []): ScoredCrawler[] {
  return crawlers(blocked).map((c) => ({ ...c, access: refusals[c.token] ?? { outcome: 'ok', status: 200, userAgent: `${c.token}/1.0` } }));
}

function refusal(outcome: AccessOutcome, status: number | null): CrawlerAccess {
  return { outcome, status, userAgent: 'Mozilla/5.0 (compatible; probe)' };
}

function page(overrides: Partial<PageFacts> = {}): PageFacts {
  return {
    title: 'A complete guide to widgets',
    titleLength: 27,
    metaDescription: 'Everything about widgets: how they work, what they cost, and how to choose one.',
    metaDescriptionLength: 80,
    canonical: URL_,
    canonicalCount: 1,
    canonicalDistinct: 1,
    canonicalIsSelf: true,
    canonicalInBody: false,
    noindexMeta: false,
    noindexHeader: false,
    robots: { meta: [], header: [], nosnippet: false, maxSnippet: -1, noarchive: false, nocache: false, noai: false, noimageai: false, unavailableAfter: null, unavailableAfterPassed: false },
    jsonLd: { blocks: 1, invalid: 0, types: ['Article', 'Organization'], keyTypes: ['Organization', 'Article'], problems: [] },
    openGraph: { title: true, description: true, image: true, url: true, type: true },
    lang: 'en',
    h1Count: 1,
    textLength: 3000,
    wordCount: 500,
    textToHtmlRatio: 0.25,
    truncated: false,
    headBrokenAt: null,
    incomplete: [],
    ...overrides,
  };
}

function signals(overrides: Partial<ScoredSignals> = {}): ScoredSignals {
  return {
    markdown: { offered: true, contentType: 'text/markdown; charset=utf-8', alternate: null, matchesPage: true },
    llmsTxtLinks: { checked: 1, broken: 0, links: [{ url: 'https://www.example.com/guide.md', status: 200, outcome: 'ok' }] },
    sitemapListsPage: true,
    contentSignalConflicts: [],
    licensing: { tdmReservation: null, tdmPolicy: null, tdmSource: null, rslLicense: null },
    ...overrides,
  };
}

function input(overrides: Partial<ScoreInput> = {}): ScoreInput {
  return {
    finalUrl: URL_,
    status: 200,
    contentType: 'text/html; charset=utf-8',
    redirects: 0,
    page: page(),
    headTruncated: false,
    crawlers: crawlers(),
    robots: { state: 'found', status: 200, contentSignals: [] },
    https: { finalUrlHttps: true, httpRedirectsToHttps: true },
    sitemapXml: { url: 'https://www.example.com/sitemap.xml', status: 200, isSitemap: true },
    llmsTxt: { state: 'found', level: 'valid', status: 200, problems: [] },
    llmsFullTxt: { state: 'missing', status: 404, bytesRead: 0, truncated: false },
    signals: signals(),
    ...overrides,
  };
}

function earned(result: ReturnType<typeof scoreReport>, id: string): number {
  const line = result.scoring.find((s) => s.id === id);
  if (!line) throw new Error(`no scoring line ${id}`);
  return line.earned;
}

describe('the published rubric', () => {
  it('adds up to 100 points with unique ids, each with a category and criterion', () => {
    expect(RUBRIC.reduce((sum, item) => sum + item.points, 0)).toBe(100);
    expect(new Set(RUBRIC.map((i) => i.id)).size).toBe(RUBRIC.length);
    for (const item of RUBRIC) {
      expect(Number.isInteger(item.points) && item.points > 0).toBe(true);
      expect(item.category.length).toBeGreaterThan(0);
      expect(item.criterion.length).toBeGreaterThan(20);
    }
    expect(RUBRIC_VERSION).toBe('4.0.0');
  });

  it('lists what a fetch-only check cannot see', () => {
    const text = VISIBILITY_LIMITS.join(' ');
    for (const topic of ['JavaScript', 'CDN', 'user agent', 'indexed', 'robots.txt', '2 MiB']) expect(text).toContain(topic);
  });

  it('gives a perfect site 100 with no findings that cost points', () => {
    const r = scoreReport(input());
    expect(r.score).toBe(100);
    expect(r.scoring.map((s) => s.id)).toEqual(RUBRIC.map((i) => i.id));
    expect(r.findings.filter((f) => f.pointsLost > 0)).toEqual([]);
  });
});

interface Case {
  name: string;
  item: string;
  input: ScoreInput;
  earned: number;
  finding: string;
  severity: string;
  observed?: string;
  /** Items that lose points as a consequence (no JSON-LD also means no key types). */
  alsoLoses?: string[];
}

const CASES: Case[] = [
  { name: 'page 404', item: 'fetch.ok', input: input({ status: 404 }), earned: 0, finding: 'page-status', severity: 'critical', observed: 'answered 404' },
  { name: 'page 204', item: 'fetch.ok', input: input({ status: 204 }), earned: 0, finding: 'page-status', severity: 'high' },
  { name: 'not html', item: 'fetch.ok', input: input({ contentType: 'application/pdf' }), earned: 0, finding: 'page-not-html', severity: 'high', observed: 'Content-Type: application/pdf' },
  { name: 'soft 404', item: 'fetch.ok', input: input({ page: page({ title: 'Page not found', titleLength: 14 }) }), earned: 0, finding: 'soft-404', severity: 'high', observed: '<title>Page not found</title>' },
  { name: 'Googlebot blocked', item: 'crawl.search-allowed', input: input({ crawlers: crawlers(['Googlebot']) }), earned: 6, finding: 'search-crawlers-blocked', severity: 'critical', observed: 'Googlebot: "Disallow: /" (robots.txt line 3' },
  { name: 'Bingbot blocked', item: 'crawl.search-allowed', input: input({ crawlers: crawlers(['Bingbot']) }), earned: 8, finding: 'search-crawlers-blocked', severity: 'high' },
  { name: 'Applebot blocked', item: 'crawl.search-allowed', input: input({ crawlers: crawlers(['Applebot']) }), earned: 10, finding: 'search-crawlers-blocked', severity: 'medium' },
  { name: 'all search blocked', item: 'crawl.search-allowed', input: input({ crawlers: crawlers(['Googlebot', 'Bingbot', 'Applebot']) }), earned: 0, finding: 'search-crawlers-blocked', severity: 'critical' },
  { name: 'one AI answer bot blocked', item: 'crawl.ai-answers-allowed', input: input({ crawlers: crawlers(['PerplexityBot']) }), earned: 8, finding: 'ai-answer-crawlers-blocked', severity: 'high', observed: 'PerplexityBot' },
  { name: 'two AI answer bots blocked', item: 'crawl.ai-answers-allowed', input: input({ crawlers: crawlers(['PerplexityBot', 'OAI-SearchBot']) }), earned: 4, finding: 'ai-answer-crawlers-blocked', severity: 'high' },
  { name: 'robots 503', item: 'robots.state', input: input({ robots: { state: 'unreachable', status: 503, contentSignals: [] } }), earned: 0, finding: 'robots-unreachable', severity: 'high', observed: 'answered 503' },
  {
    name: 'noindex meta', item: 'index.noindex',
    input: input({ page: page({ noindexMeta: true, robots: { ...page().robots, meta: [{ bot: null, directives: ['noindex'], raw: '<meta name="robots" content="noindex">' }] } }) }),
    earned: 0, finding: 'noindex', severity: 'critical', observed: '<meta name="robots" content="noindex">',
  },
  {
    name: 'noindex header for googlebot', item: 'index.noindex',
    input: input({ page: page({ noindexHeader: true, robots: { ...page().robots, header: [{ bot: 'googlebot', directives: ['noindex'], raw: 'X-Robots-Tag: googlebot: noindex' }] } }) }),
    earned: 0, finding: 'noindex', severity: 'critical', observed: 'X-Robots-Tag: googlebot: noindex',
  },
  {
    name: 'nosnippet', item: 'index.snippet',
    input: input({ page: page({ robots: { ...page().robots, nosnippet: true, meta: [{ bot: null, directives: ['nosnippet'], raw: '<meta name="robots" content="nosnippet">' }] } }) }),
    earned: 0, finding: 'snippet-restricted', severity: 'high', observed: '<meta name="robots" content="nosnippet">',
  },
  {
    name: 'max-snippet 20', item: 'index.snippet',
    input: input({ page: page({ robots: { ...page().robots, maxSnippet: 20, header: [{ bot: null, directives: ['max-snippet:20'], raw: 'X-Robots-Tag: max-snippet: 20' }] } }) }),
    earned: 2, finding: 'snippet-restricted', severity: 'medium', observed: 'X-Robots-Tag: max-snippet: 20',
  },
  { name: 'canonical missing', item: 'canonical.valid', input: input({ page: page({ canonical: null, canonicalCount: 0, canonicalIsSelf: false }) }), earned: 0, finding: 'canonical-missing', severity: 'low' },
  { name: 'canonical multiple', item: 'canonical.valid', input: input({ page: page({ canonicalCount: 2, canonicalDistinct: 2 }) }), earned: 0, finding: 'canonical-multiple', severity: 'medium' },
  { name: 'canonical invalid', item: 'canonical.valid', input: input({ page: page({ canonical: null, canonicalCount: 1, canonicalIsSelf: false }) }), earned: 0, finding: 'canonical-invalid', severity: 'medium' },
  { name: 'canonical elsewhere', item: 'canonical.valid', input: input({ page: page({ canonical: 'https://www.example.com/other', canonicalIsSelf: false }) }), earned: 2, finding: 'canonical-elsewhere', severity: 'medium', observed: 'href="https://www.example.com/other"' },
  { name: 'title missing', item: 'meta.title', input: input({ page: page({ title: null, titleLength: 0 }) }), earned: 0, finding: 'title-missing', severity: 'medium' },
  { name: 'title too long', item: 'meta.title', input: input({ page: page({ title: 'x'.repeat(90), titleLength: 90 }) }), earned: 3, finding: 'title-length', severity: 'low', observed: '(90 characters)' },
  { name: 'description missing', item: 'meta.description', input: input({ page: page({ metaDescription: null, metaDescriptionLength: 0 }) }), earned: 0, finding: 'description-missing', severity: 'low' },
  { name: 'description short', item: 'meta.description', input: input({ page: page({ metaDescription: 'Widgets.', metaDescriptionLength: 8 }) }), earned: 2, finding: 'description-length', severity: 'low' },
  { name: 'thin text', item: 'content.text', input: input({ page: page({ wordCount: 120 }) }), earned: 4, finding: 'thin-server-text', severity: 'medium', observed: '120 words' },
  { name: 'almost no text', item: 'content.text', input: input({ page: page({ wordCount: 12 }) }), earned: 0, finding: 'little-server-text', severity: 'high' },
  { name: 'no h1', item: 'content.h1', input: input({ page: page({ h1Count: 0 }) }), earned: 0, finding: 'h1-missing', severity: 'low' },
  { name: 'several h1', item: 'content.h1', input: input({ page: page({ h1Count: 3 }) }), earned: 1, finding: 'h1-multiple', severity: 'low' },
  { name: 'no lang', item: 'content.lang', input: input({ page: page({ lang: null }) }), earned: 0, finding: 'lang-missing', severity: 'low' },
  { name: 'bad lang', item: 'content.lang', input: input({ page: page({ lang: 'english language' }) }), earned: 0, finding: 'lang-invalid', severity: 'low', observed: '<html lang="english language">' },
  { name: 'no JSON-LD', item: 'sd.jsonld', input: input({ page: page({ jsonLd: { blocks: 0, invalid: 0, types: [], keyTypes: [], problems: [] } }) }), earned: 0, finding: 'jsonld-missing', severity: 'medium', alsoLoses: ['sd.key-types'] },
  { name: 'some JSON-LD invalid', item: 'sd.jsonld', input: input({ page: page({ jsonLd: { blocks: 2, invalid: 1, types: ['Article', 'Organization'], keyTypes: ['Organization', 'Article'], problems: [] } }) }), earned: 2, finding: 'jsonld-invalid', severity: 'medium' },
  { name: 'all JSON-LD invalid', item: 'sd.jsonld', input: input({ page: page({ jsonLd: { blocks: 1, invalid: 1, types: [], keyTypes: [], problems: [] } }) }), earned: 0, finding: 'jsonld-invalid', severity: 'medium', alsoLoses: ['sd.key-types'] },
  { name: 'only identity type', item: 'sd.key-types', input: input({ page: page({ jsonLd: { blocks: 1, invalid: 0, types: ['WebSite'], keyTypes: ['WebSite'], problems: [] } }) }), earned: 1, finding: 'jsonld-key-types', severity: 'low' },
  { name: 'only content type', item: 'sd.key-types', input: input({ page: page({ jsonLd: { blocks: 1, invalid: 0, types: ['Product'], keyTypes: ['Product'], problems: [] } }) }), earned: 2, finding: 'jsonld-key-types', severity: 'low' },
  { name: 'og partial', item: 'social.og', input: input({ page: page({ openGraph: { title: true, description: false, image: false, url: false, type: false } }) }), earned: 1, finding: 'open-graph-incomplete', severity: 'low', observed: 'og:description, og:image' },
  { name: 'og none', item: 'social.og', input: input({ page: page({ openGraph: { title: false, description: false, image: false, url: false, type: false } }) }), earned: 0, finding: 'open-graph-incomplete', severity: 'low' },
  { name: 'final http', item: 'site.https', input: input({ finalUrl: 'http://www.example.com/guide', https: { finalUrlHttps: false, httpRedirectsToHttps: false } }), earned: 0, finding: 'not-https', severity: 'medium' },
  { name: 'http not redirected', item: 'site.https', input: input({ https: { finalUrlHttps: true, httpRedirectsToHttps: false } }), earned: 2, finding: 'http-not-redirected', severity: 'low', observed: 'http://www.example.com/' },
  { name: 'no sitemap', item: 'site.sitemap', input: input({ sitemapXml: { url: 'https://www.example.com/sitemap.xml', status: 404, isSitemap: false } }), earned: 0, finding: 'sitemap-missing', severity: 'low', observed: 'answered 404' },
  { name: 'llms.txt missing', item: 'site.llms-txt', input: input({ llmsTxt: { state: 'missing', level: 'missing', status: 404, problems: ['/llms.txt answered 404'] } }), earned: 0, finding: 'llms-txt-missing', severity: 'low' },
  { name: 'llms.txt partial', item: 'site.llms-txt', input: input({ llmsTxt: { state: 'found', level: 'partial', status: 200, problems: ['no > blockquote summary'] } }), earned: 1, finding: 'llms-txt-incomplete', severity: 'low' },
  { name: 'llms.txt invalid', item: 'site.llms-txt', input: input({ llmsTxt: { state: 'found', level: 'invalid', status: 200, problems: ['there is no H1 title line (# Name)'] } }), earned: 0, finding: 'llms-txt-invalid', severity: 'low' },
  // Rubric 2.0.0: live access (robots.txt allows AND the probe as the crawler got the page) and the site signals.
  { name: 'Googlebot refused by the server', item: 'crawl.search-allowed', input: input({ crawlers: probed({ Googlebot: refusal('blocked', 403) }) }), earned: 6, finding: 'search-crawlers-refused', severity: 'high', observed: 'Googlebot: robots.txt allows it, but the request as Googlebot got blocked (HTTP 403)' },
  { name: 'Applebot challenged', item: 'crawl.search-allowed', input: input({ crawlers: probed({ Applebot: refusal('challenge', 403) }) }), earned: 10, finding: 'search-crawlers-refused', severity: 'medium', observed: 'Applebot: robots.txt allows it, but the request as Applebot got challenge (HTTP 403)' },
  { name: 'PerplexityBot asked to pay', item: 'crawl.ai-answers-allowed', input: input({ crawlers: probed({ PerplexityBot: refusal('payment-required', 402) }) }), earned: 8, finding: 'ai-answer-crawlers-refused', severity: 'high', observed: 'PerplexityBot: robots.txt allows it, but the request as PerplexityBot got payment-required (HTTP 402)' },
  { name: 'one AI answer bot disallowed, one rate-limited', item: 'crawl.ai-answers-allowed', input: input({ crawlers: probed({ 'Claude-SearchBot': refusal('rate-limited', 429) }, ['OAI-SearchBot']) }), earned: 4, finding: 'ai-answer-crawlers-blocked', severity: 'high', observed: 'OAI-SearchBot: "Disallow: /" (robots.txt line 3, group "User-agent: *"); Claude-SearchBot: robots.txt allows it, but the request as Claude-SearchBot got rate-limited (HTTP 429)' },
  { name: 'no Markdown', item: 'agents.markdown', input: input({ signals: signals({ markdown: { offered: false, contentType: 'text/html; charset=utf-8', alternate: null, matchesPage: null } }) }), earned: 0, finding: 'markdown-not-offered', severity: 'low', observed: 'answered text/html; charset=utf-8' },
  {
    name: 'search=no while search crawlers are allowed', item: 'signals.consistent',
    input: input({ signals: signals({ contentSignalConflicts: [{ key: 'search', tokens: ['Googlebot', 'Bingbot'], lines: [2] }, { key: 'ai-train', tokens: ['CCBot'], lines: [2] }] }) }),
    earned: 0, finding: 'content-signal-conflict', severity: 'medium', observed: 'search=no (robots.txt line 2) while robots.txt allows Googlebot, Bingbot; ai-train=no (robots.txt line 2) while robots.txt allows CCBot',
  },
  { name: 'ai-train=no while a training crawler is allowed', item: 'signals.consistent', input: input({ signals: signals({ contentSignalConflicts: [{ key: 'ai-train', tokens: ['GPTBot'], lines: [4, 9] }] }) }), earned: 0, finding: 'content-signal-conflict', severity: 'low', observed: 'ai-train=no (robots.txt lines 4, 9) while robots.txt allows GPTBot' },
  {
    name: 'a Product without offers', item: 'sd.complete',
    input: input({ page: page({ jsonLd: { blocks: 1, invalid: 0, types: ['Organization', 'Product'], keyTypes: ['Organization', 'Product'], problems: [{ type: 'Product', missing: ['one of offers, review, aggregateRating'] }] } }) }),
    earned: 0, finding: 'jsonld-incomplete', severity: 'low', observed: 'Product without one of offers, review, aggregateRating',
  },
  { name: 'page missing from its sitemap', item: 'site.sitemap-lists-page', input: input({ signals: signals({ sitemapListsPage: false }) }), earned: 0, finding: 'page-not-in-sitemap', severity: 'low', observed: 'https://www.example.com/sitemap.xml has no <loc> equal to https://www.example.com/guide' },
  {
    name: 'broken llms.txt links', item: 'site.llms-txt-links',
    input: input({ signals: signals({ llmsTxtLinks: { checked: 3, broken: 2, links: [{ url: 'https://www.example.com/a.md', status: 200, outcome: 'ok' }, { url: 'https://www.example.com/b.md', status: 404, outcome: 'http-error' }, { url: 'https://www.example.com/c.md', status: 200, outcome: 'html-not-markdown' }] } }) }),
    earned: 0, finding: 'llms-txt-broken-links', severity: 'low', observed: '2 of 3 links checked: https://www.example.com/b.md answered an error (HTTP 404); https://www.example.com/c.md answered an HTML page instead of Markdown (HTTP 200)',
  },
];

describe('rubric items: points lost and the finding that explains them', () => {
  it.each(CASES)('$item: $name', (c) => {
    const r = scoreReport(c.input);
    expect(earned(r, c.item)).toBe(c.earned);
    const points = RUBRIC.find((i) => i.id === c.item)!.points;
    const finding = r.findings.find((f) => f.rubric === c.item);
    expect(finding).toBeDefined();
    expect(finding).toMatchObject({ id: c.finding, severity: c.severity, pointsLost: points - c.earned });
    if (c.observed) expect(finding!.observed).toContain(c.observed);
    expect(finding!.why.length).toBeGreaterThan(20);
    expect(finding!.fix.length).toBeGreaterThan(20);
    // Nothing else lost points.
    for (const s of r.scoring) if (s.id !== c.item && !c.alsoLoses?.includes(s.id)) expect(s.earned, s.id).toBe(s.points);
  });

  it.each(CASES)('severity and points agree ($item: $name): a finding that costs points is never info', (c) => {
    const r = scoreReport(c.input);
    const costly = r.findings.filter((f) => f.pointsLost > 0);
    expect(costly.length).toBeGreaterThan(0);
    expect(costly.filter((f) => f.severity === 'info').map((f) => f.id)).toEqual([]);
    for (const f of r.findings) expect(f.severity, f.id).toBe(severityFor(f.severity, f.pointsLost));
  });

  it('covers every rubric item with at least one losing case', () => {
    expect(new Set(CASES.map((c) => c.item))).toEqual(new Set(RUBRIC.map((i) => i.id)));
  });

  it('a crawler line in a finding names the group and proposes an Allow for the page path', () => {
    const r = scoreReport(input({ crawlers: crawlers(['OAI-SearchBot']) }));
    const f = r.findings.find((x) => x.id === 'ai-answer-crawlers-blocked')!;
    expect(f.observed).toBe('OAI-SearchBot: "Disallow: /" (robots.txt line 3, group "User-agent: *")');
    expect(f.fix).toContain('add a group "User-agent: OAI-SearchBot" + "Allow: /guide"');
    expect(f.fix).toContain('remove or narrow "Disallow: /" (line 3) in the "User-agent: *" group');
  });
});

describe('robots.txt fix texts', () => {
  it('edits the crawler\'s own group in place and groups crawlers decided by the same line', () => {
    const list = crawlers(['Googlebot', 'Applebot']).map((c) =>
      c.token === 'PerplexityBot' ? { ...c, allowed: false, rule: 'Disallow: /guide', group: 'PerplexityBot', line: 9 } : c,
    );
    const r = scoreReport(input({ crawlers: list }));
    const ai = r.findings.find((f) => f.id === 'ai-answer-crawlers-blocked')!;
    expect(ai.fix).toContain('in the "User-agent: PerplexityBot" group, remove or narrow "Disallow: /guide" (line 9) or add "Allow: /guide"');
    const search = r.findings.find((f) => f.id === 'search-crawlers-blocked')!;
    expect(search.fix).toContain('for Googlebot, Applebot, add a group "User-agent: Googlebot" + "User-agent: Applebot" + "Allow: /guide"');
    expect(search.fix.split('; ')).toHaveLength(1);
  });

  it('tells the owner to repair an unreachable robots.txt rather than edit rules', () => {
    const r = scoreReport(input({ robots: { state: 'unreachable', status: null, contentSignals: [] }, crawlers: crawlers(['Googlebot'], 'robots.txt could not be fetched', 0) }));
    expect(r.findings.find((f) => f.id === 'search-crawlers-blocked')!.fix).toMatch(/^Make \/robots\.txt answer 200/);
  });
});

describe('blocking failures dominate the score', () => {
  const blockers: Array<[string, ScoreInput]> = [
    ['page 500', input({ status: 500 })],
    ['noindex meta', input({ page: page({ noindexMeta: true }) })],
    ['noindex header', input({ page: page({ noindexHeader: true }) })],
    ['robots.txt blocks Googlebot', input({ crawlers: crawlers(['Googlebot']) })],
    ['robots.txt blocks everyone', input({ crawlers: crawlers(TOKENS.map(([t]) => t)) })],
    ['robots.txt unreachable', input({ robots: { state: 'unreachable', status: 500, contentSignals: [] }, crawlers: crawlers(TOKENS.map(([t]) => t), 'robots.txt answered 500: RFC 9309 treats the site as fully disallowed', 0) })],
  ];

  it.each(blockers)('%s caps the score at the blocking cap', (_name, blocked) => {
    const r = scoreReport(blocked);
    expect(r.score).toBeLessThanOrEqual(BLOCKING_SCORE_CAP);
    expect(r.findings[0].severity).toBe('critical');
    const raw = r.scoring.reduce((s, l) => s + l.earned, 0);
    if (raw > BLOCKING_SCORE_CAP) {
      expect(r.score).toBe(BLOCKING_SCORE_CAP);
      expect(r.findings.find((f) => f.id === 'score-capped')).toMatchObject({ rubric: null, pointsLost: raw - BLOCKING_SCORE_CAP });
    }
  });

  it('a blocked but otherwise perfect page scores below an unblocked page with weak content', () => {
    const blocked = scoreReport(input({ page: page({ noindexMeta: true }) })).score;
    const weak = scoreReport(
      input({
        page: page({ title: null, titleLength: 0, metaDescription: null, metaDescriptionLength: 0, canonical: null, canonicalCount: 0, canonicalIsSelf: false, wordCount: 10, h1Count: 0, lang: null, jsonLd: { blocks: 0, invalid: 0, types: [], keyTypes: [], problems: [] }, openGraph: { title: false, description: false, image: false, url: false, type: false } }),
        sitemapXml: { url: null, status: null, isSitemap: false },
        llmsTxt: { state: 'missing', level: 'missing', status: 404, problems: [] },
      }),
    ).score;
    expect(blocked).toBe(BLOCKING_SCORE_CAP);
    expect(weak).toBeGreaterThan(blocked);
  });

  it('does not cap when Bingbot alone is blocked', () => {
    expect(scoreReport(input({ crawlers: crawlers(['Bingbot']) })).score).toBe(96);
  });

  it('pointsLost of all findings add up to 100 - score', () => {
    for (const i of [input(), input({ status: 500 }), input({ crawlers: crawlers(['Googlebot', 'PerplexityBot']), page: page({ h1Count: 0 }) })]) {
      const r = scoreReport(i);
      expect(r.findings.reduce((s, f) => s + f.pointsLost, 0)).toBe(100 - r.score);
    }
  });
});

describe('findings order and informational findings', () => {
  it('orders by severity (the score cap last of its severity), then pointsLost descending, then id', () => {
    const r = scoreReport(
      input({
        status: 404,
        crawlers: crawlers(['PerplexityBot', 'GPTBot']),
        page: page({ h1Count: 0, lang: null, wordCount: 100, title: null, titleLength: 0 }),
        robots: { state: 'found', status: 200, contentSignals: ['Content-Signal: ai-train=no'] },
      }),
    );
    for (let i = 1; i < r.findings.length; i++) {
      const a = r.findings[i - 1];
      const b = r.findings[i];
      const sa = SEVERITY_ORDER.indexOf(a.severity);
      const sb = SEVERITY_ORDER.indexOf(b.severity);
      expect(sa <= sb, `${a.id} before ${b.id}`).toBe(true);
      // The score cap follows the critical findings that cause it.
      if (sa === sb && b.id !== 'score-capped') {
        expect(a.id, 'the cap is last of its severity').not.toBe('score-capped');
        expect(a.pointsLost >= b.pointsLost, `${a.id} before ${b.id}`).toBe(true);
        if (a.pointsLost === b.pointsLost) expect(a.id < b.id, `${a.id} before ${b.id}`).toBe(true);
      }
    }
    expect(r.findings[0].id).toBe('page-status');
    expect(r.findings.map((f) => f.id)).toEqual(
      expect.arrayContaining(['h1-missing', 'lang-missing', 'content-signals', 'training-crawlers-blocked', 'ai-answer-crawlers-blocked']),
    );
    expect(Object.keys(r.findings[0])).toEqual(['id', 'severity', 'rubric', 'pointsLost', 'observed', 'why', 'fix']);
  });

  it('reports blocked training crawlers and user-triggered fetchers as 0-point info', () => {
    const r = scoreReport(input({ crawlers: crawlers(['GPTBot', 'CCBot', 'ChatGPT-User']) }));
    expect(r.score).toBe(100);
    expect(r.findings.find((f) => f.id === 'training-crawlers-blocked')).toMatchObject({ severity: 'info', pointsLost: 0, rubric: null });
    expect(r.findings.find((f) => f.id === 'training-crawlers-blocked')!.observed).toContain('CCBot');
    expect(r.findings.find((f) => f.id === 'user-fetchers-blocked')!.observed).toContain('ChatGPT-User');
  });

  it('reports noai, noarchive, llms-full.txt and truncation as info', () => {
    const r = scoreReport(
      input({
        page: page({ truncated: true, robots: { ...page().robots, noai: true, noarchive: true, meta: [{ bot: null, directives: ['noai', 'noarchive'], raw: '<meta name="robots" content="noai, noarchive">' }] } }),
        llmsFullTxt: { state: 'found', status: 200, bytesRead: 8192, truncated: true },
      }),
    );
    expect(r.score).toBe(100);
    const ids = r.findings.map((f) => f.id);
    expect(ids).toEqual(['llms-full-txt', 'noai', 'noarchive', 'page-truncated']);
    expect(r.findings.every((f) => f.severity === 'info' && f.pointsLost === 0)).toBe(true);
  });

  it('raises truncation to medium when the cut falls inside <head>', () => {
    const r = scoreReport(input({ page: page({ truncated: true }), headTruncated: true }));
    expect(r.findings.find((f) => f.id === 'page-truncated')!.severity).toBe('medium');
  });

  it('warns when robots.txt hides a noindex from Googlebot', () => {
    const r = scoreReport(input({ page: page({ noindexMeta: true }), crawlers: crawlers(['Googlebot']) }));
    expect(r.findings.find((f) => f.id === 'noindex-hidden-by-robots')).toMatchObject({ severity: 'medium', pointsLost: 0 });
  });

  it('is deterministic: the same input gives the same output', () => {
    const i = input({ status: 404, crawlers: crawlers(['Bingbot', 'GPTBot']) });
    expect(JSON.stringify(scoreReport(i))).toBe(JSON.stringify(scoreReport(structuredClone(i))));
  });
});

describe('assessLlmsTxt', () => {
  const valid = '# Example\n\n> Widgets and guides.\n\nSome notes.\n\n## Docs\n\n- [Guide](https://example.com/guide): how to\n';
  it.each([
    ['valid file', 200, 'text/markdown', valid, 'found', 'valid'],
    ['no blockquote', 200, 'text/plain', '# Example\n\n## Docs\n- [Guide](https://example.com/guide)\n', 'found', 'partial'],
    ['no link list', 200, 'text/plain', '# Example\n> Summary\n## Docs\nplain text\n', 'found', 'partial'],
    ['H1 not first', 200, 'text/plain', 'Intro\n# Example\n', 'found', 'invalid'],
    ['no H1', 200, 'text/plain', 'just text', 'found', 'invalid'],
    ['404', 404, 'text/html', 'Not found', 'missing', 'missing'],
    ['500', 500, 'text/plain', '', 'missing', 'error'],
    ['no answer', null, null, null, 'missing', 'error'],
    ['soft 404 HTML page', 200, 'text/html', '<!doctype html><html><body>Home</body></html>', 'missing', 'error'],
    ['HTML with a text content type', 200, 'text/plain', '<!DOCTYPE html><html></html>', 'missing', 'error'],
  ] as const)('%s', (_name, status, type, body, state, level) => {
    const a = assessLlmsTxt(status, type, body);
    expect(a.state).toBe(state);
    expect(a.level).toBe(level);
    expect(a.problems.length === 0).toBe(level === 'valid');
  });
});

describe('live access: a crawler counts only when robots.txt allows it and its probe got the page', () => {
  const SCORED = ['Googlebot', 'Bingbot', 'Applebot', 'OAI-SearchBot', 'Claude-SearchBot', 'PerplexityBot'];

  it('without probes the robots.txt verdict alone decides (every crawler allowed: full points)', () => {
    const r = scoreReport(input());
    expect(earned(r, 'crawl.search-allowed')).toBe(12);
    expect(earned(r, 'crawl.ai-answers-allowed')).toBe(12);
  });

  it('every probe ok: full points, no finding', () => {
    const r = scoreReport(input({ crawlers: probed({}) }));
    expect(r.score).toBe(100);
    expect(r.findings.filter((f) => f.pointsLost > 0)).toEqual([]);
  });

  it('a not-probed crawler (a robots.txt-only token) is decided by robots.txt alone', () => {
    const r = scoreReport(input({ crawlers: probed(Object.fromEntries(SCORED.map((t) => [t, refusal('not-probed', null)]))) }));
    expect(earned(r, 'crawl.search-allowed')).toBe(12);
    expect(earned(r, 'crawl.ai-answers-allowed')).toBe(12);
  });

  it.each(['blocked', 'challenge', 'payment-required', 'rate-limited', 'different', 'error'] as const)(
    'a %s probe makes an allowed crawler unreachable',
    (outcome) => {
      const r = scoreReport(input({ crawlers: probed(Object.fromEntries(SCORED.map((t) => [t, refusal(outcome, null)]))) }));
      expect(earned(r, 'crawl.search-allowed')).toBe(0);
      expect(earned(r, 'crawl.ai-answers-allowed')).toBe(0);
      expect(r.findings.find((f) => f.id === 'search-crawlers-refused')!.observed).toContain(`Googlebot: robots.txt allows it, but the request as Googlebot got ${outcome}`);
    },
  );

  it('a crawler robots.txt disallows stays unreachable even when its probe got the page', () => {
    const r = scoreReport(input({ crawlers: probed({}, ['Bingbot']) }));
    expect(earned(r, 'crawl.search-allowed')).toBe(8);
    expect(r.findings.find((f) => f.rubric === 'crawl.search-allowed')).toMatchObject({ id: 'search-crawlers-blocked', severity: 'high', pointsLost: 4 });
  });

  it('a server refusal of Googlebot costs its points but does not cap the score (robots.txt and noindex do)', () => {
    const r = scoreReport(input({ crawlers: probed({ Googlebot: refusal('blocked', 403) }) }));
    expect(r.score).toBe(94);
    expect(r.findings.some((f) => f.id === 'score-capped')).toBe(false);
  });

  it('the server fix names the CDN and WAF settings, the robots.txt fix the rule', () => {
    const r = scoreReport(input({ crawlers: probed({ PerplexityBot: refusal('challenge', 403) }, ['OAI-SearchBot']) }));
    const f = r.findings.find((x) => x.rubric === 'crawl.ai-answers-allowed')!;
    expect(f.fix).toContain('add a group "User-agent: OAI-SearchBot" + "Allow: /guide"');
    expect(f.fix).toContain('CDN bot settings');
    expect(f.pointsLost).toBe(8);
  });

  it('training crawlers refused by the server cost no points', () => {
    const r = scoreReport(input({ crawlers: probed({ GPTBot: refusal('blocked', 403), CCBot: refusal('rate-limited', 429) }) }));
    expect(r.score).toBe(100);
  });
});

describe('site signals: vacuous items and licensing', () => {
  it('no sitemap listing known, no llms.txt links, no JSON-LD problems: those items keep their points', () => {
    const r = scoreReport(input({ signals: signals({ sitemapListsPage: null, llmsTxtLinks: { checked: 0, broken: 0, links: [] } }) }));
    expect(earned(r, 'site.sitemap-lists-page')).toBe(1);
    expect(earned(r, 'site.llms-txt-links')).toBe(1);
    expect(earned(r, 'sd.complete')).toBe(3);
  });

  it('licensing signals are reported as 0-point info', () => {
    const r = scoreReport(input({ signals: signals({ licensing: { tdmReservation: 1, tdmPolicy: 'https://www.example.com/tdm.json', tdmSource: 'meta', rslLicense: 'https://www.example.com/license.xml' } }) }));
    expect(r.score).toBe(100);
    expect(r.findings.find((f) => f.id === 'licensing-signals')).toMatchObject({
      severity: 'info',
      pointsLost: 0,
      observed: 'TDMRep tdm-reservation 1 (<meta name="tdm-reservation">), tdm-policy https://www.example.com/tdm.json; robots.txt License: https://www.example.com/license.xml (RSL)',
    });
  });
});

describe('the published change log from rubric 1.0.0', () => {
  // Rubric 1.0.0 as it was published (ids and points).
  const V1: Record<string, number> = {
    'fetch.ok': 8, 'crawl.search-allowed': 12, 'crawl.ai-answers-allowed': 10, 'robots.state': 4,
    'index.noindex': 12, 'index.snippet': 5, 'canonical.valid': 5,
    'meta.title': 5, 'meta.description': 4, 'content.text': 10, 'content.h1': 3, 'content.lang': 2,
    'sd.jsonld': 6, 'sd.key-types': 4, 'social.og': 2,
    'site.https': 4, 'site.sitemap': 2, 'site.llms-txt': 2,
  };

  it('names every new or re-weighted item with its old and new points, and nothing else', () => {
    expect(Object.values(V1).reduce((a, b) => a + b, 0)).toBe(100);
    expect(RUBRIC_CHANGES_2.from).toBe('1.0.0');
    expect(RUBRIC_CHANGES_2.to).toBe('2.0.0');
    const changed = RUBRIC.filter((i) => V1[i.id] !== i.points).map((i) => ({ item: i.id, before: V1[i.id] ?? null, after: i.points }));
    const logged = RUBRIC_CHANGES_2.changes.filter((c) => c.before !== c.after).map(({ item, before, after }) => ({ item, before, after }));
    expect(logged).toEqual(changed);
    // Items whose criterion changed at equal points are logged too, and every logged item exists.
    for (const c of RUBRIC_CHANGES_2.changes) expect(RUBRIC.find((i) => i.id === c.item)?.points).toBe(c.after);
    expect(Object.keys(V1).every((id) => RUBRIC.some((i) => i.id === id))).toBe(true);
  });

  it('publishes 3.0.0 by group: no item re-weighted, every new row a 0-point finding, and an accuracy group', () => {
    expect(RUBRIC_CHANGES_3.from).toBe('2.0.0');
    expect(RUBRIC_CHANGES_3.to).toBe('3.0.0');
    expect(RUBRIC_CHANGE_GROUPS_3.map((g) => g.name)).toEqual(['agent surfaces', 'AI use', 'licensing', 'commerce', 'accuracy', 'severity']);
    for (const c of RUBRIC_CHANGES_3.changes) {
      if (c.kind === 'finding') expect(c.after).toBe(0);
      else expect(RUBRIC.find((i) => i.id === c.item)?.points).toBe(c.after);
    }
    expect(RUBRIC_CHANGES_3.changes.filter((c) => c.kind === 'finding').map((c) => c.item)).toEqual([
      'agent-surfaces', 'agent-surface-invalid', 'webmcp-tools', 'webmcp-tool-invalid', 'ai-use-conflict', 'rsl-license-unusable', 'tdm-policy-unreachable', 'pay-per-crawl', 'payment-challenge',
      'head-broken', 'robots-lines-ignored', 'score-capped',
    ]);
  });

  it('publishes 4.0.0 as the changes in force: no item re-weighted, every finding row scores 0', () => {
    expect(RUBRIC_CHANGES).toEqual(RUBRIC_CHANGES_4);
    expect([RUBRIC_CHANGES.from, RUBRIC_CHANGES.to]).toEqual(['3.0.0', RUBRIC_VERSION]);
    expect(RUBRIC_VERSION).toBe('4.0.0');
    for (const c of RUBRIC_CHANGES.changes) {
      if (c.kind === 'finding') expect(c.after).toBe(0);
      else expect([c.before, RUBRIC.find((i) => i.id === c.item)?.points]).toEqual([c.after, c.after]);
    }
  });
});

describe('the severity rule: severity and points agree', () => {
  it('raises a finding that costs points from info to low and leaves every other severity as declared', () => {
    expect(severityFor('info', 2)).toBe('low');
    expect(severityFor('info', 0)).toBe('info');
    expect(severityFor('medium', 0)).toBe('medium');
    expect(severityFor('critical', 12)).toBe('critical');
    expect(severityFor('low', 1)).toBe('low');
  });

  it('the score cap is critical and carries the points the cap takes', () => {
    const r = scoreReport(input({ page: page({ noindexMeta: true, robots: { ...page().robots, meta: [{ bot: null, directives: ['noindex'], raw: '<meta name="robots" content="noindex">' }] } }) }));
    expect(r.findings.find((f) => f.id === 'score-capped')).toMatchObject({ severity: 'critical', pointsLost: 88 - BLOCKING_SCORE_CAP });
  });

  it('is published by the free GET and the docs rubric', () => {
    expect(visibilityCheckDescription().severityRule).toBe(SEVERITY_RULE);
    expect(SEVERITY_RULE).toContain('A finding that costs points is never info');
  });
});
