// The one label table of the visibility report (lib/checks/visibility/facts.ts): every member of a full version-3
// report has a label in words, empty facts are left out, and the view and the Markdown say the same.
import { describe, expect, it } from 'vitest';
import { findingTitle, hasFactLabel, visibilityFacts } from '@/lib/checks/visibility/facts';
import { reportMarkdown } from '@/lib/reports/markdown';
import { fullV3Body } from './full-v3-report';
import { markdownText } from '@/lib/checks/markdown-text';

/** Every member path of page and site, three levels deep (page.robots.meta, site.agentSurfaces.apiCatalog). */
function memberPaths(value: unknown, path: string, depth: number): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || depth === 3) return [path];
  return Object.entries(value).flatMap(([k, v]) => memberPaths(v, `${path}.${k}`, depth + 1));
}

/** A raw field name as a report would show one: `rendering · jsOnlyShare`, or a camelCase word. */
const RAW_FIELD = /\b[a-z]+[A-Z]\w*/;

describe('the visibility label table', () => {
  const body = fullV3Body();
  const report = body.report;

  it('has a label for every member of a full version-3 report', () => {
    const paths = [...memberPaths(report.page, 'page', 1), ...memberPaths(report.site, 'site', 1)];
    expect(paths.length).toBeGreaterThan(80);
    expect(paths.filter((p) => !hasFactLabel(p))).toEqual([]);
    // A member the table does not know is caught.
    expect(hasFactLabel('site.someNewMember')).toBe(false);
  });

  it('says in words whether the site treats a signed agent differently, and how much of the page the score rests on', () => {
    const v4 = {
      ...report,
      scoreBasis: { bytesRead: 2 * 1024 * 1024, pageBytes: 3 * 1024 * 1024, truncated: true },
      site: { ...report.site, access: { ...(report.site.access as Record<string, unknown>), signedAgent: { signed: true, signedStatus: 200, unsignedStatus: 403, differs: true, words: 'Signed, the page answered 200; unsigned, 403: the site treats signed agents differently.' } } },
    };
    const facts = Object.fromEntries(visibilityFacts(v4).flatMap((s) => s.facts).map((f) => [f.label, f.value]));
    expect(facts['Signed as this service (Web Bot Auth)']).toBe('Signed, the page answered 200; unsigned, 403: the site treats signed agents differently.');
    expect(facts['Part of the page read']).toBe('the first 2.0 MB of 3.0 MB: what lies past it was not measured');
    const whole = { ...v4, scoreBasis: { bytesRead: 48_000, pageBytes: 48_000, truncated: false } };
    expect(Object.fromEntries(visibilityFacts(whole).flatMap((s) => s.facts).map((f) => [f.label, f.value]))['Part of the page read']).toBe('all of it (47 KB)');
  });

  it('names each fact in words and formats each value: no field name, no JSON, no dash for nothing', () => {
    const facts = visibilityFacts(report).flatMap((s) => s.facts);
    expect(facts.filter((f) => RAW_FIELD.test(f.label)).map((f) => f.label)).toEqual([]);
    expect(facts.filter((f) => /[{}[\]]|^—$|^$/.test(f.value)).map((f) => `${f.label}: ${f.value}`)).toEqual([]);
    expect(facts.filter((f) => / · /.test(`${f.label} ${f.value}`))).toEqual([]);
  });

  it('shows the version-3 sections, labelled in words', () => {
    const byLabel = Object.fromEntries(visibilityFacts(report).flatMap((s) => s.facts.map((f) => [f.label, f.value])));
    expect(visibilityFacts(report).map((s) => s.title)).toEqual([
      'The page', 'Site files', 'What the site offers agents', 'May AI use this content?', 'Licensing', 'What a crawler or agent must pay', 'How the check fetched',
    ]);
    expect(byLabel).toMatchObject({
      'Share of words that need JavaScript': '12 %',
      'Markdown version': 'offered (answered as text/markdown; charset=utf-8; linked at https://shop.example/teapots.md)',
      'Markdown answer is this page': 'no: it has neither the page\'s title nor most of its words',
      'Head ended early by': 'an <iframe> on line 12',
      'robots.txt lines crawlers ignore': 'line 3: a rule before any User-agent line',
      'Facts that may be incomplete': 'word count, structured data',
      'Page read in full': 'no: cut at the read limit',
      'Link header relations': 'api-catalog: https://shop.example/.well-known/api-catalog (application/linkset+json)',
      'API catalog (RFC 9727)': 'published and valid: “Shop API”, 2 entries (https://shop.example/.well-known/api-catalog)',
      'MCP server card': 'published and valid: “shop-mcp”, 4 entries (https://shop.example/.well-known/mcp/server-card)',
      'A2A agent card': 'published but not valid: no skills member (https://shop.example/.well-known/agent-card.json)',
      'OAuth authorization server metadata (RFC 8414)': 'published and valid: “https://shop.example”, 0 entries (https://shop.example/.well-known/oauth-authorization-server)',
      'OAuth protected resource metadata (RFC 9728)': 'published and valid: “https://shop.example/api”, 1 entry (https://shop.example/.well-known/oauth-protected-resource)',
      'Web Bot Auth key directory': 'published and valid: 2 entries (https://shop.example/.well-known/http-message-signatures-directory)',
      'WebMCP tools': '1 tool',
      'Training AI models': 'refused: Content-Signal line in robots.txt says no (ai-train=no (line 4)); RSL licence says no (prohibits ai-train)',
      Search: 'allowed: Content-Signal line in robots.txt says yes (search=yes (line 4))',
      'Input to AI answers': 'refused: TDMRep says no (tdm-reservation 1). sources disagree: rsl: permits ai-input',
      'TDMRep reservation': 'text and data mining rights reserved (/.well-known/tdmrep.json)',
      'TDMRep policy': 'https://shop.example/tdm-policy.json (does not answer)',
      'RSL licence terms': 'permits search, ai-input; prohibits ai-train; payment: crawl 0.01 USD',
      'Payment asked': 'pay-per-crawl for 1 crawler, x402, MPP',
      'Payment challenges': 'GPTBot: pay-per-crawl 0.01 USD; the page: x402 10000 0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913 on eip155:8453',
      'Robots directives': '<meta name="robots" content="max-snippet:80">; unavailable after 2020-01-01 (passed: treated as noindex)',
      'Content-Signal by crawler': '*: search=yes, ai-train=no (line 4)',
    });
  });

  it('says a partial rendering is incomplete, with its reason, and no measure from it', () => {
    const partial = structuredClone(report);
    const reason = 'The page had not loaded after 12 s (no load event): what the browser had is not compared with the HTML as served.';
    (partial.page as { rendering: unknown }).rendering = { state: 'partial', reason, missing: ['load'], title: null, h1Count: null, wordCount: null, textLength: null, jsOnlyShare: null, requests: 0, refused: 0, durationMs: 12_000 };
    const byLabel = Object.fromEntries(visibilityFacts(partial).flatMap((s) => s.facts.map((f) => [f.label, f.value])));
    expect(byLabel['Rendered view']).toBe(`rendering incomplete: ${reason}`);
    expect(byLabel['Share of words that need JavaScript']).toBeUndefined();
  });

  it('leaves empty facts out and says missing things in words', () => {
    const plain = structuredClone(report);
    plain.page.headBrokenAt = null;
    plain.page.incomplete = [];
    (plain.site.robotsTxt as { ignoredLines: unknown[] }).ignoredLines = [];
    plain.site.contentUsage = [];
    plain.page.title = null;
    const labels = visibilityFacts(plain).flatMap((s) => s.facts.map((f) => f.label));
    for (const gone of ['Head ended early by', 'Facts that may be incomplete', 'robots.txt lines crawlers ignore', 'Content-Signal by crawler']) expect(labels).not.toContain(gone);
    expect(visibilityFacts(plain)[0].facts.find((f) => f.label === 'Title')!.value).toBe('missing');
  });

  it('the Markdown lists the same facts under the same labels', () => {
    const md = reportMarkdown('ai-visibility', body);
    for (const s of visibilityFacts(report)) {
      expect(md).toContain(`## ${markdownText(s.title)}`);
      // Each value as text that builds nothing (lib/checks/markdown-text.ts: its addresses as code).
      for (const f of s.facts) expect(md).toContain(`- **${markdownText(f.label)}:** ${markdownText(f.value)}`);
    }
    expect(md).not.toMatch(/\b[a-z]+[A-Z]\w* · [a-z]+[A-Z]/);
  });

  it('titles findings in words', () => {
    expect(['llms-txt-missing', 'llms-full-txt', 'open-graph-incomplete', 'jsonld-key-types', 'ai-answer-crawlers-blocked', 'h1-missing', 'description-missing', 'soft-404'].map(findingTitle)).toEqual([
      'llms.txt missing', 'llms-full.txt', 'Open Graph incomplete', 'JSON-LD key types', 'AI answer crawlers blocked', 'h1 missing', 'Description missing', 'Soft 404',
    ]);
  });
});
