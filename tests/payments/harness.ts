// Test harness: local rails + a minimal paid endpoint that uses lib/payments exactly as the gate does
// (challenge when no credential; verify -> run -> settle), served over node:http so real clients can pay it.
import { serveWebHandler } from '../support/web-server';
import { startRails, type Rails } from '../../scripts/rails/start';
import {
  challenge,
  createPaymentRails,
  hasPaymentCredential,
  memoryCredentialClaims,
  verifyCredential,
  type CredentialClaims,
  type PaymentConfig,
  type PaymentRails,
} from '../../lib/payments';

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

export async function startPaidServer(
  rails: Rails,
  options: { claims?: CredentialClaims; config?: Partial<PaymentConfig> } = {},
): Promise<PaidServer> {
  const state = { runs: 0, failRuns: false } as PaidServer;
  // `handle` is a hoisted function declaration, so the server can be started before `payments` exists.
  const server = await serveWebHandler((request) => handle(request));
  const appUrl = server.url;
  const config: PaymentConfig = {
    appUrl,
    mppSecretKey: rails.env.MPP_SECRET_KEY,
    payToAddress: rails.env.PAY_TO_ADDRESS,
    usdcAddress: rails.env.USDC_ADDRESS,
    x402FacilitatorUrl: rails.env.X402_FACILITATOR_URL,
    stripeSecretKey: rails.env.STRIPE_SECRET_KEY,
    stripeNetworkId: rails.env.STRIPE_NETWORK_ID,
    stripeApiUrl: rails.env.STRIPE_API_URL,
    ...options.config,
  };
  const payments = createPaymentRails(config, { claims: options.claims ?? memoryCredentialClaims() });
  if (!payments) throw new Error('no rails configured');

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (request.method !== 'POST' || url.pathname !== '/api/paid') return new Response('not found', { status: 404 });
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return Response.json({ error: 'bad body' }, { status: 400 });
    }
    if (!hasPaymentCredential(request)) return (await challenge(payments!, request)).toResponse();
    const verdict = await verifyCredential(payments!, request);
    if (!verdict.ok) return verdict.response;
    // The paid operation runs between validation and settlement.
    state.runs += 1;
    if (state.failRuns) return Response.json({ error: 'operation failed' }, { status: 422 });
    await state.beforeSettle?.();
    const settled = await verdict.settle();
    if (!settled.ok) return settled.response;
    return Response.json(
      { ok: true, echo: body, rail: verdict.rail, paymentIntent: settled.reference },
      { headers: settled.headers },
    );
  }

  return Object.assign(state, {
    url: appUrl,
    resource: `${appUrl}/api/paid`,
    rails,
    payments,
    close: () => server.close(),
  });
}


export { startRails };
export type { Rails };

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
      for (const m of part.slice(8).matchAll(/([A-Za-z_-]+)="([^"]*)"/g)) params[m[1]!] = m[2]!;
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

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
