// The per-site budget (lib/paid-call/host-budget.ts) on the paid route when the call is paid with an MPP evm
// credential, on every store adapter: the route handler served over node:http so a real mppx client pays it,
// the local rails (anvil with USDC, the x402 facilitator), and the checked site a fixture reached through
// CHECK_HOST_MAP. A call that loses the race for the site's last check is refused 429 after its credential was
// verified, and the credential is never settled: the EIP-3009 authorization stays unused on chain and no USDC
// moves. Hosts are their own registrable domains (shop.test), so the budget counts them the same whether it
// counts per host name or per registrable domain.
import fs from 'node:fs';
import { Credential } from 'mppx';
import { Mppx, evm } from 'mppx/client';
import { createPublicClient, http, parseAbi, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostBudgetSpent, spendHostBudget } from '@/lib/paid-call/host-budget';
import { PROBLEM_BASE } from '@/lib/problems';
import { setRuntimeForTests } from '@/lib/runtime';
import type { Store } from '@/lib/store';
import { startRails, type Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, chainLedger } from '../payments/harness';
import { redisHarness, sqliteHarness, vercelKvHarness } from '../store/adapters';
import { type TestRuntime } from '../support/runtime';
import { serveWebHandler, type WebServer } from '../support/web-server';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime } from '../support/rails-runtime';

const { POST } = agentCheckRoute('ai-visibility');

const PATH = '/api/agent/ai-visibility';
const ONE_USDC = 1_000_000n;
const PAGE = `<!doctype html><html lang="en"><head><title>Widgets, explained</title>
<meta name="description" content="Everything about widgets."></head><body><h1>Widgets</h1><p>${'word '.repeat(300)}</p></body></html>`;
const AUTHORIZATION_STATE = parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']);

let rails: Rails;
let site: FixtureSite;
let server: WebServer;

beforeAll(async () => {
  rails = await startRails();
  site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
  });
  process.env.CHECK_HOST_MAP = site.hostMap(['shop.test']);
  server = await serveWebHandler((request) =>
    request.method === 'POST' && new URL(request.url).pathname === PATH ? POST(request) : new Response('not found', { status: 404 }),
  );
}, 120_000);

afterAll(async () => {
  await server?.close();
  delete process.env.CHECK_HOST_MAP;
  await site?.close();
  await rails?.stop();
});

const send = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** A fresh MPP evm credential for one check of `url`, made from the route's own 402. */
async function evmCredential(url: string): Promise<string> {
  const unpaid = await send({ url });
  expect(unpaid.status).toBe(402);
  const client = Mppx.create({ polyfill: false, methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })] });
  return client.createCredential(unpaid);
}

/** Whether the EIP-3009 authorization a credential carries has been used on chain (that is, settled). */
async function settledOnChain(credential: string): Promise<boolean> {
  const { from, nonce } = Credential.deserialize(credential).payload as { from: Hex; nonce: Hex };
  const chain = createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) });
  return chain.readContract({ address: rails.usdcAddress as Hex, abi: AUTHORIZATION_STATE, functionName: 'authorizationState', args: [from, nonce] });
}

/**
 * Another instance's checks of `host`, counted in the store while its marker that the budget is spent has not
 * landed yet: the moment a concurrent call passes the pre-payment read and then loses the count.
 */
async function countedElsewhere(store: Store, host: string, checks: number, limit: number, now: number) {
  const countOnly = new Proxy(store, { get: (target, name) => (name === 'setRecord' ? async () => {} : Reflect.get(target, name)) });
  for (let i = 0; i < checks; i++) await spendHostBudget(countOnly, host, `ip:198.51.100.${i}`, limit, now);
}

/** 10 s into the next one-minute budget window: every call of a test lands in one window, whatever the machine's speed. */
const windowAt = () => Date.now() - (Date.now() % 60_000) + 70_000;

for (const harness of [sqliteHarness(), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`the per-site budget on an MPP evm credential: ${harness.name}`, () => {
    let rt: TestRuntime;
    let store: Store;
    let at: number;

    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());
    beforeEach(() => {
      store = harness.fresh();
      rt = installRailsRuntime(rails, { APP_URL: server.url, CHECKS_PER_SITE_PER_MINUTE: '2' }, { store });
      at = windowAt();
      // The pipeline's clock only: the credential's own expiry is still judged on the wall clock.
      Object.assign(rt, { now: () => new Date(at) });
    });
    afterEach(() => {
      // The store is the harness's to close.
      setRuntimeForTests(undefined);
      fs.rmSync(rt.config.DATA_DIR, { recursive: true, force: true });
    });

    it('a call that loses the race for the last check: 429 after its credential was verified, the credential never settled, no USDC moved', async () => {
      const credential = await evmCredential('https://shop.test/');
      await countedElsewhere(store, 'shop.test', 2, 2, at);
      const before = await chainLedger(rails);
      const requestsBefore = site.requests.length;

      const res = await send({ url: 'https://shop.test/' }, { authorization: credential });
      expect(res.status).toBe(429);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('retry-after')).toBe('50');
      expect(res.headers.get('payment-receipt')).toBeNull();
      const text = await res.text();
      expect(text).not.toMatch(LEAK_PATTERN);
      expect(JSON.parse(text)).toMatchObject({
        type: `${PROBLEM_BASE}rate-limited`,
        status: 429,
        detail: 'shop.test has been checked 2 times in this minute, the most this service sends any one site whoever asks. Retry in 50 s. Nothing was charged.',
      });

      // It was refused at the count, which runs only once a credential is verified: the count it lost wrote
      // the marker the pre-payment read had not found.
      expect(await hostBudgetSpent(store, 'shop.test', 2, at)).toMatchObject({ retryAfterSeconds: 50 });
      expect(await chainLedger(rails)).toEqual(before);
      expect(await settledOnChain(credential)).toBe(false);
      // The site was not fetched for it.
      expect(site.requests.length).toBe(requestsBefore);
    });

    it('three credentials racing for the last check: one 200 that moves exactly 1 USDC, two 429 whose authorizations stay unused', async () => {
      await countedElsewhere(store, 'shop.test', 1, 2, at);
      const credentials = [];
      for (let i = 0; i < 3; i++) credentials.push(await evmCredential('https://shop.test/'));
      const before = await chainLedger(rails);

      const answers = await Promise.all(credentials.map((credential) => send({ url: 'https://shop.test/' }, { authorization: credential })));
      const statuses = answers.map((res) => res.status);
      expect([...statuses].sort()).toEqual([200, 429, 429]);
      for (const res of answers.filter((r) => r.status === 429)) {
        expect(res.headers.get('payment-receipt')).toBeNull();
        expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}rate-limited`);
      }
      expect(await Promise.all(credentials.map(settledOnChain))).toEqual(statuses.map((status) => status === 200));

      const after = await chainLedger(rails);
      expect(before.payer - after.payer).toBe(ONE_USDC);
      expect(after.payTo - before.payTo).toBe(ONE_USDC);
      expect(after.facilitatorTxs - before.facilitatorTxs).toBe(1);
    });
  });
}
