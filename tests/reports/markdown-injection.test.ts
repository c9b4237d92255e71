// A hostile site (its title, description, addresses, robots.txt lines, JSON-LD and Link header) and a hostile buyer
// (a workflow's name and evidence), through the real check and the real Markdown builders (the MCP tool's text and
// "Copy as Markdown"), read back by a real CommonMark parser (marked, GitHub-flavoured as chat clients read it):
// no image, no link and no HTML comes from their text, only the links our own template makes; the value is still
// shown, as text. The report page (React) shows the same values as text too.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseFragment } from 'parse5';
import { marked, type Token, type TokensList } from 'marked';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVisibility } from '@/lib/checks/visibility/check';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { ReadinessRequest } from '@/lib/checks/readiness/schema';
import { REFERENCES } from '@/lib/checks/readiness/references';
import { checkMarkdown } from '@/lib/checks/entry';
import { checkById } from '@/lib/checks/registry';
import { reportMarkdown } from '@/lib/reports/markdown';
import { markdownCode, markdownText } from '@/lib/checks/markdown-text';
import { ReportView } from '@/components/report-view/ReportView';
import { goodRoutes, httpsOnly, text } from '../visibility/fixture-pages';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { validReadinessBody } from '../support/runtime';

/** Everything a Markdown reader could build from text: an image, links of every kind, raw HTML, blocks. */
const HOSTILE =
  '![t](https://evil.example/track.png) [Claim your refund](https://evil.example/refund) [js](javascript:alert(1)) ' +
  '<https://evil.example/auto> <img src=x onerror=alert(1)> <script>alert(1)</script> https://evil.example/bare www.evil.example ' +
  'pay@evil.example *bold* `code` &lt;b&gt;\n# heading\n> quote\n- item\n[ref]: https://evil.example/ref\n[ref]';
/** What a reader must see of it: the same characters, whitespace runs as one space. */
const SHOWN = HOSTILE.replace(/\s+/g, ' ');
const PERMALINK = 'https://checks.example/reports/rep_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

interface Read {
  /** Every link's address, in order (inline, reference, autolink and GFM's bare ones alike). */
  links: string[];
  images: string[];
  html: string[];
  /** Reference definitions the text made. */
  definitions: string[];
  /** Heading texts, blockquotes and code blocks: blocks only our template may make. */
  headings: string[];
  quotes: number;
  codeBlocks: number;
  /** The text a reader sees, code spans included, in order. */
  text: string;
}

function readMarkdown(markdown: string): Read {
  const tokens: TokensList = marked.lexer(markdown, { gfm: true });
  const read: Read = { links: [], images: [], html: [], definitions: Object.keys(tokens.links), headings: [], quotes: 0, codeBlocks: 0, text: '' };
  const walk = (list: Token[]) => {
    for (const t of list) {
      if (t.type === 'link') read.links.push(t.href);
      else if (t.type === 'image') read.images.push(t.href);
      else if (t.type === 'html') read.html.push(t.raw);
      else if (t.type === 'heading') read.headings.push(shown(t.tokens ?? []));
      else if (t.type === 'blockquote') read.quotes++;
      else if (t.type === 'code') read.codeBlocks++;
      else if (isLeaf(t)) read.text += leafText(t);
      if ('tokens' in t && t.tokens) walk(t.tokens);
      if (t.type === 'list') walk(t.items);
      // A paragraph ends where the next block starts.
      if (t.type === 'paragraph' || t.type === 'heading') read.text += '\n';
    }
  };
  walk(tokens);
  return read;
}

const isLeaf = (t: Token) => (t.type === 'text' || t.type === 'escape' || t.type === 'codespan') && !('tokens' in t && t.tokens);
// A text token keeps its entity references as written (the renderer passes them on, and a browser shows the
// character); an escaped character and a code span are shown as they are.
const leafText = (t: Token): string => {
  const raw = String((t as { text?: unknown }).text);
  return t.type === 'text' ? raw.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&') : raw;
};
/** The text a reader sees of inline tokens. */
const shown = (list: Token[]): string => list.map((t) => (isLeaf(t) ? leafText(t) : 'tokens' in t && t.tokens ? shown(t.tokens) : '')).join('');

// The check against a fixture site whose every echoed value is hostile: HOSTILE written into the HTML so that its
// parser reads back exactly HOSTILE.
const inHtml = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const PAGE = `<!doctype html><html lang="${inHtml(HOSTILE)}"><head>
<title>${inHtml(HOSTILE)}</title>
<meta name="description" content="${inHtml(HOSTILE)}">
<meta name="robots" content="max-snippet:-1, ${inHtml(HOSTILE)}">
<link rel="canonical" href="https://site.test/guide?q=![c](https://evil.example/canonical.png)">
<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': '![ld](https://evil.example/ld.png)', name: 'x' })}</script>
</head><body><h1>Widgets</h1><p>${Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ')}</p></body></html>`;
const ROBOTS =
  'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /guide?q=[u](https://evil.example/u)\n' +
  'Content-Signal: search=yes, ai-train=no <img src=x onerror=alert(1)>\n\nSitemap: https://evil.example/sitemap.xml?[s](https://evil.example/s)\n';
const CHECKED = 'https://site.test/guide?q=[u](https://evil.example/u)';

let site: FixtureSite;
let visibilityBody: Record<string, unknown>;
beforeAll(async () => {
  site = await startFixtureSite(
    goodRoutes({
      '/guide': httpsOnly({ headers: [['content-type', 'text/html'], ['link', '<https://evil.example/cat>; rel="api-catalog", <https://evil.example/x>; rel="![i](https://evil.example/rel.png)"']], body: PAGE }),
      '/robots.txt': text(ROBOTS),
    }),
  );
  const { report, limits } = await checkVisibility(CHECKED, { hostMap: site.hostMap(['site.test']) });
  visibilityBody = { service: 'AI Visibility Check', idempotencyKey: 'k', limits, artifactHash: 'h', checkedAt: '2026-11-01T12:00:00.000Z', report };
}, 60_000);
afterAll(() => site?.close());

/**
 * Reads `markdown` with a real Markdown parser and expects nothing in it to have become markup: exactly `links`
 * (ours), no image, no HTML, no reference definition, no quote and no code block.
 */
function readWithout(markdown: string, links: readonly string[]): ReturnType<typeof readMarkdown> {
  const read = readMarkdown(markdown);
  expect(read.links).toEqual(links);
  expect(read.images).toEqual([]);
  expect(read.html).toEqual([]);
  expect(read.definitions).toEqual([]);
  expect(read.quotes).toBe(0);
  expect(read.codeBlocks).toBe(0);
  return read;
}

describe('the visibility Markdown of a hostile site', () => {
  it('the check echoes the site\'s values (the test\'s premise)', () => {
    const report = visibilityBody.report as { page: { title: string; metaDescription: string; lang: string }; crawlers: Array<{ token: string; allowed: boolean; rule: string | null }> };
    expect(report.page.title).toBe(SHOWN);
    expect(report.page.metaDescription).toBe(SHOWN);
    expect(report.crawlers.find((c) => c.token === 'GPTBot')).toMatchObject({ allowed: false, rule: 'Disallow: /guide?q=[u](https://evil.example/u)' });
  });

  it('builds no image, link or HTML from it, in the MCP text and in "Copy as Markdown" (only the permalink links), and still shows it', () => {
    for (const [markdown, links] of [
      [reportMarkdown('ai-visibility', visibilityBody), []],
      [checkMarkdown(checkById('ai-visibility')!, visibilityBody, PERMALINK), [PERMALINK]],
    ] as const) {
      const read = readWithout(markdown, links);
      expect(read.headings.filter((h) => /heading|evil/.test(h))).toEqual([`AI visibility: ${CHECKED}`]);
      expect(read.text).toContain(`AI visibility: ${CHECKED}`);
      expect(read.text).toContain(`Title: ${SHOWN} (`);
      expect(read.text).toContain(`Description: ${SHOWN} (`);
      expect(read.text).toContain('refused by robots.txt (Disallow: /guide?q=[u](https://evil.example/u) in the group for GPTBot)');
      expect(read.text).toContain('Sitemaps named in robots.txt: https://evil.example/sitemap.xml?[s](https://evil.example/s)');
      expect(read.text).toContain('Link header relations: api-catalog: https://evil.example/cat; ![i](https://evil.example/rel.png): https://evil.example/x');
    }
  });

  it('the report page shows the same values as text: no element, attribute or link from them', () => {
    const html = renderToStaticMarkup(createElement(ReportView, { check: 'ai-visibility', body: visibilityBody, idPrefix: 'h', permalink: PERMALINK }));
    const page = elementsOf(parseFragment(html) as unknown as HtmlNode);
    expect(page.tags.filter((t) => ['img', 'script', 'iframe', 'object', 'embed'].includes(t))).toEqual([]);
    expect(page.handlers).toEqual([]);
    expect(page.hrefs.filter((h) => !h.startsWith('#'))).toEqual([]);
    expect(page.text).toContain(SHOWN);
  });
});

describe('the readiness Markdown of hostile values', () => {
  const request = ReadinessRequest.parse(
    validReadinessBody({
      workflow: { name: HOSTILE.slice(0, 120), intendedUsers: 'agents', targetEnvironment: 'sandbox' },
    }),
  );
  request.capabilities.idempotency = { status: 'implemented', evidence: [HOSTILE.slice(0, 240)] };
  const assessment = assessReadiness(request);
  const body = { service: 'Agent Payment Readiness Assessment', idempotencyKey: 'k', limits: [], artifactHash: 'h', assessedAt: '2026-11-01T12:00:00.000Z', assessment };
  /** The links the template makes on purpose: each finding's sources, all from the assessment's own table, in order. */
  const sources = assessment.findings.flatMap((f) => f.references.map((r) => r.url));
  const OWN = new Set<string>(Object.values(REFERENCES).map((r) => r.url));

  it('a buyer\'s workflow name and evidence: no image, link or HTML from them; the only links are the sources and the permalink', () => {
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((u) => !OWN.has(u))).toEqual([]);
    for (const [markdown, links] of [
      [reportMarkdown('readiness', body), sources],
      [checkMarkdown(checkById('readiness')!, body, PERMALINK), [PERMALINK, ...sources]],
    ] as const) {
      const read = readWithout(markdown, links);
      expect(read.text).toContain(`Agent payment readiness: ${HOSTILE.slice(0, 120).replace(/\s+/g, ' ').trim()}`);
    }
  });

  it('a stored or hand-made body with every string hostile: no image, no link (not even to a source) and no HTML', () => {
    const hostile = (value: unknown): unknown =>
      typeof value === 'string' ? `${value} ${HOSTILE}` : Array.isArray(value) ? value.map(hostile) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hostile(v)])) : value;
    const read = readMarkdown(reportMarkdown('readiness', hostile(body)));
    expect(read.links).toEqual([]);
    expect(read.images).toEqual([]);
    expect(read.html).toEqual([]);
    expect(read.definitions).toEqual([]);
    expect(read.quotes).toBe(0);
    expect(read.codeBlocks).toBe(0);
    expect(read.headings.filter((h) => /^heading/.test(h))).toEqual([]);
    expect(read.text).toContain(`${assessment.findings[0].why} ${SHOWN}`);
  });

  it('the report page shows them as text: its only links are the sources and in-page anchors', () => {
    const html = renderToStaticMarkup(createElement(ReportView, { check: 'readiness', body, idPrefix: 'h' }));
    const page = elementsOf(parseFragment(html) as unknown as HtmlNode);
    expect(page.tags.filter((t) => ['img', 'script', 'iframe', 'object', 'embed'].includes(t))).toEqual([]);
    expect(page.handlers).toEqual([]);
    expect(page.hrefs.filter((h) => !h.startsWith('#'))).toEqual(sources);
    expect(page.text).toContain(HOSTILE.slice(0, 120).replace(/\s+/g, ' ').trim());
  });
});

type HtmlNode = { nodeName: string; tagName?: string; value?: string; attrs?: Array<{ name: string; value: string }>; childNodes?: HtmlNode[] };

/** What a browser builds from the markup: its elements, event-handler attributes, link targets and text. */
function elementsOf(root: HtmlNode): { tags: string[]; handlers: string[]; hrefs: string[]; text: string } {
  const out = { tags: [] as string[], handlers: [] as string[], hrefs: [] as string[], text: '' };
  const walk = (n: HtmlNode) => {
    if (n.nodeName === '#text') out.text += n.value ?? '';
    if (n.tagName) out.tags.push(n.tagName);
    for (const a of n.attrs ?? []) {
      if (/^on/i.test(a.name)) out.handlers.push(a.name);
      if (a.name === 'href' || a.name === 'src') out.hrefs.push(a.value);
    }
    for (const c of n.childNodes ?? []) walk(c);
  };
  walk(root);
  out.text = out.text.replace(/\s+/g, ' ');
  return out;
}

describe('markdownText and markdownCode', () => {
  const VALUES = [
    HOSTILE, '# heading', '> quote', '- item', '+ item', '1. one', '2) two', '---', '===', '***', '- - -', '    indented', '```js', '~~~', '| a | b |',
    '[x]: https://evil.example/def', 'x\\', '\\![x](https://evil.example)', '_www.evil.example', '(www.evil.example)', 'WWW.evil.example', 'mailto:a@evil.example',
    'xmpp:a@evil.example', 'https://a.example/`x``', '&#x6A;avascript:alert(1)', '<!-- c -->', 'a  \nb', 'snake_case_id', '__init__', '3.0.0',
  ];
  const CONTEXTS: Array<(v: string) => string> = [(v) => v, (v) => `- ${v}`, (v) => `1. ${v}`, (v) => `Found: ${v}`, (v) => `**${v}**`, (v) => `# Title: ${v}`, (v) => `Text\n${v}`];

  it.each(VALUES)('%j builds nothing wherever it is printed, and reads as itself', (value) => {
    for (const context of CONTEXTS) {
      const read = readMarkdown(context(markdownText(value)));
      expect([read.links, read.images, read.html, read.definitions, read.quotes, read.codeBlocks]).toEqual([[], [], [], [], 0, 0]);
    }
    expect(readMarkdown(markdownText(value)).text).toBe(`${value.replace(/\s+/g, ' ').trim()}\n`);
    expect(readMarkdown(markdownCode(value)).text).toBe(`${value.replace(/\s+/g, ' ').trim()}\n`);
  });
});
