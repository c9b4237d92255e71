// What the x402 and MPP directories read: x-payment-info in both shapes (mppx's offers; price and protocols),
// info.x-guidance, and /.well-known/x402; and which registry paths carry CORS (lib/http/cors.ts).
import { validate } from 'mppx/discovery';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as wellKnownRoute } from '@/app/.well-known/x402/route';
import { callGuidance, openApiDocument } from '@/lib/discovery/openapi';
import { x402WellKnown } from '@/lib/discovery/well-known';
import { endpoints } from '@/lib/endpoints';
import { CORS_ROUTES } from '@/lib/http/cors';
import { BASE_USDC_ADDRESS } from '@/lib/config';
import { installTestRuntime, type TestRuntime } from '../support/runtime';

const ctx = { appUrl: 'https://checks.example', rails: ['stripe', 'evm', 'x402'], usdcAddress: BASE_USDC_ADDRESS };
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

  it('declares the wallet sign-in (siwx) beside the credits key on the reports routes only', () => {
    const doc = openApiDocument(ctx) as unknown as { paths: Record<string, Record<string, { security?: unknown }>>; components: { securitySchemes: Record<string, unknown> } };
    expect(doc.components.securitySchemes.siwx).toMatchObject({ type: 'apiKey', in: 'header', name: 'SIGN-IN-WITH-X' });
    const withSiwx = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).filter(([, op]) => JSON.stringify(op.security ?? []).includes('siwx')).map(([method]) => `${method} ${path}`));
    expect(withSiwx).toEqual(['get /api/reports', 'get /api/reports/{id}']);
    expect(doc.paths['/api/reports'].get.security).toEqual([{}, { creditsKey: [] }, { siwx: [] }]);
  });

  it('tells an agent how to call us in info.x-guidance', () => {
    const guidance = (openApiDocument(ctx) as Doc).info['x-guidance'];
    expect(guidance).toBe(callGuidance());
    for (const words of ['PAYMENT-REQUIRED', 'WWW-Authenticate', 'PAYMENT-SIGNATURE', 'Authorization: Bearer', 'Idempotency-Key', 'SIGN-IN-WITH-X']) expect(guidance).toContain(words);
  });
});

describe('/.well-known/x402', () => {
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.dispose();
    rt = undefined;
  });

  it('lists every paid check from the registry as an absolute address, with the guidance', () => {
    expect(x402WellKnown(ctx)).toEqual({
      version: 1,
      resources: ['https://checks.example/api/agent/readiness', 'https://checks.example/api/agent/ai-visibility'],
      instructions: callGuidance(),
    });
  });

  it('lists nothing while the x402 rail is not live', () => {
    expect(x402WellKnown({ ...ctx, rails: ['stripe', 'evm'] }).resources).toEqual([]);
  });

  it('is served by its route for this deployment', async () => {
    rt = installTestRuntime({ APP_URL: 'https://checks.example' });
    const res = await wellKnownRoute(new Request('https://checks.example/.well-known/x402'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    // No rails in this runtime: nothing payable over x402.
    expect(await res.json()).toEqual({ version: 1, resources: [], instructions: callGuidance() });
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
      '/.well-known/x402', '/api/agent/ai-visibility', '/api/agent/credits', '/api/agent/readiness', '/api/mcp', '/api/reports', '/api/reports/x', '/api/reports/x/compare/x', '/llms.txt', '/openapi.json',
    ]);
  });

  it('leaves out the session, billing and operator routes, and the site\'s report actions (share, re-run)', () => {
    expect(registryPaths.filter((p) => !cors(p)).sort()).toEqual([
      '/api/billing/account', '/api/billing/checkout', '/api/billing/portal', '/api/billing/session', '/api/billing/webhook', '/api/health', '/api/metrics',
      '/api/reports/x/rerun', '/api/reports/x/share', '/api/session', '/api/session/checks/ai-visibility', '/api/session/checks/readiness', '/api/session/rotate',
    ]);
  });

  it('allows any origin without credentials, and names every request and response header an agent uses', () => {
    for (const path of ['/api/agent/readiness', '/api/reports/x', '/openapi.json', '/.well-known/x402']) {
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
