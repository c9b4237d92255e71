// What was not read is not missing: on a page cut at the read limit, a finding about something absent that may
// lie past the cut is `not-measured` (no points lost, said in words), and the report says how much of the page
// the score rests on. Also: head-broken graded by what the early end of the head costs, and a canonical written
// only in the body named as such.
import { describe, expect, it } from 'vitest';
import { analyseSite, type SiteFiles } from '@/lib/checks/visibility/analysis';
import { PAGE_MAX_BYTES } from '@/lib/checks/visibility/check';
import { extractPage } from '@/lib/checks/visibility/extract';
import { headBreak } from '@/lib/checks/visibility/head-break';
import { RUBRIC } from '@/lib/checks/visibility/rubric';
import { RUBRIC_CHANGES_4 } from '@/lib/checks/visibility/rubric-changes';
import { visibilityReport } from '@/lib/checks/visibility/report';
import { scoreBasisOf, scoreBasisWords } from '@/lib/checks/visibility/score-basis';
import { BROKEN_HEAD_ARTICLE } from './real-pages';

const URL_ = 'https://shop.test/trail-shoes';
const none = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
const files: SiteFiles = { robots: none, sitemap: { ...none, url: null }, sitemapChild: null, llms: none, llmsFull: none, llmsLinks: [], tdmrep: none, httpRedirectsToHttps: null };
const words = Array.from({ length: 300 }, (_, i) => `stride${i}`).join(' ');
const JSON_LD = '<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"Shop"},{"@type":"Product","name":"Trail shoe","offers":{"@type":"Offer","price":"99","priceCurrency":"EUR"}}]}</script>';
const HEAD = `<title>Trail running shoes - Shop</title><meta name="description" content="Trail running shoes for mud, rock and long distances, tested on real trails by our team."><link rel="canonical" href="${URL_}"><meta property="og:title" content="Trail shoes"><meta property="og:description" content="Shoes"><meta property="og:image" content="https://shop.test/s.jpg">`;

/** A page whose inline state (`stateBytes` of it) comes before the body, or inside it before the JSON-LD. */
function statePage(where: 'head' | 'body', stateBytes: number): string {
  const state = `<script>window.__STATE__ = "${'x'.repeat(stateBytes)}";</script>`;
  return where === 'head'
    ? `<!doctype html><html lang="en"><head>${HEAD}${state}</head><body><h1>Trail running shoes</h1><p>${words}</p>${JSON_LD}</body></html>`
    : `<!doctype html><html lang="en"><head>${HEAD}</head><body><h1>Trail running shoes</h1><p>${words}</p>${state}${JSON_LD}</body></html>`;
}

/** The page as the check reads it: its first PAGE_MAX_BYTES (all ASCII here, so characters are bytes). */
function analyse(html: string) {
  const truncated = html.length > PAGE_MAX_BYTES;
  return analyseSite({ url: URL_, status: 200, headers: [['content-type', 'text/html; charset=utf-8']], body: truncated ? html.slice(0, PAGE_MAX_BYTES) : html, truncated, redirects: 0 }, files);
}
const earned = (result: ReturnType<typeof analyse>, id: string) => result.scoring.find((s) => s.id === id)?.earned;
const finding = (result: ReturnType<typeof analyse>, id: string) => result.findings.find((f) => f.id === id);

const WHY = 'What comes after the point where reading stopped was not examined, so this is not measured and costs no points. It may well be there; crawlers that read less than the whole page may miss it as this check did.';

describe('a page with 2.2 MB of inline state before <body>', () => {
  const cut = analyse(statePage('head', 2_200_000));
  const whole = analyse(statePage('head', 1_200_000));

  it('loses no points to text, h1 or JSON-LD it did not read: the same score as the page read whole', () => {
    expect(whole.findings.filter((f) => f.pointsLost > 0).map((f) => f.id)).toEqual(cut.findings.filter((f) => f.pointsLost > 0).map((f) => f.id));
    expect(cut.score).toBe(whole.score);
    for (const id of ['content.text', 'content.h1', 'sd.jsonld', 'sd.key-types']) expect(earned(cut, id)).toBe(earned(whole, id));
    expect([earned(cut, 'content.text'), earned(cut, 'content.h1'), earned(cut, 'sd.jsonld'), earned(cut, 'sd.key-types')]).toEqual([8, 2, 4, 3]);
  });

  it('says what was not found in the part read, as not-measured findings of no severity', () => {
    const unread = cut.findings.filter((f) => f.state === 'not-measured');
    expect(unread.map((f) => [f.id, f.rubric, f.severity, f.pointsLost])).toEqual([
      ['h1-missing', 'content.h1', 'info', 0],
      ['jsonld-key-types', 'sd.key-types', 'info', 0],
      ['jsonld-missing', 'sd.jsonld', 'info', 0],
      ['little-server-text', 'content.text', 'info', 0],
    ]);
    expect(finding(cut, 'little-server-text')).toMatchObject({
      observed: 'the page is larger than the 2 MiB read; only 0 words of text were found in the part read',
      why: WHY,
      fix: 'Serve the main text before large inline scripts and data (move state to the end of the page or load it separately), so crawlers that stop early still read it.',
    });
    expect(finding(cut, 'h1-missing')?.observed).toBe('the page is larger than the 2 MiB read; no <h1> was found in the part read');
    expect(finding(cut, 'jsonld-missing')?.observed).toBe('the page is larger than the 2 MiB read; no JSON-LD block was found in the part read');
    // The title, description, canonical and og: tags came before the cut: nothing about them is unmeasured.
    expect(cut.findings.map((f) => f.id)).not.toContain('canonical-missing');
    expect(finding(cut, 'page-truncated')).toMatchObject({ severity: 'medium', pointsLost: 0 });
  });

  it('the page read whole has no not-measured finding', () => {
    expect(whole.findings.filter((f) => f.state !== undefined)).toEqual([]);
  });
});

describe('a page whose JSON-LD starts past 2 MiB', () => {
  const cut = analyse(statePage('body', 2_200_000));

  it('loses no points to "no JSON-LD" or key types; the h1 and the text it read earn as measured', () => {
    expect([earned(cut, 'sd.jsonld'), earned(cut, 'sd.key-types'), earned(cut, 'content.h1'), earned(cut, 'content.text')]).toEqual([4, 3, 2, 8]);
    expect(cut.findings.filter((f) => f.state === 'not-measured').map((f) => f.id)).toEqual(['jsonld-key-types', 'jsonld-missing']);
    expect(finding(cut, 'jsonld-key-types')?.observed).toBe('the page is larger than the 2 MiB read; no JSON-LD type was found in the part read');
    expect(finding(cut, 'page-truncated')).toMatchObject({ severity: 'info', pointsLost: 0 });
  });

  it('an absence the part read settles is still measured: several h1 in the part read lose their point', () => {
    const twoH1 = statePage('body', 2_200_000).replace('<h1>Trail running shoes</h1>', '<h1>Trail</h1><h1>Shoes</h1>');
    const result = analyse(twoH1);
    expect(finding(result, 'h1-multiple')).toMatchObject({ pointsLost: 1, severity: 'low' });
    expect(finding(result, 'h1-multiple')?.state).toBeUndefined();
  });
});

describe('the score basis: how much of the page the score rests on', () => {
  const headers = (lines: Array<[string, string]>) => (name: string) => lines.filter(([n]) => n === name).map(([, v]) => v);

  it('a page read whole rests on all its bytes; no words are added', () => {
    expect(scoreBasisOf({ bytesRead: 5_000, truncated: false, headerAll: headers([]) }, false)).toEqual({ bytesRead: 5_000, pageBytes: 5_000, truncated: false });
    expect(scoreBasisWords({ bytesRead: 5_000, pageBytes: 5_000, truncated: false })).toBeNull();
  });

  it('a cut page: its size from Content-Length when that counts the page, else null', () => {
    expect(scoreBasisOf({ bytesRead: PAGE_MAX_BYTES, truncated: true, headerAll: headers([['content-length', '3145728']]) }, true)).toEqual({ bytesRead: PAGE_MAX_BYTES, pageBytes: 3_145_728, truncated: true });
    expect(scoreBasisOf({ bytesRead: PAGE_MAX_BYTES, truncated: true, headerAll: headers([['content-length', '900000'], ['content-encoding', 'gzip']]) }, true).pageBytes).toBeNull();
    expect(scoreBasisOf({ bytesRead: PAGE_MAX_BYTES, truncated: true, headerAll: headers([]) }, true).pageBytes).toBeNull();
  });

  it('says it in words, and the report summary carries them', () => {
    expect(scoreBasisWords({ bytesRead: PAGE_MAX_BYTES, pageBytes: 3_145_728, truncated: true })).toBe('The score rests on the first 2 MiB of the page, which is 3 MiB; the rest was not read.');
    expect(scoreBasisWords({ bytesRead: PAGE_MAX_BYTES, pageBytes: null, truncated: true })).toBe('The score rests on the first 2 MiB of the page, whose full size the server did not state; the rest was not read.');
    expect(scoreBasisWords({ bytesRead: 40_000, pageBytes: 40_000, truncated: true })).toBe("The score rests on the part of the page read before its markup reached the parser's limits; the rest was not read.");
    const body = { report: { checkedUrl: URL_, crawlers: [], findings: [], score: 90, scoreMax: 100, scoreBasis: { bytesRead: PAGE_MAX_BYTES, pageBytes: null, truncated: true } } };
    expect(visibilityReport.headline!(body)?.summary).toBe('0 of 0 crawlers may fetch this page under robots.txt; 0 findings, 0 of them costing points. The score rests on the first 2 MiB of the page, whose full size the server did not state; the rest was not read.');
  });

  it('the Markdown names a not-measured finding as such', () => {
    const cut = analyse(statePage('head', 2_200_000));
    const md = visibilityReport.markdown!({ report: { checkedUrl: URL_, crawlers: [], findings: cut.findings, score: cut.score, scoreMax: 100 } });
    expect(md).toContain('info: h1 missing (not measured: no points lost)');
  });
});

describe('head-broken is graded by what it loses', () => {
  const page = (head: string) => `<!doctype html><html lang="en"><head><title>Trail running shoes - Shop</title>${head}</head><body><h1>Shoes</h1><p>${words}</p></body></html>`;

  it('an <iframe> just before </head> with only a script after it loses nothing: info, in words', () => {
    const html = page(`<link rel="canonical" href="${URL_}">\n<iframe src="https://tags.test/ns.html"></iframe><script>var a = 1;</script><link rel="stylesheet" href="/s.css">`);
    expect(headBreak(html)).toEqual({ element: 'iframe', line: 2, displaced: [] });
    const result = analyse(html);
    expect(finding(result, 'head-broken')).toMatchObject({
      severity: 'info',
      pointsLost: 0,
      observed: "an <iframe> on line 2 ends the <head> before the page's own </head>; nothing after it belongs only in the head (no <meta>, <link rel=\"canonical\">, <title> or <base>), so nothing is lost",
    });
    expect(earned(result, 'canonical.valid')).toBe(4);
  });

  it('only Open Graph tags after it: low, naming them', () => {
    const html = page('<img src="/pixel.gif"><meta property="og:title" content="Shoes"><meta itemprop="name" content="x">');
    expect(headBreak(html)?.displaced).toEqual(['<meta property="og:title">']);
    expect(finding(analyse(html), 'head-broken')).toMatchObject({ severity: 'low', observed: "an <img> on line 1 ends the <head> before the page's own </head>; read as part of the body after it: <meta property=\"og:title\">" });
  });

  it('the description, canonical and robots tag after it (BBC-like article): medium, naming them', () => {
    expect(headBreak(BROKEN_HEAD_ARTICLE)).toEqual({ element: 'iframe', line: 6, displaced: ['<meta name="description">', '<link rel="canonical">', '<meta name="robots">'] });
    const result = analyseSite({ url: 'https://news.test/weather/storm-warning', status: 200, headers: [['content-type', 'text/html']], body: BROKEN_HEAD_ARTICLE, truncated: false, redirects: 0 }, files);
    expect(finding(result, 'head-broken')).toMatchObject({
      severity: 'medium',
      why: 'An element that cannot be in the <head> (an <iframe>, an <img>, a <div>, or stray text) closes it for browsers, HTML parsers and Google, which reads page metadata only in the head. Search engines ignore <meta name="description">, <link rel="canonical">, <meta name="robots"> there.',
    });
  });
});

describe('canonical-missing when the only canonical is in the body', () => {
  it('says the page has one in the body, and the fix is to move it into the head', () => {
    const html = `<!doctype html><html lang="en"><head>${HEAD.replace(`<link rel="canonical" href="${URL_}">`, '')}</head><body><link rel="canonical" href="/trail-shoes"><h1>Shoes</h1><p>${words}</p></body></html>`;
    expect(extractPage(html, URL_, { headerAll: () => [] }, false)).toMatchObject({ canonical: null, canonicalCount: 0, canonicalInBody: true });
    expect(finding(analyse(html), 'canonical-missing')).toMatchObject({
      pointsLost: 4,
      observed: 'no <link rel="canonical"> in the <head>; the page has one only in the <body>, where search engines ignore it',
      fix: `Move the <link rel="canonical"> into the <head>, with href="${URL_}".`,
    });
  });

  it('after a head ended early, the fix says above which element', () => {
    const result = analyseSite({ url: 'https://news.test/weather/storm-warning', status: 200, headers: [['content-type', 'text/html']], body: BROKEN_HEAD_ARTICLE, truncated: false, redirects: 0 }, files);
    expect(finding(result, 'canonical-missing')).toMatchObject({
      observed: 'no <link rel="canonical"> in the <head>, which the <iframe> on line 6 ends early; the page has one only in the <body>, where search engines ignore it',
      fix: 'Move the <link rel="canonical"> into the <head>, above the <iframe> on line 6 that ends the head early, with href="https://news.test/weather/storm-warning".',
    });
  });
});

describe('the rubric 4 rows of these changes', () => {
  it('name rubric items that exist with their points unchanged, and the two findings; the rubric still sums to 100', () => {
    for (const change of RUBRIC_CHANGES_4.changes.filter((c) => c.kind !== 'finding')) {
      expect(RUBRIC.find((item) => item.id === change.item)?.points).toBe(change.after);
      expect(change.before).toBe(change.after);
    }
    expect(RUBRIC_CHANGES_4.changes.filter((c) => c.kind === 'finding').map((c) => c.item)).toEqual(['ai-catalog-invalid', 'agent-surface-invalid', 'user-fetchers-blocked', 'soft-404', 'head-broken', 'canonical-missing']);
    expect(RUBRIC.reduce((sum, item) => sum + item.points, 0)).toBe(100);
  });
});
