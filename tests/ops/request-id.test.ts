import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as creditsRoute from '@/app/api/agent/credits/route';
import * as accountRoute from '@/app/api/billing/account/route';
import * as checkoutRoute from '@/app/api/billing/checkout/route';
import * as portalRoute from '@/app/api/billing/portal/route';
import * as sessionRoute from '@/app/api/billing/session/route';
import * as webhookRoute from '@/app/api/billing/webhook/route';
import * as healthRoute from '@/app/api/health/route';
import * as mcpRoute from '@/app/api/mcp/route';
import * as metricsRoute from '@/app/api/metrics/route';
import * as openApiRoute from '@/app/openapi.json/route';
import * as llmsRoute from '@/app/llms.txt/route';
import * as siteSessionRoute from '@/app/api/session/route';
import * as siteRotateRoute from '@/app/api/session/rotate/route';
import * as reportsRoute from '@/app/api/reports/route';
import * as reportRoute from '@/app/api/reports/[id]/route';
import * as compareRoute from '@/app/api/reports/[id]/compare/[otherId]/route';
import * as shareRoute from '@/app/api/reports/[id]/share/route';
import * as rerunRoute from '@/app/api/reports/[id]/rerun/route';
import * as harRoute from '@/app/api/reports/[id]/har/route';
import * as signaturesDirectoryRoute from '@/app/.well-known/http-message-signatures-directory/route';
import { NextRequest } from 'next/server';
import { proxy } from '@/proxy';
import { endpoints } from '@/lib/endpoints';
import { createKey } from '@/lib/credits/ledger';
import { logEvent, registerLogSecrets, scrubSecrets } from '@/lib/log';
import { REQUEST_ID_PATTERN, withRequestContext } from '@/lib/request-context';
import { railsFor } from '@/lib/runtime';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute, siteCheckRoute } from '../support/check-routes';

const readinessRoute = agentCheckRoute('readiness');
const visibilityRoute = agentCheckRoute('ai-visibility');
const siteReadinessRoute = siteCheckRoute('readiness');
const siteVisibilityRoute = siteCheckRoute('ai-visibility');
const endpointRoute = agentCheckRoute('payment-endpoint');
const siteEndpointRoute = siteCheckRoute('payment-endpoint');

// Every answer carries X-Request-Id (a valid incoming one echoed, else a new one), and every log line written
// while a request is served is one JSON object naming it.

type RouteModule = Partial<Record<'GET' | 'POST' | 'DELETE', (request: Request) => Response | Promise<Response>>>;
const ROUTES: Record<string, RouteModule> = {
  [readinessCheck.path]: readinessRoute,
  '/api/agent/ai-visibility': visibilityRoute,
  '/api/agent/payment-endpoint': endpointRoute,
  '/api/agent/credits': creditsRoute,
  '/api/billing/account': accountRoute,
  '/api/billing/checkout': checkoutRoute,
  '/api/billing/portal': portalRoute,
  '/api/billing/session': sessionRoute,
  '/api/billing/webhook': webhookRoute,
  '/api/health': healthRoute,
  '/api/mcp': mcpRoute,
  '/api/metrics': metricsRoute,
  '/openapi.json': openApiRoute,
  '/llms.txt': llmsRoute,
  '/api/session': siteSessionRoute,
  '/api/session/rotate': siteRotateRoute,
  '/api/session/checks/readiness': siteReadinessRoute,
  '/api/session/checks/ai-visibility': siteVisibilityRoute,
  '/api/session/checks/payment-endpoint': siteEndpointRoute,
  '/api/reports': reportsRoute,
  // Called with the path's own id: the report is not found (404), and the answer still names the request.
  '/api/reports/{id}': { GET: (request: Request) => reportRoute.GET(request, { params: Promise.resolve({ id: 'rep_unknown' }) }) },
  '/api/reports/{id}/har': { GET: (request: Request) => harRoute.GET(request, { params: Promise.resolve({ id: 'rep_unknown' }) }) },
  '/.well-known/http-message-signatures-directory': { GET: (request: Request) => signaturesDirectoryRoute.GET(request) },
  '/api/reports/{id}/compare/{otherId}': {
    GET: (request: Request) => compareRoute.GET(request, { params: Promise.resolve({ id: 'rep_unknown', otherId: 'rep_other' }) }),
  },
  '/api/reports/{id}/share': {
    POST: (request: Request) => shareRoute.POST(request, { params: Promise.resolve({ id: 'rep_unknown' }) }),
    DELETE: (request: Request) => shareRoute.DELETE(request, { params: Promise.resolve({ id: 'rep_unknown' }) }),
  },
  '/api/reports/{id}/rerun': { POST: (request: Request) => rerunRoute.POST(request, { params: Promise.resolve({ id: 'rep_unknown' }) }) },
};

const BASE = 'http://localhost:3000';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let rt: TestRuntime;
beforeEach(() => {
  rt = installTestRuntime({ MPP_SECRET_KEY: 'm'.repeat(40), PAY_TO_ADDRESS: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'http://127.0.0.1:9/' });
  rt.rails = railsFor(rt.config, rt.store);
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await rt.dispose();
});

function call(path: string, method: string, headers: Record<string, string>, query = ''): Promise<Response> {
  const handler = ROUTES[path]?.[method as 'GET'];
  if (!handler) throw new Error(`no ${method} handler for ${path}`);
  const request = new Request(`${BASE}${path}${query}`, { method, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'GET' ? {} : { body: '{}' }) });
  return Promise.resolve(handler(request));
}

/** Captures what logEvent writes to stdout while `fn` runs. */
async function stdoutLines(fn: () => Promise<unknown>): Promise<string[]> {
  vi.stubEnv('LOG_LEVEL', 'info');
  const lines: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
  try {
    await fn();
  } finally {
    write.mockRestore();
  }
  return lines.join('').split('\n').filter(Boolean);
}

describe('X-Request-Id', () => {
  it('has a handler for every endpoint in the registry', () => {
    expect(Object.keys(ROUTES).sort()).toEqual([...new Set(endpoints().map((e) => e.path))].sort());
  });

  it.each(endpoints().map((e) => [`${e.method} ${e.path}`, e.method, e.path] as const))('%s echoes a valid incoming id', async (_name, method, path) => {
    const res = await call(path, method, { 'x-request-id': 'trace-7f3a.b:c_d-1' });
    expect(res.headers.get('x-request-id')).toBe('trace-7f3a.b:c_d-1');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['a space', 'two words'],
    ['a quote', 'id"injected'],
    ['a non-ASCII letter', 'réq-1'],
  ])('replaces an id with %s by a new UUID', async (_what, id) => {
    const res = await call('/api/health', 'GET', { 'x-request-id': id });
    expect(res.headers.get('x-request-id')).toMatch(UUID);
  });

  it('accepts exactly 1-128 characters of [A-Za-z0-9._:-]', () => {
    expect(REQUEST_ID_PATTERN.test('a')).toBe(true);
    expect(REQUEST_ID_PATTERN.test('a'.repeat(128))).toBe(true);
    expect(REQUEST_ID_PATTERN.test('')).toBe(false);
    expect(REQUEST_ID_PATTERN.test('a/b')).toBe(false);
  });

  it('gives each request without one its own id, on 200s, 402s and problems alike', async () => {
    const ok = await call('/api/health', 'GET', {});
    const unpaid = await readinessRoute.POST(new Request(`${BASE}${readinessCheck.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(validReadinessBody()) }));
    const invalid = await call(readinessCheck.path, 'POST', {});
    expect([ok.status, unpaid.status, invalid.status]).toEqual([200, 402, 400]);
    expect(invalid.headers.get('content-type')).toBe('application/problem+json');
    const ids = [ok, unpaid, invalid].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(3);
  });

  it('answers a redirect (immutable headers) with the id too', async () => {
    const wrapped = (await import('@/lib/http/observe')).observed('test-redirect', () => Response.redirect(`${BASE}/pricing`, 303));
    const res = wrapped(new Request(`${BASE}/x`, { headers: { 'x-request-id': 'redirect-1' } }));
    expect(res.status).toBe(303);
    expect(res.headers.get('x-request-id')).toBe('redirect-1');
  });
});

describe('log lines', () => {
  it('writes one JSON access line per request with id, route, status, duration, operation, rail and outcome, and no key', async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const lines = await stdoutLines(async () => {
      await readinessRoute.POST(new Request(`${BASE}${readinessCheck.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-request-id': 'paid-call-1' },
        body: JSON.stringify(validReadinessBody()),
      }));
      await readinessRoute.POST(new Request(`${BASE}${readinessCheck.path}`, { method: 'POST', headers: { 'x-request-id': 'unpaid-call-1' }, body: JSON.stringify(validReadinessBody()) }));
    });
    const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const access = events.filter((e) => e.event === 'request');
    expect(access).toHaveLength(2);
    expect(access[0]).toMatchObject({ requestId: 'paid-call-1', route: readinessCheck.operationId, method: 'POST', status: 200, operation: readinessCheck.operationId, rail: 'credits', outcome: 'fulfilled' });
    expect(access[1]).toMatchObject({ requestId: 'unpaid-call-1', route: readinessCheck.operationId, status: 402, operation: readinessCheck.operationId, rail: 'none', outcome: 'unpaid' });
    for (const e of access) expect(typeof e.durationMs).toBe('number');
    expect(lines.join('\n')).not.toContain(key);
    expect(lines.join('\n')).not.toContain(key.slice('pac_live_'.length));
  });

  it('prints no key a URL carries: the access line of /check?key=pac_live_x (a form submitted as a GET) names the page, its id and the path without it', async () => {
    const lines = await stdoutLines(async () => {
      const res = await proxy(new NextRequest(`${BASE}/check?key=pac_live_x&check=readiness`, { headers: { 'x-request-id': 'page-key-1' } }));
      expect(res.headers.get('x-request-id')).toBe('page-key-1');
      await proxy(new NextRequest(`${BASE}/r/shr_${'A'.repeat(32)}?key=pac_live_${'k'.repeat(40)}`, { headers: { 'x-request-id': 'page-key-2' } }));
      await call('/api/health', 'GET', { 'x-request-id': 'api-key-1' }, '?key=pac_live_x');
    });
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      { t: expect.any(String), requestId: 'page-key-1', route: 'page', event: 'page-request', method: 'GET', path: '/check?key=…&check=readiness' },
      { t: expect.any(String), requestId: 'page-key-2', route: 'page', event: 'page-request', method: 'GET', path: '/r/shr_…?key=…' },
      { t: expect.any(String), requestId: 'api-key-1', route: 'health', event: 'request', method: 'GET', path: '/api/health?key=…', status: 200, durationMs: expect.any(Number) },
    ]);
    expect(lines.join('\n')).not.toContain('pac_live_');
    expect(lines.join('\n')).not.toContain('A'.repeat(8));
  });

  it('puts the request id and route on every line written inside a request', async () => {
    const lines = await stdoutLines(async () => {
      withRequestContext({ requestId: 'ctx-1', route: 'billing-webhook' }, () => logEvent({ event: 'stripe-webhook', result: 'processed' }));
      logEvent({ event: 'outside' });
    });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { t: expect.any(String), requestId: 'ctx-1', route: 'billing-webhook', event: 'stripe-webhook', result: 'processed' },
      { t: expect.any(String), event: 'outside' },
    ]);
  });

  it('shares the context between copies of the module (Next bundles each route with its own copy)', async () => {
    vi.resetModules();
    const other = await import('@/lib/request-context');
    expect(other.withRequestContext).not.toBe(withRequestContext);
    const seen = withRequestContext({ requestId: 'copy-1', route: 'billing-webhook' }, () => other.currentRequest()?.requestId);
    expect(seen).toBe('copy-1');
  });

  it('masks connection-string passwords, base64url credentials and configured secrets by value', () => {
    const token = 'free-text-token-with-no-shape-42';
    registerLogSecrets([token, 'short']);
    const signature = Buffer.from(JSON.stringify({ x402Version: 2, payload: { signature: '0x' + 'ab'.repeat(65) } })).toString('base64url');
    const line = scrubSecrets(JSON.stringify({ redis: 'rediss://default:s3cretPassw0rd@eu1.upstash.io:6379', header: signature, kv: token, short: 'short' }));
    expect(line).not.toContain('s3cretPassw0rd');
    expect(line).not.toContain(signature.slice(0, 24));
    expect(line).not.toContain(token);
    expect(JSON.parse(line)).toEqual({ redis: 'rediss://…@eu1.upstash.io:6379', header: 'eyJ…', kv: '…', short: 'short' });
  });
});
