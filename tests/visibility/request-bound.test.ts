// The number of requests one check sends a site is bounded, and the bound is the one the free GET states.
// The worst site we can build: every address redirects as far as the check follows, the page moves to a
// second origin (whose site files are the ones fetched), /sitemap.xml is not a sitemap (so robots.txt's
// declared one is fetched too) and the declared one is an index (so its first child is fetched), llms.txt
// lists the most links the check follows, robots.txt names an AI Catalog listing more cards by address than
// the check follows, and every probe is redirected without end.
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { checkVisibility, MAX_REQUESTS_PER_CHECK, visibilityCheckDescription } from '@/lib/checks/visibility/check';
import { ACCESS_PROBE_MAX_REDIRECTS, PROBED_CRAWLERS } from '@/lib/checks/visibility/access-probes';
import { MAX_REDIRECTS } from '@/lib/outbound/safe-fetch';
import { SIGNAL_REQUESTS_PER_CHECK, SIGNAL_REQUESTS_PER_ORIGIN, SURFACE_MAX_REDIRECTS, SURFACE_REQUESTS_PER_ORIGIN } from '@/lib/checks/visibility/signal-fetches';
import { LLMS_LINKS_MAX } from '@/lib/checks/visibility/site-signals';
import { AI_CATALOG_FOLLOW_MAX } from '@/lib/checks/visibility/ai-catalog';
import { RENDER_MAX_REDIRECTS, RENDER_MAX_REQUESTS } from '@/lib/checks/visibility/render/render';
import { SIGNED_AGENT_MAX_REDIRECTS } from '@/lib/checks/visibility/signed-agent';
import { createBotIdentity } from '@/lib/outbound/web-bot-auth';
import crypto from 'node:crypto';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';
import { goodPage, goodRoutes } from './fixture-pages';

const sites: FixtureSite[] = [];
afterEach(async () => {
  while (sites.length > 0) await sites.pop()!.close();
});

const OURS = /^PaidAgentChecks\//;

function hopOf(req: IncomingMessage): { path: string; hop: number; base: string } {
  const url = new URL(req.url ?? '/', 'http://x');
  return { path: url.pathname, hop: Number(url.searchParams.get('hop') ?? 0), base: `${req.headers['x-forwarded-proto']}://${req.headers.host}` };
}

/** Every address redirects MAX_REDIRECTS times, then answers; the page moves to www on its last redirect. */
function worstSite(req: IncomingMessage): FixtureResponse {
  const { path, hop, base } = hopOf(req);
  const next = (to = path) => ({ status: 302, redirect: `${base}${to}?hop=${hop + 1}` });
  if (path === '/final') {
    // Our own signed fetch gets the page; every probe, and our unsigned repeat of the page, is sent on and on.
    return OURS.test(req.headers['user-agent'] ?? '') && req.headers['signature'] ? { body: goodPage('https://www.site.test/final') } : next();
  }
  if (path === '/guide' && hop === MAX_REDIRECTS - 1) return { status: 302, redirect: 'https://www.site.test/final' };
  if (path === '/catalog.json') {
    // Answers on the last redirect a well-known document may take, so the cards it lists are followed too.
    if (hop < SURFACE_MAX_REDIRECTS) return next();
    const entries = Array.from({ length: AI_CATALOG_FOLLOW_MAX + 2 }, (_, i) => ({ identifier: `urn:air:site.test:mcp:${i}`, displayName: `MCP ${i}`, mediaType: 'application/mcp-server-card+json', url: `${base}/card${i}.json` }));
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ entries }) };
  }
  if (hop < MAX_REDIRECTS) return next();
  if (path === '/robots.txt') return { headers: { 'content-type': 'text/plain' }, body: `User-agent: *\nAllow: /\nSitemap: ${base}/declared.xml\nLicense: ${base}/license.xml\nAgentmap: ${base}/catalog.json\n` };
  if (path === '/sitemap.xml') return { body: '<!doctype html><title>not a sitemap</title>' };
  if (path === '/declared.xml') {
    return { headers: { 'content-type': 'application/xml' }, body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${base}/child.xml</loc></sitemap><sitemap><loc>${base}/other.xml</loc></sitemap></sitemapindex>` };
  }
  if (path === '/.well-known/tdmrep.json') {
    return { headers: { 'content-type': 'application/json' }, body: JSON.stringify([{ location: '/', 'tdm-reservation': 1, 'tdm-policy': `${base}/policy.json` }]) };
  }
  if (path === '/llms.txt') {
    const links = Array.from({ length: LLMS_LINKS_MAX + 2 }, (_, i) => `- [doc ${i}](${base}/doc${i}.md)`).join('\n');
    return { headers: { 'content-type': 'text/markdown' }, body: `# Site\n\n> About the site.\n\n## Docs\n\n${links}\n` };
  }
  return { headers: { 'content-type': 'text/plain' }, body: '# file\n' };
}

describe('the number of requests one check makes', () => {
  it('states the bound in the free GET: the page, its and /\'s Markdown variants, the site files (the path that cannot exist included) and signals of the origin that answered with every redirect, and the probes with theirs', () => {
    const perFetch = 1 + MAX_REDIRECTS;
    const probes = (PROBED_CRAWLERS.length + 1) * (1 + ACCESS_PROBE_MAX_REDIRECTS);
    expect(SIGNAL_REQUESTS_PER_CHECK).toBe(2);
    expect(SIGNAL_REQUESTS_PER_ORIGIN).toBe(7);
    // The seven well-known agent surfaces, the RSL licence, the TDMRep policy, the AI Catalog and the 2 cards
    // followed from it, each followed at most 2 redirects.
    expect(SURFACE_REQUESTS_PER_ORIGIN).toBe(12);
    expect(SURFACE_MAX_REDIRECTS).toBe(2);
    const rendering = RENDER_MAX_REQUESTS * (1 + RENDER_MAX_REDIRECTS);
    // With a Web Bot Auth key, the page once more unsigned, followed at most 2 redirects.
    expect(SIGNED_AGENT_MAX_REDIRECTS).toBe(2);
    const unsignedRepeat = 1 + SIGNED_AGENT_MAX_REDIRECTS;
    expect(MAX_REQUESTS_PER_CHECK).toBe((1 + 2) * perFetch + (7 + 7) * perFetch + 12 * 3 + probes + unsignedRepeat + rendering);
    expect(MAX_REQUESTS_PER_CHECK).toBe(336);
    expect(visibilityCheckDescription().fetched.maxRequests).toBe(MAX_REQUESTS_PER_CHECK);
  });

  it('never makes more requests than it states, on a site where every address redirects as far as allowed', async () => {
    const routes = new Proxy({} as Record<string, FixtureRoute>, { get: () => worstSite });
    const site = await startFixtureSite(routes);
    sites.push(site);
    // Signed, so that the unsigned repeat of the page is sent (and redirected as far as it is followed) too.
    const signer = await createBotIdentity(JSON.stringify(crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })), 'https://checks.example');
    const { report } = await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(['site.test', 'www.site.test']), signer });
    expect(report.checkedUrl).toBe('https://www.site.test/final');
    expect(site.log.filter((l) => OURS.test(String(l.headers['user-agent'])) && !l.headers['signature'])).toHaveLength(1 + SIGNED_AGENT_MAX_REDIRECTS);
    expect(report.site.sitemapXml.url).toBe('https://www.site.test/declared.xml');

    const probeRequests = site.log.filter((l) => !OURS.test(String(l.headers['user-agent'])));
    expect(probeRequests).toHaveLength((PROBED_CRAWLERS.length + 1) * (1 + ACCESS_PROBE_MAX_REDIRECTS));
    expect(report.crawlers.filter((c) => c.access.outcome === 'error')).toHaveLength(PROBED_CRAWLERS.length);
    expect(site.requests.length).toBeLessThanOrEqual(MAX_REQUESTS_PER_CHECK);
    expect(report.site.llmsTxtLinks.checked).toBe(LLMS_LINKS_MAX);
    expect(report.site.agentSurfaces.aiCatalog!.cards.filter((c) => c.source === 'url')).toHaveLength(AI_CATALOG_FOLLOW_MAX);
    // Everything but the rendered view's share (the suites run with RENDERER=off; tests/visibility/render.test.ts
    // holds the browser to its own cap of RENDER_MAX_REQUESTS): the bound is reached.
    expect(site.requests.length).toBe(MAX_REQUESTS_PER_CHECK - RENDER_MAX_REQUESTS * (1 + RENDER_MAX_REDIRECTS));
    expect(report.site.outbound).toEqual({
      requests: MAX_REQUESTS_PER_CHECK - RENDER_MAX_REQUESTS * (1 + RENDER_MAX_REDIRECTS),
      refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 },
      lookups: 0,
      domains: 1,
      addresses: 1,
      byDomain: [{ domain: 'site.test', sent: MAX_REQUESTS_PER_CHECK - RENDER_MAX_REQUESTS * (1 + RENDER_MAX_REDIRECTS), refused: { budget: 0, thirdPartyCap: 0, lookupCap: 0 } }],
    });
  });

  it('makes 35 requests to a site without redirects beyond http -> https: the page and the Markdown variants of it and /, 6 for the site files, the path that cannot exist, tdmrep.json, the one llms.txt link, 7 agent surfaces, the AI Catalog, 15 probes', async () => {
    const site = await startFixtureSite(goodRoutes());
    sites.push(site);
    await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(['site.test']), signer: null });
    expect(site.requests).toHaveLength(35);
  });

  it('makes 36 with a Web Bot Auth key: the page once more, unsigned', async () => {
    const site = await startFixtureSite(goodRoutes());
    sites.push(site);
    const signer = await createBotIdentity(JSON.stringify(crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' })), 'https://checks.example');
    await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(['site.test']), signer });
    expect(site.requests).toHaveLength(36);
  });
});
