// Test harness: local rails and a paid endpoint served by the production paid-call pipeline (runPaidCall
// and outcomeResponse, with a check of its own that echoes the body), over node:http so real clients can pay it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createPublicClient, http } from 'viem';
import { z } from 'zod';
import { serveWebHandler } from '../support/web-server';
import { startRails, type Rails } from '../../scripts/rails/start';
import { defineCheck, paidResult } from '../../lib/checks/entry';
import { memoryCredentialClaims, type CredentialClaims } from '../../lib/payments/claims';
import { paymentConfigOf, type PaymentConfig } from '../../lib/payments/config';
import { createPaymentRails, type PaymentRails } from '../../lib/payments/rails';
import { credentialFromHeaders, type PaidRail } from '../../lib/payments/verify';
import { runPaidCall, type PaidCallDeps } from '../../lib/paid-call/pipeline';
import { outcomeResponse } from '../../lib/transports/http';
import { ProblemError } from '../../lib/problems';
import { openSqliteStore } from '../../lib/store/sqlite';

export interface PaidServer {
  url: string;
  /** URL of the paid resource. */
  resource: string;
  rails: Rails;
  payments: PaymentRails;
  /** How many times the paid operation ran, and whether the next runs should fail. */
  runs: number;
  failRuns: boolean;
  /** Called between a valid credential and its settlement (tests use it to change the world mid-request). */
  beforeSettle?: () => Promise<void>;
  close(): Promise<void>;
}

/** The harness's paid check: it echoes the body with the rail that paid; `fail` makes it fail (422) after the credential verified. */
function echoCheck(state: { runs: number; failRuns: boolean }, rail: () => PaidRail | null) {
  return defineCheck({
    id: 'harness-echo',
    label: 'Harness echo',
    operationId: 'harnessEcho',
    toolName: 'harness_echo',
    service: 'Harness echo',
    summary: 'Echoes the body',
    description: 'Echoes the body it was paid for (payment tests only).',
    input: z.record(z.string(), z.unknown()),
    output: paidResult({}),
    example: {},
    exampleAnswer: () => ({ ok: true, echo: {}, rail: 'x402', limits: [], artifactHash: 'sha256:0' }),
    workBeforeCharge: false,
    async run(input) {
      state.runs += 1;
      if (state.failRuns) throw new ProblemError('site-unreachable', 'operation failed');
      return { ok: true, echo: input, rail: rail() };
    },
    described: z.strictObject({}),
    describe: () => ({}),
    facts: () => ({ target: '', score: null }),
    markdown: () => '',
    summarize: () => 'echoed',
  });
}

export async function startPaidServer(
  rails: Rails,
  options: { claims?: CredentialClaims; config?: Partial<PaymentConfig> } = {},
): Promise<PaidServer> {
  const state = { runs: 0, failRuns: false } as PaidServer;
  // `handle` is a hoisted function declaration, so the server can be started before `payments` exists.
  const server = await serveWebHandler((request) => handle(request));
  const appUrl = server.url;
  const config: PaymentConfig = { ...paymentConfigOf({ ...rails.env, APP_URL: appUrl }), ...options.config };
  const payments = createPaymentRails(config, { claims: options.claims ?? memoryCredentialClaims() });
  if (!payments) throw new Error('no rails configured');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pac-harness-'));
  const store = openSqliteStore(dir);
  const deps: PaidCallDeps = {
    config: {
      APP_URL: appUrl, CREDITS_KEY_SECRET: 'x'.repeat(40), RATE_LIMIT_PER_IP: 1_000_000, RATE_LIMIT_PER_KEY: 1_000_000, RATE_LIMIT_WINDOW_SECONDS: 60,
      RATE_LIMIT_COSTLY_FAILURES: 3, CREDITS_RESERVATION_HOLD_SECONDS: 120, CHECKS_PER_SITE_PER_MINUTE: 1_000_000, REPORT_RETENTION_DAYS: 30,
    },
    store,
    rails: payments,
  };
  const resourcePath = echoCheck(state, () => null).path;

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== 'POST' || url.pathname !== resourcePath) return new Response('not found', { status: 404 });
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return Response.json({ error: 'bad body' }, { status: 400 });
    }
    // The rail that paid, learnt when the credential verified; the settlement waits for the test's hook.
    let rail: PaidRail | null = null;
    const watched: PaymentRails = {
      ...payments!,
      verify: async (credential, resourcePath) => {
        const verdict = await payments!.verify(credential, resourcePath);
        if (!verdict.ok) return verdict;
        return {
          ...verdict,
          // These tests put Stripe faults on the charge; who owns a card token (a Stripe lookup of its own) is
          // tested with the payer's idempotency scope (payer-idempotency.test.ts), so it is not asked here.
          payer: verdict.rail === 'stripe' ? async () => null : verdict.payer,
          settle: async () => (await state.beforeSettle?.(), verdict.settle()),
        };
      },
    };
    const outcome = await runPaidCall(
      { ...deps, rails: watched, observer: { verified: (r) => (rail = r), ran: () => {}, settlementFailed: () => {} } },
      {
        check: echoCheck(state, () => rail),
        body,
        idempotencyKey: null,
        idempotencyKeySource: 'header:Idempotency-Key',
        clientIp: '203.0.113.7',
        bearerKey: null,
        credential: credentialFromHeaders(request.headers),
      },
    );
    return outcomeResponse(outcome);
  }

  return Object.assign(state, {
    url: appUrl,
    resource: `${appUrl}${resourcePath}`,
    rails,
    payments,
    close: async () => {
      await server.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

export type { Rails };

/** The rails and paid server of the current test file, set by withPaidServer() (read them inside tests and hooks). */
export let rails: Rails;
export let server: PaidServer;

/**
 * One set of local rails and one paid server per test file, with every fault and test switch reset
 * before each test, so a test that injects a fault cannot leak it into the next.
 */
export function withPaidServer(options: Parameters<typeof startPaidServer>[1] = {}): void {
  beforeAll(async () => {
    rails = await startRails();
    server = await startPaidServer(rails, options);
  });
  afterAll(async () => {
    await server?.close();
    await rails?.stop();
  });
  beforeEach(() => {
    server.failRuns = false;
    server.beforeSettle = undefined;
    rails.faults.facilitator(null);
    rails.faults.stripe(null);
  });
}

// ---------- decoding helpers (independent of mppx's parsers, so the wire format itself is checked) ----------

export interface WireChallenge {
  params: Record<string, string>;
  request: Record<string, unknown>;
}

/** Splits a WWW-Authenticate value holding several `Payment` challenges and decodes each request. */
export function parseWwwAuthenticate(value: string): WireChallenge[] {
  return value
    .split(/,\s*(?=Payment\s)/)
    .map((part) => {
      if (!part.startsWith('Payment ')) throw new Error(`not a Payment challenge: ${part.slice(0, 40)}`);
      const params: Record<string, string> = {};
      for (const m of part.slice(8).matchAll(/(?<![A-Za-z_-])([A-Za-z_-]+)="([^"]*)"/g)) params[m[1]!] = m[2]!;
      const request = JSON.parse(Buffer.from(params.request ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
      return { params, request };
    });
}

export function decodeBase64Json<T = Record<string, unknown>>(value: string | null): T {
  if (value === null) throw new Error('header missing');
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as T;
}

/** Text that must never reach a client: raw viem / EVM revert dumps, stack frames, internal error names. */
export const LEAK_PATTERN =
  /revert|viem|contract call|ContractFunction|Request Arguments|docs\.|\bat [\w.<>]+ \(|Error:|0x[0-9a-f]{64}|stripe\.com|sk_test/i;

/** USDC balances and the facilitator's transaction count: a settlement is the facilitator sending a transaction. */
export async function chainLedger(rails: Rails) {
  const chain = createPublicClient({ chain: rails.chain, transport: http(rails.rpcUrl) });
  return {
    payer: await rails.usdcBalance(rails.payer.address),
    payTo: await rails.usdcBalance(rails.payTo),
    facilitatorTxs: await chain.getTransactionCount({ address: rails.facilitatorAddress }),
  };
}

/** A payment failure answered as spec 7 says: problem+json with this status, type and reason, and a detail that leaks nothing internal. */
export async function expectPaymentProblem(res: Response, expected: { status: number; type: string; reason: string }) {
  expect(res.status).toBe(expected.status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await res.json()) as { type: string; reason: string; detail: string };
  expect(problem.type).toMatch(new RegExp(`/${expected.type}$`));
  expect(problem.reason).toBe(expected.reason);
  expect(problem.detail).not.toMatch(LEAK_PATTERN);
  return problem;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

/**
 * Spec 5.2, field by field: the two Payment challenges of WWW-Authenticate and x402's PAYMENT-REQUIRED of
 * one 402, for `resourceUrl` on these rails. Returns the decoded challenges for further checks.
 */
export function expectSpecPaymentTerms(res: Response, rails: Rails, options: { realm: string; resourceUrl: string }): WireChallenge[] {
  const challenges = parseWwwAuthenticate(res.headers.get('www-authenticate')!);
  expect(challenges.map((c) => c.params.method)).toEqual(['stripe', 'evm']);
  for (const c of challenges) {
    expect(Object.keys(c.params).sort()).toEqual(['expires', 'id', 'intent', 'method', 'opaque', 'realm', 'request']);
    // The operation the challenge pays for, bound by its id: the method and path of the resource.
    expect(JSON.parse(Buffer.from(c.params.opaque!, 'base64url').toString('utf8'))).toEqual({ operation: `POST ${new URL(options.resourceUrl).pathname}` });
    expect(c.params.id).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(c.params.realm).toBe(options.realm);
    expect(c.params.intent).toBe('charge');
    expect(new Date(c.params.expires!).toISOString()).toBe(c.params.expires);
    expect(Date.parse(c.params.expires!)).toBeGreaterThan(Date.now());
  }
  const [card, evm] = challenges;
  expect(card!.request).toEqual({
    amount: '100',
    currency: 'usd',
    methodDetails: { networkId: rails.stripe.networkId, paymentMethodTypes: ['card', 'link'] },
  });
  expect(Object.keys(evm!.request).sort()).toEqual(['amount', 'currency', 'methodDetails', 'recipient']);
  expect(evm!.request).toMatchObject({ amount: '1000000', currency: rails.usdcAddress, recipient: rails.payTo });
  const details = evm!.request.methodDetails as Record<string, unknown>;
  expect(details).toMatchObject({ chainId: 8453, decimals: 6 });
  // mppx also names the credential type its clients must produce; nothing else may appear.
  expect(Object.keys(details).filter((k) => k !== 'credentialTypes').sort()).toEqual(['chainId', 'decimals']);

  const required = decodeBase64Json<Record<string, unknown>>(res.headers.get('payment-required'));
  expect(required.x402Version).toBe(2);
  expect(required.resource).toMatchObject({ url: options.resourceUrl });
  expect(required.accepts).toEqual([
    {
      scheme: 'exact',
      network: 'eip155:8453',
      amount: '1000000',
      asset: rails.usdcAddress,
      payTo: rails.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
    },
  ]);
  return challenges;
}

/** Two 402s name the same terms (whatever the bodies were) but carry different challenges. */
export function expectSameTermsNewChallenges(a: Response, b: Response): void {
  const ca = parseWwwAuthenticate(a.headers.get('www-authenticate')!);
  const cb = parseWwwAuthenticate(b.headers.get('www-authenticate')!);
  const terms = (cs: WireChallenge[]) => cs.map((c) => ({ ...c.params, id: undefined, expires: undefined }));
  expect(terms(ca)).toEqual(terms(cb));
  expect(ca.map((c) => c.request)).toEqual(cb.map((c) => c.request));
  const ra = decodeBase64Json<Record<string, unknown>>(a.headers.get('payment-required'));
  const rb = decodeBase64Json<Record<string, unknown>>(b.headers.get('payment-required'));
  expect(ra.accepts).toEqual(rb.accepts);
  expect(ra.resource).toEqual(rb.resource);
  expect(ca.map((c) => c.params.id)).not.toEqual(cb.map((c) => c.params.id));
}
