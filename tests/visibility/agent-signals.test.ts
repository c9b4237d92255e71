// The v3 readers on their own: RFC 8288 Link headers, each well-known agent surface (valid, invalid,
// missing), the RSL parser on the RSL site's own examples, pay-per-crawl, x402 and MPP challenges, and each
// AI-use precedence rule.
import { describe, expect, it } from 'vitest';
import { assessSurface, linkHeaderRelations, type SurfaceFile } from '@/lib/checks/visibility/agent-surfaces';
import { aiUse, contentUsageRules, type AiUseInput } from '@/lib/checks/visibility/ai-use';
import { commerce, crawlerPrice, paymentChallengeParams } from '@/lib/checks/visibility/commerce';
import { assessRsl, parseRsl } from '@/lib/checks/visibility/rsl';

const ORIGIN = 'https://s.test';
const json = (body: unknown, contentType = 'application/json'): SurfaceFile => ({ url: `${ORIGIN}/x`, status: 200, contentType, body: JSON.stringify(body), truncated: false });

describe('Link header relations (RFC 8288)', () => {
  it('reads targets, multi-valued rel, type, quoted commas and repeated fields, resolved against the page', () => {
    const rels = linkHeaderRelations(
      ['</.well-known/api-catalog>; rel="api-catalog", <https://s.test/openapi.json>; rel="service-desc"; type="application/openapi+json"', '</a.md>; rel="alternate describedby"; type="text/markdown"; title="a, b"'],
      'https://s.test/page',
    );
    expect(rels).toEqual([
      { rel: 'api-catalog', href: 'https://s.test/.well-known/api-catalog', type: null },
      { rel: 'service-desc', href: 'https://s.test/openapi.json', type: 'application/openapi+json' },
      { rel: 'alternate', href: 'https://s.test/a.md', type: 'text/markdown' },
      { rel: 'describedby', href: 'https://s.test/a.md', type: 'text/markdown' },
    ]);
  });

  it('ignores a second rel and links without one, and stops at the cap', () => {
    expect(linkHeaderRelations(['</a>; rel=next; rel=prev, </b>; title=x'], 'https://s.test/')).toEqual([{ rel: 'next', href: 'https://s.test/a', type: null }]);
    expect(linkHeaderRelations([Array.from({ length: 50 }, (_, i) => `</${i}>; rel=item`).join(', ')], 'https://s.test/')).toHaveLength(6);
  });
});

describe('well-known agent surfaces', () => {
  it('api-catalog: a linkset served as application/linkset+json is found, with its entries', () => {
    const doc = { linkset: [{ anchor: 'https://s.test/api', 'service-desc': [{ href: 'https://s.test/openapi.json' }] }, { anchor: 'https://s.test/v2' }] };
    expect(assessSurface('apiCatalog', json(doc, 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'), ORIGIN)).toMatchObject({ status: 'found', valid: true, entries: 2, problems: [] });
    expect(assessSurface('apiCatalog', json(doc), ORIGIN)).toMatchObject({ status: 'invalid', problems: ['is served as application/json, not application/linkset+json'] });
    expect(assessSurface('apiCatalog', json({ linkset: [{}] }, 'application/linkset+json'), ORIGIN).problems).toEqual(['has a link context object without an "anchor"']);
  });

  it('MCP server card: $schema, name with one slash, version and capabilities', () => {
    const card = { $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json', name: 'io.example/shop', version: '1.0.2', capabilities: { tools: {} }, tools: [{ name: 'a' }, { name: 'b' }] };
    expect(assessSurface('mcpServerCard', json(card), ORIGIN)).toMatchObject({ status: 'found', name: 'io.example/shop', entries: 2 });
    expect(assessSurface('mcpServerCard', json({ ...card, name: 'shop', capabilities: undefined }), ORIGIN).problems).toEqual(['lacks the required member capabilities', '"name" is not in reverse-DNS form with exactly one "/"']);
  });

  it('A2A agent card: the required members, and supportedInterfaces or the older url', () => {
    const card = { name: 'Shop agent', description: 'Sells', version: '1.0.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 's' }], supportedInterfaces: [{ url: 'https://s.test/a2a' }] };
    expect(assessSurface('a2aAgentCard', json(card), ORIGIN)).toMatchObject({ status: 'found', name: 'Shop agent', entries: 1 });
    expect(assessSurface('a2aAgentCard', json({ ...card, supportedInterfaces: undefined, url: 'https://s.test/a2a' }), ORIGIN).status).toBe('found');
    expect(assessSurface('a2aAgentCard', json({ name: 'x' }), ORIGIN).problems).toEqual([
      'lacks the required members description, version, capabilities, defaultInputModes, defaultOutputModes, skills',
      'names no address to call the agent at ("supportedInterfaces", or "url" before A2A 1.0)',
    ]);
  });

  it('OAuth metadata: the issuer and the resource must be the origin they were fetched from', () => {
    expect(assessSurface('oauthAuthorizationServer', json({ issuer: 'https://s.test', response_types_supported: ['code'] }), ORIGIN)).toMatchObject({ status: 'found', name: 'https://s.test' });
    expect(assessSurface('oauthAuthorizationServer', json({ issuer: 'https://evil.test', response_types_supported: ['code'] }), ORIGIN).problems).toEqual(['"issuer" is not https://s.test, the address the metadata was fetched from']);
    expect(assessSurface('oauthProtectedResource', json({ resource: 'https://s.test/', authorization_servers: ['https://as.test'] }), ORIGIN)).toMatchObject({ status: 'found', entries: 1 });
    expect(assessSurface('oauthProtectedResource', json({ authorization_servers: [] }), ORIGIN).problems).toEqual(['lacks the required member resource']);
  });

  it('Web Bot Auth directory: its media type, public keys only', () => {
    const type = 'application/http-message-signatures-directory+json';
    const pub = { kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs' };
    expect(assessSurface('webBotAuthDirectory', json({ keys: [pub] }, type), ORIGIN)).toMatchObject({ status: 'found', entries: 1 });
    const leaked = assessSurface('webBotAuthDirectory', json({ keys: [{ ...pub, d: 'secret' }] }, 'application/json'), ORIGIN);
    expect(leaked.status).toBe('invalid');
    expect(leaked.problems[0]).toMatch(/^publishes private key material \(1 key with d\/p\/q/);
    expect(leaked.problems[1]).toBe('is served as application/json, not application/http-message-signatures-directory+json');
  });

  it('a 404, a 2xx HTML catch-all page, no answer, a 503 and broken JSON', () => {
    const base = { url: `${ORIGIN}/x`, truncated: false };
    expect(assessSurface('mcpServerCard', { ...base, status: 404, contentType: 'text/html', body: 'nope' }, ORIGIN).status).toBe('missing');
    expect(assessSurface('mcpServerCard', { ...base, status: 200, contentType: 'text/html', body: '<!doctype html><title>Home</title>' }, ORIGIN).status).toBe('missing');
    expect(assessSurface('mcpServerCard', { ...base, status: null, contentType: null, body: null }, ORIGIN).status).toBe('unreachable');
    expect(assessSurface('mcpServerCard', { ...base, status: 503, contentType: 'text/plain', body: 'busy' }, ORIGIN).status).toBe('unreachable');
    expect(assessSurface('mcpServerCard', { ...base, status: 200, contentType: 'application/json', body: '{"name":' }, ORIGIN)).toMatchObject({ status: 'invalid', problems: ['is not valid JSON'] });
  });
});

describe('RSL 1.0', () => {
  // The example of rslstandard.org's guide "RSL and AI Preferences", as published.
  const GUIDE = `<rsl xmlns="https://rslstandard.org/rsl">
  <content url="/">
    <license>
      <permits type="usage">train-ai</permits>
      <payment type="subscription">
        <custom>https://your-website.com/contact-form.html</custom>
      </payment>
    </license>
  </content>
</rsl>`;

  it('reads the RSL guide example: train-ai permitted under a subscription', () => {
    expect(parseRsl(GUIDE)).toEqual({ root: true, contents: [{ url: '/', permits: ['train-ai'], prohibits: [], payment: { type: 'subscription', amount: null, currency: null } }] });
  });

  it('picks the <content> whose url covers the page, with its amount and currency; user and geo lists are not usage', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<rsl xmlns="https://rslstandard.org/rsl">
  <!-- the archive costs money -->
  <content url="https://s.test/archive/*" server="https://rslcollective.org/api">
    <license>
      <permits type="usage">ai-train,search</permits>
      <permits type="geo">US,CA</permits>
      <prohibits type="usage">ai-input</prohibits>
      <payment type="purchase"><amount currency="USD">10.99</amount></payment>
    </license>
  </content>
  <content url="/"><license><permits type="usage">search</permits><payment type="free"/></license></content>
</rsl>`;
    expect(assessRsl({ url: 'https://s.test/license.xml', status: 200, contentType: 'application/rsl+xml', body: xml }, 'https://s.test/archive/2020')).toMatchObject({
      status: 'found',
      permits: ['ai-train', 'search'],
      prohibits: ['ai-input'],
      payment: { type: 'purchase', amount: '10.99', currency: 'USD' },
    });
    expect(assessRsl({ url: 'https://s.test/license.xml', status: 200, contentType: 'application/rsl+xml', body: xml }, 'https://s.test/news')).toMatchObject({ permits: ['search'], payment: { type: 'free', amount: null } });
  });

  it('an HTML page, another namespace, no <content>, a 404 and no answer', () => {
    const at = (status: number | null, body: string) => assessRsl({ url: 'https://s.test/l.xml', status, contentType: null, body }, 'https://s.test/');
    expect(at(200, '<!doctype html><html><title>Home</title></html>')).toMatchObject({ status: 'invalid', problem: 'its root element is not <rsl xmlns="https://rslstandard.org/rsl">' });
    expect(at(200, '<rsl xmlns="https://example.org/rsl"><content url="/"/></rsl>').status).toBe('invalid');
    expect(at(200, '<rsl xmlns="https://rslstandard.org/rsl"></rsl>')).toMatchObject({ status: 'invalid', problem: 'it has no <content> element' });
    expect(at(404, 'nope').status).toBe('missing');
    expect(at(null, '').status).toBe('unreachable');
  });
});

describe('payment challenges', () => {
  it('pay-per-crawl: crawler-price and crawler-error per crawler probe', () => {
    expect(crawlerPrice('USD 0.01')).toEqual({ currency: 'USD', amount: '0.01' });
    const c = commerce([
      { source: 'page', status: 200, headers: [] },
      { source: 'GPTBot', status: 402, headers: [['crawler-price', 'USD 0.01']] },
      { source: 'ClaudeBot', status: 400, headers: [['crawler-error', 'SIGNATURE_INVALID']] },
    ]);
    expect(c).toEqual({
      challenges: [
        { source: 'GPTBot', protocol: 'pay-per-crawl', httpStatus: 402, amount: '0.01', currency: 'USD', network: null, error: null },
        { source: 'ClaudeBot', protocol: 'pay-per-crawl', httpStatus: 400, amount: null, currency: null, network: null, error: 'SIGNATURE_INVALID' },
      ],
      payPerCrawl: 1,
      x402: false,
      mpp: false,
    });
  });

  it('x402 PAYMENT-REQUIRED and MPP WWW-Authenticate: Payment, with their prices', () => {
    const x402 = Buffer.from(JSON.stringify({ x402Version: 2, accepts: [{ scheme: 'exact', network: 'eip155:8453', amount: '10000', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', payTo: '0x1' }] })).toString('base64');
    const request = Buffer.from(JSON.stringify({ amount: '5000', currency: 'usd' })).toString('base64url');
    const c = commerce([{ source: 'page', status: 402, headers: [['payment-required', x402], ['www-authenticate', 'Bearer realm="x"'], ['www-authenticate', `Payment id="abc", realm="s.test", method="tempo", intent="charge", request="${request}"`]] }]);
    expect(c.challenges).toEqual([
      { source: 'page', protocol: 'x402', httpStatus: 402, amount: '10000', currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', network: 'eip155:8453', error: null },
      { source: 'page', protocol: 'mpp', httpStatus: 402, amount: '5000', currency: 'usd', network: 'tempo', error: null },
    ]);
    expect(c).toMatchObject({ x402: true, mpp: true, payPerCrawl: 0 });
    expect(paymentChallengeParams('Bearer realm="x"')).toBeNull();
    expect(paymentChallengeParams('Payment realm="a, b", method=tempo')).toEqual({ realm: 'a, b', method: 'tempo' });
  });
});

describe('AI use: the published precedence', () => {
  const none: AiUseInput = {
    pagePath: '/a',
    robotsBody: null,
    robotsFound: false,
    crawlers: [],
    contentUsage: [],
    contentSignalHeader: [],
    contentUsageHeader: [],
    licensing: { tdmReservation: null, tdmPolicy: null, tdmSource: null, rslLicense: null },
    rsl: null,
    noindex: false,
  };

  it('no signal at all: every use unstated', () => {
    expect(aiUse(none)).toEqual({ train: { decision: 'unstated', sources: [], conflicts: [] }, search: { decision: 'unstated', sources: [], conflicts: [] }, aiInput: { decision: 'unstated', sources: [], conflicts: [] } });
  });

  it('a refusal from any source outweighs a permission from another, and the disagreement is a conflict', () => {
    const use = aiUse({ ...none, contentSignalHeader: ['ai-train=yes, search=yes'], licensing: { ...none.licensing, tdmReservation: 1, tdmSource: 'header' } });
    expect(use.train).toEqual({
      decision: 'refused',
      sources: [
        { source: 'content-signal-header', says: 'allowed', detail: 'Content-Signal: ai-train=yes' },
        { source: 'tdmrep', says: 'refused', detail: 'tdm-reservation 1 (header)' },
      ],
      conflicts: ['content-signal-header'],
    });
    expect(use.search).toMatchObject({ decision: 'allowed', conflicts: [] });
  });

  it('robots.txt counts only as a refusal: every crawler for the use disallowed', () => {
    const crawlers = [
      { token: 'GPTBot', role: 'ai-training', allowed: false },
      { token: 'CCBot', role: 'ai-training', allowed: false },
      { token: 'ClaudeBot', role: 'ai-training', allowed: false },
      { token: 'Google-Extended', role: 'ai-training', allowed: false },
      { token: 'Applebot-Extended', role: 'ai-training', allowed: false },
      { token: 'Meta-ExternalAgent', role: 'ai-training', allowed: false },
      { token: 'Googlebot', role: 'search', allowed: true },
    ];
    const use = aiUse({ ...none, robotsFound: true, crawlers });
    expect(use.train.decision).toBe('refused');
    expect(use.train.sources[0]).toMatchObject({ source: 'robots.txt', says: 'refused' });
    // Googlebot allowed is not a permission to use: search stays unstated.
    expect(use.search).toEqual({ decision: 'unstated', sources: [], conflicts: [] });
    expect(aiUse({ ...none, robotsFound: true, crawlers: crawlers.map((c) => (c.token === 'CCBot' ? { ...c, allowed: true } : c)) }).train.decision).toBe('unstated');
  });

  it('Content-Signal of the robots.txt * group, Content-Usage header and robots.txt rule (draft vocabulary)', () => {
    const robotsBody = 'User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /private search=n\nAllow: /\n\nUser-agent: GPTBot\nContent-Usage: search=n\n';
    expect(contentUsageRules(robotsBody, '/a')).toEqual(['train-ai=n']);
    expect(contentUsageRules(robotsBody, '/private/x')).toEqual(['train-ai=n', 'search=n']);
    const use = aiUse({
      ...none,
      robotsBody,
      robotsFound: true,
      contentUsage: [{ userAgent: '*', signals: { search: 'yes', 'ai-input': 'no', 'ai-train': null }, lines: [3] }],
      contentUsageHeader: ['bots=y'],
    });
    expect(use.train).toMatchObject({ decision: 'refused', conflicts: ['content-usage-header (draft)'] });
    expect(use.search).toMatchObject({ decision: 'allowed', sources: [{ source: 'content-signal', says: 'allowed', detail: 'robots.txt line 3: search=yes' }, { source: 'content-usage-header (draft)', says: 'allowed', detail: 'Content-Usage: bots=y' }] });
    expect(use.aiInput).toMatchObject({ decision: 'refused', conflicts: ['content-usage-header (draft)'] });
  });

  it('the RSL licence permits and prohibits, and noindex refuses search', () => {
    const rsl = { url: 'https://s.test/l.xml', status: 'found' as const, valid: true, httpStatus: 200, permits: ['search', 'ai-input'], prohibits: ['ai-train'], payment: null, problem: null };
    const use = aiUse({ ...none, rsl, noindex: true });
    expect(use.train).toMatchObject({ decision: 'refused', sources: [{ source: 'rsl', says: 'refused', detail: '<prohibits type="usage">ai-train' }] });
    expect(use.aiInput).toMatchObject({ decision: 'allowed' });
    expect(use.search).toMatchObject({ decision: 'refused', conflicts: ['rsl'] });
    // An invalid licence states nothing.
    expect(aiUse({ ...none, rsl: { ...rsl, valid: false, status: 'invalid' } }).aiInput.decision).toBe('unstated');
  });
});
