import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { GET as creditsGET } from '@/app/api/agent/credits/route';
import { POST as checkoutPOST } from '@/app/api/billing/checkout/route';
import { GET as sessionGET } from '@/app/api/billing/session/route';
import { POST as accountPOST } from '@/app/api/billing/account/route';
import { POST as portalPOST } from '@/app/api/billing/portal/route';
import { GET as healthGET } from '@/app/api/health/route';
import { GET as metricsGET } from '@/app/api/metrics/route';
import { POST as mcpPOST } from '@/app/api/mcp/route';
import { GET as openApiGET } from '@/app/openapi.json/route';
import { GET as llmsGET } from '@/app/llms.txt/route';
import { GET as ownSessionGET, POST as signInPOST, DELETE as signOutDELETE } from '@/app/api/session/route';
import { POST as rotatePOST } from '@/app/api/session/rotate/route';
import { GET as reportsGET } from '@/app/api/reports/route';
import { GET as reportGET } from '@/app/api/reports/[id]/route';
import { GET as compareGET } from '@/app/api/reports/[id]/compare/[otherId]/route';
import { GET as harGET } from '@/app/api/reports/[id]/har/route';
import { GET as signaturesDirectoryGET } from '@/app/.well-known/http-message-signatures-directory/route';
import crypto from 'node:crypto';
import { POST as sharePOST, DELETE as shareDELETE } from '@/app/api/reports/[id]/share/route';
import { POST as rerunPOST } from '@/app/api/reports/[id]/rerun/route';
import { endpoints, type FreeEndpoint } from '@/lib/endpoints';
import { createKey } from '@/lib/credits/ledger';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { endpointCheck } from '@/lib/checks/payment-endpoint/entry';
import { LIST_PAID_SERVICES } from '@/lib/transports/mcp/tools';
import { startStripeCheckoutFake, type StandaloneCheckoutFake } from '@/scripts/rails/stripe-checkout-fake';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { bridgeWebhooks } from '../support/webhook-bridge';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { agentCheckRoute, siteCheckRoute } from '../support/check-routes';

const { GET: readinessGET } = agentCheckRoute('readiness');
const { GET: visibilityGET } = agentCheckRoute('ai-visibility');
const { GET: endpointGET } = agentCheckRoute('payment-endpoint');
const { POST: sessionReadinessPOST } = siteCheckRoute('readiness');
const { POST: sessionVisibilityPOST } = siteCheckRoute('ai-visibility');
const { POST: sessionEndpointPOST } = siteCheckRoute('payment-endpoint');

// Each free route's real answers, parsed with the 200 schema its registry entry declares (the schema
// /openapi.json publishes). Purchases go through the official Stripe SDK against the local fake, which
// delivers its signed webhook events to the real webhook route.

const BASE = 'http://localhost:3000';
let fake: StandaloneCheckoutFake;
let bridge: Server;
let rt: TestRuntime;
let site: FixtureSite;
const webhookAnswers: Response[] = [];

beforeAll(async () => {
  fake = await startStripeCheckoutFake({ webhookSecret: 'whsec_test_registry_' + 'c'.repeat(24) });
  bridge = await bridgeWebhooks(fake, (answer) => webhookAnswers.push(answer));
  site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><html lang="en"><head><title>Fixture</title></head><body><h1>Fixture</h1></body></html>' } });
});
afterAll(async () => {
  await site?.close();
  await fake?.stop();
  await new Promise((r) => bridge?.close(r));
});

beforeEach(() => {
  webhookAnswers.length = 0;
  rt = installTestRuntime({ STRIPE_SECRET_KEY: fake.secretKey, STRIPE_API_URL: fake.apiUrl, STRIPE_WEBHOOK_SECRET: fake.webhookSecret });
});
afterEach(() => rt.dispose());

const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
const session = (id: string) => sessionGET(new Request(`${BASE}/api/billing/session?session_id=${id}`));

/** Buys `plan` (a top-up of `topUpKey` when given) and returns the session id, paid and fulfilled. */
async function buy(plan: string, topUpKey?: string): Promise<{ created: Response; pending: Response; sessionId: string }> {
  const created = await checkoutPOST(json('/api/billing/checkout', topUpKey ? { plan, topUp: true, key: topUpKey } : { plan }));
  const { sessionId } = (await created.clone().json()) as { sessionId: string };
  const pending = await session(sessionId);
  await fake.pay(sessionId);
  return { created, pending, sessionId };
}

/** A signed-in session's cookie (name=value) for a new key, and the key. */
async function signedIn(): Promise<{ cookie: string; key: string }> {
  const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
  const res = await signInPOST(json('/api/session', { key }));
  return { cookie: res.headers.get('set-cookie')!.split(';')[0], key };
}

/** A readiness check run from a session: its answer, and the report it stored. */
async function sessionCheck(cookie: string): Promise<Response> {
  return sessionReadinessPOST(json('/api/session/checks/readiness', readinessCheck.example, { cookie, 'idempotency-key': `registry-${Math.random().toString(36).slice(2)}` }));
}

/** The report a paid answer links to. */
const reportIdOf = (res: Response) => /<\/api\/reports\/([^>]+)>/.exec(res.headers.get('link') ?? '')![1];

/** Real answers of each free route, under `METHOD path` as in the registry. */
const SAMPLES: Record<string, () => Promise<Response[]>> = {
  'GET /api/agent/credits': async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    return [await creditsGET(new Request(`${BASE}/api/agent/credits`)), await creditsGET(new Request(`${BASE}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } }))];
  },
  [`GET ${readinessCheck.path}`]: async () => [await readinessGET()],
  [`GET ${visibilityCheck.path}`]: async () => [await visibilityGET()],
  [`GET ${endpointCheck.path}`]: async () => [await endpointGET()],
  'POST /api/mcp': async () => {
    const rpc = (body: unknown) => mcpPOST(json('/api/mcp', body, { accept: 'application/json, text/event-stream' }));
    return [
      await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'registry-test', version: '1' } } }),
      await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: LIST_PAID_SERVICES, arguments: {} } }),
      await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: readinessCheck.toolName, arguments: readinessCheck.example } }),
    ];
  },
  'POST /api/billing/checkout': async () => [(await buy('bundle-25')).created],
  'GET /api/billing/session': async () => {
    const bought = await buy('subscription');
    const revealed = await session(bought.sessionId);
    const { key } = (await revealed.clone().json()) as { key: string };
    const later = await session(bought.sessionId);
    const topUp = await buy('bundle-100', key);
    return [bought.pending, revealed, later, await session(topUp.sessionId)];
  },
  'POST /api/billing/account': async () => {
    const bought = await buy('subscription');
    const { key } = (await (await session(bought.sessionId)).json()) as { key: string };
    return [await accountPOST(json('/api/billing/account', { key }))];
  },
  'POST /api/billing/portal': async () => {
    const bought = await buy('bundle-25');
    const { key } = (await (await session(bought.sessionId)).json()) as { key: string };
    return [await portalPOST(json('/api/billing/portal', { key }))];
  },
  'POST /api/billing/webhook': async () => {
    await buy('bundle-25');
    return [...webhookAnswers];
  },
  'POST /api/session': async () => {
    const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    return [await signInPOST(json('/api/session', { key }))];
  },
  'GET /api/session': async () => [await ownSessionGET(new Request(`${BASE}/api/session`, { headers: { cookie: (await signedIn()).cookie } }))],
  'DELETE /api/session': async () => [await signOutDELETE(new Request(`${BASE}/api/session`, { method: 'DELETE', headers: { cookie: (await signedIn()).cookie } }))],
  'POST /api/session/rotate': async () => [await rotatePOST(new Request(`${BASE}/api/session/rotate`, { method: 'POST', headers: { cookie: (await signedIn()).cookie } }))],
  'POST /api/session/checks/readiness': async () => [await sessionCheck((await signedIn()).cookie)],
  'POST /api/session/checks/ai-visibility': async () => {
    const { cookie } = await signedIn();
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    try {
      return [await sessionVisibilityPOST(json('/api/session/checks/ai-visibility', { url: 'https://site.test/' }, { cookie, 'idempotency-key': 'registry-visibility-1' }))];
    } finally {
      delete process.env.CHECK_HOST_MAP;
    }
  },
  // The fixture page answers 200, not 402: still a report (any HTTP answer is one), with what the check saw.
  'POST /api/session/checks/payment-endpoint': async () => {
    const { cookie } = await signedIn();
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    try {
      return [await sessionEndpointPOST(json('/api/session/checks/payment-endpoint', { url: 'https://site.test/', method: 'GET' }, { cookie, 'idempotency-key': 'registry-endpoint-1' }))];
    } finally {
      delete process.env.CHECK_HOST_MAP;
    }
  },
  'GET /api/reports': async () => {
    const { cookie, key } = await signedIn();
    await sessionCheck(cookie);
    return [
      await reportsGET(new Request(`${BASE}/api/reports`, { headers: { cookie } })),
      await reportsGET(new Request(`${BASE}/api/reports?limit=1`, { headers: { authorization: `Bearer ${key}` } })),
    ];
  },
  'GET /api/reports/{id}': async () => {
    const { cookie } = await signedIn();
    const link = (await sessionCheck(cookie)).headers.get('link')!;
    const id = /<\/api\/reports\/([^>]+)>/.exec(link)![1];
    return [await reportGET(new Request(`${BASE}/api/reports/${id}`, { headers: { cookie } }), { params: Promise.resolve({ id }) })];
  },
  'GET /api/reports/{id}/compare/{otherId}': async () => {
    const { cookie } = await signedIn();
    const [id, otherId] = [reportIdOf(await sessionCheck(cookie)), reportIdOf(await sessionCheck(cookie))];
    return [await compareGET(new Request(`${BASE}/api/reports/${id}/compare/${otherId}`, { headers: { cookie } }), { params: Promise.resolve({ id, otherId }) })];
  },
  // The session's own visibility report, as its page's "Download HAR" fetches it.
  'GET /api/reports/{id}/har': async () => {
    const { cookie } = await signedIn();
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    try {
      const id = reportIdOf(await sessionVisibilityPOST(json('/api/session/checks/ai-visibility', { url: 'https://site.test/' }, { cookie, 'idempotency-key': 'registry-har-1' })));
      return [await harGET(new Request(`${BASE}/api/reports/${id}/har`, { headers: { cookie } }), { params: Promise.resolve({ id }) })];
    } finally {
      delete process.env.CHECK_HOST_MAP;
    }
  },
  'POST /api/reports/{id}/share': async () => {
    const { cookie } = await signedIn();
    const id = reportIdOf(await sessionCheck(cookie));
    return [await sharePOST(new Request(`${BASE}/api/reports/${id}/share`, { method: 'POST', headers: { cookie } }), { params: Promise.resolve({ id }) })];
  },
  'DELETE /api/reports/{id}/share': async () => {
    const { cookie } = await signedIn();
    const id = reportIdOf(await sessionCheck(cookie));
    return [await shareDELETE(new Request(`${BASE}/api/reports/${id}/share`, { method: 'DELETE', headers: { cookie } }), { params: Promise.resolve({ id }) })];
  },
  'POST /api/reports/{id}/rerun': async () => {
    const { cookie } = await signedIn();
    const id = reportIdOf(await sessionCheck(cookie));
    return [await rerunPOST(new Request(`${BASE}/api/reports/${id}/rerun`, { method: 'POST', headers: { cookie, 'idempotency-key': 'registry-rerun-1' } }), { params: Promise.resolve({ id }) })];
  },
  'GET /api/health': async () => [await healthGET(), await healthGET(new Request(`${BASE}/api/health?ready=1`))],
  // With a Web Bot Auth key (and the https origin a Signature-Agent must name), the JWKS of its public key;
  // without one the route answers 404.
  'GET /.well-known/http-message-signatures-directory': async () => {
    rt.config.APP_URL = 'https://checks.example';
    rt.config.WEB_BOT_AUTH_KEY = JSON.stringify(crypto.generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }));
    return [await signaturesDirectoryGET()];
  },
  'GET /api/metrics': async () => {
    rt.config.METRICS_TOKEN = 'metrics-token-for-registry-test';
    return [await metricsGET(new Request(`${BASE}/api/metrics`, { headers: { authorization: 'Bearer metrics-token-for-registry-test' } }))];
  },
  'GET /openapi.json': async () => [openApiGET()],
  'GET /llms.txt': async () => [llmsGET()],
};

const freeEndpoints = endpoints().filter((e): e is FreeEndpoint => e.kind === 'free');

describe('free routes answer what their registry entry declares', () => {
  it('has real answers for every free endpoint in the registry', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(freeEndpoints.map((e) => `${e.method} ${e.path}`).sort());
  });

  it.each(freeEndpoints.map((e) => [`${e.method} ${e.path}`, e] as const))('%s: each 200 body parses with the declared schema', async (name, endpoint) => {
    const responses = await SAMPLES[name]();
    expect(responses.length).toBeGreaterThan(0);
    for (const res of responses) {
      if (endpoint.ok.status === 204) {
        expect([res.status, await res.text()], name).toEqual([204, '']);
        continue;
      }
      expect(res.status, name).toBe(200);
      expect(res.headers.get('content-type') ?? '', name).toContain(endpoint.ok.contentType);
      // JSON, or a JSON media type of its own (application/…+json).
      const body: unknown = /^application\/(?:[\w.-]+\+)?json$/.test(endpoint.ok.contentType) ? await res.json() : await res.text();
      const parsed = endpoint.ok.schema.safeParse(body);
      expect(parsed.success, `${name}: ${parsed.error?.message}\n${JSON.stringify(body).slice(0, 500)}`).toBe(true);
    }
  });

  it('covers every variant of the purchase status (pending, new key, key already shown, top-up)', async () => {
    const bodies = await Promise.all((await SAMPLES['GET /api/billing/session']()).map((r) => r.json() as Promise<Record<string, unknown>>));
    expect(bodies.map((b) => [b.status, b.kind ?? null, b.revealed ?? null])).toEqual([
      ['pending', null, null], ['fulfilled', 'new-key', true], ['fulfilled', 'new-key', false], ['fulfilled', 'top-up', null],
    ]);
  });
});
