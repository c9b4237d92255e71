import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseConfig } from '@/lib/config';
import { openSqliteStore } from '@/lib/store/sqlite';
import { setRuntimeForTests, type Runtime } from '@/lib/runtime';
import type { PaymentRails } from '@/lib/payments/rails';
import type { Store } from '@/lib/store';

// An in-process runtime on a temporary SQLite store, installed for route handlers to use.

export interface TestRuntime extends Runtime {
  logs: Array<Record<string, unknown>>;
  dispose(): Promise<void>;
}

export function installTestRuntime(
  env: Record<string, string> = {},
  options: { rails?: PaymentRails | null; store?: Store } = {},
): TestRuntime {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-api-'));
  // Suites check one fixture host many times a minute; the per-host budget's own tests set their limit.
  const config = parseConfig({ NODE_ENV: 'test', DATA_DIR: dir, CREDITS_KEY_SECRET: 'x'.repeat(40), APP_URL: 'http://localhost:3000', CHECKS_PER_SITE_PER_MINUTE: '1000000', OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE: '1000000', OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE: '1000000', ...env });
  const store = options.store ?? openSqliteStore(dir);
  const logs: Array<Record<string, unknown>> = [];
  const runtime: TestRuntime = {
    config,
    store,
    rails: options.rails ?? null,
    log: (e) => logs.push(e),
    logs,
    dispose: async () => {
      setRuntimeForTests(undefined);
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  setRuntimeForTests(runtime);
  return runtime;
}

export function validReadinessBody(overrides: Record<string, unknown> = {}) {
  const cap = (status: string, evidence?: string[]) => (evidence ? { status, evidence } : { status });
  return {
    workflow: { name: 'Checkout agent', intendedUsers: 'agents', targetEnvironment: 'production' },
    capabilities: {
      machine_discovery: cap('implemented', ['openapi.json with x-payment-info']),
      payment_challenge_and_receipt: cap('implemented', ['402 with MPP challenges']),
      idempotency: cap('implemented', ['Idempotency-Key replay test']),
      webhook_verification: cap('partial'),
      durable_fulfillment: cap('implemented', ['orders table']),
      user_authentication: cap('missing'),
      wallet_ownership: cap('unknown'),
      onramp_provider_handoff: cap('missing'),
      delivery_evidence: cap('implemented'),
      recovery_and_reconciliation: cap('missing'),
    },
    ...overrides,
  };
}

/** The six states a capability can be declared in, as far as an assessment is concerned (status, evidence kinds). */
export const READINESS_STATES = [
  { status: 'implemented', evidence: ['tests/payments/replay.test.ts'] },
  { status: 'implemented', evidence: ['we handle it'] },
  { status: 'implemented' },
  { status: 'partial' },
  { status: 'missing' },
  { status: 'unknown' },
];

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}
