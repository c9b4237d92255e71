// What the x402 and MPP directories read: x-payment-info in both shapes (mppx's offers; price and protocols),
// each operation's security, info.x-guidance; and which registry paths carry CORS (lib/http/cors.ts).
// tests/discovery/agentcash.test.ts runs x402scan's own discovery validator on the served document.
import { validate } from 'mppx/discovery';
import { describe, expect, it } from 'vitest';
import { callGuidance, openApiDocument } from '@/lib/discovery/openapi';
import { endpoints } from '@/lib/endpoints';
import { CORS_ROUTES } from '@/lib/http/cors';
import { BASE_USDC_ADDRESS } from '@/lib/config';

const ctx = { appUrl: 'https://checks.example', rails: ['stripe', 'evm', 'x402'], usdcAddress: BASE_USDC_ADDRESS, contactEmail: 'support@checks.example' };
type PaymentInfo = { offers: Array<Record<string, string>>; price: unknown; protocols: unknown };
type Doc = { info: Record<string, unknown>; paths: Record<string, Record<string, { 'x-payment-info'?: PaymentInfo }>> };

describe('x-payment-info for the directories', () => {
  it('carries price and protocols beside the offers on each paid operation, and mppx discover validate still finds no error', () => {
    const doc = openApiDocument(ctx) as Doc;
    for (const path of ['/api/agent/readiness', '/api/agent/ai-visibility']) {
      const info = doc.paths[path].post['x-payment-info']!;
      expect(info.offers.map((o) => o.method)).toEqual(['stripe', 'evm', 'x402']);
      expect(info.price).toEqual({ mode: 'fixed', currency: 'USD', amount: '1.00' });
      expect(info.protocols).toEqual([
        { mpp: { method: 'stripe', intent: 'charge', currency: 'usd' } },
        { mpp: { method: 'evm', intent: 'charge', currency: BASE_USDC_ADDRESS } },
        { x402: {} },
      ]);
    }
    expect(validate(doc)).toEqual([]);
  });

  it('names only the live rails: x402 alone is one x402 protocol', () => {
    const doc = openApiDocument({ ...ctx, rails: ['x402'] }) as Doc;
    expect(doc.paths['/api/agent/readiness'].post['x-payment-info']!.protocols).toEqual([{ x402: {} }]);
  });

  it('declares who may call each operation: the wallet sign-in (siwx) on the report owner\'s routes, a payment or a credits key on the paid ones', () => {
    const doc = openApiDocument(ctx) as unknown as { paths: Record<string, Record<string, { security: unknown }>>; components: { securitySchemes: Record<string, unknown> } };
    expect(doc.components.securitySchemes.siwx).toMatchObject({ type: 'apiKey', in: 'header', name: 'SIGN-IN-WITH-X', 'x-agentcash-auth-kind': 'siwx' });
    expect(doc.components.securitySchemes.creditsKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    const security = Object.fromEntries(Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op.security])));
    const owner = [{ creditsKey: [] }, { siteSession: [] }, { siwx: [] }];
    expect(security).toEqual({
      'POST /api/agent/readiness': [{}, { creditsKey: [] }],
      'POST /api/agent/ai-visibility': [{}, { creditsKey: [] }],
      'POST /api/agent/payment-endpoint': [{}, { creditsKey: [] }],
      'GET /api/agent/readiness': [],
      'GET /api/agent/ai-visibility': [],
      'GET /api/agent/payment-endpoint': [],
      'GET /api/agent/credits': [{}, { creditsKey: [] }],
      'POST /api/mcp': [{}, { creditsKey: [] }],
      'GET /api/mcp': [],
      'DELETE /api/mcp': [],
      'POST /api/billing/checkout': [],
      'GET /api/billing/session': [],
      'POST /api/billing/account': [],
      'POST /api/billing/portal': [],
      'POST /api/billing/webhook': [{ stripeSignature: [] }],
      'GET /api/health': [],
      'GET /api/metrics': [{ metricsToken: [] }],
      'GET /openapi.json': [],
      'GET /llms.txt': [],
      'GET /.well-known/http-message-signatures-directory': [],
      'POST /api/session': [],
      'GET /api/session': [{ siteSession: [] }],
      'DELETE /api/session': [{}, { siteSession: [] }],
      'POST /api/session/rotate': [{ siteSession: [] }],
      'POST /api/session/checks/readiness': [{ siteSession: [] }],
      'POST /api/session/checks/ai-visibility': [{ siteSession: [] }],
      'POST /api/session/checks/payment-endpoint': [{ siteSession: [] }],
      'GET /api/reports': owner,
      'GET /api/reports/{id}': owner,
      'GET /api/reports/{id}/compare/{otherId}': owner,
      'GET /api/reports/{id}/har': owner,
      'POST /api/reports/{id}/share': owner,
      'DELETE /api/reports/{id}/share': owner,
      'POST /api/reports/{id}/rerun': [{ siteSession: [] }],
    });
  });

  it('tells an agent how to call us in info.x-guidance', () => {
    const guidance = (openApiDocument(ctx) as Doc).info['x-guidance'];
    expect(guidance).toBe(callGuidance());
    for (const words of ['PAYMENT-REQUIRED', 'WWW-Authenticate', 'PAYMENT-SIGNATURE', 'Authorization: Bearer', 'Idempotency-Key', 'SIGN-IN-WITH-X']) expect(guidance).toContain(words);
  });
});

/** Whether a next.config.ts `source` pattern (`:name`, `:name*`) matches `path`. */
function matches(pattern: string, path: string): boolean {
  const source = pattern.replace(/[.]/g, '\\.').replace(/\/:\w+\*/g, '(?:/.*)?').replace(/:\w+/g, '[^/]+');
  return new RegExp(`^${source}$`).test(path);
}

describe('CORS on the public API only', () => {
  const registryPaths = [...new Set(endpoints().map((e) => e.path.replace(/\{(\w+)\}/g, 'x')))];
  const cors = (path: string) => CORS_ROUTES.some((r) => matches(r.source, path));
  /** The CORS headers next.config.ts gives `path`'s answers, by name; every matching rule's, so an overlap shows. */
  const corsOf = (path: string) => CORS_ROUTES.filter((r) => matches(r.source, path)).map((r) => Object.fromEntries(r.headers.map((h) => [h.key, h.value])));

  it('covers the paid checks and their descriptions, the credits plans, the reports, the discovery documents and the MCP endpoint', () => {
    expect(registryPaths.filter(cors).sort()).toEqual([
      '/api/agent/ai-visibility', '/api/agent/credits', '/api/agent/payment-endpoint', '/api/agent/readiness', '/api/mcp', '/api/reports', '/api/reports/x', '/api/reports/x/compare/x', '/llms.txt', '/openapi.json',
    ]);
  });

  it('leaves out the session, billing and operator routes, and the site\'s report actions (share, re-run)', () => {
    // The signatures directory is read by verifiers server to server, and the HAR file is downloaded from the
    // report's page: neither is fetched by a page on another site.
    expect(registryPaths.filter((p) => !cors(p)).sort()).toEqual([
      '/.well-known/http-message-signatures-directory', '/api/billing/account', '/api/billing/checkout', '/api/billing/portal', '/api/billing/session', '/api/billing/webhook', '/api/health', '/api/metrics',
      '/api/reports/x/har', '/api/reports/x/rerun', '/api/reports/x/share', '/api/session', '/api/session/checks/ai-visibility', '/api/session/checks/payment-endpoint', '/api/session/checks/readiness',
      '/api/session/rotate',
    ]);
  });

  it('allows any origin without credentials, and names every request and response header an agent uses', () => {
    for (const path of ['/api/agent/readiness', '/api/reports/x', '/openapi.json']) {
      expect(corsOf(path), path).toEqual([
        {
          'Access-Control-Allow-Origin': '*',
          'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
          'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, PAYMENT-SIGNATURE, X-PAYMENT, SIGN-IN-WITH-X',
          'Access-Control-Expose-Headers': 'PAYMENT-REQUIRED, PAYMENT-RESPONSE, Payment-Receipt, WWW-Authenticate, Idempotent-Replayed, Credits-Remaining, Link, Retry-After, X-Request-Id',
          'Access-Control-Max-Age': '600',
        },
      ]);
    }
  });

  it('gives the MCP endpoint the Streamable HTTP transport\'s methods and headers, without credentials', () => {
    expect(corsOf('/api/mcp')).toEqual([
      {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID',
        'Access-Control-Expose-Headers': 'Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id',
        'Access-Control-Max-Age': '600',
      },
    ]);
  });

  it('never allows credentials on any path', () => {
    expect(CORS_ROUTES.flatMap((r) => r.headers.map((h) => h.key)).filter((key) => /credentials/i.test(key))).toEqual([]);
  });
});
