import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { POST as mcpPOST } from '@/app/api/mcp/route';
import { GET as metricsGET } from '@/app/api/metrics/route';
import { balance, createKey } from '@/lib/credits/ledger';
import { railsFor } from '@/lib/runtime';
import { timedStore } from '@/lib/metrics';
import { openSqliteStore } from '@/lib/store/sqlite';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { visibilityCheck } from '@/lib/checks/visibility/entry';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { parseSamples, sample, sumOf, type Samples } from './prom-text';
import { agentCheckRoute } from '../support/check-routes';

const { POST: readinessPOST } = agentCheckRoute('readiness');
const { POST: visibilityPOST } = agentCheckRoute('ai-visibility');

// GET /api/metrics after a mixed run, held against the ledger: every fulfilled call the counters show is one
// committed call on the key, and nothing else moved the key's balance.

const BASE = 'http://localhost:3000';
const TOKEN = 'metrics-token-0123456789';
const PAYMENT_ENV = {
  MPP_SECRET_KEY: 'm'.repeat(40),
  PAY_TO_ADDRESS: '0x' + '1'.repeat(40),
  // Never contacted: issuing the 402 terms needs no facilitator call.
  X402_FACILITATOR_URL: 'http://127.0.0.1:9/',
  METRICS_TOKEN: TOKEN,
};

let rt: TestRuntime;
let site: FixtureSite;
let dir: string;

beforeEach(async () => {
  site = await startFixtureSite({ '/reset': { reset: true } });
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-metrics-'));
  rt = installTestRuntime(PAYMENT_ENV, { store: timedStore(openSqliteStore(dir)) });
  rt.rails = railsFor(rt.config, rt.store);
});
afterEach(async () => {
  delete process.env.CHECK_HOST_MAP;
  await rt.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
  await site.close();
});

async function scrape(authorization = `Bearer ${TOKEN}`): Promise<Samples> {
  const res = await metricsGET(new Request(`${BASE}/api/metrics`, { headers: { authorization } }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseSamples(await res.text());
}

/** How much each series moved between two scrapes (the registry is per process and other tests may count too). */
const delta = (before: Samples, after: Samples) => (name: string, labels: Record<string, string> = {}) => sumOf(after, name, labels) - sumOf(before, name, labels);

describe('GET /api/metrics after a mixed run', () => {
  it('counts paid calls, 402s, check durations, fetches and store latency equal to what the ledger recorded', async () => {
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const before = await scrape();

    const answers: number[] = [];
    const bearer = { authorization: `Bearer ${key}` };
    // Three fulfilled readiness calls on the key, one replayed, one refused body (400), one unpaid (402).
    for (const n of [1, 2, 3]) answers.push((await readinessPOST(post(`${BASE}${readinessCheck.path}`, validReadinessBody(), { ...bearer, 'idempotency-key': `metrics-${n}-0000` }))).status);
    answers.push((await readinessPOST(post(`${BASE}${readinessCheck.path}`, validReadinessBody(), { ...bearer, 'idempotency-key': 'metrics-1-0000' }))).status);
    answers.push((await readinessPOST(post(`${BASE}${readinessCheck.path}`, { workflow: 'no' }, bearer))).status);
    answers.push((await readinessPOST(post(`${BASE}${readinessCheck.path}`, validReadinessBody()))).status);
    // A visibility check on the key whose site hangs up: 422, nothing charged.
    answers.push((await visibilityPOST(post(`${BASE}/api/agent/ai-visibility`, { url: 'https://site.test/reset' }, bearer))).status);
    // One fulfilled call over MCP, on the same key.
    const mcp = await mcpPOST(
      new Request(`${BASE}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...bearer },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: readinessCheck.toolName, arguments: validReadinessBody() } }),
      }),
    );
    answers.push(mcp.status);
    expect(answers).toEqual([200, 200, 200, 200, 400, 402, 422, 200]);

    const moved = delta(before, await scrape());
    const readiness = readinessCheck.operationId;
    const visibility = visibilityCheck.operationId;
    const paid = (operation: string, rail: string, outcome: string) => moved('pac_paid_calls_total', { operation, rail, outcome });
    expect(paid(readiness, 'credits', 'fulfilled')).toBe(4);
    expect(paid(readiness, 'credits', 'replayed')).toBe(1);
    expect(paid(readiness, 'credits', 'refused')).toBe(1);
    expect(paid(readiness, 'none', 'unpaid')).toBe(1);
    expect(paid(visibility, 'credits', 'failed')).toBe(1);
    expect(moved('pac_paid_calls_total')).toBe(8);
    expect(moved('pac_payment_required_total', { operation: readiness, surface: 'rest' })).toBe(1);
    expect(moved('pac_payment_required_total')).toBe(1);
    expect(moved('pac_settlement_failures_total')).toBe(0);

    // The ledger: the key spent exactly the calls counted as fulfilled, each committed once.
    const ledger = await balance(rt.store, keyHash);
    expect(25 - ledger.callsLeft).toBe(moved('pac_paid_calls_total', { rail: 'credits', outcome: 'fulfilled' }));
    expect(ledger.grants.reduce((used, g) => used + g.used, 0)).toBe(4);

    // A check ran for each fulfilled call and for the failed one (the check ran, the site hung up).
    expect(moved('pac_check_duration_seconds_count', { operation: readiness })).toBe(4);
    expect(moved('pac_check_duration_seconds_count', { operation: visibility })).toBe(1);
    expect(moved('pac_fetches_total', { outcome: 'ok' }) + moved('pac_fetches_total', { outcome: 'connection' })).toBe(moved('pac_fetches_total'));
    expect(moved('pac_fetches_total', { outcome: 'connection' })).toBeGreaterThanOrEqual(1);
    // On the timed store: one admission per call on the key that got past its body (3 + replay + MCP + the failed
    // check); a hold for each that reached payment, by reserveCall for the 3 with an Idempotency-Key and the check
    // of a site, in the admission itself for the MCP call (neither); one finish per fulfilled call.
    const storeOps = (op: string) => moved('pac_store_operation_duration_seconds_count', { op });
    expect(storeOps('admitCall')).toBe(6);
    expect(storeOps('reserveCall')).toBe(4);
    expect(storeOps('finishReservation')).toBe(4);
    expect(storeOps('commitReservation')).toBe(0);
    expect(moved('pac_http_requests_total', { route: readiness, status: '200' })).toBe(4);
  });

  it('exports the default process metrics', async () => {
    const samples = await scrape();
    expect(sample(samples, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sumOf(samples, 'nodejs_heap_size_total_bytes')).toBeGreaterThan(0);
  });

  it('answers 401 without the token and 404 when METRICS_TOKEN is unset', async () => {
    for (const authorization of ['', 'Bearer wrong-token-0123456789', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const res = await metricsGET(new Request(`${BASE}/api/metrics`, { headers: authorization ? { authorization } : {} }));
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect((await res.json()).type).toBe('https://paid-agent-checks.dev/problems/unauthorized');
    }
    rt.config.METRICS_TOKEN = undefined;
    const disabled = await metricsGET(new Request(`${BASE}/api/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }));
    expect(disabled.status).toBe(404);
    expect((await disabled.json()).type).toBe('https://paid-agent-checks.dev/problems/not-found');
  });
});
