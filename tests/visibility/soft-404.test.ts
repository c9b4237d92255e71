// Visibility check v4 end to end on fixture sites: soft 404s (a site whose catch-all page answers every path,
// compared with the answer to one random path that cannot exist) and Markdown of this page against a generic
// page (the page and / both asked for Markdown), through the real check (safeFetch, the analysis threads, the
// report caps).
import { afterEach, describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { checkVisibility, type VisibilityResult } from '@/lib/checks/visibility/check';
import { samePage } from '@/lib/checks/visibility/soft-404';
import { RUBRIC_CHANGES_4 } from '@/lib/checks/visibility/rubric-changes';
import { visibilityFacts } from '@/lib/checks/visibility/facts';
import { goodPage, goodRoutes, httpsOnly } from './fixture-pages';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';

const sites: FixtureSite[] = [];
afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

async function run(routes: Record<string, FixtureRoute>, path = '/guide'): Promise<{ result: VisibilityResult; site: FixtureSite }> {
  const site = await startFixtureSite(routes);
  sites.push(site);
  return { result: await checkVisibility(`https://site.test${path}`, { hostMap: site.hostMap(['site.test']) }), site };
}

const finding = (r: VisibilityResult, id: string) => r.report.findings.find((f) => f.id === id);
const SURFACES = ['apiCatalog', 'mcpServerCard', 'a2aAgentCard', 'oauthAuthorizationServer', 'oauthProtectedResource', 'webBotAuthDirectory'] as const;
const NOT_FOUND_PATH = /^\/agent-visibility-check-not-found-[0-9a-f]{16}$/;

// A single-page app's index.html: the server sends it, 200 text/html, for every path it does not otherwise serve.
const SHELL = '<!doctype html><html lang="en"><head><title>Acme app</title><script type="module" src="/assets/index-4f2a.js"></script></head><body><div id="root"></div></body></html>';
const shell = httpsOnly({ headers: { 'content-type': 'text/html; charset=utf-8' }, body: SHELL });

describe('soft 404s', () => {
  it('a single-page app whose catch-all answers every file: every site file and agent surface is soft-404, none found, one finding; one extra request', async () => {
    const { result, site } = await run({ '*': shell });
    const r = result.report;
    expect(r.site.siteFiles).toEqual({
      notFoundProbe: { status: 200, catchAll: true },
      robotsTxt: { state: 'soft-404', status: 200 },
      sitemap: { state: 'soft-404', status: 200 },
      llmsTxt: { state: 'soft-404', status: 200 },
      llmsFullTxt: { state: 'soft-404', status: 200 },
    });
    for (const k of SURFACES) expect(r.site.agentSurfaces[k]).toMatchObject({ status: 'soft-404', valid: false, httpStatus: 200 });
    // The AI Catalog at its well-known address too (nothing named it elsewhere).
    expect(r.site.agentSurfaces.aiCatalog).toMatchObject({ status: 'soft-404', valid: false, httpStatus: 200, discoveredVia: 'well-known' });
    expect(r.robotsTxt).toBe('soft-404');
    expect(r.site.robotsTxt.state).toBe('soft-404');
    expect(r.llmsTxt).toBe('soft-404');
    expect(r.site.llmsTxt).toBe('soft-404');
    expect(r.site.llmsFullTxt).toBe('soft-404');
    expect(r.site.sitemapXml.isSitemap).toBe(false);
    expect(JSON.stringify(r.site.siteFiles)).not.toContain('"found"');

    const soft = finding(result, 'soft-404')!;
    expect(soft).toMatchObject({ severity: 'low', rubric: null, pointsLost: 0 });
    expect(soft.why).toContain('The site answers every path with its home page');
    expect(soft.observed).toBe(
      'a path that cannot exist answered 200 with an HTML page, and /robots.txt, https://site.test/sitemap.xml, /llms.txt, /llms-full.txt, /.well-known/api-catalog, /.well-known/mcp/server-card, /.well-known/agent-card.json, /.well-known/oauth-authorization-server, /.well-known/oauth-protected-resource, /.well-known/http-message-signatures-directory, /.well-known/agent-skills/index.json answered with that same page',
    );
    expect(finding(result, 'agent-surfaces')).toBeUndefined();
    expect(finding(result, 'llms-txt-missing')).toBeDefined();

    // Exactly one request for a path that cannot exist: the request list names it (proof of every fetch), and
    // nothing else in the report carries its random address.
    expect(site.requests.filter((p) => NOT_FOUND_PATH.test(p))).toHaveLength(1);
    expect(r.requests.entries.filter((e) => NOT_FOUND_PATH.test(new URL(e.url).pathname)).map((e) => e.purpose)).toEqual(['a path that cannot exist (soft-404 comparison)']);
    expect(JSON.stringify({ ...r, requests: null })).not.toContain('agent-visibility-check-not-found');

    // The report view's words.
    const facts = visibilityFacts(r as unknown as Record<string, unknown>).flatMap((s) => s.facts);
    expect(facts.find((f) => f.label === 'Catch-all page (soft 404)')!.value).toBe(
      'the site answers every path with its home page (HTTP 200 for a path that cannot exist); answered with it: robots.txt, the sitemap, llms.txt, llms-full.txt, https://site.test/.well-known/api-catalog, https://site.test/.well-known/mcp/server-card, https://site.test/.well-known/agent-card.json, https://site.test/.well-known/oauth-authorization-server, https://site.test/.well-known/oauth-protected-resource, https://site.test/.well-known/http-message-signatures-directory, https://site.test/.well-known/agent-skills/index.json, https://site.test/.well-known/ai-catalog.json',
    );
    expect(facts.find((f) => f.label === 'llms.txt')!.value).toBe("not found: the address answers with the site's catch-all page (a soft 404)");
    expect(facts.find((f) => f.label === 'MCP server card')!.value).toBe("not published: the address answers with the site's catch-all page (HTTP 200) (a soft 404)");
  });

  it('a site with real files and a catch-all for everything else: the files are found, the JSON surfaces that are the HTML catch-all are soft-404', async () => {
    const card = { $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'test.site/shop', version: '1.0.0', capabilities: { tools: {} } };
    const { result } = await run(goodRoutes({ '*': shell, '/.well-known/mcp/server-card': { headers: { 'content-type': 'application/json' }, body: JSON.stringify(card) } }));
    const r = result.report;
    expect(r.site.siteFiles).toEqual({
      notFoundProbe: { status: 200, catchAll: true },
      robotsTxt: { state: 'found', status: 200 },
      sitemap: { state: 'found', status: 200 },
      llmsTxt: { state: 'found', status: 200 },
      llmsFullTxt: { state: 'found', status: 200 },
    });
    expect(r.robotsTxt).toBe('found');
    expect(r.llmsTxt).toBe('found');
    expect(r.site.sitemapXml.isSitemap).toBe(true);
    expect(r.site.agentSurfaces.mcpServerCard).toMatchObject({ status: 'found', valid: true });
    for (const k of SURFACES.filter((k) => k !== 'mcpServerCard')) expect(r.site.agentSurfaces[k].status).toBe('soft-404');
    expect(finding(result, 'soft-404')!.observed).toBe(
      'a path that cannot exist answered 200 with an HTML page, and /.well-known/api-catalog, /.well-known/agent-card.json, /.well-known/oauth-authorization-server, /.well-known/oauth-protected-resource, /.well-known/http-message-signatures-directory, /.well-known/agent-skills/index.json answered with that same page',
    );
    expect(r.score).toBe(100);
  });

  it('a site that answers unknown paths 404: files found, an HTML page at a surface address is missing (another page, not the catch-all), no finding', async () => {
    const other = httpsOnly({ headers: { 'content-type': 'text/html' }, body: '<!doctype html><html><title>Agents</title><body>We have no agent card yet.</body></html>' });
    const { result, site } = await run(goodRoutes({ '/.well-known/agent-card.json': other }));
    const r = result.report;
    expect(r.site.siteFiles.notFoundProbe).toEqual({ status: 404, catchAll: false });
    expect(r.site.siteFiles.robotsTxt).toEqual({ state: 'found', status: 200 });
    expect(r.site.agentSurfaces.a2aAgentCard).toMatchObject({ status: 'missing', httpStatus: 200 });
    expect(r.site.agentSurfaces.apiCatalog).toMatchObject({ status: 'missing', httpStatus: 404 });
    expect(finding(result, 'soft-404')).toBeUndefined();
    expect(site.requests.filter((p) => NOT_FOUND_PATH.test(p))).toHaveLength(1);
  });

  it('a file that is text but not what it must be is invalid, not found: llms.txt without an H1', async () => {
    const { result } = await run(goodRoutes({ '/llms.txt': { headers: { 'content-type': 'text/plain' }, body: 'Widgets and guides, see /guide\n' } }));
    expect(result.report.site.siteFiles.llmsTxt).toEqual({ state: 'invalid', status: 200 });
    expect(result.report.llmsTxt).toBe('missing');
    expect(finding(result, 'llms-txt-invalid')).toBeDefined();
  });

  it('samePage: the same page with a path echoed is one page; two different pages are not', () => {
    expect(samePage(SHELL, SHELL)).toBe(true);
    expect(samePage('<html><title>Shop</title><p>You asked for /robots.txt</p>', '<html><title>Shop</title><p>You asked for /x</p>')).toBe(true);
    expect(samePage('<html><title>Agents</title><body>No card</body>', SHELL)).toBe(false);
  });

  it('the rubric change rows name the new finding and the Markdown rule', () => {
    expect(RUBRIC_CHANGES_4.changes.filter((c) => c.item === 'soft-404' || c.item === 'agents.markdown').map((c) => [c.item, c.kind ?? 'item', c.after])).toEqual([
      ['soft-404', 'finding', 0],
      ['agents.markdown', 'item', 2],
    ]);
  });
});

// The guide page's own words, as goodPage writes them: Markdown made of them shares most of the page's words.
const WORDS = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
// The Markdown negotiation sends exactly this Accept; the llms.txt links ask with a list that starts with it.
const asked = (site: FixtureSite, path: string) => site.log.filter((l) => l.path === path && l.headers.accept === 'text/markdown').length;

/** Answers `Accept: text/markdown` with `markdown`, anything else with the HTML page. */
function negotiated(html: string, markdown: string | null): FixtureRoute {
  return httpsOnly((req: IncomingMessage): FixtureResponse =>
    markdown !== null && /text\/markdown/.test(req.headers.accept ?? '') ? { headers: { 'content-type': 'text/markdown; charset=utf-8' }, body: markdown } : { headers: { 'content-type': 'text/html' }, body: html },
  );
}

describe('Markdown of this page, a generic page, or nothing', () => {
  it('Markdown only on /: this page has none, / has Markdown; no credit', async () => {
    const { result, site } = await run(goodRoutes({ '/': negotiated(goodPage('https://site.test/'), '# Acme\n\nWelcome to Acme.\n'), '/guide': negotiated(goodPage('https://site.test/guide'), null) }));
    const m = result.report.site.markdown;
    expect(m).toMatchObject({ page: 'nothing', home: 'this-page', offered: false, matchesPage: null, contentType: 'text/html' });
    expect(finding(result, 'markdown-not-offered')).toBeDefined();
    expect(result.report.scoring.find((l) => l.id === 'agents.markdown')!.earned).toBe(0);
    expect(asked(site, '/guide')).toBe(1);
    expect(asked(site, '/')).toBe(1);
  });

  it('the same Markdown for every address is generic, even when it shares most of the page\'s words; no credit', async () => {
    const same = `# Acme\n\n${WORDS}\n`;
    const { result } = await run(goodRoutes({ '/': negotiated(goodPage('https://site.test/'), same), '/guide': negotiated(goodPage('https://site.test/guide'), same) }));
    const m = result.report.site.markdown;
    expect(m).toMatchObject({ page: 'generic', home: 'generic', offered: false, matchesPage: false });
    const f = finding(result, 'markdown-not-the-page')!;
    expect(f.observed).toBe('GET https://site.test/guide with "Accept: text/markdown" answered text/markdown; charset=utf-8 with the same Markdown as / sends, without the page\'s title or first heading: one document for every address, not this page\'s');
    expect(result.report.scoring.find((l) => l.id === 'agents.markdown')!.earned).toBe(0);
    const facts = visibilityFacts(result.report as unknown as Record<string, unknown>).flatMap((s) => s.facts);
    expect(facts.find((x) => x.label === 'Markdown asked for at this page')!.value).toBe('Markdown, but of another page (one document for every address)');
    expect(facts.find((x) => x.label === 'Markdown asked for at /')!.value).toBe('the same Markdown as the checked page');
  });

  it('proper per-page Markdown: this page and / each send their own; full credit', async () => {
    const { result } = await run(goodRoutes({ '/': negotiated(goodPage('https://site.test/'), '# Acme\n\nWelcome to Acme.\n'), '/guide': negotiated(goodPage('https://site.test/guide'), '# Widgets\n\nAll about widgets.\n') }));
    expect(result.report.site.markdown).toMatchObject({ page: 'this-page', home: 'this-page', offered: true, matchesPage: true });
    expect(result.report.scoring.find((l) => l.id === 'agents.markdown')!.earned).toBe(2);
    expect(finding(result, 'markdown-not-the-page')).toBeUndefined();
    expect(finding(result, 'markdown-not-offered')).toBeUndefined();
  });

  it('checking / itself asks for Markdown once: / is this page', async () => {
    const { result, site } = await run(goodRoutes({ '/': negotiated(goodPage('https://site.test/'), '# The complete guide to widgets\n\nAll about widgets.\n') }), '/');
    expect(result.report.site.markdown).toMatchObject({ page: 'this-page', home: 'this-page', offered: true });
    expect(asked(site, '/')).toBe(1);
  });
});
