// CORS as a browser applies it: `next start` on the local rails, and a page served from a second local origin
// (another port) that calls our API from Chromium. The page reads the 402's terms, pays over x402 with a payload
// the test signs, and reads the receipt and the report link; it reads the discovery documents and a wallet
// sign-in's refusal; it speaks MCP to /api/mcp as a browser-hosted client does (initialize, tools/list, an unpaid
// tool call answered -32042); it reads nothing from the session or operator routes, and nothing with credentials.
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { chromium, type Browser, type Page } from 'playwright-core';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { startRails, type Rails } from '../../scripts/rails/start';
import { decodeBase64Json } from '../payments/harness';
import { chromiumSettings } from '../support/chromium';
import { validReadinessBody } from '../support/runtime';
import { startServer, type RunningServer } from '../support/server';
import { serveWebHandler, type WebServer } from '../support/web-server';

const settings = chromiumSettings();

let rails: Rails;
let server: RunningServer;
let otherOrigin: WebServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  rails = await startRails();
  server = await startServer({ ...rails.env });
  otherOrigin = await serveWebHandler(() => new Response('<!doctype html><html lang="en"><head><title>Another site</title></head><body><h1>Another site</h1></body></html>', { headers: { 'content-type': 'text/html; charset=utf-8' } }));
  browser = await chromium.launch({ executablePath: settings!.mode.on ? settings!.mode.executablePath : '', args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage();
  await page.goto(otherOrigin.url);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await otherOrigin?.close();
  await server?.stop();
  await rails?.stop();
});

/** What a page's fetch could read of an answer, or `blocked` when the browser refused it to the page. */
type Seen = { status: number; headers: Record<string, string | null>; body: string } | 'blocked';

/** Runs fetch(url, init) in the page on the other origin and returns what the page could read of the named headers. */
function fetchFromPage(url: string, init: RequestInit, headerNames: string[]): Promise<Seen> {
  return page.evaluate(
    async ({ url, init, headerNames }) => {
      try {
        const res = await fetch(url, init);
        const headers: Record<string, string | null> = {};
        for (const name of headerNames) headers[name] = res.headers.get(name);
        return { status: res.status, headers, body: await res.text() };
      } catch {
        return 'blocked' as const;
      }
    },
    { url, init, headerNames },
  );
}

const readinessInit = (headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'cors-call-0001', ...headers },
  body: JSON.stringify(validReadinessBody()),
});

describe.skipIf(!settings)('CORS from a page on another origin (Chromium)', () => {
  it('the page is on another origin than the API', () => {
    expect(new URL(otherOrigin.url).origin).not.toBe(new URL(server.url).origin);
  });

  it('reads the 402 terms (PAYMENT-REQUIRED, WWW-Authenticate, X-Request-Id) after a preflight, pays over x402, and reads PAYMENT-RESPONSE and Link', async () => {
    const exposed = ['payment-required', 'www-authenticate', 'x-request-id', 'payment-response', 'payment-receipt', 'link'];
    const unpaid = await fetchFromPage(`${server.url}/api/agent/readiness`, readinessInit(), exposed);
    if (unpaid === 'blocked') throw new Error('the browser refused the 402 to the page');
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers['www-authenticate']).toMatch(/^Payment /);
    expect(unpaid.headers['x-request-id']).toMatch(/\S/);
    const required = decodePaymentRequiredHeader(unpaid.headers['payment-required']!);
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toBe(`${server.url}/api/agent/readiness`);

    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
    const signature = encodePaymentSignatureHeader(await client.createPaymentPayload(required));
    const before = await rails.usdcBalance(rails.payer.address);
    const paid = await fetchFromPage(`${server.url}/api/agent/readiness`, readinessInit({ 'PAYMENT-SIGNATURE': signature }), exposed);
    if (paid === 'blocked') throw new Error('the browser refused the paid answer to the page');
    expect(paid.status).toBe(200);
    expect(decodeBase64Json<{ success: boolean; payer: string }>(paid.headers['payment-response'])).toMatchObject({ success: true, payer: rails.payer.address });
    expect(paid.headers.link).toMatch(/^<\/api\/reports\/rep_[A-Za-z0-9_-]{32}>; rel="related"$/);
    expect(before - (await rails.usdcBalance(rails.payer.address))).toBe(1_000_000n);
  });

  it('reads the discovery documents', async () => {
    const openapi = await fetchFromPage(`${server.url}/openapi.json`, {}, []);
    if (openapi === 'blocked') throw new Error('blocked');
    expect(JSON.parse(openapi.body)).toMatchObject({ servers: [{ url: server.url }], paths: { '/api/agent/readiness': { post: { 'x-payment-info': { price: { mode: 'fixed', currency: 'USD', amount: '1.00' } } } } } });
    for (const path of ['/llms.txt', '/api/agent/readiness']) {
      const seen = await fetchFromPage(`${server.url}${path}`, {}, []);
      expect(seen === 'blocked' ? 'blocked' : seen.status, path).toBe(200);
    }
  });

  it('sends SIGN-IN-WITH-X after a preflight and reads the refusal of a bad one', async () => {
    const seen = await fetchFromPage(`${server.url}/api/reports`, { headers: { 'SIGN-IN-WITH-X': 'not-a-message' } }, []);
    if (seen === 'blocked') throw new Error('blocked');
    expect(seen.status).toBe(401);
    expect((JSON.parse(seen.body) as { type: string }).type).toBe(`${PROBLEM_BASE}wallet-sign-in-refused`);
  });

  it('reads nothing from the session, billing and operator routes', async () => {
    expect(await fetchFromPage(`${server.url}/api/session`, {}, [])).toBe('blocked');
    expect(await fetchFromPage(`${server.url}/api/health`, {}, [])).toBe('blocked');
    expect(await fetchFromPage(`${server.url}/api/billing/session?session_id=cs_x`, {}, [])).toBe('blocked');
    expect(await fetchFromPage(`${server.url}/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"key":"pac_live_x"}' }, [])).toBe('blocked');
  });

  it('reads nothing it asked for with credentials, even on a public route', async () => {
    expect(await fetchFromPage(`${server.url}/api/agent/credits`, { credentials: 'include' }, [])).toBe('blocked');
    const plain = await fetchFromPage(`${server.url}/api/agent/credits`, {}, []);
    expect(plain === 'blocked' ? 'blocked' : plain.status).toBe(200);
  });

  it('speaks MCP to /api/mcp: initialize, tools/list with the negotiated protocol version, and an unpaid tool call answered -32042', async () => {
    // What a browser-hosted MCP client does over Streamable HTTP: keep the session id the server hands out (none:
    // this endpoint is stateless) and the negotiated version, and send both back on every later request.
    const seen = await page.evaluate(async ({ mcpUrl, readinessBody }) => {
      let sessionId: string | null = null;
      let protocolVersion: string | null = null;
      const rpc = async (body: Record<string, unknown>, extra: Record<string, string> = {}) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
        if (sessionId) headers['mcp-session-id'] = sessionId;
        if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
        const res = await fetch(mcpUrl, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', ...body }) });
        sessionId = res.headers.get('mcp-session-id') ?? sessionId;
        return { status: res.status, requestId: res.headers.get('x-request-id'), sessionId: res.headers.get('mcp-session-id'), text: await res.text() };
      };
      try {
        const init = await rpc({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser-agent', version: '1.0.0' } } });
        protocolVersion = (JSON.parse(init.text) as { result: { protocolVersion: string } }).result.protocolVersion;
        const initialized = await rpc({ method: 'notifications/initialized' });
        const list = await rpc({ id: 2, method: 'tools/list' });
        const unpaid = await rpc({ id: 3, method: 'tools/call', params: { name: 'agent_payment_readiness_assessment', arguments: readinessBody } });
        const badKey = await rpc({ id: 4, method: 'tools/call', params: { name: 'agent_payment_readiness_assessment', arguments: readinessBody } }, { authorization: 'Bearer pac_live_not-a-key' });
        return { init, protocolVersion, initialized, list, unpaid, badKey };
      } catch (error) {
        return { blocked: String(error) };
      }
    }, { mcpUrl: `${server.url}/api/mcp`, readinessBody: validReadinessBody() });
    if ('blocked' in seen) throw new Error(`the browser refused an MCP answer to the page: ${seen.blocked}`);

    expect(seen.init.status).toBe(200);
    expect(seen.init.requestId).toMatch(/\S/);
    expect(seen.init.sessionId).toBeNull();
    expect(JSON.parse(seen.init.text)).toMatchObject({ id: 1, result: { serverInfo: { name: 'paid-agent-checks' } } });
    expect(seen.protocolVersion).toBe('2025-06-18');
    expect(seen.initialized.status).toBe(202);

    expect(seen.list.status).toBe(200);
    const tools = (JSON.parse(seen.list.text) as { result: { tools: Array<{ name: string }> } }).result.tools;
    expect(tools.map((t) => t.name).sort()).toEqual(['agent_payment_endpoint_check', 'agent_payment_readiness_assessment', 'ai_visibility_check', 'list_paid_services']);

    expect(seen.unpaid.status).toBe(200);
    const unpaid = JSON.parse(seen.unpaid.text) as { id: number; error: { code: number; data: { httpStatus: number; challenges: Array<{ method: string }> } } };
    expect(unpaid.id).toBe(3);
    expect(unpaid.error.code).toBe(-32042);
    expect(unpaid.error.data.httpStatus).toBe(402);
    expect(unpaid.error.data.challenges.map((c) => c.method).sort()).toEqual(['evm', 'stripe']);

    // The Bearer key crossed the preflight: the call is refused for that key, not asked to pay.
    const badKey = JSON.parse(seen.badKey.text) as { result: { isError: boolean; _meta: { problem: { type: string } } } };
    expect(badKey.result.isError).toBe(true);
    expect(badKey.result._meta.problem.type).toBe(`${PROBLEM_BASE}invalid-credits-key`);
  });

  it('reads the MCP endpoint\'s 405 to a stream (GET, Last-Event-ID) and to a session end (DELETE, Mcp-Session-Id)', async () => {
    const stream = await fetchFromPage(`${server.url}/api/mcp`, { headers: { accept: 'text/event-stream', 'last-event-id': '7', 'mcp-protocol-version': '2025-06-18' } }, ['x-request-id']);
    const end = await fetchFromPage(`${server.url}/api/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': 'abc', 'mcp-protocol-version': '2025-06-18' } }, ['x-request-id']);
    for (const seen of [stream, end]) {
      if (seen === 'blocked') throw new Error('the browser refused the 405 to the page');
      expect(seen.status).toBe(405);
      expect(seen.headers['x-request-id']).toMatch(/\S/);
      expect((JSON.parse(seen.body) as { type: string }).type).toBe(`${PROBLEM_BASE}method-not-allowed`);
    }
  });

  it('reads nothing from /api/mcp it asked for with credentials', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) };
    expect(await fetchFromPage(`${server.url}/api/mcp`, { ...init, credentials: 'include' }, [])).toBe('blocked');
    const plain = await fetchFromPage(`${server.url}/api/mcp`, init, []);
    expect(plain === 'blocked' ? 'blocked' : plain.status).toBe(200);
  });

  it('answers a preflight with 204 and the allowed headers on public routes only', async () => {
    const preflight = (path: string) =>
      fetch(`${server.url}${path}`, { method: 'OPTIONS', headers: { origin: otherOrigin.url, 'access-control-request-method': 'POST', 'access-control-request-headers': 'payment-signature' } });
    const paid = await preflight('/api/agent/readiness');
    expect(paid.status).toBe(204);
    expect(paid.headers.get('access-control-allow-origin')).toBe('*');
    expect(paid.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Idempotency-Key, PAYMENT-SIGNATURE, X-PAYMENT, SIGN-IN-WITH-X');
    expect(paid.headers.get('access-control-allow-credentials')).toBeNull();
    const session = await preflight('/api/session');
    expect(session.headers.get('access-control-allow-origin')).toBeNull();
    expect(session.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('answers a preflight to /api/mcp with 204, the transport\'s methods and headers, and no credentials', async () => {
    const preflight = await fetch(`${server.url}/api/mcp`, {
      method: 'OPTIONS',
      headers: { origin: otherOrigin.url, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-session-id, mcp-protocol-version' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID');
    expect(preflight.headers.get('access-control-expose-headers')).toBe('Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
