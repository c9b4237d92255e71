// Visibility check v3 end to end on fixture sites: each agent surface present, missing and invalid, the RSL
// licence robots.txt names, pay-per-crawl answers to the crawler probes and an x402 page, all through the
// real check (safeFetch, the analysis threads, the report caps).
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { goodPage, goodRoutes, httpsOnly, ROBOTS, text, xml } from './fixture-pages';
import type { FixtureRoute } from './fixture-site';
import { checksOnFixtureSites, findingOf, jsonRoute } from './check-on-fixture';

const { run } = checksOnFixtureSites();
const finding = findingOf;
const json = jsonRoute;

const VALID: Record<string, FixtureRoute> = {
  '/.well-known/api-catalog': json({ linkset: [{ anchor: 'https://site.test/api', 'service-desc': [{ href: 'https://site.test/openapi.json' }] }] }, 'application/linkset+json'),
  '/.well-known/mcp/server-card': json({ $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'test.site/shop', version: '1.0.0', capabilities: { tools: {} }, tools: [{ name: 'search' }] }),
  '/.well-known/agent-card.json': json({ name: 'Shop', description: 'Sells widgets', version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'buy' }, { id: 'ask' }], supportedInterfaces: [{ url: 'https://site.test/a2a' }] }),
  '/.well-known/oauth-authorization-server': json({ issuer: 'https://site.test', response_types_supported: ['code'], grant_types_supported: ['authorization_code'] }),
  '/.well-known/oauth-protected-resource': json({ resource: 'https://site.test', authorization_servers: ['https://site.test'] }),
  '/.well-known/http-message-signatures-directory': json({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' }] }, 'application/http-message-signatures-directory+json'),
};

describe('site.agentSurfaces', () => {
  it('present: every surface found and valid, with names and counts, the Link header relations listed, and an info finding; no points change', async () => {
    const page = httpsOnly({ headers: [['Content-Type', 'text/html'], ['Link', '</.well-known/api-catalog>; rel="api-catalog", </openapi.json>; rel="service-desc"; type="application/openapi+json"']], body: goodPage('https://site.test/guide') });
    const { result } = await run(goodRoutes({ ...VALID, '/guide': page }));
    const s = result.report.site.agentSurfaces;
    expect(s.linkHeaders).toEqual([
      { rel: 'api-catalog', href: 'https://site.test/.well-known/api-catalog', type: null },
      { rel: 'service-desc', href: 'https://site.test/openapi.json', type: 'application/openapi+json' },
    ]);
    expect(s.apiCatalog).toEqual({ url: 'https://site.test/.well-known/api-catalog', status: 'found', valid: true, httpStatus: 200, name: null, entries: 1, problems: [] });
    expect(s.mcpServerCard).toMatchObject({ status: 'found', name: 'test.site/shop', entries: 1 });
    expect(s.a2aAgentCard).toMatchObject({ status: 'found', name: 'Shop', entries: 2 });
    expect(s.oauthAuthorizationServer).toMatchObject({ status: 'found', name: 'https://site.test', entries: 1 });
    expect(s.oauthProtectedResource).toMatchObject({ status: 'found', name: 'https://site.test', entries: 1 });
    expect(s.webBotAuthDirectory).toMatchObject({ status: 'found', entries: 1 });
    expect(s.webMcp).toBeNull();
    expect(finding(result, 'agent-surfaces')).toMatchObject({ severity: 'info', pointsLost: 0 });
    expect(finding(result, 'agent-surface-invalid')).toBeUndefined();
    expect(result.report.score).toBe(98); // the page offers no Markdown: markdown-not-offered, as without surfaces
  });

  it('missing: a site without any reads missing everywhere (its 404s and its HTML catch-all alike), with no finding', async () => {
    const catchAll = httpsOnly({ body: '<!doctype html><html><title>Home</title><body>Welcome</body></html>' });
    const { result } = await run(goodRoutes({ '/.well-known/mcp/server-card': catchAll }));
    const s = result.report.site.agentSurfaces;
    for (const k of ['apiCatalog', 'mcpServerCard', 'a2aAgentCard', 'oauthAuthorizationServer', 'oauthProtectedResource', 'webBotAuthDirectory'] as const) {
      expect(s[k]).toMatchObject({ status: 'missing', valid: false });
    }
    expect(s.mcpServerCard.httpStatus).toBe(200);
    expect(s.linkHeaders).toEqual([]);
    expect(finding(result, 'agent-surfaces')).toBeUndefined();
    expect(finding(result, 'agent-surface-invalid')).toBeUndefined();
    expect(result.report.score).toBe(100);
  });

  it('invalid: each published surface that breaks its specification is listed in one medium finding; a private key makes it high', async () => {
    const { result } = await run(
      goodRoutes({
        '/.well-known/api-catalog': json({ linkset: [{ anchor: 'https://site.test/api' }] }),
        '/.well-known/mcp/server-card': json({ name: 'shop' }),
        '/.well-known/agent-card.json': { headers: { 'content-type': 'application/json' }, body: '{"name": "Shop",' },
        '/.well-known/oauth-authorization-server': json({ issuer: 'https://other.test', response_types_supported: ['code'] }),
        '/.well-known/oauth-protected-resource': json({ authorization_servers: [] }),
      }),
    );
    const s = result.report.site.agentSurfaces;
    expect(s.apiCatalog).toMatchObject({ status: 'invalid', problems: ['is served as application/json, not application/linkset+json'] });
    expect(s.mcpServerCard.problems).toEqual(['lacks the required members $schema, version, capabilities', '"name" is not in reverse-DNS form with exactly one "/"']);
    expect(s.a2aAgentCard.problems).toEqual(['is not valid JSON']);
    expect(s.oauthAuthorizationServer.status).toBe('invalid');
    expect(s.oauthProtectedResource.status).toBe('invalid');
    expect(finding(result, 'agent-surface-invalid')).toMatchObject({ severity: 'medium', rubric: null, pointsLost: 0 });
    expect(finding(result, 'agent-surface-invalid')!.observed).toContain('https://site.test/.well-known/mcp/server-card (MCP server card) lacks the required members $schema, version, capabilities');

    const leak = await run(goodRoutes({ '/.well-known/http-message-signatures-directory': json({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' }] }, 'application/http-message-signatures-directory+json') }));
    expect(finding(leak.result, 'agent-surface-invalid')).toMatchObject({ severity: 'high' });
  });
});

describe('site.licensing.rsl, site.aiUse and site.commerce end to end', () => {
  it('a License: that answers 404 is unusable (medium); the licence is asked for once', async () => {
    const { result, site } = await run(goodRoutes({ '/robots.txt': text(`${ROBOTS}License: https://site.test/license.xml\n`) }));
    expect(result.report.site.licensing.rsl).toMatchObject({ url: 'https://site.test/license.xml', status: 'missing', httpStatus: 404 });
    expect(finding(result, 'rsl-license-unusable')).toMatchObject({ severity: 'medium', observed: 'the licence https://site.test/license.xml answered 404' });
    expect(site.requests.filter((p) => p === '/license.xml')).toHaveLength(1);
  });

  it('a Link rel="license" is fetched only when typed application/rsl+xml: a Creative Commons link is not an RSL licence', async () => {
    const rslXml = xml('<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><permits type="usage">search</permits></license></content></rsl>');
    const linked = (link: string) => httpsOnly({ headers: [['Content-Type', 'text/html'], ['Link', link]], body: goodPage('https://site.test/guide') });
    const cc = await run(goodRoutes({ '/guide': linked('<https://site.test/cc-by>; rel="license"'), '/cc-by': { body: '<!doctype html><title>CC BY 4.0</title>' } }));
    expect(cc.result.report.site.licensing.rsl).toBeNull();
    expect(cc.site.requests).not.toContain('/cc-by');
    expect(finding(cc.result, 'rsl-license-unusable')).toBeUndefined();
    const typed = await run(goodRoutes({ '/guide': linked('</license.xml>; rel="license"; type="application/rsl+xml"'), '/license.xml': rslXml }));
    expect(typed.result.report.site.licensing.rsl).toMatchObject({ url: 'https://site.test/license.xml', status: 'found', permits: ['search'] });
  });

  it('the licence and Content-Signal disagree on training: refused, with the conflict named', async () => {
    const { result } = await run(
      goodRoutes({
        '/robots.txt': text('User-agent: *\nContent-Signal: ai-train=yes\nAllow: /\nLicense: /license.xml\n'),
        '/license.xml': xml('<rsl xmlns="https://rslstandard.org/rsl"><content url="/"><license><prohibits type="usage">ai-train</prohibits></license></content></rsl>'),
      }),
    );
    expect(result.report.site.aiUse.train).toEqual({
      decision: 'refused',
      sources: [
        { source: 'content-signal', says: 'allowed', detail: 'robots.txt line 2: ai-train=yes' },
        { source: 'rsl', says: 'refused', detail: '<prohibits type="usage">ai-train' },
      ],
      conflicts: ['content-signal'],
    });
    expect(finding(result, 'ai-use-conflict')).toMatchObject({ severity: 'low', pointsLost: 0 });
  });

  it('the TDMRep policy the header names is fetched once, to see that it answers', async () => {
    const page = httpsOnly({ headers: [['Content-Type', 'text/html'], ['tdm-reservation', '1'], ['tdm-policy', '/policy.json']], body: goodPage('https://site.test/guide') });
    const { result, site } = await run(goodRoutes({ '/guide': page, '/policy.json': json({ '@context': 'http://www.w3.org/ns/odrl.jsonld', '@type': 'Offer' }, 'application/ld+json') }));
    expect(result.report.site.licensing).toMatchObject({ tdmReservation: 1, tdmPolicy: '/policy.json', tdmSource: 'header', tdmPolicyReachable: true });
    expect(site.requests.filter((p) => p === '/policy.json')).toHaveLength(1);
    expect(finding(result, 'tdm-policy-unreachable')).toBeUndefined();
  });

  it('pay-per-crawl: a crawler answered 402 with crawler-price is payment-required and its price is shown', async () => {
    const page = goodPage('https://site.test/guide');
    const guide = httpsOnly((req: IncomingMessage) =>
      /ClaudeBot/.test(req.headers['user-agent'] ?? '') ? { status: 402, headers: [['crawler-price', 'USD 0.02'], ['Content-Type', 'text/plain']], body: 'Payment required' } : { body: page },
    );
    const { result } = await run(goodRoutes({ '/guide': guide }));
    expect(result.report.crawlers.find((c) => c.token === 'ClaudeBot')?.access.outcome).toBe('payment-required');
    expect(result.report.site.commerce).toEqual({
      challenges: [{ source: 'ClaudeBot', protocol: 'pay-per-crawl', httpStatus: 402, amount: '0.02', currency: 'USD', network: null, error: null }],
      payPerCrawl: 1,
      x402: false,
      mpp: false,
    });
    expect(finding(result, 'pay-per-crawl')).toMatchObject({ severity: 'info', observed: 'ClaudeBot: HTTP 402, crawler-price USD 0.02' });
  });

  it('an x402 page: the challenge and its price on the page itself', async () => {
    const challenge = Buffer.from(JSON.stringify({ x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '1000', asset: '0xA0b8', payTo: '0x1' }] })).toString('base64');
    const { result } = await run(goodRoutes({ '/guide': { status: 402, headers: [['PAYMENT-REQUIRED', challenge], ['Content-Type', 'application/json']], body: '{}' } }));
    expect(result.report.site.commerce.challenges).toEqual([{ source: 'page', protocol: 'x402', httpStatus: 402, amount: '1000', currency: '0xA0b8', network: 'eip155:8453', error: null }]);
    expect(finding(result, 'payment-challenge')).toMatchObject({ severity: 'info', observed: 'page: x402 PAYMENT-REQUIRED 0xA0b8 1000 on eip155:8453' });
  });
});
