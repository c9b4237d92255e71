import { describe, expect, it } from 'vitest';
import { extractPage } from '@/lib/checks/visibility/extract';
import { headBreak } from '@/lib/checks/visibility/head-break';
import { RUBRIC } from '@/lib/checks/visibility/rubric';
import { ACCURACY_CHANGES } from '@/lib/checks/visibility/rubric-changes';
import { PAGE_MAX_BYTES } from '@/lib/checks/visibility/check';
import { analyseSite, type SiteFiles } from '@/lib/checks/visibility/analysis';
import { BROKEN_HEAD_ARTICLE, ZH_NEWS, bigShopPage } from './real-pages';

const URL_ = 'https://news.test/weather/storm-warning';
const noHeaders = { headerAll: () => [] as string[] };
const headers = (lines: Array<[string, string]>) => ({ headerAll: (name: string) => lines.filter(([n]) => n === name).map(([, v]) => v) });
const page = (head: string, body = '<p>x</p>') => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('title: whitespace collapsed as document.title does (ASCII whitespace only)', () => {
  it('collapses tab, newline, form feed, carriage return and space, and keeps an ideographic or no-break space', () => {
    const facts = extractPage(page('<title>\t 東京\u3000ニュース \n\r\f Tokyo\u00a0News  </title>'), URL_, noHeaders, false);
    expect(facts.title).toBe('東京\u3000ニュース Tokyo\u00a0News');
    expect(facts.titleLength).toBe(18);
  });

  it('keeps a title that is only an ideographic space', () => {
    expect(extractPage(page('<title>\u3000</title>'), URL_, noHeaders, false).title).toBe('\u3000');
  });
});

describe('canonical: the same address twice is one canonical', () => {
  it('counts different addresses, resolved, apart from the elements', () => {
    const twice = extractPage(page(`<link rel="canonical" href="${URL_}"><link rel="canonical" href="/weather/storm-warning">`), URL_, noHeaders, false);
    expect(twice).toMatchObject({ canonical: URL_, canonicalCount: 2, canonicalDistinct: 1, canonicalIsSelf: true });
    const two = extractPage(page(`<link rel="canonical" href="${URL_}"><link rel="canonical" href="/other">`), URL_, noHeaders, false);
    expect(two).toMatchObject({ canonicalCount: 2, canonicalDistinct: 2 });
  });
});

describe('unavailable_after: a past date is noindex for Google', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const read = (head: string, lines: Array<[string, string]> = []) =>
    extractPage(page(head), URL_, headers(lines), false, undefined, now);

  it('meta robots with a past ISO 8601 date: noindexMeta, with the date as written', () => {
    const facts = read('<meta name="robots" content="unavailable_after: 2025-06-25">');
    expect(facts).toMatchObject({ noindexMeta: true, noindexHeader: false });
    expect(facts.robots).toMatchObject({ unavailableAfter: '2025-06-25', unavailableAfterPassed: true });
  });

  it('X-Robots-Tag with a past RFC 850 date: noindexHeader', () => {
    const facts = read('', [['x-robots-tag', 'unavailable_after: Wednesday, 25-Jun-25 15:00:00 GMT']]);
    expect(facts).toMatchObject({ noindexMeta: false, noindexHeader: true });
    expect(facts.robots.unavailableAfterPassed).toBe(true);
  });

  it('a future date, a date addressed to Bingbot, or no date at all is not noindex', () => {
    expect(read('<meta name="googlebot" content="unavailable_after: 2030-01-01">')).toMatchObject({ noindexMeta: false, robots: { unavailableAfter: '2030-01-01', unavailableAfterPassed: false } });
    expect(read('<meta name="bingbot" content="unavailable_after: 2020-01-01">')).toMatchObject({ noindexMeta: false, robots: { unavailableAfter: null } });
    expect(read('<meta name="robots" content="unavailable_after: soon">')).toMatchObject({ noindexMeta: false, robots: { unavailableAfter: null } });
  });
});

describe('a <head> broken early (BBC-like article: a tag manager <iframe> in the head)', () => {
  it('reports the element and its line, and reads the description and canonical after it as body', () => {
    const facts = extractPage(BROKEN_HEAD_ARTICLE, URL_, noHeaders, false);
    expect(facts.headBrokenAt).toEqual({ element: 'iframe', line: 6, displaced: ['<meta name="description">', '<link rel="canonical">', '<meta name="robots">'] });
    expect(facts).toMatchObject({ title: 'Storm warning issued for coastal areas - Example News', metaDescription: null, canonical: null, canonicalCount: 0 });
  });

  it('an <img> or stray text ends it too; a head that ends where the page says is whole', () => {
    expect(headBreak('<html><head><title>T</title>\n\n<img src="/p.gif"><link rel="canonical" href="/a"></head><body></body>')).toEqual({ element: 'img', line: 3, displaced: ['<link rel="canonical">'] });
    expect(headBreak('<head><meta charset="utf-8">oops<title>T</title></head>')).toEqual({ element: '#text', line: 1, displaced: ['<title>'] });
    expect(headBreak('<head><script>if (a < b) document.write("<iframe>")</script><!-- <div> --><noscript><iframe></iframe></noscript></head><body><iframe></iframe>')).toBeNull();
    // Without </head> or <body> the head ends where the body starts, as HTML allows: nothing was broken.
    expect(headBreak('<title>T</title><p>text</p>')).toBeNull();
  });
});

describe(`pages over 512 KiB: read up to ${PAGE_MAX_BYTES / 1024 / 1024} MiB`, () => {
  it('reads 2 MiB', () => {
    expect(PAGE_MAX_BYTES).toBe(2 * 1024 * 1024);
  });

  it('finds the article of a page over 1 MB whose content starts after the first 512 KiB', () => {
    const html = bigShopPage();
    expect(html.length).toBeGreaterThan(1024 * 1024 * 0.68);
    expect(html.indexOf('<h1>')).toBeGreaterThan(512 * 1024);
    const facts = extractPage(html, 'https://shop.test/trail-shoes', noHeaders, false);
    expect(facts).toMatchObject({ h1Count: 1, wordCount: 403, truncated: false, incomplete: [] });
  });

  it('a page cut before its article says which facts may be incomplete instead of only reporting zeros', () => {
    const html = bigShopPage(PAGE_MAX_BYTES + 1024).slice(0, PAGE_MAX_BYTES);
    const facts = extractPage(html, 'https://shop.test/trail-shoes', noHeaders, true);
    expect(facts).toMatchObject({ h1Count: 0, wordCount: 0, truncated: true });
    expect(facts.incomplete).toEqual(['jsonLd', 'h1Count', 'wordCount', 'textLength', 'textToHtmlRatio']);
    const inHead = extractPage('<!doctype html><html><head><title>T</title><meta name="x" content="', 'https://shop.test/', noHeaders, true);
    expect(inHead.incomplete).toEqual(['metaDescription', 'canonical', 'robots', 'openGraph', 'jsonLd', 'h1Count', 'wordCount', 'textLength', 'textToHtmlRatio']);
  });
});

describe('the score reads the accuracy fixes', () => {
  const none = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
  const files: SiteFiles = { robots: none, sitemap: { ...none, url: null }, sitemapChild: null, llms: none, llmsFull: none, llmsLinks: [], tdmrep: none, httpRedirectsToHttps: null };
  const analyse = (body: string, url = URL_, headerLines: Array<[string, string]> = []) =>
    analyseSite({ url, status: 200, headers: [['content-type', 'text/html; charset=utf-8'], ...headerLines], body, truncated: false, redirects: 0 }, files);
  const earned = (result: ReturnType<typeof analyse>, id: string) => result.scoring.find((s) => s.id === id)?.earned;

  it('a Chinese news article earns content.text in full (it lost it when words were whitespace runs)', () => {
    const result = analyse(ZH_NEWS);
    expect(earned(result, 'content.text')).toBe(8);
    expect(result.findings.map((f) => f.id)).not.toContain('little-server-text');
  });

  it('the same canonical written twice earns canonical.valid', () => {
    const result = analyse(page(`<link rel="canonical" href="${URL_}"><link rel="canonical" href="${URL_}#top">`));
    expect(earned(result, 'canonical.valid')).toBe(4);
    expect(result.findings.map((f) => f.id)).not.toContain('canonical-multiple');
  });

  it('a broken head: head-broken (medium), and the canonical after it does not count', () => {
    const result = analyse(BROKEN_HEAD_ARTICLE);
    const finding = result.findings.find((f) => f.id === 'head-broken');
    expect(finding).toMatchObject({ severity: 'medium', pointsLost: 0 });
    expect(finding?.observed).toBe('an <iframe> on line 6 ends the <head> before the page\'s own </head>; read as part of the body after it: <meta name="description">, <link rel="canonical">, <meta name="robots">');
    expect(earned(result, 'canonical.valid')).toBe(0);
    expect(result.findings.find((f) => f.id === 'canonical-missing')?.observed).toBe('no <link rel="canonical"> in the <head>, which the <iframe> on line 6 ends early; the page has one only in the <body>, where search engines ignore it');
  });

  it('a past unavailable_after is the noindex finding, quoting the header', () => {
    const result = analyse(page('<title>T</title>'), URL_, [['x-robots-tag', 'unavailable_after: 2020-01-01']]);
    expect(earned(result, 'index.noindex')).toBe(0);
    expect(result.findings.find((f) => f.id === 'noindex')?.observed).toBe('X-Robots-Tag: unavailable_after: 2020-01-01');
  });

  it('a cut page says in its findings that the counts cover only what was read, and loses no points to them', () => {
    const result = analyseSite({ url: 'https://shop.test/trail-shoes', status: 200, headers: [['content-type', 'text/html']], body: bigShopPage(PAGE_MAX_BYTES + 1024).slice(0, PAGE_MAX_BYTES), truncated: true, redirects: 0 }, files);
    expect(result.findings.find((f) => f.id === 'little-server-text')).toMatchObject({ state: 'not-measured', pointsLost: 0, observed: 'the page is larger than the 2 MiB read; only 0 words of text were found in the part read' });
    expect(result.findings.find((f) => f.id === 'page-truncated')?.observed).toBe('the page is larger than 2 MiB; only its first 2 MiB were read; these may be incomplete: jsonLd, h1Count, wordCount, textLength, textToHtmlRatio');
  });
});

describe('robots.txt lines that do nothing', () => {
  it('robots-lines-ignored (info) lists them with their line numbers', () => {
    const none = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
    const robots = { status: 200, contentType: 'text/plain', body: 'Disallow: /tmp\nUser-agent: *\nDisallow: private\nNoindex: /x\n', bytesRead: 60, truncated: false };
    const result = analyseSite(
      { url: URL_, status: 200, headers: [['content-type', 'text/html']], body: page('<title>T</title>'), truncated: false, redirects: 0 },
      { robots, sitemap: { ...none, url: null }, sitemapChild: null, llms: none, llmsFull: none, llmsLinks: [], tdmrep: none, httpRedirectsToHttps: null },
    );
    expect(result.robotsTxt.ignoredLines).toEqual([
      { line: 1, reason: 'rule-before-user-agent' },
      { line: 3, reason: 'pattern-not-a-path' },
      { line: 4, reason: 'unknown-directive' },
    ]);
    expect(result.findings.find((f) => f.id === 'robots-lines-ignored')).toMatchObject({
      severity: 'info',
      pointsLost: 0,
      observed: 'line 1: a rule before any User-agent line; line 3: a pattern that starts with neither / nor *; line 4: a directive no crawler reads',
    });
  });
});

describe('the accuracy rows of the rubric changes', () => {
  it('name rubric items that exist, with their points unchanged', () => {
    for (const change of ACCURACY_CHANGES.filter((c) => c.kind !== 'finding')) {
      expect(RUBRIC.find((item) => item.id === change.item)?.points).toBe(change.after);
      expect(change.before).toBe(change.after);
    }
    expect(ACCURACY_CHANGES.map((c) => c.item)).toEqual(['content.text', 'canonical.valid', 'index.noindex', 'agents.markdown', 'head-broken', 'robots-lines-ignored']);
  });
});
