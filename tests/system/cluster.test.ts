// Several instances, one store: two `next start` instances of one build on one redis-server, behind a round-robin
// balancer (tests/support/balancer.ts), paid on the local rails (anvil as Base with USDC, the real x402
// facilitator) with real clients. What one instance does, the other sees: every paid call is charged once whoever
// serves it, a retry served by the other instance replays the stored answer, a site's outbound budget is one budget,
// a killed instance's held calls come back, and both render through one renderer server (npm run renderer).
// docs/DEPLOY.md describes this trial.
//
// Production refuses CHECK_HOST_MAP, so tests/support/fake-internet.mjs, preloaded into both instances, stands in
// for DNS and the network: each site's name resolves to a public address and its sockets reach the local fixture.
import path from 'node:path';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { createPublicClient, http, parseAbiItem, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { openRedisStore } from '@/lib/store/redis';
import { startRails, type Rails } from '../../scripts/rails/start';
import { chromiumSettings } from '../support/chromium';
import { startCluster, type Cluster } from '../support/cluster';
import { startRendererServer, type RendererServerProcess } from '../support/renderer-server';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { validReadinessBody } from '../support/runtime';
import { TEST_SECRET } from '../support/server';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { spaRoutes } from '../visibility/render-site';
import { countStates, pidListeningOn, readLedger, sleep } from './harness';

const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');
// Three sites on three registrable domains, so each budget counted here is its own.
const BUDGET_HOST = 'shop.pac-budget.net';
const SPA_HOST = 'spa.pac-render.net';
const SLOW_HOST = 'slow.pac-slow.net';
/**
 * Requests per registrable domain and minute, both instances together: a few checks' worth. A check of these fixture
 * pages sends about 36 requests (docs/VISIBILITY.md counts them), so 100 lets the two rendered checks of (e) and the
 * survivor's two calls of (d) through, and in (c) two checks pass before the shared count refuses the next.
 */
const DOMAIN_BUDGET = 100;
/**
 * Short, so a killed instance's held calls come back within the test, and longer than any check here takes on a
 * busy machine: a hold that lapsed is dropped by the next store step on its grant, and the trial reads them live.
 */
const HOLD_SECONDS = 60;
/** The slow page's delay: the SIGKILL lands while calls wait for it, reserved but not committed. */
const SLOW_MS = 8_000;
const ONE_USDC = 1_000_000n;
const READINESS = '/api/agent/readiness';
const VISIBILITY = '/api/agent/ai-visibility';
const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

const settings = redisServerAvailable() ? chromiumSettings() : null;

let rails: Rails;
let redis: RedisServer;
let site: FixtureSite;
let cluster: Cluster;
let renderer: RendererServerProcess;

describe.skipIf(!redisServerAvailable() || !settings)('two instances on one redis-server behind a round-robin balancer', () => {
  beforeAll(async () => {
    rails = await startRails();
    redis = await startRedisServer();
    site = await startFixtureSite({
      ...spaRoutes(),
      // Slow only for the check's own fetch of the page; the probes after it are answered at once.
      '/slow': (req) => ({
        delayMs: /^PaidAgentChecks\//.test(String(req.headers['user-agent'])) && req.headers.accept !== 'text/markdown' ? SLOW_MS : 0,
        headers: { 'content-type': 'text/html' },
        body: '<!doctype html><html><head><title>Slow shop</title></head><body><h1>Slow</h1><p>Hello.</p></body></html>',
      }),
    });
    // One renderer server for both instances, as a renderer pool of one: neither instance launches a browser.
    renderer = await startRendererServer({ CHROMIUM_PATH: settings!.mode.on ? settings!.mode.executablePath : '' });
    cluster = await startCluster({
      rendererUrl: renderer.url,
      env: {
        RENDERER_TOKEN: renderer.token,
        ...rails.env,
        REDIS_URL: redis.url,
        LOG_LEVEL: 'warn',
        NODE_OPTIONS: `--import ${PRELOAD}`,
        PAC_FAKE_INTERNET: JSON.stringify({ [BUDGET_HOST]: site.port, [SPA_HOST]: site.port, [SLOW_HOST]: site.port }),
        RENDERER: 'chromium',
        CHROMIUM_PATH: settings!.mode.on ? settings!.mode.executablePath : '',
        CREDITS_RESERVATION_HOLD_SECONDS: String(HOLD_SECONDS),
        RATE_LIMIT_PER_IP: '100000',
        RATE_LIMIT_PER_KEY: '100000',
        CHECKS_PER_SITE_PER_MINUTE: '100000',
        OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: String(DOMAIN_BUDGET),
        // Every fake site resolves to one public address: its own budget is not the one on trial.
        OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: '100000',
      },
    });
  }, 1_800_000);

  afterAll(async () => {
    await cluster?.stop();
    await renderer?.stop();
    await site?.close();
    await redis?.stop();
    await rails?.stop();
  });

  const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${cluster.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const servedBy = (res: Response) => Number(res.headers.get('x-served-by'));
  const readinessBody = (name: string) => validReadinessBody({ workflow: { name, intendedUsers: 'agents', targetEnvironment: 'production' } });

  async function mintKey(plan: 'bundle-25' | 'bundle-100' = 'bundle-25') {
    const store = openRedisStore(redis.url);
    try {
      return await createKey(store, TEST_SECRET, plan);
    } finally {
      await store.close();
    }
  }

  const chain = () => createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) });
  /** USDC transfers to the service's payTo address from `fromBlock` on, read on chain. */
  const transfersToPayTo = async (fromBlock: bigint) =>
    (await chain().getLogs({ address: rails.usdcAddress, event: TRANSFER, args: { to: rails.payTo }, fromBlock, toBlock: 'latest' })).length;

  /** A wallet of its own with 2 USDC, so concurrent payers never share a balance or a nonce. */
  async function wallet(): Promise<Hex> {
    const privateKey = generatePrivateKey();
    await rails.mintUsdc(privateKeyToAccount(privateKey).address, 2n * ONE_USDC);
    return privateKey;
  }
  function x402(privateKey: Hex): x402Client {
    const client = new x402Client();
    registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
    return client;
  }

  it('(a) concurrent paid calls through the balancer are charged exactly once per fulfilled call: ledger and chain', async () => {
    const { key, keyHash } = await mintKey('bundle-100');
    const PREPAID = 12;
    const prepaid = await Promise.all(
      Array.from({ length: PREPAID }, (_, i) => send(READINESS, readinessBody(`prepaid ${i}`), { authorization: `Bearer ${key}`, 'idempotency-key': `cluster-a-${i}` })),
    );
    expect(prepaid.map((r) => r.status)).toEqual(Array.from({ length: PREPAID }, () => 200));
    expect(new Set(prepaid.map(servedBy))).toEqual(new Set([0, 1]));
    const ledger = await readLedger({ redisUrl: redis.url }, keyHash);
    expect(ledger.used).toBe(PREPAID);
    expect(countStates(ledger)).toEqual({ held: 0, committed: PREPAID, released: 0 });

    const PAID = 6;
    // One at a time: the minter signs every mint with one account's nonce.
    const payers: Hex[] = [];
    for (let i = 0; i < PAID; i++) payers.push(await wallet());
    const fromBlock = (await chain().getBlockNumber()) + 1n;
    const payToBefore = await rails.usdcBalance(rails.payTo);
    const paid = await Promise.all(
      payers.map((pk, i) =>
        wrapFetchWithPayment(fetch, x402(pk))(`${cluster.url}${READINESS}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(readinessBody(`wallet ${i}`)),
        }),
      ),
    );
    const fulfilled = paid.filter((r) => r.status === 200).length;
    expect(fulfilled).toBe(PAID);
    expect(new Set(paid.map(servedBy))).toEqual(new Set([0, 1]));
    expect(await transfersToPayTo(fromBlock)).toBe(fulfilled);
    expect((await rails.usdcBalance(rails.payTo)) - payToBefore).toBe(BigInt(fulfilled) * ONE_USDC);
  });

  it('(b) a retry answered by the other instance replays the stored answer and charges nothing more', async () => {
    // Prepaid: one Idempotency-Key, sent twice in a row, so round robin hands the retry to the other instance.
    const { key, keyHash } = await mintKey();
    const headers = { authorization: `Bearer ${key}`, 'idempotency-key': 'cluster-b-prepaid' };
    const first = await send(READINESS, readinessBody('retry prepaid'), headers);
    const retry = await send(READINESS, readinessBody('retry prepaid'), headers);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(servedBy(retry)).toBe(1 - servedBy(first));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.text()).toBe(await first.text());
    expect((await readLedger({ redisUrl: redis.url }, keyHash)).used).toBe(1);

    // x402: one signed payment with one Idempotency-Key, settled by one instance, resent to the other.
    const payer = await wallet();
    const unpaid = await send(READINESS, readinessBody('retry x402'));
    expect(unpaid.status).toBe(402);
    const payload = encodePaymentSignatureHeader(await x402(payer).createPaymentPayload(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)));
    const fromBlock = (await chain().getBlockNumber()) + 1n;
    const payerBefore = await rails.usdcBalance(privateKeyToAccount(payer).address);
    const paidHeaders = { 'payment-signature': payload, 'idempotency-key': 'cluster-b-x402' };
    const settled = await send(READINESS, readinessBody('retry x402'), paidHeaders);
    const resent = await send(READINESS, readinessBody('retry x402'), paidHeaders);
    expect([settled.status, resent.status]).toEqual([200, 200]);
    expect(servedBy(resent)).toBe(1 - servedBy(settled));
    expect(resent.headers.get('idempotent-replayed')).toBe('true');
    expect(await resent.text()).toBe(await settled.text());
    expect(await transfersToPayTo(fromBlock)).toBe(1);
    expect(payerBefore - (await rails.usdcBalance(privateKeyToAccount(payer).address))).toBe(ONE_USDC);
  });

  it('(e) both instances render a page that needs JavaScript, through the one renderer server', async () => {
    const { key } = await mintKey();
    const before = await renderer.accepted();
    const answers = [];
    for (let i = 0; i < 2; i++) answers.push(await send(VISIBILITY, { url: `http://${SPA_HOST}/` }, { authorization: `Bearer ${key}` }));
    expect(new Set(answers.map(servedBy))).toEqual(new Set([0, 1]));
    for (const res of answers) {
      const text = await res.text();
      expect(res.status, text).toBe(200);
      const { report } = JSON.parse(text) as { report: { page: { wordCount: number; rendering: Record<string, unknown> } } };
      expect(report.page.wordCount).toBe(1);
      expect(report.page.rendering).toMatchObject({ state: 'rendered', title: 'Widgets for everyone', wordCount: 153 });
    }
    expect(await renderer.accepted()).toBe(before + 2);
  });

  it('(c) a site\'s per-domain outbound budget is one budget: both instances together send it no more than it allows', async () => {
    // One fixed window for the whole trial: start early in a minute.
    if (new Date().getSeconds() > 30) await sleep(60_000 - (Date.now() % 60_000) + 200);
    const { key, keyHash } = await mintKey();
    const toSite = () => site.log.filter((r) => r.host?.startsWith(BUDGET_HOST)).length;
    expect(toSite()).toBe(0);
    const answers: Array<{ status: number; by: number }> = [];
    // Until both instances have refused: each refusal must come from the shared count, not its own.
    while (answers.filter((a) => a.status === 429).length < 2 && answers.length < 20) {
      const res = await send(VISIBILITY, { url: `http://${BUDGET_HOST}/` }, { authorization: `Bearer ${key}` });
      answers.push({ status: res.status, by: servedBy(res) });
    }
    const served = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect(served.length + refused.length).toBe(answers.length);
    expect(new Set(served.map((a) => a.by))).toEqual(new Set([0, 1]));
    expect(new Set(refused.map((a) => a.by))).toEqual(new Set([0, 1]));
    // Alone, each instance would have sent up to the whole budget; together they sent at most one budget.
    expect(toSite()).toBeLessThanOrEqual(DOMAIN_BUDGET);
    expect(toSite()).toBeGreaterThan(DOMAIN_BUDGET / 2);
    // Only the fulfilled checks were charged.
    expect((await readLedger({ redisUrl: redis.url }, keyHash)).used).toBe(served.length);
  });

  it('(d) an instance killed (SIGKILL) mid-call loses nothing: its held calls come back after their hold', async () => {
    const { key, keyHash } = await mintKey();
    const where = { redisUrl: redis.url };
    const CALLS = 4;
    // Four at once: round robin gives each instance two, which then wait on the slow page with a call held.
    const pending = Array.from({ length: CALLS }, () => send(VISIBILITY, { url: `http://${SLOW_HOST}/slow` }, { authorization: `Bearer ${key}` }));
    const deadline = Date.now() + 60_000;
    while (countStates(await readLedger(where, keyHash)).held < CALLS) {
      if (Date.now() > deadline) throw new Error('the calls were never all held');
      await sleep(100);
    }
    const victim = cluster.servers[0];
    process.kill(pidListeningOn(victim.port), 'SIGKILL');
    const answers = await Promise.all(pending);
    // The survivor's two calls are fulfilled; the victim's two are cut off (the balancer's 502), never charged.
    expect(answers.map((r) => [servedBy(r), r.status]).sort()).toEqual([[0, 502], [0, 502], [1, 200], [1, 200]]);
    const atKill = await readLedger(where, keyHash);
    expect(countStates(atKill)).toEqual({ held: 2, committed: 2, released: 0 });
    expect(atKill.used).toBe(2);
    // Withheld while their hold lasts, back once it lapsed: asked through the balancer, which the survivor answers.
    const holds = [...atKill.reservations.values()].filter((r) => r.state === 'held').map((r) => r.holdUntil);
    const callsLeft = async () => {
      const res = await fetch(`${cluster.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } });
      expect([res.status, servedBy(res)]).toEqual([200, 1]);
      return ((await res.json()) as { callsLeft: number }).callsLeft;
    };
    // Read on the store's own terms (every expiry is decided on the caller's clock): inside every hold, and past them all.
    const store = openRedisStore(redis.url);
    try {
      expect((await balance(store, keyHash, Math.min(...holds) - 1)).callsLeft).toBe(25 - 4);
      expect((await balance(store, keyHash, Math.max(...holds) + 1)).callsLeft).toBe(25 - 2);
    } finally {
      await store.close();
    }
    await sleep(Math.max(...holds) - Date.now() + 500);
    expect(await callsLeft()).toBe(25 - 2);
    expect((await readLedger(where, keyHash)).used).toBe(2);
  });
});
