// The bounded parse (bounded-parse.ts): markup that would make parse5 build a tree far larger than the page stops
// at a limit and is read as far as it was built; every other page parses exactly as parse5 parses it.
import { describe, expect, it } from 'vitest';
import { parse, serialize } from 'parse5';
import { analyseSite, type SiteFiles } from '@/lib/checks/visibility/analysis';
import { parseBounded, PARSE_MAX_DEPTH, PARSE_MAX_NODES, PARSE_MAX_REOPENED_FORMATTING } from '@/lib/checks/visibility/bounded-parse';
import { extractPageWithExtras } from '@/lib/checks/visibility/extract';
import { VISIBILITY_LIMITS } from '@/lib/checks/visibility/rubric';
import { NESTED_TABLES_PAGE, unclosedFormattingPage } from './hostile-site';

const headers = { headerAll: () => [] };
const notFetched = { status: null, contentType: null, body: null, bytesRead: 0, truncated: false };
const files: SiteFiles = {
  robots: { status: 200, contentType: 'text/plain', body: 'User-agent: *\nAllow: /\n', bytesRead: 23, truncated: false },
  sitemap: { ...notFetched, url: null },
  sitemapChild: null,
  llms: notFetched,
  llmsFull: notFetched,
  llmsLinks: [],
  tdmrep: notFetched,
  httpRedirectsToHttps: true,
};

/** An ordinary large page: cards of headings, text, links and scripts, about 512 KB. */
function ordinaryPage(): string {
  const card = '<div class="card"><h2>Item</h2><p>Some <b>words</b> of text here, and a <a href="/x">link</a>.</p><script>var x = 1;</script></div>';
  return `<!doctype html><html lang="en"><head><title>T</title></head><body>${card.repeat(Math.floor((512 * 1024) / card.length) - 1)}</body></html>`;
}

describe('parseBounded', () => {
  it.each(['b', 'a', 'i', 'font'] as const)('stops 50 unclosed <%s> reopened in every paragraph at the reopening limit, the tree small', (tag) => {
    const result = parseBounded(unclosedFormattingPage(tag));
    expect(result.limitHit).toEqual({ limit: 'reopened-formatting', max: PARSE_MAX_REOPENED_FORMATTING });
    expect(result.reopened).toBe(PARSE_MAX_REOPENED_FORMATTING);
    expect(result.nodes).toBeLessThan(PARSE_MAX_NODES);
    expect(result.maxDepth).toBeLessThanOrEqual(PARSE_MAX_DEPTH);
    // What was read before the stop is there: the title, and paragraphs of the body.
    const facts = extractPageWithExtras(unclosedFormattingPage(tag), 'https://site.test/', headers, false);
    expect(facts.facts.title).toBe('Hostile markup');
    expect(facts.facts.truncated).toBe(true);
    expect(facts.extras.parseLimit).toEqual({ limit: 'reopened-formatting', max: PARSE_MAX_REOPENED_FORMATTING });
    // One `x` per paragraph read: 50 reopened <b>, <i> or <font> each, and one <a> (an <a> closes the one before).
    expect(facts.facts.wordCount).toBe(PARSE_MAX_REOPENED_FORMATTING / (tag === 'a' ? 1 : 50));
  });

  it('stops tables nested 35,000 deep at the depth limit', () => {
    const result = parseBounded(NESTED_TABLES_PAGE);
    expect(result.limitHit).toEqual({ limit: 'depth', max: PARSE_MAX_DEPTH });
    expect(result.maxDepth).toBe(PARSE_MAX_DEPTH);
    expect(result.nodes).toBeLessThan(2 * PARSE_MAX_DEPTH);
  });

  it('stops at the node limit', () => {
    const html = '<!doctype html><body>' + '<br>x'.repeat(600);
    const result = parseBounded(html, { maxNodes: 1_000, maxDepth: PARSE_MAX_DEPTH, maxReopenedFormatting: PARSE_MAX_REOPENED_FORMATTING });
    expect(result.limitHit).toEqual({ limit: 'nodes', max: 1_000 });
    expect(result.nodes).toBe(1_000);
    expect(parseBounded(html).limitHit).toBeNull();
  });

  it('parses an ordinary 512 KB page, and misnested markup, exactly as parse5 does, within every limit', () => {
    for (const html of [
      ordinaryPage(),
      '<p><b>bold<p>still bold</b> plain<table><tr><td><i>cell</table><div><div><span>deep</span></div></div><template><b>t</b></template>',
      '<a href=1>one<a href=2>two</a><b><i>x</b>y</i><svg><a>in svg</a></svg>',
    ]) {
      const result = parseBounded(html);
      expect(result.limitHit).toBeNull();
      expect(serialize(result.document)).toBe(serialize(parse(html)));
    }
    const ordinary = parseBounded(ordinaryPage());
    expect(ordinary.nodes).toBeGreaterThan(40_000);
    expect(ordinary.reopened).toBe(0);
    expect(ordinary.maxDepth).toBe(5);
    // `<p><b>x</p><p>y</p>`: the <b> is reopened once inside the second paragraph.
    expect(parseBounded('<p><b>x</p><p>y</p>').reopened).toBe(1);
  });
});

describe('a page whose markup reaches a parse limit, in the report', () => {
  it('is truncated, with a finding naming the limit, and no byte-limit finding when the bytes were all read', () => {
    const body = unclosedFormattingPage('b');
    const analysis = analyseSite({ url: 'https://site.test/', status: 200, headers: [['content-type', 'text/html']], body, truncated: false, redirects: 0 }, files);
    expect(analysis.page.truncated).toBe(true);
    const ids = analysis.findings.map((f) => f.id);
    expect(ids).not.toContain('page-truncated');
    expect(analysis.findings.find((f) => f.id === 'page-markup-too-complex')).toEqual({
      id: 'page-markup-too-complex',
      severity: 'medium',
      rubric: null,
      pointsLost: 0,
      observed: "the page's markup makes HTML parsers reopen unclosed formatting elements (<b>, <i>, <a>, <font>…) more than 20,000 times; it was read only up to that point",
      why: 'An HTML parser recreates every formatting element left open inside each block that follows, so a few unclosed tags make browsers and crawlers build a tree far larger than the page. Content after the point where reading stopped was not examined; crawlers with limits of their own may stop early too.',
      fix: 'Close formatting elements (</b>, </i>, </a>, </font>) where they end, and remove repeated or generated markup so the page builds fewer elements.',
    });
  });

  it('names the depth limit for nested tables, and keeps the byte-limit finding for a page also cut at 512 KB', () => {
    const analysis = analyseSite({ url: 'https://site.test/', status: 200, headers: [], body: NESTED_TABLES_PAGE, truncated: true, redirects: 0 }, files);
    expect(analysis.page.truncated).toBe(true);
    expect(analysis.findings.find((f) => f.id === 'page-markup-too-complex')!.observed).toBe(
      "the page's markup nests elements more than 512 deep; it was read only up to that point",
    );
    expect(analysis.findings.map((f) => f.id)).toContain('page-truncated');
  });

  it('publishes the limits', () => {
    expect(VISIBILITY_LIMITS).toContain(
      'Markup is read only until it builds 200,000 nodes, nests elements 512 deep, or makes the parser reopen unclosed formatting elements (<b>, <i>, <a>, <font>…) 20,000 times; content after that point is not seen and the page is reported as truncated.',
    );
  });
});
