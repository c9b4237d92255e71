import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, type EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { paidRoundTrip } from '@/lib/checks/payment-endpoint/paid-round-trip';
import { listProbeSpend, probeSettings, type ProbeSettings } from '@/lib/checks/payment-endpoint/probe-settings';
import { openSqliteStore } from '@/lib/store/sqlite';
import type { Store } from '@/lib/store/types';
import { startRails, type Rails } from '../../scripts/rails/start';
import { PROBE_SELLER_PRICE, startProbeSeller, type ProbeSellerDefect } from './probe-seller';
import { createKey } from '@/lib/credits/ledger';
import { agentCheckRoute } from '../support/check-routes';
import { installTestRuntime, post } from '../support/runtime';
import { startSeller } from './seller';

// The paid round trip against real sellers on the local rails: a minimal official-x402 seller on the second chain
// (eip155:84532, the probe's default network), the same seller with one defect each, and this service itself on
// chain 8453 when the operator enables that network for probing. Every payment is made by the real x402 client and
// read back on chain; the daily cap and the ledger live in a real SQLite store.

let rails: Rails;
let dir: string;
let store: Store;
beforeAll(async () => {
  rails = await startRails({ probeChain: true });
  dir = mkdtempSync(path.join(tmpdir(), 'pe-paid-'));
  store = openSqliteStore(dir);
}, 120_000);
afterAll(async () => {
  await store?.close();
  await rails?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const ownIds = Object.keys(paidRoundTrip.spec.findings);

/** `npm run ledger -- probe-spend` as an operator runs it, on the test's store. */
function probeSpendCli(): Promise<string> {
  const root = path.resolve(__dirname, '../..');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'scripts/ledger.ts', 'probe-spend'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'development', CREDITS_KEY_SECRET: 'probe-spend-test-secret-'.padEnd(48, 'x'), LOG_LEVEL: 'silent', DATA_DIR: dir },
      encoding: 'utf8',
    }, (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)));
  });
}

function settingsFor(overrides: Record<string, string> = {}): ProbeSettings {
  const chain = rails.probe!;
  return probeSettings({ PROBE_WALLET_PRIVATE_KEY: chain.wallet.privateKey, PROBE_RPC_URLS: `${chain.network}=${chain.rpcUrl}`, ...overrides }, store);
}

const item = (report: EndpointReport) => report.items.find((i) => i.id === 'paid-round-trip')!;
const ownFindings = (report: EndpointReport) => report.findings.filter((f) => ownIds.includes(f.id)).map((f) => f.id);

async function checkSeller(defect: ProbeSellerDefect | undefined, settings = settingsFor()) {
  const seller = await startProbeSeller(rails, defect);
  try {
    const before = await rails.probe!.usdcBalance(rails.probe!.wallet.address);
    const report = await checkPaymentEndpoint({ url: seller.url, method: 'POST', paidRoundTrip: true }, { probe: settings });
    const after = await rails.probe!.usdcBalance(rails.probe!.wallet.address);
    return { report, moved: before - after };
  } finally {
    await seller.close();
  }
}

describe('the paid round trip on the probe network (eip155:84532)', () => {
  it('passes a correct seller with exactly one transfer, recorded in the report, the evidence and the ledger', async () => {
    const { report, moved } = await checkSeller(undefined);
    const paid = item(report);
    expect(paid.state).toBe('pass');
    expect(ownFindings(report)).toEqual([]);
    expect(moved).toBe(PROBE_SELLER_PRICE);
    const chain = rails.probe!;
    expect(report.transfers).toEqual([{ network: 'eip155:84532', asset: chain.usdcAddress, amount: '10000', payTo: chain.payTo, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), step: 'first payment' }]);
    const tx = report.transfers[0].txHash;
    // pay, replay (it carries the payment-identifier: the first answer again), same id + same body (the first answer),
    // same id + another body (409), invalid input (400)
    expect(paid.evidence.map((e) => e.status)).toEqual([200, 200, 200, 409, 400]);
    expect(paid.evidence[0].txHashes).toEqual([tx]);
    expect(paid.evidence[0].answer).toMatchObject({ contentType: 'application/json', paymentResponse: { success: true, transaction: tx, network: 'eip155:84532' }, balanceMoved: '10000' });
    expect(paid.evidence[2].answer).toMatchObject({ sameAsFirst: true });
    expect(paid.evidence.slice(1).map((e) => e.txHashes ?? [])).toEqual([[], [], [], []]);
    const ledger = await listProbeSpend(store, Date.now());
    expect(ledger.filter((l) => l.txHash === tx)).toEqual([{ at: expect.any(String), network: 'eip155:84532', asset: chain.usdcAddress, amount: '10000', payTo: chain.payTo, txHash: tx, step: 'first payment', target: 'http://probe-seller.test/paid' }]);
    const printed = (await probeSpendCli()).trim().split('\n');
    expect(printed.slice(1, -1).map((line) => JSON.parse(line) as unknown)).toContainEqual({ at: ledger.find((l) => l.txHash === tx)!.at, network: 'eip155:84532', amount: '10000', asset: chain.usdcAddress, payTo: chain.payTo, tx, step: 'first payment', target: 'http://probe-seller.test/paid' });
    // The probe key appears nowhere in what the check answers.
    expect(JSON.stringify(report)).not.toContain(chain.wallet.privateKey.slice(2));
  }, 120_000);

  it.each([
    ['replay-settles-twice', 'replay-settled-twice', 2n],
    ['payment-identifier-ignored', 'payment-identifier-ignored', 2n],
    ['settles-invalid-input', 'invalid-input-settled', 2n],
  ] as const)('a seller whose defect is %s gets %s and no other finding of the item', async (defect, id, payments) => {
    const { report, moved } = await checkSeller(defect);
    expect(item(report).state).toBe('fail');
    expect(ownFindings(report)).toEqual([id]);
    expect(moved).toBe(payments * PROBE_SELLER_PRICE);
    expect(report.transfers.map((t) => t.amount)).toEqual(['10000', '10000']);
    const ledgerTxs = new Set((await listProbeSpend(store, Date.now())).map((l) => l.txHash));
    expect(report.transfers.every((t) => ledgerTxs.has(t.txHash))).toBe(true);
  }, 120_000);

  it('stops at the per-check cap: a step that does not fit is not signed, and says why', async () => {
    const { report, moved } = await checkSeller(undefined, settingsFor({ PROBE_MAX_SPEND_UNITS: '10000' }));
    const paid = item(report);
    expect(paid.state).toBe('pass');
    expect(moved).toBe(PROBE_SELLER_PRICE);
    expect(paid.evidence.map((e) => e.status)).toEqual([200, 200]);
    expect(paid.why).toContain("Not tested: payment-identifier (another payment of 10000 base units would pass this check's cap of 10000 (PROBE_MAX_SPEND_UNITS; 10000 already held)); invalid input (another payment");
  }, 120_000);

  it('pays nothing when the daily cap across checks has no room, and says why', async () => {
    const { report, moved } = await checkSeller(undefined, settingsFor({ PROBE_DAILY_SPEND_UNITS: '5000' }));
    expect(moved).toBe(0n);
    expect(item(report)).toMatchObject({ state: 'not-tested', evidence: [] });
    expect(item(report).why).toMatch(/^Nothing was paid: another payment of 10000 base units would pass today's cap of 5000 across all checks \(PROBE_DAILY_SPEND_UNITS; \d+ already held today\)\.$/);
    expect(report.transfers).toEqual([]);
  }, 120_000);

  it.each([
    ['not asked for', { paidRoundTrip: false }, {}, 'Not asked for: the request did not set paidRoundTrip.'],
    ['no probe wallet', { paidRoundTrip: true }, { PROBE_WALLET_PRIVATE_KEY: '' }, 'The operator has not given the probe a wallet (PROBE_WALLET_PRIVATE_KEY is not set).'],
    ['no RPC for the network', { paidRoundTrip: true }, { PROBE_RPC_URLS: '' }, 'The operator has not given an RPC endpoint for eip155:84532 (PROBE_RPC_URLS), so transfers could not be read back.'],
    ['network not enabled', { paidRoundTrip: true }, { PROBE_NETWORKS: 'eip155:8453' }, 'The endpoint offers no x402 exact payment on a network enabled for probing (enabled: eip155:8453; offered: eip155:84532).'],
  ])('is not tested when %s', async (_name, input, env, why) => {
    const seller = await startProbeSeller(rails);
    try {
      const report = await checkPaymentEndpoint({ url: seller.url, method: 'POST', ...input }, { probe: settingsFor(env) });
      expect(item(report)).toMatchObject({ state: 'not-tested', why, evidence: [] });
      expect(report.transfers).toEqual([]);
    } finally {
      await seller.close();
    }
  }, 60_000);
});

describe('a chain node that does not answer', () => {
  it('leaves the item not tested with the reason, pays nothing and keeps the rest of the report', async () => {
    const { report, moved } = await checkSeller(undefined, settingsFor({ PROBE_RPC_URLS: 'eip155:84532=http://127.0.0.1:9' }));
    expect(moved).toBe(0n);
    expect(item(report)).toMatchObject({ state: 'not-tested', why: expect.stringMatching(/^The paid round trip stopped: HTTP request failed\./), evidence: [] });
    expect(report.items).toHaveLength(9);
    expect(report.transfers).toEqual([]);
  }, 60_000);
});

describe('this service as seller, with chain 8453 enabled for probing', () => {
  it('passes with one 1.00 USDC transfer to its payTo', async () => {
    const probeWallet = rails.probe!.wallet;
    await rails.mintUsdc(probeWallet.address, 5_000_000n);
    const seller = await startSeller(rails);
    try {
      const before = await rails.usdcBalance(probeWallet.address);
      const settings = probeSettings(
        { PROBE_WALLET_PRIVATE_KEY: probeWallet.privateKey, PROBE_NETWORKS: 'eip155:8453', PROBE_RPC_URLS: `eip155:8453=${rails.rpcUrl}`, PROBE_MAX_SPEND_UNITS: '4000000' },
        store,
      );
      const report = await checkPaymentEndpoint({ url: `${seller.origin}/api/agent/readiness`, method: 'POST', paidRoundTrip: true }, { probe: settings });
      const paid = item(report);
      expect({ state: paid.state, findings: ownFindings(report) }).toEqual({ state: 'pass', findings: [] });
      expect(paid.evidence.map((e) => e.status)).toEqual([200, 200, 200, 409, 400]);
      // The replay is answered with the first settlement, not a new one.
      expect(paid.evidence[1].answer).toMatchObject({ paymentResponse: { transaction: report.transfers[0].txHash }, balanceMoved: '0' });
      expect(report.transfers).toEqual([{ network: 'eip155:8453', asset: rails.usdcAddress, amount: '1000000', payTo: rails.payTo, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), step: 'first payment' }]);
      expect(before - (await rails.usdcBalance(probeWallet.address))).toBe(1_000_000n);
    } finally {
      await seller.close();
    }
  }, 180_000);
});

describe('the paid round trip bought from this service', () => {
  it("pays with the operator's settings from the environment and keeps the daily cap and the ledger in the service's store", async () => {
    const chain = rails.probe!;
    const probeEnv = { PROBE_WALLET_PRIVATE_KEY: chain.wallet.privateKey, PROBE_RPC_URLS: `${chain.network}=${chain.rpcUrl}` };
    Object.assign(process.env, probeEnv);
    const rt = installTestRuntime({ RATE_LIMIT_PER_IP: '100000' });
    const seller = await startProbeSeller(rails);
    try {
      const { key } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const res = await agentCheckRoute('payment-endpoint').POST(post('http://localhost:3000/api/agent/payment-endpoint', { url: seller.url, paidRoundTrip: true }, { authorization: `Bearer ${key}` }));
      expect(res.status).toBe(200);
      const { report } = (await res.json()) as { report: EndpointReport };
      expect(item(report).state).toBe('pass');
      expect(report.transfers).toHaveLength(1);
      expect((await listProbeSpend(rt.store, Date.now())).map((t) => t.txHash)).toEqual([report.transfers[0].txHash]);
      // Four signatures of 10000 were held today (pay, the same id twice, invalid input): the cap is counted in this store.
      const day = new Date().toISOString().slice(0, 10);
      expect(await rt.store.getRecord(`probe-spent:${day}`, Date.now())).toBe('40000');
      expect(JSON.stringify(rt.logs)).not.toContain(chain.wallet.privateKey.slice(2));
    } finally {
      await seller.close();
      await rt.dispose();
      for (const name of Object.keys(probeEnv)) delete process.env[name];
    }
  }, 120_000);
});
