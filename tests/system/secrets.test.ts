// Secrets under `next start` (production build):
//   - credits keys never reach the server's logs: a run that creates keys (a signed checkout webhook and its
//     one-time reveal, and the CLI), uses them (REST, MCP, the credits and account endpoints), fails with them
//     (revoked, mangled, in the wrong scheme) and revokes them, with every log line captured, then a grep for
//     each key's secret part;
//   - pages carry the security headers;
//   - production refuses to start without CREDITS_KEY_SECRET (or with a short one) and with CHECK_HOST_MAP.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStripeFake, type StripeFakeHandle } from '../../scripts/rails/stripe-fake';
import { WEBHOOK_SECRET, sessionCompleted, sign } from '../billing/events';
import { validReadinessBody } from '../support/runtime';
import { TEST_SECRET, startServer, type RunningServer } from '../support/server';

const ROOT = path.resolve(__dirname, '../..');
const KEY_SHAPE = /pac_live_[0-9A-Za-z]{20,}/g;

let server: RunningServer;
let stripe: StripeFakeHandle;
const keys: string[] = [];

beforeAll(async () => {
  stripe = await startStripeFake();
  server = await startServer({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_URL: stripe.apiUrl,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    LOG_LEVEL: 'info',
  });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  await stripe?.stop();
});

function cli(...args: string[]): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/keys.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', DATA_DIR: server.dataDir, CREDITS_KEY_SECRET: TEST_SECRET, LOG_LEVEL: 'info' },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout };
}

const json = (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

/** A purchase as a buyer makes it: Checkout, Stripe's signed webhook, the success page's one-time reveal. */
async function buyKey(): Promise<string> {
  const checkout = await json('POST', '/api/billing/checkout', { plan: 'bundle-25' });
  expect(checkout.status).toBe(200);
  const { sessionId } = (await checkout.json()) as { sessionId: string };
  const payload = JSON.stringify(sessionCompleted(sessionId, { plan: 'bundle-25' }));
  const hook = await json('POST', '/api/billing/webhook', payload, { 'stripe-signature': sign(payload) });
  expect(hook.status).toBe(200);
  const reveal = (await (await json('GET', `/api/billing/session?session_id=${sessionId}`)).json()) as { revealed?: boolean; key?: string };
  expect(reveal.revealed).toBe(true);
  return reveal.key!;
}

describe('credits keys never appear in the logs', () => {
  it('creates, uses, fails with and revokes keys, and no log line carries a key', async () => {
    const bought = [await buyKey(), await buyKey()];
    const made = cli('create', '--plan', 'bundle-25');
    expect(made.status).toBe(0);
    const fromCli = made.stdout.match(KEY_SHAPE)?.[0];
    expect(fromCli).toBeDefined();
    keys.push(...bought, fromCli!);

    for (const [i, key] of keys.entries()) {
      const bearer = { authorization: `Bearer ${key}` };
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { ...bearer, 'idempotency-key': `secrets-run-${i}-0001` })).status).toBe(200);
      // The same call replayed, then the same key with another body: a replay and a 409.
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { ...bearer, 'idempotency-key': `secrets-run-${i}-0001` })).status).toBe(200);
      expect((await json('POST', '/api/agent/readiness', { ...validReadinessBody(), extra: key }, { ...bearer, 'idempotency-key': `secrets-run-${i}-0001` })).status).toBe(400);
      expect((await json('GET', '/api/agent/credits', undefined, bearer)).status).toBe(200);
      expect((await json('POST', '/api/billing/account', { key })).status).toBe(200);
      const mcp = await json(
        'POST',
        '/api/mcp',
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() } },
        bearer,
      );
      expect(mcp.status).toBe(200);
      // Failures carrying the key: the visibility check of a refused address, the key in the wrong places.
      expect((await json('POST', '/api/agent/ai-visibility', { url: `http://127.0.0.1/${key}` }, bearer)).status).toBe(400);
      // No machine-payment rail is configured here: 503 payments-unavailable, the credential never read.
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { authorization: `Payment ${key}` })).status).toBe(503);
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { authorization: `Bearer ${key}x` })).status).toBe(401);
      // A key pasted as the Idempotency-Key is a valid one: echoed to its sender, kept out of the logs.
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { ...bearer, 'idempotency-key': key })).status).toBe(200);
      expect((await json('POST', '/api/billing/portal', { key })).status).toBeLessThan(500);
      expect((await json('POST', '/api/billing/checkout', { plan: 'bundle-25', topUp: true, key })).status).toBeLessThan(500);
    }

    for (const key of keys) {
      expect(cli('revoke', key).status).toBe(0);
      expect((await json('POST', '/api/agent/readiness', validReadinessBody(), { authorization: `Bearer ${key}` })).status).toBe(401);
      expect((await json('GET', '/api/agent/credits', undefined, { authorization: `Bearer ${key}` })).status).toBe(401);
    }

    const logs = server.output();
    // The run was logged (fulfilled calls, webhook outcomes): an empty log would prove nothing.
    expect(logs).toMatch(/"event":"fulfilled"/);
    expect(logs).toMatch(/"event":"stripe-webhook"/);
    for (const key of keys) {
      const secret = key.slice('pac_live_'.length);
      expect(logs).not.toContain(secret);
      // Nor any stretch of it long enough to matter (a mask keeps only the last 4 characters).
      expect(logs).not.toContain(secret.slice(0, 12));
      expect(logs).not.toContain(secret.slice(-16, -4));
    }
    expect(logs.match(KEY_SHAPE)).toBeNull();
  }, 120_000);
});

describe('security headers on pages', () => {
  it.each(['/', '/pricing', '/docs', '/account', '/purchase/success'])('GET %s', async (p) => {
    const res = await fetch(`${server.url}${p}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/object-src 'none'/);
    // Production pages get no 'unsafe-eval' (that is `next dev` only).
    expect(csp).not.toMatch(/unsafe-eval/);
    // Scripts run by this request's nonce only, never 'unsafe-inline'; every script tag Next wrote carries it.
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1];
    expect(scriptSrc).toMatch(/^'self' 'nonce-[A-Za-z0-9+/]{24}' 'strict-dynamic'$/);
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc!)![1];
    const scriptTags = (await res.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(scriptTags.length).toBeGreaterThan(0);
    expect(scriptTags.filter((tag) => !tag.includes(` nonce="${nonce}"`))).toEqual([]);
    const again = (await fetch(`${server.url}${p}`)).headers.get('content-security-policy') ?? '';
    expect(again).toMatch(/'nonce-[A-Za-z0-9+/]{24}'/);
    expect(again).not.toContain(nonce);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('API answers are nosniff too, and a revealed key is never cacheable', async () => {
    const res = await fetch(`${server.url}/api/billing/session?session_id=cs_test_unknown`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    // No page, no script: the policy without a nonce allows none inline.
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'; /);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe('production refuses to start with unsafe secrets', () => {
  it.each([
    ['without CREDITS_KEY_SECRET', { CREDITS_KEY_SECRET: '' }, /CREDITS_KEY_SECRET/],
    ['with a CREDITS_KEY_SECRET under 32 characters', { CREDITS_KEY_SECRET: 'too-short' }, /CREDITS_KEY_SECRET/],
    ['with CHECK_HOST_MAP set', { CHECK_HOST_MAP: 'site.test=127.0.0.1:9' }, /CHECK_HOST_MAP/],
  ])('%s', async (_label, env, named) => {
    let started: RunningServer | undefined;
    try {
      started = await startServer(env as Record<string, string>);
    } catch (error) {
      const message = String((error as Error).message);
      expect(message).toMatch(/server exited with [1-9]/);
      expect(message).toMatch(/refusing to start/);
      expect(message).toMatch(named);
      return;
    }
    await started.stop();
    throw new Error('the server started');
  }, 120_000);
});
