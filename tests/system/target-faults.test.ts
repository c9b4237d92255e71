// Hostile or broken sites behind the public paid endpoint POST /api/agent/ai-visibility, paid with a prepaid
// key and with an MPP evm credential: a page that hangs, drips bytes forever, redirects in a loop or without
// end, resets the connection, or stacks 3,000 Content-Encodings ends in 422 site-unreachable within the
// check's budget, with nothing charged (the key's calls unchanged, no USDC moved). A 50 MB page (plain, or a gzip bomb) is read only up to the
// 2 MiB cap (pages over it are read only at their start, with page.truncated and page.incomplete): that is a
// fulfilled check, answered 200 and charged once, and the rest of the 50 MB is never downloaded.
//
// In-process route handler: the site is a local fixture reached through CHECK_HOST_MAP, which `next start`
// (production) refuses.
import zlib from 'node:zlib';
import { Mppx, evm } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_BUDGET_MS, PAGE_MAX_BYTES } from '@/lib/checks/visibility/check';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { railsFor } from '@/lib/runtime';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, chainLedger } from '../payments/harness';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { gzipLayers, startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { agentCheckRoute } from '../support/check-routes';

const { POST: visibilityPOST } = agentCheckRoute('ai-visibility');

const APP_URL = 'http://localhost:3000';
const MB = 1024 * 1024;
const CALLS = 10;

let rails: Rails;
let site: FixtureSite;
let rt: TestRuntime;
let ledgerBefore: { payer: bigint; payTo: bigint; facilitatorTxs: number };
const timings: string[] = [];

beforeAll(async () => {
  const chain = (n: number) => ({ redirect: `/chain?n=${n + 1}`, status: 302 });
  site = await startFixtureSite({
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
    '/hang': { hang: true },
    // One byte a second never trips the 10 s idle timeout: only the page deadline stops it.
    '/drip': { drip: { chunk: '<', intervalMs: 1_000 } },
    '/loop-a': { redirect: '/loop-b', status: 301 },
    '/loop-b': { redirect: '/loop-a', status: 301 },
    '/chain': (req) => chain(Number(new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? 0)),
    '/reset': { reset: true },
    '/big': { stream: { bytes: 50 * MB, chunk: '<p>' + 'x'.repeat(64 * 1024 - 3) } },
    // Pre-compressed (about 50 KB on the wire), so it is declared gzip by hand rather than by `encoding`.
    '/bomb': { headers: [['content-type', 'text/html'], ['content-encoding', 'gzip']], body: zlib.gzipSync(Buffer.alloc(50 * MB, 0x20)) },
    // 3,000 real gzip layers (about 15 KB of header): undoing them took minutes of CPU, past every deadline.
    '/layers': { headers: [['content-type', 'text/html'], ['content-encoding', Array(3000).fill('gzip').join(',')]], body: gzipLayers(Buffer.alloc(10 * MB, 0x20), 3000) },
  });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  rails = await startRails();
  // Every fault here ends a check before its site answered, which counts against the caller's costly-failure budget;
  // this one caller tries them all on purpose.
  rt = installTestRuntime({ ...rails.env, APP_URL, RATE_LIMIT_PER_IP: '100000', RATE_LIMIT_PER_KEY: '100000', RATE_LIMIT_COSTLY_FAILURES: '100000' });
  rt.rails = railsFor(rt.config, rt.store);
  ledgerBefore = await ledger();
}, 120_000);

afterAll(async () => {
  await rt?.dispose();
  delete process.env.CHECK_HOST_MAP;
  await site?.close();
  await rails?.stop();
  if (timings.length) console.log(`target faults: ${timings.join('; ')}`);
});

const ledger = () => chainLedger(rails);

const check = (url: string, headers: Record<string, string> = {}) =>
  visibilityPOST(
    new Request(`${APP_URL}/api/agent/ai-visibility`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.30', ...headers },
      body: JSON.stringify({ url }),
    }),
  );

async function evmCredential(url: string): Promise<string> {
  const unpaid = await check(url);
  expect(unpaid.status).toBe(402);
  const client = Mppx.create({
    polyfill: false,
    methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
  });
  return client.createCredential(unpaid);
}

const UNREACHABLE: Array<[string, string]> = [
  ['hangs without answering', '/hang'],
  ['drips one byte a second forever', '/drip'],
  ['redirects in a loop', '/loop-a'],
  ['redirects without end', '/chain'],
  ['resets the connection', '/reset'],
  ['stacks 3,000 gzip layers on its page', '/layers'],
];
const OVERSIZED: Array<[string, string]> = [
  ['serves a 50 MB page', '/big'],
  ['serves a gzip bomb of 50 MB', '/bomb'],
];
let evm200 = 0;

describe.concurrent('a broken site behind the paid visibility check', () => {
  for (const payment of ['prepaid key', 'MPP evm credential'] as const) {
    for (const [label, path] of UNREACHABLE) {
      it(`${label}, paid with a ${payment}: 422 within the budget, nothing charged`, async ({ expect }) => {
        const url = `https://site.test${path}`;
        const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25', { calls: CALLS });
        const auth = payment === 'prepaid key' ? `Bearer ${key}` : await evmCredential(url);
        const hits = site.requests.filter((p) => p.startsWith(path)).length;
        const started = performance.now();
        const res = await check(url, { authorization: auth });
        const ms = Math.round(performance.now() - started);
        timings.push(`${path} (${payment}) ${res.status} ${ms} ms`);
        expect(res.status).toBe(422);
        expect(res.headers.get('content-type')).toBe('application/problem+json');
        expect(res.headers.get('payment-receipt')).toBeNull();
        const text = await res.text();
        expect(text).not.toMatch(LEAK_PATTERN);
        expect((JSON.parse(text) as { type: string }).type).toBe(`${PROBLEM_BASE}site-unreachable`);
        // The site was really contacted: the refusal is the check's verdict, not a short-cut.
        expect(site.requests.filter((p) => p.startsWith(path)).length).toBeGreaterThan(hits);
        const b = await balance(rt.store, keyHash);
        expect(b.callsLeft).toBe(CALLS);
      }, CHECK_BUDGET_MS + 20_000);
    }
    for (const [label, path] of OVERSIZED) {
      it(`${label}, paid with a ${payment}: read only to the cap, a report, charged once`, async ({ expect }) => {
        const url = `https://site.test${path}`;
        const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25', { calls: CALLS });
        const auth = payment === 'prepaid key' ? `Bearer ${key}` : await evmCredential(url);
        const started = performance.now();
        const res = await check(url, { authorization: auth });
        timings.push(`${path} (${payment}) ${res.status} ${Math.round(performance.now() - started)} ms`);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { report: { page: { truncated: boolean; bytesRead?: number } } };
        expect(body.report.page.truncated).toBe(true);
        if (payment === 'prepaid key') expect((await balance(rt.store, keyHash)).callsLeft).toBe(CALLS - 1);
        else evm200 += 1;
      }, CHECK_BUDGET_MS + 20_000);
    }
  }
});

describe('after the broken sites', () => {
  it('moved exactly 1 USDC per fulfilled evm-paid check and nothing for the refused ones', async () => {
    const after = await ledger();
    expect(evm200).toBe(OVERSIZED.length);
    expect(ledgerBefore.payer - after.payer).toBe(BigInt(evm200) * 1_000_000n);
    expect(after.payTo - ledgerBefore.payTo).toBe(BigInt(evm200) * 1_000_000n);
    expect(after.facilitatorTxs - ledgerBefore.facilitatorTxs).toBe(evm200);
  });

  it('stopped downloading the 50 MB page at the cap instead of draining it', () => {
    const big = site.log.filter((r) => r.path === '/big');
    expect(big.length).toBeGreaterThan(0);
    for (const r of big) {
      expect(r.closedEarly).toBe(true);
      // Loopback socket buffers hold a few MB at most; the cap bounds what the check keeps to PAGE_MAX_BYTES.
      expect(r.bytesWritten).toBeLessThan(25 * MB);
    }
    expect(PAGE_MAX_BYTES).toBe(2 * 1024 * 1024);
  });
});
