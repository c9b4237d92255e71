// /openapi.json as x402scan reads it: @agentcash/discovery (the version x402scan pins) run on the served document,
// the way its CLI's `discover` runs (the OpenAPI diagnostics, the route list and its diagnostics, the guidance,
// then each route's endpoint detail, probing the paid ones), plus the legacy well-known probe it offers. The
// service answers from its real route modules (every app/**/route.ts, matched by path as Next.js does) with
// its production rails built on the local rails (anvil chain 8453, the x402 facilitator, the Stripe stand-in),
// so x-payment-info carries every live rail.
import fs from 'node:fs';
import path from 'node:path';
import {
  attachProbePayload,
  checkEndpointSchema,
  checkL2ForOpenAPI,
  checkL4ForOpenAPI,
  getOpenAPI,
  getWarningsForL2,
  getWarningsForL3,
  getWarningsForL4,
  getWarningsForOpenAPI,
  isOpenApiParseFailure,
  probeLegacyWellKnown,
  type AuditWarning,
  type HttpMethod,
  type OpenApiSource,
  validatePaymentRequiredDetailed,
} from '@agentcash/discovery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checks } from '@/lib/checks/registry';
import { startRails, type Rails } from '../../scripts/rails/start';
import { installRailsRuntime } from '../support/rails-runtime';
import type { TestRuntime } from '../support/runtime';
import { serveWebHandler, type WebServer } from '../support/web-server';

const APP = path.resolve(__dirname, '../../app');

type RouteModule = Record<string, (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response> | Response>;

/** Every app route file with the pattern of its path (`[name]` a segment of its own). */
function routeFiles(dir = APP): Array<{ file: string; segments: string[] }> {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === 'route.ts' ? [{ file: full, segments: path.relative(APP, dir).split(path.sep) }] : [];
  });
}

/** The route module for a path, and its dynamic segments' values; static segments win, as in Next.js. */
function matchRoute(pathname: string): { file: string; params: Record<string, string> } | null {
  const parts = pathname.split('/').filter(Boolean);
  const candidates = routeFiles()
    .filter((r) => r.segments.length === parts.length && r.segments.every((s, i) => /^\[\w+\]$/.test(s) || s === parts[i]))
    .sort((a, b) => a.segments.filter((s) => s.startsWith('[')).length - b.segments.filter((s) => s.startsWith('[')).length);
  if (!candidates.length) return null;
  const { file, segments } = candidates[0];
  const params = Object.fromEntries(segments.flatMap((s, i) => (s.startsWith('[') ? [[s.slice(1, -1), decodeURIComponent(parts[i])]] : [])));
  return { file, params };
}

async function serveApp(request: Request): Promise<Response> {
  const route = matchRoute(new URL(request.url).pathname);
  if (!route) return new Response('not found', { status: 404 });
  const mod = (await import(route.file)) as RouteModule;
  const handler = mod[request.method];
  if (typeof handler !== 'function') return new Response(null, { status: 405 });
  return handler(request, { params: Promise.resolve(route.params) });
}

/** A diagnostic as one line, so a failure lists them all. */
const line = (w: AuditWarning) => `[${w.severity}] ${w.code}${w.path ? ` (${w.path})` : ''}: ${w.message}`;

let rails: Rails;
let server: WebServer;
let rt: TestRuntime;
let source: OpenApiSource;

beforeAll(async () => {
  rails = await startRails();
  server = await serveWebHandler(serveApp);
  rt = installRailsRuntime(rails, { APP_URL: server.url, SUPPORT_EMAIL: 'operator@checks.example', RATE_LIMIT_PER_IP: '100000', METRICS_TOKEN: 'metrics-token-for-discovery-test' });
  const fetched = await getOpenAPI(server.url);
  const value = fetched.isOk() ? fetched.value : null;
  if (value === null || isOpenApiParseFailure(value)) throw new Error(`@agentcash/discovery could not read /openapi.json: ${JSON.stringify(fetched.isOk() ? fetched.value : fetched.error)}`);
  source = value;
}, 120_000);

afterAll(async () => {
  await server?.close();
  await rt?.dispose();
  await rails?.stop();
});

describe('@agentcash/discovery on the served /openapi.json', () => {
  it('finds no error, warning or note at any level, as its CLI `discover` runs it', async () => {
    expect(rt.rails?.live).toEqual(['stripe', 'evm', 'x402']);
    const l2 = checkL2ForOpenAPI(source);
    const warnings = [...getWarningsForOpenAPI(source), ...getWarningsForL2(l2), ...getWarningsForL4(checkL4ForOpenAPI(source))];
    for (const route of l2.routes) {
      const url = `${server.url}${route.path}`;
      const detail = await checkEndpointSchema({ url });
      if (!detail.found) {
        warnings.push(...getWarningsForL3(null).map((w) => ({ ...w, path: `${route.method} ${route.path}` })));
        continue;
      }
      const paid = detail.advisories.filter((a) => a.authMode === 'paid' || a.authMode === 'apiKey+paid');
      if (paid.length) await attachProbePayload(url, paid);
      warnings.push(...detail.advisories.flatMap((a) => getWarningsForL3(a).map((w) => ({ ...w, path: `${a.method} ${route.path}` }))));
    }
    expect(l2.routes.length).toBe(34);
    expect(warnings.map(line)).toEqual([]);
  });

  it('sees every paid check as paid at 1.00 USD over x402 and MPP, with a credits key accepted, and nothing else as paid', () => {
    const l2 = checkL2ForOpenAPI(source);
    const paid = l2.routes.filter((r) => r.authMode === 'paid' || r.authMode === 'apiKey+paid');
    expect(paid.map((r) => `${r.method} ${r.path}`).sort()).toEqual(checks().map((c) => `POST ${c.path}`).sort());
    for (const route of paid) {
      expect(route, route.path).toMatchObject({ authMode: 'apiKey+paid', price: '1.00 USD', pricingMode: 'fixed', currency: 'USD', protocols: ['mpp', 'mpp', 'x402'] });
    }
    expect(l2.contactEmail).toBe('operator@checks.example');
  });

  it('reads how every other route is reached from its security: public, a credential, or the wallet sign-in', () => {
    const modes = Object.fromEntries(checkL2ForOpenAPI(source).routes.map((r) => [`${r.method} ${r.path}`, r.authMode]));
    const free = Object.entries(modes).filter(([, mode]) => mode === 'unprotected').map(([route]) => route).sort();
    expect(free).toEqual([
      'DELETE /api/mcp', 'GET /.well-known/http-message-signatures-directory', 'GET /api/agent/ai-visibility', 'GET /api/agent/payment-endpoint', 'GET /api/agent/readiness', 'GET /api/billing/session', 'GET /api/health', 'GET /api/mcp', 'GET /llms.txt',
      'GET /openapi.json', 'POST /api/billing/account', 'POST /api/billing/checkout', 'POST /api/billing/portal', 'POST /api/session',
    ]);
    // A credits key, the site's session, the metrics token, Stripe's signature: each an apiKey scheme. The report
    // owner's routes also take the wallet sign-in (siwx), which the route list shows only where no key is taken.
    const withCredential = Object.entries(modes).filter(([, mode]) => mode === 'apiKey').map(([route]) => route).sort();
    expect(withCredential).toEqual([
      'DELETE /api/reports/{id}/share', 'DELETE /api/session', 'GET /api/agent/credits', 'GET /api/metrics', 'GET /api/reports', 'GET /api/reports/{id}',
      'GET /api/reports/{id}/compare/{otherId}', 'GET /api/reports/{id}/har', 'GET /api/session', 'POST /api/billing/webhook', 'POST /api/mcp', 'POST /api/reports/{id}/rerun',
      'POST /api/reports/{id}/share', 'POST /api/session/checks/ai-visibility', 'POST /api/session/checks/payment-endpoint', 'POST /api/session/checks/readiness', 'POST /api/session/rotate',
    ]);
    expect(free.length + withCredential.length + checks().length).toBe(Object.keys(modes).length);
  });

  it('finds no legacy well-known document to warn about: /openapi.json is the one discovery document', async () => {
    const probe = await probeLegacyWellKnown(server.url);
    expect(probe.isOk() ? probe.value : probe.error).toEqual({ x402: false, mpp: false });
  });

  it('is true about the credentials: each operation that declares no call without them refuses one, saying how to authenticate', async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>> };
    const refusals: Record<string, string> = {};
    for (const [pathPattern, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (op.security.length === 0 || op.security.some((alt) => Object.keys(alt).length === 0)) continue;
        const url = `${server.url}${pathPattern.replace(/\{\w+\}/g, 'rep_unknown')}`;
        const res = await fetch(url, { method: method.toUpperCase(), ...(method === 'get' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }) });
        const body = (await res.json()) as { type?: string };
        refusals[`${method.toUpperCase()} ${pathPattern}`] = `${res.status} ${body.type?.split('/').pop()}`;
      }
    }
    const owner = '401 not-signed-in';
    expect(refusals).toEqual({
      'POST /api/billing/webhook': '400 invalid-signature',
      'GET /api/metrics': '401 unauthorized',
      'GET /api/session': owner,
      'POST /api/session/rotate': owner,
      'POST /api/session/checks/readiness': owner,
      'POST /api/session/checks/ai-visibility': owner,
      'POST /api/session/checks/payment-endpoint': owner,
      'GET /api/reports': owner,
      'GET /api/reports/{id}': owner,
      'GET /api/reports/{id}/compare/{otherId}': owner,
      'GET /api/reports/{id}/har': owner,
      'POST /api/reports/{id}/share': owner,
      'DELETE /api/reports/{id}/share': owner,
      'POST /api/reports/{id}/rerun': owner,
    });
  });

  // Its MPP header check expects every challenge to name a `recipient` address, as a token transfer does. The
  // card challenge (MPP method stripe, always the first: lib/payments/rails.ts) pays the operator's Stripe account,
  // so it has none, and naming one would be untrue: that one finding is expected and nothing else.
  it('probing a paid route with its example body gets the live 402: its x402 terms pass, and MPP only misses a card recipient', async () => {
    for (const check of checks()) {
      const detail = await checkEndpointSchema({ url: `${server.url}${check.path}`, probe: true, sampleInputBody: check.example as Record<string, unknown> });
      expect(detail.found, check.path).toBe(true);
      const post = detail.found ? detail.advisories.find((a) => a.method === ('POST' satisfies HttpMethod)) : undefined;
      expect(post?.authMode, check.path).toBe('paid');
      expect(post?.paymentOptions?.map((o) => (o.protocol === 'mpp' ? `mpp ${o.paymentMethod}` : o.protocol)), check.path).toEqual(['x402', 'mpp stripe', 'mpp evm']);
      expect(validatePaymentRequiredDetailed(post?.paymentRequiredBody).issues, check.path).toEqual([]);
      expect(getWarningsForL3(post ?? null).map(line), check.path).toEqual([
        '[error] MPP_CHALLENGE_RECIPIENT_MISSING (WWW-Authenticate[0].request.recipient): Payment challenge 0 is missing recipient in the request object.',
      ]);
    }
  });
});
