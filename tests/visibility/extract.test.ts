import { describe, expect, it } from 'vitest';
import { extractPage, extractPageWithExtras, parseXRobotsTag, sameUrl } from '@/lib/checks/visibility/extract';
import { PARSE_MAX_DEPTH } from '@/lib/checks/visibility/bounded-parse';

const PAGE_URL = 'https://www.example.com/blog/post?x=1';

function headers(lines: Array<[string, string]> = []) {
  return { headerAll: (name: string) => lines.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v) };
}

function extract(head: string, body = '', opts: { headers?: Array<[string, string]>; truncated?: boolean; htmlAttrs?: string } = {}) {
  const html = `<!doctype html><html${opts.htmlAttrs ?? ''}><head>${head}</head><body>${body}</body></html>`;
  return extractPage(html, PAGE_URL, headers(opts.headers), opts.truncated ?? false);
}

describe('extractPage: title', () => {
  it('reads the first <title>, whitespace collapsed, with its length in characters', () => {
    const p = extract('<title>\n  Hello   wörld 👋 </title><title>second</title>');
    expect(p.title).toBe('Hello wörld 👋');
    expect(p.titleLength).toBe(13);
  });

  it('is null with length 0 when absent, and ignores an svg <title>', () => {
    const p = extract('', '<svg><title>Icon title</title></svg>');
    expect(p.title).toBeNull();
    expect(p.titleLength).toBe(0);
  });
});

describe('extractPage: meta description', () => {
  it('reads the first meta description, name matched case-insensitively', () => {
    const p = extract('<meta name="Description" content="  A short   summary. "><meta name="description" content="other">');
    expect(p.metaDescription).toBe('A short summary.');
    expect(p.metaDescriptionLength).toBe(16);
  });

  it('is null when absent', () => {
    const p = extract('<meta name="keywords" content="a,b">');
    expect(p.metaDescription).toBeNull();
    expect(p.metaDescriptionLength).toBe(0);
  });
});

describe('extractPage: canonical', () => {
  it('resolves the first canonical against the page URL and counts all of them', () => {
    const p = extract('<link rel="canonical" href="/blog/post?x=1"><link rel="Canonical" href="https://other.example/">');
    expect(p.canonical).toBe('https://www.example.com/blog/post?x=1');
    expect(p.canonicalCount).toBe(2);
    expect(p.canonicalIsSelf).toBe(true);
  });

  it('compares normalised URLs: host case, default port and fragment do not matter', () => {
    const p = extract('<link rel="canonical" href="HTTPS://WWW.Example.com:443/blog/post?x=1#top">');
    expect(p.canonicalIsSelf).toBe(true);
    expect(sameUrl('https://a.example/x', 'https://a.example/x/')).toBe(false);
  });

  it('reports a canonical pointing elsewhere as not self', () => {
    const p = extract('<link rel="alternate canonical" href="https://www.example.com/blog/post">');
    expect(p.canonical).toBe('https://www.example.com/blog/post');
    expect(p.canonicalIsSelf).toBe(false);
  });

  it('resolves against <base href>', () => {
    const p = extract('<base href="https://cdn.example.net/root/"><link rel="canonical" href="page">');
    expect(p.canonical).toBe('https://cdn.example.net/root/page');
  });

  it('gives null for a non-http canonical but still counts it', () => {
    const p = extract('<link rel="canonical" href="javascript:alert(1)">');
    expect(p.canonical).toBeNull();
    expect(p.canonicalCount).toBe(1);
    expect(p.canonicalIsSelf).toBe(false);
  });

  it('has count 0 without a canonical', () => {
    expect(extract('<link rel="stylesheet" href="/a.css">').canonicalCount).toBe(0);
  });
});

describe('extractPage: noindex in meta tags', () => {
  it('detects noindex in <meta name="robots">', () => {
    const p = extract('<meta name="robots" content="NoIndex, follow">');
    expect(p.noindexMeta).toBe(true);
    expect(p.robots.meta).toEqual([{ bot: null, directives: ['noindex', 'follow'], raw: '<meta name="robots" content="NoIndex, follow">' }]);
  });

  it('treats none as noindex', () => {
    expect(extract('<meta name="robots" content="none">').noindexMeta).toBe(true);
  });

  it('detects noindex scoped to googlebot and records the bot', () => {
    const p = extract('<meta name="googlebot" content="noindex">');
    expect(p.noindexMeta).toBe(true);
    expect(p.robots.meta[0].bot).toBe('googlebot');
  });

  it('records but does not count a noindex scoped to a non-search bot', () => {
    const p = extract('<meta name="GPTBot" content="noindex">');
    expect(p.noindexMeta).toBe(false);
    expect(p.robots.meta[0]).toMatchObject({ bot: 'gptbot', directives: ['noindex'] });
  });

  it('is false for index, follow', () => {
    expect(extract('<meta name="robots" content="index, follow">').noindexMeta).toBe(false);
  });
});

describe('extractPage: X-Robots-Tag', () => {
  it('detects a generic noindex header', () => {
    const p = extract('', '', { headers: [['x-robots-tag', 'noindex']] });
    expect(p.noindexHeader).toBe(true);
    expect(p.noindexMeta).toBe(false);
    expect(p.robots.header).toEqual([{ bot: null, directives: ['noindex'], raw: 'X-Robots-Tag: noindex' }]);
  });

  it('scopes "googlebot: noindex" to googlebot and records the bot', () => {
    const p = extract('', '', { headers: [['x-robots-tag', 'googlebot: noindex, nofollow']] });
    expect(p.noindexHeader).toBe(true);
    expect(p.robots.header).toEqual([{ bot: 'googlebot', directives: ['noindex', 'nofollow'], raw: 'X-Robots-Tag: googlebot: noindex, nofollow' }]);
  });

  it('keeps repeated header lines apart: a later line is not scoped to an earlier bot', () => {
    const p = extract('', '', { headers: [['x-robots-tag', 'otherbot: noindex'], ['x-robots-tag', 'noarchive']] });
    expect(p.noindexHeader).toBe(false);
    expect(p.robots.noarchive).toBe(true);
    expect(p.robots.header.map((r) => r.bot)).toEqual(['otherbot', null]);
  });

  it('does not read max-snippet or unavailable_after as bot names', () => {
    expect(parseXRobotsTag('max-snippet: 20, unavailable_after: 25 Jun 2030 15:00:00 PST')).toEqual([
      { bot: null, directives: ['max-snippet:20', 'unavailable_after:25 jun 2030 15:00:00 pst'], raw: 'X-Robots-Tag: max-snippet: 20, unavailable_after: 25 Jun 2030 15:00:00 PST' },
    ]);
  });

  it('handles a generic rule followed by a bot-scoped rule on one line', () => {
    expect(parseXRobotsTag('noarchive, bingbot: noindex').map((r) => [r.bot, r.directives])).toEqual([
      [null, ['noarchive']],
      ['bingbot', ['noindex']],
    ]);
  });
});

describe('extractPage: robots object', () => {
  it('collects nosnippet, the smallest max-snippet, noarchive, nocache, noai and noimageai', () => {
    const p = extract('<meta name="robots" content="max-snippet:120, noai"><meta name="bingbot" content="max-snippet:30, nocache">', '', {
      headers: [['x-robots-tag', 'nosnippet, noimageai, noarchive']],
    });
    expect(p.robots).toMatchObject({ nosnippet: true, maxSnippet: 30, noarchive: true, nocache: true, noai: true, noimageai: true });
  });

  it('defaults to no limit (-1) and all flags false', () => {
    const p = extract('<meta name="robots" content="max-snippet:-1">');
    expect(p.robots).toMatchObject({ nosnippet: false, maxSnippet: -1, noarchive: false, nocache: false, noai: false, noimageai: false });
  });

  it('ignores max-snippet scoped to a non-search bot', () => {
    expect(extract('<meta name="gptbot" content="max-snippet:0">').robots.maxSnippet).toBe(-1);
  });
});

describe('extractPage: JSON-LD', () => {
  it('counts blocks and collects types from @graph, arrays and nested entities', () => {
    const graph = JSON.stringify({ '@context': 'https://schema.org', '@graph': [{ '@type': 'WebSite' }, { '@type': ['NewsArticle', 'CreativeWork'], author: { '@type': 'Person' } }] });
    const array = JSON.stringify([{ '@type': 'https://schema.org/Product' }, { '@type': 'schema:FAQPage' }]);
    const p = extract(`<script type="application/ld+json">${graph}</script><script type="Application/LD+JSON; charset=utf-8">${array}</script>`);
    expect(p.jsonLd.blocks).toBe(2);
    expect(p.jsonLd.invalid).toBe(0);
    expect(p.jsonLd.types).toEqual(['CreativeWork', 'FAQPage', 'NewsArticle', 'Person', 'Product', 'WebSite']);
    expect(p.jsonLd.keyTypes).toEqual(['WebSite', 'FAQPage', 'Article', 'Product']);
  });

  it('counts a block that is not JSON, or not an object, as invalid', () => {
    const p = extract('<script type="application/ld+json">{"@type": "Organization",}</script><script type="application/ld+json">"text"</script><script type="application/ld+json">{"@type":"Service"}</script>');
    expect(p.jsonLd).toEqual({ blocks: 3, invalid: 2, types: ['Service'], keyTypes: ['Service'], problems: [] });
  });

  it('maps subtypes to key types (LocalBusiness -> Organization)', () => {
    expect(extract('<script type="application/ld+json">{"@type":"LocalBusiness"}</script>').jsonLd.keyTypes).toEqual(['Organization']);
  });

  it('is empty without blocks; ordinary scripts are not JSON-LD', () => {
    expect(extract('<script>var a = {"@type":"Article"}</script>').jsonLd).toEqual({ blocks: 0, invalid: 0, types: [], keyTypes: [], problems: [] });
  });
});

describe('extractPage: Open Graph', () => {
  it('reports presence of og:title, og:description, og:image, og:url and og:type', () => {
    const p = extract('<meta property="og:title" content="T"><meta property="OG:Description" content="D"><meta name="og:image" content="/i.png"><meta property="og:url" content="">');
    expect(p.openGraph).toEqual({ title: true, description: true, image: true, url: false, type: false });
  });
});

describe('extractPage: lang', () => {
  it('reads <html lang>', () => {
    expect(extract('', '', { htmlAttrs: ' lang=" en-GB "' }).lang).toBe('en-GB');
  });

  it('is null when missing or empty', () => {
    expect(extract('').lang).toBeNull();
    expect(extract('', '', { htmlAttrs: ' lang=""' }).lang).toBeNull();
  });
});

describe('extractPage: h1Count', () => {
  it('counts <h1> elements, not those inside <template>', () => {
    expect(extract('', '<h1>a</h1><div><h1>b</h1></div><template><h1>c</h1></template><h2>d</h2>').h1Count).toBe(2);
  });
});

describe('extractPage: text', () => {
  it('counts text outside script, style, noscript, template and svg, whitespace-collapsed', () => {
    const body =
      '<p>Hello   <b>big</b>\n world</p><script>var hidden = "script words";</script><style>.x{}</style>' +
      '<noscript>noscript words</noscript><template><p>template words</p></template>' +
      '<svg><text>svg words</text><title>svg title</title></svg><div>last</div>';
    const p = extract('<title>Not body text</title>', body);
    // "Hello big world last"
    expect(p.textLength).toBe(20);
    expect(p.wordCount).toBe(4);
  });

  it('separates words across block elements but not inline ones', () => {
    const p = extract('', '<ul><li>one</li><li>two</li></ul>wo<span>rd</span>');
    expect(p.wordCount).toBe(3);
  });

  it('does not count punctuation-only tokens as words', () => {
    const p = extract('', '<p>a - b — c</p>');
    expect(p.wordCount).toBe(3);
    expect(p.textLength).toBe(9);
  });

  it('gives 0 for an empty body', () => {
    const p = extract('', '');
    expect(p.textLength).toBe(0);
    expect(p.wordCount).toBe(0);
  });
});

describe('extractPage: truncated', () => {
  it('passes the truncation flag through and still extracts a cut page', () => {
    const html = '<!doctype html><html lang="en"><head><title>Cut page</title></head><body><h1>Start</h1><p>some text that is cu';
    const p = extractPage(html, PAGE_URL, headers(), true);
    expect(p.truncated).toBe(true);
    expect(p.title).toBe('Cut page');
    expect(p.h1Count).toBe(1);
    expect(extract('').truncated).toBe(false);
  });
});

describe('extractPage: robustness', () => {
  it('walks markup nested down to the depth limit, and reads deeper markup only down to it, as truncated', () => {
    const nested = (depth: number) => `<html><body>${'<div>'.repeat(depth)}deep words${'</div>'.repeat(depth)}</body></html>`;
    // <html> and <body> are open too.
    expect(extractPage(nested(PARSE_MAX_DEPTH - 2), PAGE_URL, headers(), false)).toMatchObject({ wordCount: 2, truncated: false });
    expect(extractPage(nested(20_000), PAGE_URL, headers(), false)).toMatchObject({ wordCount: 0, truncated: true });
  });
});

describe('extractPage: v2 extras (Markdown alternate, TDMRep meta, text/HTML ratio)', () => {
  const withExtras = (head: string, body = '') =>
    extractPageWithExtras(`<!doctype html><html><head>${head}</head><body>${body}</body></html>`, PAGE_URL, headers(), false);

  it('resolves the first alternate text/markdown link against <base> and ignores other alternates', () => {
    const { extras } = withExtras('<base href="https://cdn.example.com/docs/"><link rel="alternate" type="application/rss+xml" href="/feed"><link rel="Alternate" type="text/markdown; charset=utf-8" href="post.md"><link rel="alternate" type="text/markdown" href="/second.md">');
    expect(extras.markdownAlternate).toBe('https://cdn.example.com/docs/post.md');
    expect(withExtras('<link rel="alternate" type="text/markdown" href="javascript:x">').extras.markdownAlternate).toBeNull();
    expect(withExtras('').extras.markdownAlternate).toBeNull();
  });

  it('reads the TDMRep meta tags as written', () => {
    expect(withExtras('<meta name="TDM-Reservation" content="1"><meta name="tdm-policy" content="https://www.example.com/p.json">').extras.tdmMeta).toEqual({ reservation: '1', policy: 'https://www.example.com/p.json' });
    expect(withExtras('').extras.tdmMeta).toEqual({ reservation: null, policy: null });
  });

  it('textToHtmlRatio is visible UTF-8 text bytes over the HTML bytes, four decimals', () => {
    const html = '<html><head><style>p{}</style></head><body><p>ab 👋</p></body></html>';
    // "ab 👋" = 2 + 1 + 4 bytes.
    expect(extractPage(html, PAGE_URL, headers(), false).textToHtmlRatio).toBe(Math.round((7 / Buffer.byteLength(html)) * 10_000) / 10_000);
    expect(extractPage('', PAGE_URL, headers(), false).textToHtmlRatio).toBe(0);
  });
});
