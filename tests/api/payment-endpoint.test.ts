// The endpoint check as the REST route sells it with a prepaid key: what is refused before any charge (a body the
// schema refuses, an address that cannot be checked, an endpoint that gives no HTTP answer at all), and that any
// HTTP answer, a 500 included, is a report and costs exactly one call.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('payment-endpoint');
const ROUTE = 'http://localhost:3000/api/agent/payment-endpoint';

let rt: TestRuntime;
let site: FixtureSite;
let key: string;
let keyHash: string;

beforeEach(async () => {
  site = await startFixtureSite({
    '/broken': { status: 500, headers: { 'content-type': 'text/plain' }, body: 'internal error' },
    '/reset': { reset: true },
  });
  process.env.CHECK_HOST_MAP = site.hostMap(['seller.test']);
  rt = installTestRuntime();
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25'));
});
afterEach(async () => {
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  await site.close();
});

const callsLeft = async () => (await balance(rt.store, keyHash)).callsLeft;
const check = (body: unknown, idem: string) => POST(post(ROUTE, body, { authorization: `Bearer ${key}`, 'idempotency-key': idem }));

describe('POST /api/agent/payment-endpoint with a prepaid key', () => {
  it('an endpoint that gives no HTTP answer (the connection reset) is 422 site-unreachable, and nothing is charged', async () => {
    const res = await check({ url: 'https://seller.test/reset' }, 'pe-unreachable-1');
    expect(res.status).toBe(422);
    const problem = (await res.json()) as { type: string; detail: string };
    expect(problem.type).toBe(`${PROBLEM_BASE}site-unreachable`);
    expect(problem.detail).toBe('https://seller.test/reset gave no HTTP answer: The connection to the site was reset.');
    expect(await callsLeft()).toBe(25);
  });

  it('an endpoint that answers 500 is a report: reachability fails with server-error-unpaid, and one call is spent', async () => {
    const res = await check({ url: 'https://seller.test/broken', method: 'GET' }, 'pe-broken-1');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { report: { items: Array<{ id: string; state: string }>; findings: Array<{ id: string }>; score: number } };
    expect(body.report.items.find((i) => i.id === 'reachability')!.state).toBe('fail');
    expect(body.report.findings.map((f) => f.id)).toContain('server-error-unpaid');
    expect(await callsLeft()).toBe(24);
  });

  it.each([
    ['an unknown member', { url: 'https://seller.test/broken', extra: 1 }, 'invalid-request'],
    ['a method other than GET or POST', { url: 'https://seller.test/broken', method: 'PUT' }, 'invalid-request'],
    ['an example body over 16 KB', { url: 'https://seller.test/broken', body: { text: 'x'.repeat(17_000) } }, 'invalid-request'],
    ['an MCP endpoint without its tool', { url: 'https://seller.test/broken', mcp: { url: 'https://seller.test/mcp' } }, 'invalid-request'],
    ['a private address', { url: 'http://10.0.0.1/paid' }, 'invalid-url'],
    ['an MCP endpoint at an internal name', { url: 'https://seller.test/broken', mcp: { url: 'http://intranet.corp/mcp', tool: 't' } }, 'invalid-url'],
  ])('%s is refused with 400 before any charge', async (_, body, kind) => {
    const res = await check(body, `pe-bad-${kind}-${JSON.stringify(body).length}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}${kind}`);
    expect(await callsLeft()).toBe(25);
  });
});
