// The AI Visibility Check on machine-payment rails, in-process: the route handler served over node:http so
// real paying clients can reach it, the runtime's rails built by railsFor() against the local rails, and the
// checked site a fixture reached through CHECK_HOST_MAP (refused under `next start`, hence in-process).
// The site is fetched between validating the credential and settling it: a site that cannot be checked is
// answered 422 and NOTHING is settled on chain (no transaction from the facilitator at all).
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { Mppx, evm, stripe as stripeMethods } from 'mppx/client';
import type Stripe from 'stripe';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBLEM_BASE } from '@/lib/problems';
import { walletOwner } from '@/lib/reports/store';
import type { Rails } from '../../scripts/rails/start';
import { LEAK_PATTERN, chainLedger, decodeBase64Json } from '../payments/harness';
import { type TestRuntime } from '../support/runtime';
import type { FixtureSite } from '../visibility/fixture-site';
import { sptFromTestHelper } from '../support/card';
import { agentCheckRoute } from '../support/check-routes';
import { startPaidSite, type PaidSite } from '../support/rails-runtime';

const { POST } = agentCheckRoute('ai-visibility');

const PATH = '/api/agent/ai-visibility';
const ONE_USDC = 1_000_000n;
const PAGE = `<!doctype html><html lang="en"><head><title>Widgets, explained</title>
<meta name="description" content="Everything about widgets."><link rel="canonical" href="https://site.test/"></head>
<body><h1>Widgets</h1><p>${'word '.repeat(300)}</p></body></html>`;

let rails: Rails;
let site: FixtureSite;
let appUrl: string;
let rt: TestRuntime;
let sdk: Stripe;
let paid: PaidSite;

beforeAll(async () => {
  paid = await startPaidSite({
    routes: {
      '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
      '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n' },
      '/reset': { reset: true },
      '/slow': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE, delayMs: 300 },
    },
    hosts: ['site.test', 'down.test'],
    handle: (request: Request) => (request.method === 'POST' && new URL(request.url).pathname === PATH ? POST(request) : new Response('not found', { status: 404 })),
    // Three unreachable sites in a row would otherwise spend this one client's costly-failure budget.
    env: { RATE_LIMIT_COSTLY_FAILURES: '100' },
  });
  ({ rails, site, rt, sdk } = paid);
  appUrl = paid.server.url;
}, 120_000);

afterAll(() => paid?.close());

const send = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${appUrl}${PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

const chain = () => createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) });

const ledger = () => chainLedger(rails);

const evmClient = () =>
  Mppx.create({ polyfill: false, methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })] });

function x402(): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(rails.payer.privateKey) });
  return client;
}

async function unpaid402(url: string): Promise<Response> {
  const res = await send({ url });
  expect(res.status).toBe(402);
  return res;
}

async function expectUnreachable(res: Response) {
  expect(res.status).toBe(422);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('payment-receipt')).toBeNull();
  expect(res.headers.get('payment-response')).toBeNull();
  const text = await res.text();
  expect(text).not.toMatch(LEAK_PATTERN);
  const problem = JSON.parse(text) as { type: string; detail: string };
  expect(problem.type).toBe(`${PROBLEM_BASE}site-unreachable`);
}

describe('POST /api/agent/ai-visibility paid over 402', () => {
  it('an unreachable site on a valid MPP evm credential: 422, and nothing is settled on chain', async () => {
    const credential = await evmClient().createCredential(await unpaid402('https://site.test/reset'));
    const before = await ledger();
    const requestsBefore = site.requests.length;
    await expectUnreachable(await send({ url: 'https://site.test/reset' }, { authorization: credential }));
    expect(site.requests.length).toBeGreaterThan(requestsBefore); // the check really ran
    expect(await ledger()).toEqual(before);
  });

  it('an unreachable site on a valid x402 PAYMENT-SIGNATURE: 422, and nothing is settled on chain', async () => {
    const required = decodePaymentRequiredHeader((await unpaid402('https://down.test/reset')).headers.get('payment-required')!);
    const payload = encodePaymentSignatureHeader(await x402().createPaymentPayload(required));
    const before = await ledger();
    await expectUnreachable(await send({ url: 'https://down.test/reset' }, { 'PAYMENT-SIGNATURE': payload }));
    expect(await ledger()).toEqual(before);
  });

  it('an unreachable site on a valid card credential: 422, and no PaymentIntent is created', async () => {
    const card = Mppx.create({
      polyfill: false,
      methods: [
        stripeMethods.charge({
          paymentMethod: 'pm_card_visa',
          createToken: sptFromTestHelper(sdk),
        }),
      ],
    });
    const credential = await card.createCredential(await unpaid402('https://site.test/reset'));
    const intents = rails.stripe.paymentIntents().length;
    await expectUnreachable(await send({ url: 'https://site.test/reset' }, { authorization: credential }));
    expect(rails.stripe.paymentIntents()).toHaveLength(intents);
    expect(rails.stripe.requests().filter((r) => r.path === '/v1/payment_intents')).toHaveLength(0);
  });

  it('a reachable site paid with mppx/client (evm): 200 with the report, and exactly 1 USDC moved', async () => {
    const before = await ledger();
    const res = await evmClient().fetch(`${appUrl}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://site.test/' }),
    });
    expect(res.status).toBe(200);
    const receipt = decodeBase64Json<{ reference: string; method: string }>(res.headers.get('payment-receipt'));
    expect(receipt.method).toBe('evm');
    const body = (await res.json()) as { paymentIntent: string; report: { checkedUrl: string; crawlers: unknown[] } };
    expect(body.paymentIntent).toBe(receipt.reference);
    expect(body.report.checkedUrl).toBe('https://site.test/');
    expect(body.report.crawlers).toHaveLength(16);
    const after = await ledger();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
    expect(after.facilitatorTxs - before.facilitatorTxs).toBe(1);
    expect((await chain().getTransactionReceipt({ hash: receipt.reference as Hex })).status).toBe('success');
  });

  it('a reachable site paid with @x402/fetch: 200 + PAYMENT-RESPONSE, and exactly 1 USDC moved', async () => {
    const before = await ledger();
    const res = await wrapFetchWithPayment(fetch, x402())(`${appUrl}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://site.test/' }),
    });
    expect(res.status).toBe(200);
    const settled = decodeBase64Json<{ success: boolean; transaction: string }>(res.headers.get('payment-response'));
    expect(settled.success).toBe(true);
    expect(((await res.json()) as { paymentIntent: string }).paymentIntent).toBe(settled.transaction);
    const after = await ledger();
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
  });

  it('a wallet that leaves once the check has reached the site: the check ends, exactly 1 USDC moves, and the report is kept for the wallet', async () => {
    const required = decodePaymentRequiredHeader((await unpaid402('https://site.test/slow')).headers.get('payment-required')!);
    const payload = encodePaymentSignatureHeader(await x402().createPaymentPayload(required));
    const before = await ledger();
    const seen = site.requests.length;
    const client = new AbortController();
    const left = fetch(`${appUrl}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'PAYMENT-SIGNATURE': payload },
      body: JSON.stringify({ url: 'https://site.test/slow' }),
      signal: client.signal,
    }).catch((e: unknown) => e);
    while (!site.requests.slice(seen).includes('/slow')) await new Promise((r) => setTimeout(r, 5));
    client.abort();
    expect(await left).toBeInstanceOf(Error);
    // Settled as if the wallet had stayed.
    const deadline = Date.now() + 20_000;
    let after = await ledger();
    while (after.payer === before.payer && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await ledger();
    }
    expect(before.payer - after.payer).toBe(ONE_USDC);
    expect(after.payTo - before.payTo).toBe(ONE_USDC);
    const owner = walletOwner(privateKeyToAccount(rails.payer.privateKey).address);
    const reports = await rt.store.listReports(owner, Date.now(), { limit: 100 });
    expect(reports.filter((r) => r.target === 'https://site.test/slow')).toHaveLength(1);
  }, 60_000);
});
