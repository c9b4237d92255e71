import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { goodRoutes } from '../visibility/fixture-pages';
import { installTestRuntime, post, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('ai-visibility');

// The per-domain budgets on the paid route: checks of one site per minute count per registrable domain of the
// address asked for, and a check whose page's own domain has no requests left for the minute is refused 429,
// uncharged, without sending anything.

const URL_ = 'http://localhost:3000/api/agent/ai-visibility';
// Inside one budget window whatever the machine's speed: only Date is frozen, so fetch timeouts still run.
const FROZEN_AT = new Date('2026-11-23T12:00:10Z');

let rt: TestRuntime;
let site: FixtureSite;
let key: string;
let keyHash: string;

async function setUp(env: Record<string, string>) {
  rt = installTestRuntime(env);
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
}

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(FROZEN_AT);
  site = await startFixtureSite(goodRoutes());
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test', 'www.site.test', 'shop.site.test']);
});
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.CHECK_HOST_MAP;
  await rt?.dispose();
  await site.close();
});

const callsLeft = async () => (await balance(rt.store, keyHash)).callsLeft;
const paid = (url: string, n: number) => POST(post(URL_, { url }, { authorization: `Bearer ${key}`, 'idempotency-key': `outbound-${String(n).padStart(4, '0')}` }));

describe('per-domain budgets on POST /api/agent/ai-visibility', () => {
  it('counts checks per registrable domain: www.site.test and shop.site.test share site.test\'s budget', async () => {
    await setUp({ VISIBILITY_CHECKS_PER_HOST_PER_MINUTE: '2' });
    expect((await paid('https://site.test/guide', 1)).status).toBe(200);
    expect((await paid('https://www.site.test/guide', 2)).status).toBe(200);
    const res = await paid('https://shop.site.test/guide', 3);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect((await res.json()).detail).toBe('site.test has been checked 2 times in this minute, the most this service sends any one site whoever asks. Retry in 50 s. Nothing was charged.');
    expect(await callsLeft()).toBe(23);
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
    expect(await callsLeft()).toBe(25);
    expect(site.requests).toEqual([]);
  });

  it('a check that would need more of its own domain\'s requests than are left stops at the budget: 429, uncharged, no more sent than the budget', async () => {
    await setUp({ OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '10' });
    const res = await paid('https://site.test/guide', 1);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('50');
    expect(await callsLeft()).toBe(25);
    expect(site.requests.length).toBeLessThanOrEqual(10);
    // The page went out, so the budget was not spent before the check began.
    expect(site.requests[0]).toBe('/guide');
  });
});
