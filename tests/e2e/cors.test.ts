// CORS as a browser applies it: `next start` on the local rails, and a page served from a second local origin
// (another port) that calls our API from Chromium. The page reads the 402's terms, pays over x402 with a payload
// the test signs, and reads the receipt and the report link; it reads the discovery documents and a wallet
// sign-in's refusal; it reads nothing from the session or operator routes, and nothing with credentials.
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
    const wellKnown = await fetchFromPage(`${server.url}/.well-known/x402`, {}, []);
    if (wellKnown === 'blocked') throw new Error('blocked');
    expect(JSON.parse(wellKnown.body)).toMatchObject({ version: 1, resources: [`${server.url}/api/agent/readiness`, `${server.url}/api/agent/ai-visibility`] });
    for (const path of ['/openapi.json', '/llms.txt', '/api/agent/readiness']) {
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
  });
});
