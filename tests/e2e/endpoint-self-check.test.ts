// The service checks itself: `next start` on the local rails, answering as own.pac-fixture.net (the fake
// internet preload stands in for DNS, since production refuses CHECK_HOST_MAP), is asked over its own REST API
// and its own MCP tool to run the Agent Payment Endpoint Check on its readiness route and its MCP endpoint, with a
// real paid round trip (the operator has enabled the local Base chain for probing). It must score 100, test every
// rubric item, and give no finding above info.
import path from 'node:path';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { startRails, type Rails } from '../../scripts/rails/start';
import { freePort } from '../support/ports';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { connectClient } from '../mcp/support';

const HOST = 'own.pac-fixture.net';
const ORIGIN = `http://${HOST}`;
const PRELOAD = path.resolve(__dirname, '../support/fake-internet.mjs');
const ITEMS = ['reachability', 'x402-terms', 'mpp-challenges', 'discovery', 'one-price', 'bad-credentials', 'cors', 'mcp', 'paid-round-trip'];

let rails: Rails;
let server: RunningServer;
let key: string;
const probeKey = generatePrivateKey();

beforeAll(async () => {
  rails = await startRails();
  await rails.mintUsdc(privateKeyToAccount(probeKey).address, 10_000_000n);
  const port = await freePort();
  server = await startServer(
    {
      ...rails.env,
      NODE_OPTIONS: `--import ${PRELOAD}`,
      PAC_FAKE_INTERNET: JSON.stringify({ [HOST]: port }),
      APP_URL: ORIGIN,
      // The test's own MCP client calls the loopback address the server listens on.
      MCP_ALLOWED_HOSTS: `127.0.0.1:${port}`,
      RATE_LIMIT_PER_IP: '100000',
      RATE_LIMIT_PER_KEY: '100000',
      PROBE_WALLET_PRIVATE_KEY: probeKey,
      PROBE_NETWORKS: 'eip155:8453',
      PROBE_RPC_URLS: `eip155:8453=${rails.rpcUrl}`,
      PROBE_MAX_SPEND_UNITS: '5000000',
    },
    { pickPort: async () => port },
  );
  const store = openSqliteStore(server.dataDir);
  try {
    ({ key } = await createKey(store, TEST_SECRET, 'bundle-25'));
  } finally {
    await store.close();
  }
}, 240_000);
afterAll(async () => {
  await server?.stop();
  await rails?.stop();
});

interface Report {
  score: number;
  coverage: { testedPoints: number; totalPoints: number };
  items: Array<{ id: string; state: string; points: number; pointsMax: number; why: string }>;
  findings: Array<{ id: string; severity: string; observed: string }>;
  transfers: Array<{ step: string; amount: string; payTo: string }>;
}

function expectFullMarks(report: Report) {
  expect(report.items.map((i) => [i.id, i.state])).toEqual(ITEMS.map((id) => [id, 'pass']));
  expect(report.score).toBe(100);
  expect(report.coverage).toEqual({ testedPoints: 100, totalPoints: 100 });
  expect(report.findings.filter((f) => f.severity !== 'info')).toEqual([]);
  expect(report.transfers.map((t) => [t.step, t.amount, t.payTo])).toEqual([['first payment', '1000000', rails.env.PAY_TO_ADDRESS]]);
}

const input = { url: `${ORIGIN}/api/agent/readiness`, method: 'POST', mcp: { url: `${ORIGIN}/api/mcp`, tool: 'agent_payment_readiness_assessment' }, paidRoundTrip: true };

describe('the service checks its own paid endpoint', () => {
  it('over REST: 100, every item tested and passed', async () => {
    const res = await fetch(`${server.url}/api/agent/payment-endpoint`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(input),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expectFullMarks((JSON.parse(text) as { report: Report }).report);
  }, 180_000);

  it('over MCP: the same tool call, paid with the same prepaid key, gives 100 too', async () => {
    const client = await connectClient(new URL('/api/mcp', server.url), { authorization: `Bearer ${key}` });
    try {
      const result = (await client.callTool({ name: 'agent_payment_endpoint_check', arguments: input }, undefined, { timeout: 180_000 })) as {
        isError?: boolean;
        structuredContent?: { report: Report };
      };
      expect(result.isError ?? false).toBe(false);
      expectFullMarks(result.structuredContent!.report);
    } finally {
      await client.close();
    }
  }, 180_000);
});
