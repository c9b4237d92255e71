import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { artifactHash } from '@/lib/canonical-json';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';
import type { RequestList } from '@/lib/outbound/request-log';
import { stableRequests } from '../visibility/stable-requests';

const { POST, GET } = agentCheckRoute('ai-visibility');

// The paid route around the visibility core, in-process, against a fixture site mapped through CHECK_HOST_MAP.

const URL_ = 'http://localhost:3000/api/agent/ai-visibility';
const PAGE = `<!doctype html><html lang="en"><head><title>Widgets, explained</title>
<meta name="description" content="Everything about widgets."><link rel="canonical" href="https://site.test/"></head>
<body><h1>Widgets</h1><p>${'word '.repeat(400)}</p></body></html>`;

let rt: TestRuntime;
let site: FixtureSite;
let key: string;

beforeEach(async () => {
  site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n' },
    '/reset': { reset: true },
    '/hang': { hang: true },
  });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test', 'down.test']);
  rt = installTestRuntime();
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
});
afterEach(async () => {
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await site.close();
});

let keyHash = '';
const callsLeft = async () => (await balance(rt.store, keyHash)).callsLeft;

describe('POST /api/agent/ai-visibility with a prepaid key', () => {
  it('checks the site, answers the report of spec 2.3, and spends one call', async () => {
    const res = await POST(post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000001' }));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(['service', 'idempotencyKey', 'creditsUsage', 'checkedAt', 'report', 'limits', 'artifactHash']);
    expect(body.artifactHash).toBe(artifactHash(body.report));
    expect(body.report).toMatchObject({ checkVersion: '4.0.0', checkedUrl: 'https://site.test/', status: 200, robotsTxt: 'found', scoreMax: 100 });
    expect(body.report.crawlers).toHaveLength(16);
    expect(body.report.crawlers.find((c: { token: string }) => c.token === 'GPTBot')).toMatchObject({ allowed: false, rule: 'Disallow: /' });
    expect(body.limits.length).toBeGreaterThan(0);
    expect(await callsLeft()).toBe(24);
  });

  it('answers 422 and charges nothing when the site cannot be checked', async () => {
    const res = await POST(post(URL_, { url: 'https://site.test/reset' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000002' }));
    expect(res.status).toBe(422);
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}site-unreachable`);
    expect(p.detail).not.toMatch(/ECONNRESET|at .*\.ts|undici/);
    expect(await callsLeft()).toBe(25);
    // The failed request did not burn the Idempotency-Key: a retry runs again.
    const retry = await POST(post(URL_, { url: 'https://site.test/reset' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000002' }));
    expect(retry.status).toBe(422);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it.each([
    ['an IP literal', 'http://127.0.0.1/'],
    ['a non-default port', 'https://site.test:8443/'],
    ['an internal name', 'https://intranet/'],
    ['credentials', 'https://user:pw@site.test/'],
    ['another scheme', 'ftp://site.test/'],
  ])('refuses %s with 400 invalid-url, $.url, no challenge and no charge', async (_, url) => {
    const res = await POST(post(URL_, { url }, { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(400);
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}invalid-url`);
    expect(p.errors).toEqual([{ path: '$.url', message: p.detail }]);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await callsLeft()).toBe(25);
  });

  it('a client that leaves once the check has reached the site does not stop it: the check ends, is charged once, and its answer is kept for the key', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await site.close();
    site = await startFixtureSite({ '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE, held } });
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
    const client = new AbortController();
    const request = post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000009' });
    const pending = POST(new Request(request, { signal: client.signal }));
    // Leave while the page, already asked for, has not answered yet; then let it answer.
    while (!site.requests.includes('/')) await new Promise((r) => setTimeout(r, 10));
    client.abort();
    release();
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await callsLeft()).toBe(24);
    // What the client missed is there for it: the same Idempotency-Key answers the stored report, uncharged.
    const again = await POST(post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000009' }));
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await callsLeft()).toBe(24);
    expect(await rt.store.listReports(keyHash, Date.now(), { limit: 10 })).toHaveLength(1);
  });

  it('a client that leaves before the check sent anything stops it: 422, nothing charged, nothing sent, the Idempotency-Key freed', async () => {
    const client = new AbortController();
    client.abort();
    const request = post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000010' });
    const res = await POST(new Request(request, { signal: client.signal }));
    expect(res.status).toBe(422);
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}site-unreachable`);
    expect(site.requests).toEqual([]);
    expect(await callsLeft()).toBe(25);
    const [grant] = await rt.store.listGrants(keyHash, Date.now());
    expect(grant).toMatchObject({ used: 0, reserved: 0 });
    // The key was abandoned, not stored: a new body under it runs (no 409), and is the one charged call.
    const retry = await POST(post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}`, 'idempotency-key': 'vis-00000010' }));
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await callsLeft()).toBe(24);
  });

  it('refuses unknown properties and over-long URLs with field paths', async () => {
    const res = await POST(post(URL_, { url: `https://site.test/${'a'.repeat(2000)}`, extra: true }, { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(400);
    expect((await res.json()).errors.map((e: { path: string }) => e.path).sort()).toEqual(['$.extra', '$.url']);
  });

  it('gives the same report for the same site apart from timing', async () => {
    const a = await (await POST(post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}` }))).json();
    const b = await (await POST(post(URL_, { url: 'https://site.test/' }, { authorization: `Bearer ${key}` }))).json();
    const untimed = (r: { site?: { ttfbMs?: number }; requests: RequestList }) => ({ ...r, site: { ...r.site, ttfbMs: 0 }, requests: stableRequests(r.requests) });
    expect(untimed(a.report)).toEqual(untimed(b.report));
  });
});

describe('GET /api/agent/ai-visibility', () => {
  it('describes the check: price, rails, limits, the crawler table and the full rubric', async () => {
    const body = await (await GET()).json();
    expect(body.operationId).toBe('createAiVisibilityCheck');
    expect(body.price.amount).toBe('1.00');
    expect(body.crawlers).toHaveLength(16);
    expect(body.rubric.reduce((n: number, i: { points: number }) => n + i.points, 0)).toBe(100);
    expect(body.checkVersion).toBe('4.0.0');
    expect(body.limits.length).toBeGreaterThan(3);
  });
});
