import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { goodRoutes } from '../visibility/fixture-pages';
import { installTestRuntime, post, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('ai-visibility');

// The per-target-host budget on the paid route (docs/SECURITY.md, section 5): one site is checked at most
// CHECKS_PER_SITE_PER_MINUTE times a minute whoever asks, and a call over it is refused 429
// before anything is reserved or asked for. Both budgets count per registrable domain, and a check whose page's own
// domain has no requests left for the minute (OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE) is refused 429, uncharged,
// without sending anything.

const URL_ = 'http://localhost:3000/api/agent/ai-visibility';
// Inside one budget window whatever the machine's speed: only Date is frozen, so fetch timeouts still run.
const FROZEN_AT = new Date('2026-11-23T12:00:10Z');

let rt: TestRuntime;
let site: FixtureSite;
/** Three callers, each a key of 25 calls on an address of its own: one caller may use only half a site's budget. */
let callers: Array<{ key: string; keyHash: string; ip: string }>;

async function setUp(env: Record<string, string>) {
  // The client's address comes from X-Forwarded-For, so each caller is its own address too.
  rt = installTestRuntime({ TRUSTED_PROXY: '1', ...env });
  callers = [];
  for (const ip of ['203.0.113.7', '203.0.113.8', '203.0.113.9']) {
    callers.push({ ...(await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25')), ip });
  }
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(FROZEN_AT);
  site = await startFixtureSite(goodRoutes());
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test', 'www.site.test', 'shop.site.test', 'other.test']);
});
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.CHECK_HOST_MAP;
  await rt?.dispose();
  await site.close();
});

/** Calls left on all three keys together (75 to start with). */
const callsLeft = async () => (await Promise.all(callers.map(async (c) => (await balance(rt.store, c.keyHash)).callsLeft))).reduce((a, b) => a + b, 0);
/** The n-th paid check, by the caller given, else by the first two callers in turn (each within its share of 3). */
const paid = (url: string, n: number, by = callers[n % 2]) =>
  POST(post(URL_, { url }, { authorization: `Bearer ${by.key}`, 'idempotency-key': `budget-${String(n).padStart(4, '0')}`, 'x-forwarded-for': by.ip }));
const pageRequests = () => site.log.filter((l) => l.path === '/guide').length;

describe('the per-host budget on POST /api/agent/ai-visibility', () => {
  beforeEach(() => setUp({ CHECKS_PER_SITE_PER_MINUTE: '6' }));

  it('the 7th check of one host within a minute is refused 429 with Retry-After, and the key keeps its call', async () => {
    for (let i = 1; i <= 6; i++) expect((await paid('https://site.test/guide', i)).status).toBe(200);
    expect(await callsLeft()).toBe(69);
    const requestsBefore = pageRequests();

    const res = await paid('https://site.test/guide', 7);
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    // 12:00:10 in a window that ends at 12:01:00.
    expect(res.headers.get('retry-after')).toBe('50');
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect(p.detail).toBe('site.test has been checked 6 times in this minute, the most this service sends any one site whoever asks. Retry in 50 s. Nothing was charged.');
    expect(await callsLeft()).toBe(69);
    // Nothing was fetched for the refused call.
    expect(pageRequests()).toBe(requestsBefore);
  });

  it('refuses an unpaid call to a spent host with 429 instead of asking it to pay, and unpaid calls spend no budget', async () => {
    // No rails here: an unpaid call to a host with budget left is told payments are unavailable (503)...
    for (let i = 0; i < 3; i++) expect((await POST(post(URL_, { url: 'https://site.test/guide' }))).status).toBe(503);
    // ...and those calls did not count: six paid checks still go through.
    for (let i = 1; i <= 6; i++) expect((await paid('https://site.test/guide', i)).status).toBe(200);
    const res = await POST(post(URL_, { url: 'https://site.test/guide' }));
    expect(res.status).toBe(429);
    expect((await res.json()).type).toBe(`${PROBLEM_BASE}rate-limited`);
  });

  it('a call that loses the race for the last check is refused after admission, its reservation released', async () => {
    // Another instance spent the budget but has not written the marker yet: only the count is there.
    for (let i = 0; i < 6; i++) await rt.store.hitRateLimit('target-host:site.test', 6, 60_000, FROZEN_AT.getTime());
    const res = await paid('https://site.test/guide', 1);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect(await callsLeft()).toBe(75);
    expect(pageRequests()).toBe(0);
    // The same Idempotency-Key is free again once the budget is.
    vi.setSystemTime(new Date('2026-11-23T12:01:00Z'));
    expect((await paid('https://site.test/guide', 1)).status).toBe(200);
    expect(await callsLeft()).toBe(74);
  });

  it('counts each site (registrable domain) on its own: www.site.test is site.test, other.test is not', async () => {
    for (let i = 1; i <= 6; i++) expect((await paid('https://site.test/guide', i)).status).toBe(200);
    expect((await paid('https://www.site.test/guide', 7)).status).toBe(429);
    expect((await paid('https://other.test/guide', 8)).status).toBe(200);
    expect(await callsLeft()).toBe(68);
  });

  it('a new minute brings a new budget', async () => {
    for (let i = 1; i <= 6; i++) expect((await paid('https://site.test/guide', i)).status).toBe(200);
    expect((await paid('https://site.test/guide', 7)).status).toBe(429);
    vi.setSystemTime(new Date('2026-11-23T12:01:00Z'));
    expect((await paid('https://site.test/guide', 8)).status).toBe(200);
  });
});

describe('per-domain budgets on POST /api/agent/ai-visibility', () => {
  it('counts checks per registrable domain: www.site.test and shop.site.test share site.test\'s budget', async () => {
    await setUp({ CHECKS_PER_SITE_PER_MINUTE: '2' });
    expect((await paid('https://site.test/guide', 1)).status).toBe(200);
    expect((await paid('https://www.site.test/guide', 2)).status).toBe(200);
    const res = await paid('https://shop.site.test/guide', 3);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect((await res.json()).detail).toBe('site.test has been checked 2 times in this minute, the most this service sends any one site whoever asks. Retry in 50 s. Nothing was charged.');
    expect(await callsLeft()).toBe(73);
  });

  it('a page whose own domain has no requests left this minute: 429 with Retry-After, nothing sent, the key keeps its call', async () => {
    await setUp({ OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '5' });
    // Other checks (any instance) spent site.test's requests for this minute.
    for (let i = 0; i < 5; i++) await rt.store.hitRateLimit('outbound:site.test', 5, 60_000, FROZEN_AT.getTime());
    const res = await paid('https://shop.site.test/guide', 1);
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('50');
    const p = await res.json();
    expect(p.type).toBe(`${PROBLEM_BASE}rate-limited`);
    expect(p.domain).toBe('site.test');
    expect(p.detail).toBe('site.test has had as many requests from this service as it gets in a minute, so the check stopped. Retry in 50 s. Nothing was charged.');
    expect(await callsLeft()).toBe(75);
    expect(site.requests).toEqual([]);
  });

  it('a check that would need more of its own domain\'s requests than are left stops at the budget: 429, uncharged, no more sent than the budget', async () => {
    await setUp({ OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '10' });
    const res = await paid('https://site.test/guide', 1);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect(await callsLeft()).toBe(75);
    expect(site.requests.length).toBeLessThanOrEqual(10);
    // The page went out, so the budget was not spent before the check began.
    expect(site.requests[0]).toBe('/guide');
  });
});

describe('no one caller can spend a site\'s minute for everyone else', () => {
  beforeEach(async () => {
    await site.close();
    site = await startFixtureSite({ ...goodRoutes(), '/reset': { reset: true } });
    process.env.CHECK_HOST_MAP = site.hostMap(['site.test', 'www.site.test']);
    await setUp({ CHECKS_PER_SITE_PER_MINUTE: '6' });
  });

  it('one caller gets half of a site\'s budget (3 of 6); the other half stays for the others', async () => {
    const [a, b, c] = callers;
    for (let i = 1; i <= 3; i++) expect((await paid('https://site.test/guide', i, a)).status).toBe(200);
    const refused = await paid('https://www.site.test/guide', 4, a);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('50');
    expect((await refused.json()).detail).toBe(
      'You have checked site.test 3 times in this minute, the most one caller may, so that others can check it too. Retry in 50 s. Nothing was charged.',
    );
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(22);
    // Another caller still has the rest, and after it the site's budget is spent for everyone.
    for (let i = 5; i <= 7; i++) expect((await paid('https://site.test/guide', i, b)).status).toBe(200);
    expect((await paid('https://site.test/guide', 8, c)).status).toBe(429);
  });

  it('checks that end before the site answered go back to the site\'s budget and count against their caller: six of them, then others check the site six times', async () => {
    const [a, b, c] = callers;
    const statuses = [];
    for (let i = 1; i <= 6; i++) statuses.push((await paid('https://site.test/reset', i, a)).status);
    // Three failures that cost nothing are the caller's costly-failure budget; then it is refused before paying.
    expect(statuses).toEqual([422, 422, 422, 429, 429, 429]);
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(25);
    expect(site.requests.filter((p) => p === '/reset')).toHaveLength(3);
    // None of them used the site's budget: the other two callers check it six times in the same minute.
    for (let i = 7; i <= 9; i++) expect((await paid('https://site.test/guide', i, b)).status).toBe(200);
    for (let i = 10; i <= 12; i++) expect((await paid('https://site.test/guide', i, c)).status).toBe(200);
    expect(await callsLeft()).toBe(69);
  });

  it('a caller already gone before the check sent anything: nothing sent, nothing charged, the site\'s budget given back', async () => {
    const [a] = callers;
    const gone = new AbortController();
    gone.abort();
    const statuses = [];
    for (let i = 1; i <= 6; i++) {
      const request = new Request(post(URL_, { url: 'https://site.test/guide' }, { authorization: `Bearer ${a.key}`, 'idempotency-key': `gone-${String(i).padStart(4, '0')}`, 'x-forwarded-for': a.ip }), { signal: gone.signal });
      statuses.push((await POST(request)).status);
    }
    // Nobody reads these answers; what counts is that each ended unpaid and, after three, the caller is refused first.
    expect(statuses).toEqual([422, 422, 422, 429, 429, 429]);
    expect(site.requests).toEqual([]);
    expect((await balance(rt.store, a.keyHash)).callsLeft).toBe(25);
    const [, b, c] = callers;
    for (let i = 7; i <= 9; i++) expect((await paid('https://site.test/guide', i, b)).status).toBe(200);
    for (let i = 10; i <= 12; i++) expect((await paid('https://site.test/guide', i, c)).status).toBe(200);
  });
});
