// Signing in on the site with a credits key: the session cookie, sign-out, checks run from a session
// through the paid pipeline, key rotation and the refusal of requests from other sites. In-process route
// handlers on a real SQLite store; the visibility check reaches a fixture site through CHECK_HOST_MAP.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DELETE as signOut, GET as whoAmI, POST as signIn } from '@/app/api/session/route';
import { POST as rotate } from '@/app/api/session/rotate/route';
import { GET as listReports } from '@/app/api/reports/route';
import { GET as readReport } from '@/app/api/reports/[id]/route';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '@/lib/session';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute, siteCheckRoute } from '../support/check-routes';

const { POST: sessionReadiness } = siteCheckRoute('readiness');
const { POST: sessionVisibility } = siteCheckRoute('ai-visibility');
const { POST: restReadiness } = agentCheckRoute('readiness');

const BASE = 'http://localhost:3000';
const PAGE = '<!doctype html><html lang="en"><head><title>Widgets</title></head><body><h1>Widgets</h1><p>words</p></body></html>';

let rt: TestRuntime;
let site: FixtureSite;
let key: string;
let keyHash: string;

beforeEach(async () => {
  site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE }, '/reset': { reset: true } });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  rt = installTestRuntime({ RATE_LIMIT_SESSION_PER_IP: '3' });
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
});
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await site.close();
});

const callsLeft = async (hash = keyHash) => (await balance(rt.store, hash)).callsLeft;
const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({ cookie, ...headers });
const request = (path: string, method: string, headers: Record<string, string>) => new Request(`${BASE}${path}`, { method, headers });

/** Signs in and returns the `name=value` pair to send back, and the whole Set-Cookie line. */
async function signedIn(k = key, headers: Record<string, string> = {}): Promise<{ cookie: string; setCookie: string }> {
  const res = await signIn(post(`${BASE}/api/session`, { key: k }, headers));
  expect(res.status).toBe(200);
  const setCookie = res.headers.get('set-cookie')!;
  return { cookie: setCookie.split(';')[0], setCookie };
}

const runReadiness = (cookie: string, idempotencyKey: string | null, headers: Record<string, string> = {}) =>
  sessionReadiness(post(`${BASE}/api/session/checks/readiness`, validReadinessBody(), {
    cookie, ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }), ...headers,
  }));

async function problemType(res: Response): Promise<string> {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  return ((await res.json()) as { type: string }).type;
}

describe('POST /api/session (sign in)', () => {
  it('sets an httpOnly, SameSite=Strict, Path=/ cookie holding an opaque id: never the key, its hash or any part of them', async () => {
    const res = await signIn(post(`${BASE}/api/session`, { key }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ signedIn: true, callsLeft: 25, keyPrefix: `pac_live_…${key.slice(-4)}` });
    const setCookie = res.headers.get('set-cookie')!;
    const [pair, ...attributes] = setCookie.split('; ');
    expect(attributes).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=604800']);
    const [name, value] = pair.split('=');
    expect(name).toBe(SESSION_COOKIE);
    expect(value).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const secret = key.slice('pac_live_'.length);
    for (let i = 0; i + 6 <= secret.length; i++) expect(value).not.toContain(secret.slice(i, i + 6));
    expect(value).not.toContain(keyHash.slice(0, 8));
    // The store keeps the key's hash behind the id's own hash: neither the id nor the key is stored.
    const rows = await rt.store.listRecords('session:', Date.now(), 10);
    expect(rows).toHaveLength(1);
    expect(rows[0].name).not.toContain(value);
    expect(rows[0].value).not.toContain(secret);
    expect(JSON.parse(rows[0].value)).toMatchObject({ keyHash });
  });

  it('marks the cookie Secure with the __Host- prefix in production and behind an https APP_URL, and then reads that name only', async () => {
    const settings: Array<Record<string, string>> = [{ NODE_ENV: 'production' }, { NODE_ENV: 'development', APP_URL: 'https://checks.example' }];
    for (const env of settings) {
      await rt.dispose();
      rt = installTestRuntime(env);
      ({ key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
      const origin = { origin: new URL(rt.config.APP_URL).origin };
      const { cookie, setCookie } = await signedIn(key, origin);
      // __Host-: Secure, Path=/ and no Domain, or the browser refuses it.
      expect(setCookie.split('; ').slice(1)).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=604800', 'Secure']);
      expect(cookie).toMatch(new RegExp(`^${SECURE_SESSION_COOKIE}=[A-Za-z0-9_-]{32}$`));
      expect(SECURE_SESSION_COOKIE).toBe('__Host-pac_session');
      expect((await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).status).toBe(200);
      // The same id under the plain name (which a subdomain or an http page could plant) is not read.
      const planted = `${SESSION_COOKIE}=${cookie.slice(cookie.indexOf('=') + 1)}`;
      expect((await whoAmI(request('/api/session', 'GET', withCookie(planted)))).status).toBe(401);
      const out = await signOut(request('/api/session', 'DELETE', withCookie(cookie, origin)));
      expect(out.headers.get('set-cookie')).toBe(`${SECURE_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure`);
    }
  });

  it('keeps the plain pac_session name without Secure on plain-http development, where browsers refuse Secure cookies', async () => {
    await rt.dispose();
    rt = installTestRuntime({ NODE_ENV: 'development', APP_URL: 'http://localhost:3000' });
    ({ key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
    const { cookie, setCookie } = await signedIn();
    expect(setCookie.split('; ').slice(1)).toEqual(['Path=/', 'HttpOnly', 'SameSite=Strict', 'Max-Age=604800']);
    expect(cookie).toMatch(/^pac_session=[A-Za-z0-9_-]{32}$/);
    expect((await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).status).toBe(200);
  });

  it('refuses an unknown or revoked key (401) and a bad body (400), setting no cookie', async () => {
    const unknown = await signIn(post(`${BASE}/api/session`, { key: `pac_live_${'A'.repeat(40)}` }));
    expect([unknown.status, unknown.headers.get('set-cookie')]).toEqual([401, null]);
    expect(await problemType(unknown)).toBe(`${PROBLEM_BASE}invalid-credits-key`);
    await rt.store.revokeKey(keyHash, Date.now());
    const revoked = await signIn(post(`${BASE}/api/session`, { key }));
    expect([revoked.status, revoked.headers.get('set-cookie')]).toEqual([401, null]);
    const bad = await signIn(post(`${BASE}/api/session`, { secret: key }));
    expect([bad.status, bad.headers.get('set-cookie')]).toEqual([400, null]);
    expect(await problemType(bad)).toBe(`${PROBLEM_BASE}invalid-request`);
  });

  it('rate limits sign-ins per client address (RATE_LIMIT_SESSION_PER_IP)', async () => {
    const guess = () => signIn(post(`${BASE}/api/session`, { key: `pac_live_${'B'.repeat(40)}` }));
    expect([(await guess()).status, (await guess()).status, (await guess()).status]).toEqual([401, 401, 401]);
    const limited = await guess();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // Another address is counted on its own.
    const other = await signIn(post(`${BASE}/api/session`, { key }, { 'x-forwarded-for': '198.51.100.9' }));
    expect(other.status).toBe(200);
  });
});

describe('POST /api/session as an HTML form (a sign-in form whose script has not run)', () => {
  /** The form a page posts: its key and the page it is on; headers as Chromium sends them from our no-referrer page. */
  const form = (fields: Record<string, string>, headers: Record<string, string> = { origin: 'null', 'sec-fetch-site': 'same-origin' }, base = BASE) =>
    new Request(`${base}/api/session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields).toString() });
  const answer = (res: Response) => [res.status, res.headers.get('location'), res.headers.get('cache-control')];

  it('signs in and answers 303 back to the page it came from, with the same cookie as the script\'s sign-in', async () => {
    for (const page of ['/check', '/account']) {
      const res = await signIn(form({ key, return: page }));
      expect(answer(res)).toEqual([303, page, 'no-store']);
      const setCookie = res.headers.get('set-cookie')!;
      expect(setCookie.split('; ').slice(1)).toEqual((await signedIn()).setCookie.split('; ').slice(1));
      expect(setCookie).not.toContain(key.slice('pac_live_'.length, 'pac_live_'.length + 8));
      const who = await whoAmI(request('/api/session', 'GET', withCookie(setCookie.split(';')[0])));
      expect([who.status, await who.json()]).toEqual([200, { signedIn: true, callsLeft: 25, keyPrefix: `pac_live_…${key.slice(-4)}` }]);
    }
    // Any other page named in the form: back to /check, never elsewhere.
    expect(answer(await signIn(form({ key, return: 'https://evil.example/' })))).toEqual([303, '/check', 'no-store']);
  });

  it('sends a refused sign-in back to its page saying why, with no cookie and never the key in the address', async () => {
    await rt.store.revokeKey(keyHash, Date.now());
    const refused = [
      await signIn(form({ key, return: '/account' })),
      await signIn(form({ key: 'pac_live_' + 'x'.repeat(40), return: '/check' })),
      await signIn(form({ key: '', return: '/check' })),
    ];
    expect(refused.map(answer)).toEqual([
      [303, '/account?sign-in=invalid-key', 'no-store'], [303, '/check?sign-in=invalid-key', 'no-store'], [303, '/check?sign-in=missing-key', 'no-store'],
    ]);
    for (const res of refused) expect(res.headers.get('set-cookie')).toBeNull();
    // RATE_LIMIT_SESSION_PER_IP is 3 here: the fourth attempt is over it.
    expect(answer(await signIn(form({ key, return: '/account' })))).toEqual([303, '/account?sign-in=rate-limited', 'no-store']);
  });

  it('is refused (403, problem+json, no cookie) from another site: Origin must be ours, or null with Sec-Fetch-Site: same-origin', async () => {
    const attempts = [
      await signIn(form({ key, return: '/check' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })),
      // Another site's no-referrer page sends Origin: null too; its form is cross-site or same-site, never same-origin.
      await signIn(form({ key, return: '/check' }, { origin: 'null', 'sec-fetch-site': 'cross-site' })),
      await signIn(form({ key, return: '/check' }, { origin: 'null', 'sec-fetch-site': 'same-site' })),
      await signIn(form({ key, return: '/check' }, { origin: 'null' })),
      await signIn(form({ key, return: '/check' }, { origin: 'http://localhost:4000', 'sec-fetch-site': 'same-origin' }, 'http://localhost:4000')),
    ];
    expect(attempts.map((res) => res.status)).toEqual([403, 403, 403, 403, 403]);
    for (const res of attempts) {
      expect(await problemType(res)).toBe(`${PROBLEM_BASE}cross-origin-refused`);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // Our own origin, as a browser that sends it would.
    expect(answer(await signIn(form({ key, return: '/check' }, { origin: BASE })))).toEqual([303, '/check', 'no-store']);
    // The JSON route keeps refusing Origin: null whatever Sec-Fetch-Site says.
    expect((await signIn(post(`${BASE}/api/session`, { key }, { origin: 'null', 'sec-fetch-site': 'same-origin' }))).status).toBe(403);
  });
});

describe('GET and DELETE /api/session', () => {
  it('answers who is signed in; sign-out deletes the session server-side, so the same cookie is refused afterwards', async () => {
    const { cookie } = await signedIn();
    const me = await whoAmI(request('/api/session', 'GET', withCookie(cookie)));
    expect(await me.json()).toEqual({ signedIn: true, callsLeft: 25, keyPrefix: `pac_live_…${key.slice(-4)}` });

    const out = await signOut(request('/api/session', 'DELETE', withCookie(cookie)));
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toBe(`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`);
    expect(await rt.store.listRecords('session:', Date.now(), 10)).toEqual([]);

    // A client that kept the cookie anyway gets nothing with it.
    const after = await whoAmI(request('/api/session', 'GET', withCookie(cookie)));
    expect(after.status).toBe(401);
    expect(await problemType(after)).toBe(`${PROBLEM_BASE}not-signed-in`);
    expect((await runReadiness(cookie, 'after-sign-out-1')).status).toBe(401);
    expect(await callsLeft()).toBe(25);
  });

  it('ends every use of a session once its key is revoked (keys revoke): who am I, reports, one report and a check all answer 401', async () => {
    const { cookie } = await signedIn();
    const paid = await runReadiness(cookie, 'before-revoke-1');
    expect(paid.status).toBe(200);
    const id = /^<\/api\/reports\/(rep_[A-Za-z0-9_-]{32})>/.exec(paid.headers.get('link') ?? '')?.[1] ?? 'no-link';
    const getReport = () => readReport(request(`/api/reports/${id}`, 'GET', withCookie(cookie)), { params: Promise.resolve({ id }) });
    // Live before the revocation: the same four requests work with this cookie.
    expect((await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).status).toBe(200);
    expect((await listReports(request('/api/reports', 'GET', withCookie(cookie)))).status).toBe(200);
    expect((await getReport()).status).toBe(200);

    // What `npm run keys -- revoke <key>` does.
    expect(await rt.store.revokeKey(keyHash, Date.now())).toBe(true);
    const answers = [
      await whoAmI(request('/api/session', 'GET', withCookie(cookie))),
      await listReports(request('/api/reports', 'GET', withCookie(cookie))),
      await getReport(),
      await runReadiness(cookie, 'after-revoke-1'),
    ];
    expect(answers.map((res) => res.status)).toEqual([401, 401, 401, 401]);
    for (const res of answers) expect(await problemType(res)).toBe(`${PROBLEM_BASE}not-signed-in`);
    expect(await callsLeft()).toBe(24);
  });

  it('answers 401 without a cookie or with one that names no session', async () => {
    expect((await whoAmI(request('/api/session', 'GET', {}))).status).toBe(401);
    expect((await whoAmI(request('/api/session', 'GET', withCookie(`${SESSION_COOKIE}=${'x'.repeat(32)}`)))).status).toBe(401);
    expect((await whoAmI(request('/api/session', 'GET', withCookie(`${SESSION_COOKIE}=${key}`)))).status).toBe(401);
  });
});

describe('checks run from a session', () => {
  it('spend exactly one call through the paid pipeline, say what is left, and replay without a second charge', async () => {
    const { cookie } = await signedIn();
    const res = await runReadiness(cookie, 'site-check-0001');
    expect(res.status).toBe(200);
    expect(res.headers.get('credits-remaining')).toBe('24');
    expect(res.headers.get('link')).toMatch(/^<\/api\/reports\/rep_[A-Za-z0-9_-]{32}>; rel="related"$/);
    const body = (await res.json()) as { creditsUsage: string; idempotencyKey: string };
    expect(body.idempotencyKey).toBe('site-check-0001');
    expect(await rt.store.getReservation(body.creditsUsage)).toMatchObject({ keyHash, state: 'committed' });
    expect(await callsLeft()).toBe(24);

    const again = await runReadiness(cookie, 'site-check-0001');
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('link')).toBe(res.headers.get('link'));
    expect(await again.json()).toEqual(body);
    expect(await callsLeft()).toBe(24);

    // Same answer as a Bearer call with the same key and Idempotency-Key: the same record, replayed.
    const bearer = await restReadiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'site-check-0001' }));
    expect(bearer.headers.get('idempotent-replayed')).toBe('true');
    expect(await bearer.json()).toEqual(body);
    expect(await callsLeft()).toBe(24);
  });

  it('require an Idempotency-Key (400, nothing spent)', async () => {
    const { cookie } = await signedIn();
    const res = await runReadiness(cookie, null);
    expect(res.status).toBe(400);
    const p = (await res.json()) as { type: string; errors: unknown };
    expect(p.type).toBe(`${PROBLEM_BASE}invalid-idempotency-key`);
    expect(p.errors).toEqual([{ path: 'header:Idempotency-Key', message: 'is required' }]);
    expect(await callsLeft()).toBe(25);
  });

  it('check a site for one call, and a site that cannot be checked costs nothing (422)', async () => {
    const { cookie } = await signedIn();
    const visibility = (url: string, idem: string) =>
      sessionVisibility(post(`${BASE}/api/session/checks/ai-visibility`, { url }, withCookie(cookie, { 'idempotency-key': idem })));
    const failed = await visibility('https://site.test/reset', 'site-visibility-1');
    expect(failed.status).toBe(422);
    expect(await problemType(failed)).toBe(`${PROBLEM_BASE}site-unreachable`);
    expect(await callsLeft()).toBe(25);
    expect(((await (await listReports(request('/api/reports', 'GET', withCookie(cookie)))).json()) as { reports: unknown[] }).reports).toEqual([]);

    const ok = await visibility('https://site.test/', 'site-visibility-2');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('credits-remaining')).toBe('24');
    expect(((await ok.json()) as { report: { checkedUrl: string } }).report.checkedUrl).toBe('https://site.test/');
    expect(await callsLeft()).toBe(24);
  });

  it('answer 401 without a session, spending nothing', async () => {
    const res = await runReadiness('', 'no-session-0001');
    expect(res.status).toBe(401);
    expect(await problemType(res)).toBe(`${PROBLEM_BASE}not-signed-in`);
    expect(await callsLeft()).toBe(25);
  });
});

describe('requests from another site', () => {
  it('are refused with 403 when their Origin is not ours, before anything is spent, signed in or out', async () => {
    const { cookie } = await signedIn();
    const evil = { origin: 'https://evil.example' };
    const attempts = [
      await runReadiness(cookie, 'csrf-check-0001', evil),
      await rotate(request('/api/session/rotate', 'POST', withCookie(cookie, evil))),
      await signOut(request('/api/session', 'DELETE', withCookie(cookie, evil))),
      await signIn(post(`${BASE}/api/session`, { key }, evil)),
    ];
    for (const res of attempts) {
      expect(res.status).toBe(403);
      expect(await problemType(res)).toBe(`${PROBLEM_BASE}cross-origin-refused`);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect(await callsLeft()).toBe(25);
    expect((await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).status).toBe(200);
    expect((await rt.store.getKey(keyHash))?.revokedAt).toBeNull();
  });

  it("compare Origin with APP_URL's origin only: the request's own host, another localhost port and Origin: null are refused (403)", async () => {
    const { cookie } = await signedIn();
    // APP_URL is http://localhost:3000; a request reaching the server under another name (a rebound DNS name,
    // another port) carries that name in its URL and its Origin alike.
    const elsewhere = 'http://localhost:4000';
    const viaOtherHost = await sessionReadiness(new Request(`${elsewhere}/api/session/checks/readiness`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie, origin: elsewhere, 'idempotency-key': 'other-host-0001' }, body: JSON.stringify(validReadinessBody()),
    }));
    const attempts = [
      viaOtherHost,
      await runReadiness(cookie, 'origin-null-0001', { origin: 'null' }),
      await rotate(request('/api/session/rotate', 'POST', withCookie(cookie, { origin: 'null' }))),
      await signOut(request('/api/session', 'DELETE', withCookie(cookie, { origin: 'http://127.0.0.1:3000' }))),
      await signIn(post(`${elsewhere}/api/session`, { key }, { origin: elsewhere })),
    ];
    expect(attempts.map((res) => res.status)).toEqual([403, 403, 403, 403, 403]);
    for (const res of attempts) expect(await problemType(res)).toBe(`${PROBLEM_BASE}cross-origin-refused`);
    expect(await callsLeft()).toBe(25);
    expect((await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).status).toBe(200);
    expect((await rt.store.getKey(keyHash))?.revokedAt).toBeNull();
  });

  it('are answered when the Origin is our own', async () => {
    const { cookie } = await signedIn(key, { origin: BASE });
    const res = await runReadiness(cookie, 'same-origin-0001', { origin: BASE });
    expect(res.status).toBe(200);
    expect(await callsLeft()).toBe(24);
  });
});

describe('POST /api/session/rotate', () => {
  it('gives a new key with the same balance and reports; the old key is refused at once and the session follows', async () => {
    const { cookie } = await signedIn();
    const paid = await runReadiness(cookie, 'before-rotation-1');
    const reportLink = paid.headers.get('link');
    expect(await callsLeft()).toBe(24);

    const res = await rotate(request('/api/session/rotate', 'POST', withCookie(cookie)));
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { key: string; keyPrefix: string; callsLeft: number };
    expect(rotated.key).toMatch(/^pac_live_[0-9A-Za-z]{40}$/);
    expect(rotated.key).not.toBe(key);
    expect(rotated).toEqual({ key: rotated.key, keyPrefix: `pac_live_…${rotated.key.slice(-4)}`, callsLeft: 24 });

    const old = await restReadiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'old-key-0001' }));
    expect(old.status).toBe(401);
    expect(await problemType(old)).toBe(`${PROBLEM_BASE}invalid-credits-key`);
    expect((await signIn(post(`${BASE}/api/session`, { key }, { 'x-forwarded-for': '198.51.100.10' }))).status).toBe(401);

    const fresh = await restReadiness(post(`${BASE}/api/agent/readiness`, validReadinessBody(), { authorization: `Bearer ${rotated.key}`, 'idempotency-key': 'new-key-0001' }));
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('credits-remaining')).toBe('23');

    // The same cookie now speaks for the new key, and the history came along.
    const me = await whoAmI(request('/api/session', 'GET', withCookie(cookie)));
    expect(await me.json()).toEqual({ signedIn: true, callsLeft: 23, keyPrefix: rotated.keyPrefix });
    const viaSession = (await (await listReports(request('/api/reports', 'GET', withCookie(cookie)))).json()) as { reports: Array<{ id: string }> };
    const viaNewKey = (await (await listReports(request('/api/reports', 'GET', { authorization: `Bearer ${rotated.key}` }))).json()) as { reports: Array<{ id: string }> };
    expect(viaSession.reports.map((r) => `</api/reports/${r.id}>; rel="related"`)).toEqual([fresh.headers.get('link'), reportLink]);
    expect(viaNewKey).toEqual(viaSession);
    expect((await listReports(request('/api/reports', 'GET', { authorization: `Bearer ${key}` }))).status).toBe(401);

    const session2 = await runReadiness(cookie, 'after-rotation-1');
    expect(session2.headers.get('credits-remaining')).toBe('22');
  });

  it('needs the current key once the sign-in is over 5 minutes old: a cookie alone gets 403 current-key-required and rotates nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2026-11-01T10:00:00.000Z').getTime();
    vi.setSystemTime(t0);
    const { cookie } = await signedIn();
    const other = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    vi.setSystemTime(t0 + 5 * 60 * 1000 + 1);
    const rotateWith = (body: unknown) =>
      rotate(new Request(`${BASE}/api/session/rotate`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify(body) }));

    const refused = [
      await rotate(request('/api/session/rotate', 'POST', withCookie(cookie))),
      await rotateWith({}),
      await rotateWith({ key: other.key }),
      await rotateWith({ key: `pac_live_${'C'.repeat(40)}` }),
      await rotateWith({ key: 'not a key' }),
    ];
    expect(refused.map((res) => res.status)).toEqual([403, 403, 403, 403, 403]);
    for (const res of refused) {
      expect(await problemType(res)).toBe(`${PROBLEM_BASE}current-key-required`);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // Nothing rotated: the key is live with its calls, the other key untouched, the session still on the key.
    expect((await rt.store.getKey(keyHash))?.revokedAt).toBeNull();
    expect((await rt.store.getKey(other.keyHash))?.revokedAt).toBeNull();
    expect(await rt.store.countKeys()).toBe(2);
    expect(await callsLeft()).toBe(25);
    expect(await (await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).json()).toEqual({ signedIn: true, callsLeft: 25, keyPrefix: `pac_live_…${key.slice(-4)}` });

    // The current key in the body proves the owner: rotated, and the session follows the new key.
    const proven = await rotateWith({ key });
    expect(proven.status).toBe(200);
    const rotated = (await proven.json()) as { key: string; keyPrefix: string; callsLeft: number };
    expect(rotated).toEqual({ key: rotated.key, keyPrefix: `pac_live_…${rotated.key.slice(-4)}`, callsLeft: 25 });
    expect((await rt.store.getKey(keyHash))?.revokedAt).toBe(t0 + 5 * 60 * 1000 + 1);
    expect(await (await whoAmI(request('/api/session', 'GET', withCookie(cookie)))).json()).toEqual({ signedIn: true, callsLeft: 25, keyPrefix: rotated.keyPrefix });
    // Rotating moved the session, never renewed its sign-in: the next rotation needs the (new) key again.
    const again = await rotate(request('/api/session/rotate', 'POST', withCookie(cookie)));
    expect(again.status).toBe(403);
    expect(await problemType(again)).toBe(`${PROBLEM_BASE}current-key-required`);
  });

  it('rotates with the cookie alone within 5 minutes of signing in', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const t0 = new Date('2026-11-01T10:00:00.000Z').getTime();
    vi.setSystemTime(t0);
    const { cookie } = await signedIn();
    vi.setSystemTime(t0 + 5 * 60 * 1000);
    const res = await rotate(request('/api/session/rotate', 'POST', withCookie(cookie)));
    expect(res.status).toBe(200);
    expect((await rt.store.getKey(keyHash))?.revokedAt).toBe(t0 + 5 * 60 * 1000);
  });

  it('answers 401 without a session', async () => {
    const res = await rotate(request('/api/session/rotate', 'POST', {}));
    expect(res.status).toBe(401);
    expect(await problemType(res)).toBe(`${PROBLEM_BASE}not-signed-in`);
  });
});
