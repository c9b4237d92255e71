// Visibility check v4 end to end on fixture sites: the AI Catalog (Agentic Resource Discovery) found by each of
// Lighthouse's four routes, broken in each way, and the cards it lists checked; the Agent Skills index; and the
// Google-Agent row of the crawler table. All through the real check (safeFetch, the analysis threads, the caps).
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import type { VisibilityResult } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import { visibilityFacts } from '@/lib/checks/visibility/facts';
import { aiCatalogLocation } from '@/lib/checks/visibility/ai-catalog';
import { RUBRIC } from '@/lib/checks/visibility/rubric';
import { RUBRIC_CHANGES_4 } from '@/lib/checks/visibility/rubric-changes';
import { goodPage, goodRoutes, httpsOnly, ROBOTS, text } from './fixture-pages';
import type { FixtureResponse, FixtureRoute, FixtureSite } from './fixture-site';
import { checksOnFixtureSites, findingOf, jsonRoute } from './check-on-fixture';

const { run } = checksOnFixtureSites();
const finding = findingOf;
const json = jsonRoute;
const count = (site: FixtureSite, path: string) => site.requests.filter((p) => p === path).length;

const MCP_CARD = { $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'test.site/shop', version: '1.0.0', capabilities: { tools: {} }, tools: [{ name: 'search' }, { name: 'buy' }] };
const A2A_CARD = { name: 'Helper', description: 'Answers questions', version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'ask' }], supportedInterfaces: [{ url: 'https://site.test/a2a' }] };
const CATALOG = {
  displayName: 'Site catalog',
  entries: [
    { identifier: 'urn:air:site.test:mcp:shop', displayName: 'Shop', mediaType: 'application/mcp-server-card+json', url: '/mcp/card.json' },
    { identifier: 'urn:air:site.test:agent:helper', displayName: 'Helper', mediaType: 'application/a2a-agent-card+json', data: A2A_CARD },
  ],
};
const CATALOG_ROUTES: Record<string, FixtureRoute> = { '/mcp/card.json': json(MCP_CARD) };

/** The found catalog every route must give, apart from its address and route. */
function expectValidCatalog(result: VisibilityResult, url: string, via: string, score = 100) {
  const c = result.report.site.agentSurfaces.aiCatalog!;
  expect(c).toEqual({
    url,
    status: 'found',
    valid: true,
    httpStatus: 200,
    name: 'Site catalog',
    entries: 2,
    problems: [],
    discoveredVia: via,
    cards: [
      { identifier: 'urn:air:site.test:mcp:shop', kind: 'mcpServerCard', source: 'url', surface: { url: 'https://site.test/mcp/card.json', status: 'found', valid: true, httpStatus: 200, name: 'test.site/shop', entries: 2, problems: [] } },
      { identifier: 'urn:air:site.test:agent:helper', kind: 'a2aAgentCard', source: 'data', surface: { url, status: 'found', valid: true, httpStatus: null, name: 'Helper', entries: 1, problems: [] } },
    ],
  });
  expect(finding(result, 'ai-catalog-invalid')).toBeUndefined();
  // No points for a catalog: the page scores as without one.
  expect(result.report.score).toBe(score);
}

const withHead = (extra: string) => goodPage('https://site.test/guide').replace('</head>', `${extra}</head>`);

describe('site.agentSurfaces.aiCatalog: the four discovery routes', () => {
  it('robots.txt Agentmap: wins over a well-known catalog, which is then never asked for', async () => {
    const { result, site } = await run(
      goodRoutes({ ...CATALOG_ROUTES, '/robots.txt': text(`${ROBOTS}Agentmap: /agents/catalog.json\n`), '/agents/catalog.json': json(CATALOG, 'application/ai-catalog+json'), '/.well-known/ai-catalog.json': json({ entries: [] }) }),
    );
    expectValidCatalog(result, 'https://site.test/agents/catalog.json', 'robots-agentmap');
    expect(count(site, '/agents/catalog.json')).toBe(1);
    expect(count(site, '/.well-known/ai-catalog.json')).toBe(0);
    expect(count(site, '/mcp/card.json')).toBe(1);
  });

  it('<link rel~="ai-catalog"> in the page (a rel list with other tokens)', async () => {
    const page = httpsOnly({ headers: { 'content-type': 'text/html' }, body: withHead('<link rel="preload AI-Catalog" href="/cat.json">') });
    const { result, site } = await run(goodRoutes({ ...CATALOG_ROUTES, '/guide': page, '/cat.json': json(CATALOG) }));
    expectValidCatalog(result, 'https://site.test/cat.json', 'link-element', 98); // this page offers no Markdown: markdown-not-offered
    expect(count(site, '/.well-known/ai-catalog.json')).toBe(0);
  });

  it('a Link header with rel="ai-catalog" on the page\'s answer', async () => {
    const page = httpsOnly({ headers: [['Content-Type', 'text/html'], ['Link', '</catalog>; rel="ai-catalog"; type="application/ai-catalog+json"']], body: goodPage('https://site.test/guide') });
    const { result } = await run(goodRoutes({ ...CATALOG_ROUTES, '/guide': page, '/catalog': json(CATALOG) }));
    expectValidCatalog(result, 'https://site.test/catalog', 'link-header', 98); // this page offers no Markdown
  });

  it('else /.well-known/ai-catalog.json, shown in words in the report view\'s facts', async () => {
    const { result } = await run(goodRoutes({ ...CATALOG_ROUTES, '/.well-known/ai-catalog.json': json(CATALOG) }));
    expectValidCatalog(result, 'https://site.test/.well-known/ai-catalog.json', 'well-known');
    const agents = visibilityFacts(result.report as unknown as Record<string, unknown>).find((s) => s.id === 'agents')!;
    const fact = agents.facts.find((f) => f.label === 'AI Catalog (Agentic Resource Discovery)')!;
    expect(fact.value).toBe(
      'published and valid: “Site catalog”, 2 entries (https://site.test/.well-known/ai-catalog.json); at /.well-known/ai-catalog.json; lists MCP server card urn:air:site.test:mcp:shop (fetched): valid; A2A agent card urn:air:site.test:agent:helper (inline): valid',
    );
    expect(fact.value).not.toMatch(/aiCatalog|mcpServerCard|well-known'/);
  });
});

describe('site.agentSurfaces.aiCatalog: missing and broken', () => {
  it('missing: no route names one and the well-known address answers 404; no finding, one request', async () => {
    const { result, site } = await run(goodRoutes());
    expect(result.report.site.agentSurfaces.aiCatalog).toEqual({
      url: 'https://site.test/.well-known/ai-catalog.json', status: 'missing', valid: false, httpStatus: 404, name: null, entries: null, problems: [], discoveredVia: 'well-known', cards: [],
    });
    expect(finding(result, 'ai-catalog-invalid')).toBeUndefined();
    expect(count(site, '/.well-known/ai-catalog.json')).toBe(1);
    expect(result.report.score).toBe(100);
  });

  it('invalid: each problem of each entry is named, and one medium finding costs no points', async () => {
    const broken = {
      entries: [
        { identifier: 'shop-server', displayName: 'Shop', mediaType: 'application/mcp-server-card+json', url: '/mcp/card.json' },
        { identifier: 'urn:air:site.test:agent:x', mediaType: 'application/a2a-agent-card+json', data: A2A_CARD },
        { displayName: 'No type', url: 'ftp://site.test/x' },
        { identifier: 'urn:air:site.test:thing', displayName: 'Nothing', mediaType: 'application/ai-catalog+json' },
        'not an entry',
      ],
    };
    const { result } = await run(goodRoutes({ ...CATALOG_ROUTES, '/.well-known/ai-catalog.json': json(broken) }));
    const c = result.report.site.agentSurfaces.aiCatalog!;
    expect(c.status).toBe('invalid');
    expect(c.valid).toBe(false);
    expect(c.entries).toBe(5);
    expect(c.problems).toEqual([
      'entry 1 has an "identifier" that is not a URN (urn:<namespace>:<name>): shop-server',
      'entry 2 has no "displayName"',
      'entry 3 has no "identifier", has no "mediaType", has a "url" that is not an http(s) address',
      'entry 4 has neither "data" nor "url"',
      'entry 5 is not an object',
    ]);
    const f = finding(result, 'ai-catalog-invalid')!;
    expect(f).toMatchObject({ severity: 'medium', rubric: null, pointsLost: 0 });
    expect(f.observed).toContain('https://site.test/.well-known/ai-catalog.json entry 2 has no "displayName"');
    expect(result.report.score).toBe(100);
  });

  it('invalid: not JSON, not an object, no entries list', async () => {
    const cases: Array<[FixtureResponse, string]> = [
      [{ headers: { 'content-type': 'application/json' }, body: '{"entries": [' }, 'is not valid JSON'],
      [json(['a']), 'is not a JSON object'],
      [json({ items: [] }), 'has no "entries" list'],
    ];
    for (const [served, problem] of cases) {
      const { result } = await run(goodRoutes({ '/.well-known/ai-catalog.json': served }));
      expect(result.report.site.agentSurfaces.aiCatalog).toMatchObject({ status: 'invalid', problems: [problem] });
      expect(finding(result, 'ai-catalog-invalid')!.observed).toBe(`https://site.test/.well-known/ai-catalog.json ${problem}`);
    }
  });

  it('invalid: named by robots.txt Agentmap but answering 404 is a broken promise, not a missing catalog', async () => {
    const { result } = await run(goodRoutes({ '/robots.txt': text(`${ROBOTS}Agentmap: https://site.test/gone.json\n`) }));
    expect(result.report.site.agentSurfaces.aiCatalog).toMatchObject({
      url: 'https://site.test/gone.json', status: 'invalid', httpStatus: 404, discoveredVia: 'robots-agentmap', problems: ['is named by the Agentmap line of robots.txt but answered HTTP 404'],
    });
    expect(finding(result, 'ai-catalog-invalid')).toMatchObject({ severity: 'medium', pointsLost: 0 });
  });
});

describe('site.agentSurfaces.aiCatalog: the cards it lists', () => {
  it('an entry pointing at an MCP server card is fetched and checked with the server card validator; a broken card is in the finding', async () => {
    const catalog = {
      entries: [
        { identifier: 'urn:air:site.test:mcp:shop', displayName: 'Shop', mediaType: 'application/mcp-server-card+json', url: 'https://site.test/mcp/card.json' },
        { identifier: 'urn:air:site.test:mcp:two', displayName: 'Two', mediaType: 'application/mcp-server+json', url: '/mcp/two.json' },
        { identifier: 'urn:air:site.test:mcp:three', displayName: 'Three', mediaType: 'application/mcp-server-card+json', url: '/mcp/three.json' },
        { identifier: 'urn:air:other.test:mcp:elsewhere', displayName: 'Elsewhere', mediaType: 'application/mcp-server-card+json', url: 'https://other.test/card.json' },
      ],
    };
    const { result, site } = await run(
      goodRoutes({ '/.well-known/ai-catalog.json': json(catalog), '/mcp/card.json': json({ name: 'shop' }), '/mcp/two.json': json(MCP_CARD), '/mcp/three.json': json(MCP_CARD) }),
    );
    const c = result.report.site.agentSurfaces.aiCatalog!;
    expect(c.status).toBe('found'); // the catalog itself is well formed
    expect(c.cards.map((k) => [k.identifier, k.source, k.surface.status])).toEqual([
      ['urn:air:site.test:mcp:shop', 'url', 'invalid'],
      ['urn:air:site.test:mcp:two', 'url', 'found'],
      ['urn:air:site.test:mcp:three', 'not-followed', 'unreachable'],
      ['urn:air:other.test:mcp:elsewhere', 'not-followed', 'unreachable'],
    ]);
    expect(c.cards[0].surface.problems).toEqual(['lacks the required members $schema, version, capabilities', '"name" is not in reverse-DNS form with exactly one "/"']);
    expect(c.cards[2].surface.problems).toEqual(['not fetched: only the first 2 cards are followed']);
    expect(c.cards[3].surface.problems).toEqual(['not fetched: on another origin than the page']);
    // Bounded: two follow-ups, each once; the third and the other origin never asked for.
    expect(count(site, '/mcp/card.json')).toBe(1);
    expect(count(site, '/mcp/two.json')).toBe(1);
    expect(count(site, '/mcp/three.json')).toBe(0);
    expect(site.log.some((r) => r.host?.startsWith('other.test'))).toBe(false);
    expect(finding(result, 'ai-catalog-invalid')!.observed).toBe(
      'the MCP server card urn:air:site.test:mcp:shop (https://site.test/mcp/card.json) lacks the required members $schema, version, capabilities; "name" is not in reverse-DNS form with exactly one "/"',
    );
    // The well-known server card is a separate surface and is not touched by the catalog's.
    expect(result.report.site.agentSurfaces.mcpServerCard.status).toBe('missing');
  });
});

describe('site.agentSurfaces.agentSkills', () => {
  const INDEX = {
    $schema: 'https://schemas.agentskills.io/discovery/0.2.0/schema.json',
    skills: [
      { name: 'buy-widgets', type: 'skill-md', description: 'Buy widgets', url: '/.well-known/agent-skills/buy-widgets/SKILL.md', digest: `sha256:${'a'.repeat(64)}` },
      { name: 'widget-docs', type: 'archive', description: 'Widget docs', url: 'https://site.test/skills/docs.zip', digest: `sha256:${'0'.repeat(64)}` },
    ],
  };

  it('found: a valid index, with its skill count, listed in the agent-surfaces finding', async () => {
    const { result } = await run(goodRoutes({ '/.well-known/agent-skills/index.json': json(INDEX) }));
    expect(result.report.site.agentSurfaces.agentSkills).toEqual({
      url: 'https://site.test/.well-known/agent-skills/index.json', status: 'found', valid: true, httpStatus: 200, name: null, entries: 2, problems: [],
    });
    expect(finding(result, 'agent-surfaces')!.observed).toContain('Agent Skills index (2 entries)');
  });

  it('invalid: a bad name and a missing digest are named; no skills list at all is its own problem', async () => {
    const bad = { skills: [INDEX.skills[0], { ...INDEX.skills[1], name: 'Widget--Docs', digest: 'md5:abc' }] };
    const { result } = await run(goodRoutes({ '/.well-known/agent-skills/index.json': json(bad) }));
    expect(result.report.site.agentSurfaces.agentSkills).toMatchObject({
      status: 'invalid',
      problems: ['skill 2 has a "name" the Agent Skills specification does not allow (1-64 lowercase letters, digits and single hyphens)', 'skill 2 has no "digest" of the form sha256:<64 hex digits>'],
    });
    expect(finding(result, 'agent-surface-invalid')!.observed).toContain('(Agent Skills index) skill 2 has a "name"');
    const none = await run(goodRoutes({ '/.well-known/agent-skills/index.json': json({ name: 'x' }) }));
    expect(none.result.report.site.agentSurfaces.agentSkills).toMatchObject({ status: 'invalid', problems: ['has no "skills" list'] });
  });

  it('missing: 404 reads missing, with no finding', async () => {
    const { result, site } = await run(goodRoutes());
    expect(result.report.site.agentSurfaces.agentSkills).toMatchObject({ status: 'missing', httpStatus: 404, problems: [] });
    expect(finding(result, 'agent-surface-invalid')).toBeUndefined();
    expect(count(site, '/.well-known/agent-skills/index.json')).toBe(1);
  });
});

describe('Google-Agent', () => {
  it('is the 16th crawler: user-triggered, reported as not obeying robots.txt, and probed with its own user agent', async () => {
    expect(CRAWLERS).toHaveLength(16);
    const row = CRAWLERS.find((c) => c.token === 'Google-Agent')!;
    expect(row).toMatchObject({ vendor: 'Google', role: 'ai-answers', honorsRobots: false, userTriggered: true, tokenOnly: false });
    expect(row.evidence).toContain('"generally ignore robots.txt rules"');
    expect(row.userAgent).toMatch(/^Mozilla\/5\.0 AppleWebKit\/537\.36 \(KHTML, like Gecko; compatible; Google-Agent; \+https:\/\/developers\.google\.com\/crawling\/docs\/crawlers-fetchers\/google-agent\) Chrome\/\d+\.0\.0\.0 Safari\/537\.36$/);

    const guide = httpsOnly((req: IncomingMessage) =>
      /Google-Agent/.test(req.headers['user-agent'] ?? '') ? { status: 403, headers: { 'content-type': 'text/plain' }, body: 'Forbidden' } : { headers: { 'content-type': 'text/html' }, body: goodPage('https://site.test/guide') },
    );
    const { result, site } = await run(goodRoutes({ '/robots.txt': text(`${ROBOTS}\nUser-agent: Google-Agent\nDisallow: /\n`), '/guide': guide }));
    expect(result.report.crawlers).toHaveLength(16);
    const verdict = result.report.crawlers.find((c) => c.token === 'Google-Agent')!;
    expect(verdict).toMatchObject({ role: 'ai-answers', honorsRobots: false, allowed: false, group: 'Google-Agent' });
    expect(verdict.access).toMatchObject({ outcome: 'blocked', status: 403 });
    expect(site.log.filter((r) => r.path === '/guide' && /compatible; Google-Agent;/.test(String(r.headers['user-agent'])))).toHaveLength(1);
    // The Disallow states the owner's wish; the info finding says it may not hold.
    expect(finding(result, 'user-fetchers-blocked')!.observed).toContain('Google-Agent');
    expect(finding(result, 'user-fetchers-blocked')!.why).toContain('Google');
  });
});

describe('aiCatalogLocation: Lighthouse\'s order when several routes name a catalog', () => {
  const page = '<!doctype html><head><link href="/from-element.json" rel="ai-catalog"></head>';
  const header = ['</from-header.json>; rel="ai-catalog"'];
  it('robots.txt first, then the link element, then the Link header, then the well-known address', () => {
    const base = { robots: 'User-agent: *\nAgentmap: /from-robots.json\n', robotsOk: true, pageBody: page, pageLinks: header, pageUrl: 'https://s.test/a/b' };
    expect(aiCatalogLocation(base)).toEqual({ url: 'https://s.test/from-robots.json', via: 'robots-agentmap' });
    // A robots.txt that did not answer 2xx names nothing.
    expect(aiCatalogLocation({ ...base, robotsOk: false })).toEqual({ url: 'https://s.test/from-element.json', via: 'link-element' });
    expect(aiCatalogLocation({ ...base, robots: null, pageBody: '<link rel="stylesheet" href="/x.css"><p>rel="ai-catalog"</p>' })).toEqual({ url: 'https://s.test/from-header.json', via: 'link-header' });
    expect(aiCatalogLocation({ ...base, robots: null, pageBody: '', pageLinks: [] })).toEqual({ url: 'https://s.test/.well-known/ai-catalog.json', via: 'well-known' });
    // An address that is not http(s) names nothing.
    expect(aiCatalogLocation({ ...base, robots: 'Agentmap: javascript:alert(1)', pageBody: '', pageLinks: [] }).via).toBe('well-known');
  });
});

describe('RUBRIC_CHANGES_4', () => {
  it('its AI Catalog, Agent Skills and Google-Agent rows add findings only: the rubric still sums to 100 and each scores 0', () => {
    expect(RUBRIC.reduce((sum, item) => sum + item.points, 0)).toBe(100);
    expect(RUBRIC_CHANGES_4.changes.slice(0, 3).map((c) => [c.item, c.kind, c.after])).toEqual([
      ['ai-catalog-invalid', 'finding', 0],
      ['agent-surface-invalid', 'finding', 0],
      ['user-fetchers-blocked', 'finding', 0],
    ]);
  });
});
