import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { goodRoutes } from '../visibility/fixture-pages';
import { installTestRuntime, post, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

// A check is no way to send a third party traffic for free. Two things made it one: a client that left early was
// never charged, though its check's requests had gone out; and the budgets counted per registrable domain, so many
// names pointed at one address multiplied what that address received. Here 25 names of 25 registrable domains all
// lead to one victim address, and the client leaves each check as soon as the victim has seen its first request.

const { POST } = agentCheckRoute('ai-visibility');
const URL_ = 'http://localhost:3000/api/agent/ai-visibility';
const FROZEN_AT = new Date('2026-11-23T12:00:10Z');
const NAMES = Array.from({ length: 25 }, (_, i) => `alias${i}.test`);
const PER_ADDRESS = 120;

let rt: TestRuntime;
let victim: FixtureSite;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(FROZEN_AT);
  victim = await startFixtureSite(goodRoutes());
  process.env.CHECK_HOST_MAP = victim.hostMap(NAMES);
  rt = installTestRuntime({
    OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '120',
    OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: String(PER_ADDRESS),
    CHECKS_PER_SITE_PER_MINUTE: '6',
  });
});
afterEach(async () => {
  vi.useRealTimers();
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await victim.close();
});

const victimPort = () => /:(\d+)/.exec(victim.hostMap(['x.test']))![1];

/** Starts a paid check and leaves as soon as the victim has seen a request from it (or the check has answered). */
async function checkAndLeave(key: string, url: string, n: number): Promise<{ status: number; reached: boolean; detail: string | null }> {
  const before = victim.requests.length;
  const client = new AbortController();
  const request = new Request(post(URL_, { url }, { authorization: `Bearer ${key}`, 'idempotency-key': `leave-${String(n).padStart(4, '0')}` }), { signal: client.signal });
  let settled = false;
  const answer = POST(request).finally(() => {
    settled = true;
  });
  while (!settled && victim.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 2));
  client.abort();
  const res = await answer;
  const body = (await res.json()) as { detail?: string };
  return { status: res.status, reached: victim.requests.length > before, detail: body.detail ?? null };
}

describe('25 names at one address, every client leaving early', () => {
  it('the address receives at most its budget in the minute, and every check that reached it ran to its end and was charged once', async () => {
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const results = [];
    for (const [i, name] of NAMES.entries()) results.push(await checkAndLeave(key, `https://${name}/guide`, i));

    // Without the per-address count each of the 25 domains had 120 requests of its own: about 30 a check, 750 in all.
    expect(victim.requests.length).toBeLessThanOrEqual(PER_ADDRESS);
    const fulfilled = results.filter((r) => r.status === 200);
    const reached = results.filter((r) => r.reached);
    // Leaving did not stop a check that had reached the victim: each ended as it would have had its client stayed,
    // with its report (charged), or stopped by the address's budget (429, as any client would have been told).
    expect(fulfilled.length).toBeGreaterThanOrEqual(3);
    expect(reached.every((r) => r.status === 200 || (r.status === 429 && r.detail!.startsWith(`The address 127.0.0.1:${victimPort()} (of alias`)))).toBe(true);
    expect(fulfilled.every((r) => r.reached)).toBe(true);
    // Charged once for each report, and each report kept for the key.
    expect((await balance(rt.store, keyHash)).callsLeft).toBe(25 - fulfilled.length);
    expect(await rt.store.listReports(keyHash, Date.now(), { limit: 100 })).toHaveLength(fulfilled.length);
    // The checks after the budget ran out sent the victim nothing and cost nothing.
    expect(results.slice(-5).every((r) => !r.reached && r.status === 429)).toBe(true);
  }, 120_000);
});
