// Signing in, a check run from the session, its stored report and signing out, against the real service
// (`next start` on a production build, NODE_ENV=production): what a browser gets, headers included.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore } from '@/lib/store/sqlite';
import { createKey } from '@/lib/credits/ledger';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { validReadinessBody } from '../support/runtime';

let server: RunningServer;
let key: string;

beforeAll(async () => {
  server = await startServer();
  // The server's own store file: SQLite in WAL mode takes a second connection.
  const store = openSqliteStore(server.dataDir);
  try {
    ({ key } = await createKey(store, TEST_SECRET, 'bundle-25'));
  } finally {
    await store.close();
  }
}, 240_000);
afterAll(() => server?.stop());

const send = (path: string, init: { method: string; headers?: Record<string, string>; body?: unknown }) =>
  fetch(`${server.url}${path}`, {
    method: init.method,
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

describe('a site session on next start', () => {
  it('signs in with a Secure __Host- cookie, runs a check for one call, reads its report, and signs out for good', async () => {
    const signIn = await send('/api/session', { method: 'POST', headers: { origin: server.url }, body: { key } });
    expect(signIn.status).toBe(200);
    const setCookie = signIn.headers.getSetCookie();
    expect(setCookie).toHaveLength(1);
    const [pair, ...attributes] = setCookie[0].split('; ');
    expect(attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=604800', 'Secure']);
    expect(pair).toMatch(/^__Host-pac_session=[A-Za-z0-9_-]{32}$/);
    const cookie = pair;

    const check = await send('/api/session/checks/readiness', {
      method: 'POST', headers: { cookie, origin: server.url, 'idempotency-key': 'e2e-session-0001' }, body: validReadinessBody(),
    });
    expect(check.status).toBe(200);
    expect(check.headers.get('credits-remaining')).toBe('24');
    const link = check.headers.get('link')!;
    expect(link).toMatch(/^<\/api\/reports\/rep_[A-Za-z0-9_-]{32}>; rel="related"$/);
    const body = await check.json();

    const report = await send(link.slice(1, link.indexOf('>')), { method: 'GET', headers: { cookie } });
    expect(report.status).toBe(200);
    expect(await report.json()).toEqual(body);
    const viaKey = await send(link.slice(1, link.indexOf('>')), { method: 'GET', headers: { authorization: `Bearer ${key}` } });
    expect(await viaKey.json()).toEqual(body);

    const foreign = await send('/api/session/checks/readiness', {
      method: 'POST', headers: { cookie, origin: 'https://evil.example', 'idempotency-key': 'e2e-session-0002' }, body: validReadinessBody(),
    });
    expect(foreign.status).toBe(403);
    const me = await send('/api/session', { method: 'GET', headers: { cookie } });
    expect(await me.json()).toEqual({ signedIn: true, callsLeft: 24, keyPrefix: `pac_live_…${key.slice(-4)}` });

    const out = await send('/api/session', { method: 'DELETE', headers: { cookie, origin: server.url } });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie()).toEqual(['__Host-pac_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure']);
    expect((await send('/api/session', { method: 'GET', headers: { cookie } })).status).toBe(401);
    expect((await send(link.slice(1, link.indexOf('>')), { method: 'GET', headers: { cookie } })).status).toBe(401);
  });
});
