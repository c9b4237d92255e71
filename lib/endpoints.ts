import { z } from 'zod';
import { SIGNATURES_DIRECTORY_MEDIA_TYPE, SIGNATURES_DIRECTORY_PATH } from '@/lib/outbound/web-bot-auth';
import type { CheckEntry } from '@/lib/checks/entry';
import { checks } from '@/lib/checks/registry';
import type { ProblemKind } from '@/lib/problems';
import { PRICE_CENTS, PRICE_USD } from '@/lib/price';
import { PLANS, planList } from '@/lib/credits/plans';
import { CreditsAnswer } from '@/lib/credits/credits-endpoint';
import { descriptionSchema } from '@/lib/http/describe';
import { CheckoutBody, KeyBody } from '@/lib/billing/http';
import { ReadyAnswer } from '@/lib/http/health';
import { METRICS_CONTENT_TYPE } from '@/lib/http/metrics-endpoint';
import { AccountSummary, SessionStatus } from '@/lib/billing/account';
import { LIST_PAID_SERVICES } from '@/lib/transports/mcp/tools';
import { RECENT_SIGN_IN_MS, RotateBody, RotatedKey, SECURE_SESSION_COOKIE, SESSION_COOKIE, SessionAnswer, SignInBody } from '@/lib/session';
import { REPORT_PAGE_MAX, ReportList } from '@/lib/reports/store';
import { ReportComparison } from '@/lib/reports/compare';
import { CREDENTIAL_META_KEY, IDEMPOTENCY_META_KEY, PAYMENT_REQUIRED_CODE } from '@/lib/transports/mcp/payment';

// THE registry of every endpoint: each route under app/ is one entry (per method) holding its path,
// its request and response schemas and what the docs say about it. The OpenAPI document, the docs
// page and /llms.txt are generated from this list, and tests/discovery/registry.test.ts walks app/
// so a route without an entry (or an entry without a route) fails. Paid operations come from the
// checks' registry, read each time `endpoints()` is asked (a check registered at run time is listed too);
// this file adds their free GET descriptions and every free route.

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

/** One documented answer: a status, and what a caller sees (headers and a body that fits the schema). */
export interface ExampleResponse {
  status: number;
  description: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** The body is long (a rubric): the docs page shows its shape, not all of it. */
  abbreviate?: true;
}

/** A paid POST: everything about it is in its check's entry (lib/checks/<name>/entry.ts). */
interface PaidEndpoint {
  kind: 'paid';
  method: 'POST';
  path: string;
  operation: CheckEntry;
}

export interface FreeEndpoint {
  kind: 'free';
  method: HttpMethod;
  path: string;
  operationId: string;
  /** Heading on the docs page. */
  title: string;
  /** One line, the OpenAPI summary. */
  summary: string;
  /** What it does, for readers of the docs page and the OpenAPI description. */
  description: string;
  price: string;
  auth: string;
  /**
   * Who may call it, as alternatives (its OpenAPI `security`): `anonymous` when a call without credentials is
   * answered, then each credential the route reads. A key sent in the body is not a credential here: OpenAPI has
   * no scheme for it, and the request schema names it.
   */
  access: readonly Access[];
  query?: Array<{ name: string; required: boolean; description: string; schema: z.ZodType; example: string }>;
  /** Segments of `path` written `{name}` (the route's folder is `[name]`). */
  pathParams?: Array<{ name: string; description: string; schema: z.ZodType; example: string }>;
  request?: { contentTypes: string[]; schema: z.ZodType; headers?: string[]; example?: unknown };
  /** The 200 answer: its media type and the schema its body parses with (`status: 204`: no body at all). */
  ok: { description: string; contentType: string; schema: z.ZodType; status?: 204; headers?: Record<string, string> };
  /** A form post is answered with a redirect instead of JSON. */
  redirect?: { status: 303; description: string };
  /** Methods the route exports only to refuse them (405 method-not-allowed). */
  refusedMethods?: HttpMethod[];
  examples(appUrl: string): ExampleResponse[];
  errors: ProblemKind[];
  /** Its line in /llms.txt, when agents should be pointed at it. */
  llms?: { section: LlmsSection; label: string; text: string };
}

/** The credentials a route may read; each is a security scheme of the OpenAPI document (lib/discovery/openapi.ts). */
export type Credential = 'creditsKey' | 'siteSession' | 'siwx' | 'metricsToken' | 'stripeSignature';
type Access = 'anonymous' | Credential;

export type LlmsSection = 'Discovery and docs' | 'Prepaid credits';
export type Endpoint = PaidEndpoint | FreeEndpoint;

const CheckoutCreated = z.strictObject({ url: z.string(), sessionId: z.string() });
const PortalCreated = z.strictObject({ url: z.string() });
const WebhookAnswer = z.strictObject({ received: z.literal(true), result: z.enum(['processed', 'duplicate', 'ignored']) });
const Health = z.strictObject({ ok: z.literal(true) });
// Stripe signs and sends these; only the members the handler reads are named.
const StripeEvent = z.looseObject({ id: z.string(), type: z.string(), data: z.looseObject({ object: z.looseObject({}) }) });

const JsonRpcId = z.union([z.string(), z.number().int(), z.null()]);
const JsonRpcRequest = z.looseObject({ jsonrpc: z.literal('2.0'), id: JsonRpcId.optional(), method: z.string(), params: z.looseObject({}).optional() });
const JsonRpcResponse = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0'), id: JsonRpcId, result: z.looseObject({}) }),
  z.looseObject({ jsonrpc: z.literal('2.0'), id: JsonRpcId, error: z.looseObject({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }),
]);

const OpenApiDocument = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  servers: z.array(z.looseObject({ url: z.string() })),
  paths: z.record(z.string(), z.looseObject({})),
  components: z.looseObject({}),
});

const paidTools = () => checks().map((o) => o.toolName);

function describeEndpoint(op: CheckEntry): FreeEndpoint {
  return {
    kind: 'free',
    method: 'GET',
    path: op.path,
    operationId: `describe${op.operationId.charAt(0).toUpperCase()}${op.operationId.slice(1)}`,
    title: `Describe: ${op.service}`,
    summary: `Describe ${op.service}: price, rails, limits and rubric (free)`,
    description: 'Free. What the check does, its price and live payment rails, its rubric and its limits.',
    price: 'free',
    auth: 'none', access: ['anonymous'],
    ok: { description: 'Cached for 5 minutes.', contentType: 'application/json', schema: descriptionSchema(op) },
    examples: () => [{
      status: 200,
      description: 'Cached for 5 minutes.',
      abbreviate: true,
      body: {
        operationId: op.operationId, service: op.service, description: op.description, method: 'POST', path: op.path, mcpTool: op.toolName,
        price: { amount: PRICE_USD, currency: 'USD', cents: PRICE_CENTS, per: 'fulfilled request' },
        payment: { rails: ['…'], prepaid: { header: 'Authorization: Bearer <credits key>', plans: '/api/agent/credits' } },
        ...op.describe(),
      },
    }],
    errors: [],
  };
}

const keyExample = 'pac_live_…';
const maskedKey = 'pac_live_…a1B2';

const FREE_ROUTES: FreeEndpoint[] = [
  {
    kind: 'free', method: 'GET', path: '/api/agent/credits', operationId: 'agentCredits', title: 'Plans and calls left',
    summary: 'Prepaid plans, or the calls left on a key (free)',
    description: 'Free. Without Authorization: the prepaid plans and where to buy them. With Authorization: Bearer <key>: the calls left on that key, per grant.',
    price: 'free', auth: 'optional Bearer credits key', access: ['anonymous', 'creditsKey'],
    ok: { description: 'Plans (no key) or calls left (with a key)', contentType: 'application/json', schema: CreditsAnswer },
    examples: (appUrl) => {
      const plans = planList(appUrl);
      return [
        { status: 200, description: 'Without a key.', body: { plans: plans.slice(0, 1).concat([{ ...plans[1], description: '…' }]), pricePerCall: { amount: PRICE_USD, currency: 'USD' } } },
        { status: 200, description: 'With a key.', body: { key: maskedKey, callsLeft: 24, grants: [{ id: 'gr_…', plan: 'bundle-25', calls: 25, used: 1, reserved: 0, callsLeft: 24, expiresAt: '2027-11-01T12:00:00.000Z', expired: false }] } },
      ];
    },
    errors: ['invalid-credits-key', 'store-unavailable'],
    llms: { section: 'Prepaid credits', label: 'Plans and calls left', text: 'GET without a key lists the plans; with Authorization: Bearer <key>, the calls left' },
  },
  {
    kind: 'free', method: 'POST', path: '/api/mcp', operationId: 'mcp', title: 'MCP tools',
    summary: 'MCP Streamable HTTP endpoint (stateless JSON-RPC): the paid checks as tools',
    // The tool list and the example call read the registry when asked, like the paid endpoints.
    get description() {
      return `MCP Streamable HTTP (stateless JSON-RPC). Tools: ${paidTools().join(', ')} (paid, ${PRICE_USD} USD each or one prepaid call) and ${LIST_PAID_SERVICES} (free). ` +
        `An unpaid paid-tool call answers JSON-RPC error ${PAYMENT_REQUIRED_CODE} carrying the payment challenge; the client retries with its credential in the request's _meta.`;
    },
    price: `${PRICE_USD} USD per paid tool call`,
    auth: `credential in params._meta["${CREDENTIAL_META_KEY}"], or Authorization: Bearer <credits key> on the HTTP request`,
    access: ['anonymous', 'creditsKey'],
    get request() {
      const [first] = checks();
      return {
        contentTypes: ['application/json'],
        schema: JsonRpcRequest,
        headers: ['Content-Type: application/json', 'Accept: application/json, text/event-stream'],
        example: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: first.toolName, arguments: first.example, _meta: { [IDEMPOTENCY_META_KEY]: 'order-0001' } } },
      };
    },
    ok: { description: 'The JSON-RPC response (a result, or an error such as the payment challenge)', contentType: 'application/json', schema: JsonRpcResponse },
    refusedMethods: ['GET', 'DELETE'],
    examples: () => [{ status: 200, description: 'Unpaid: a JSON-RPC error with the challenge.', body: { jsonrpc: '2.0', id: 1, error: { code: PAYMENT_REQUIRED_CODE, message: 'Payment required', data: { challenges: ['…'] } } } }],
    errors: [],
    get llms() {
      return { section: 'Discovery and docs' as const, label: 'MCP endpoint', text: `Streamable HTTP; tools ${[...paidTools(), LIST_PAID_SERVICES].join(', ')}` };
    },
  },
  {
    kind: 'free', method: 'POST', path: '/api/billing/checkout', operationId: 'createCheckoutSession', title: 'Buy a plan (Stripe Checkout)',
    summary: 'Start a Stripe Checkout for a prepaid plan or a top-up',
    description: 'Creates a Stripe Checkout Session for a plan: a one-time payment for a bundle, a monthly subscription for the monthly plan. For a top-up, send your key in the body, or send none from this site\'s pages while signed in with it: it is checked here and never sent to Stripe or put in a URL. A form post gets 303 to the checkout page; JSON gets the address.',
    price: 'the plan\'s price, paid on the checkout page', auth: 'none (a top-up names its key in the body, or is signed in with it)', access: ['anonymous'],
    request: { contentTypes: ['application/json', 'application/x-www-form-urlencoded'], schema: CheckoutBody, example: { plan: PLANS[0].id, topUp: true, key: keyExample } },
    ok: { description: 'JSON request: the checkout address', contentType: 'application/json', schema: CheckoutCreated },
    redirect: { status: 303, description: 'Form post: Location is the checkout page' },
    examples: () => [
      { status: 200, description: 'JSON request.', body: { url: 'https://checkout.stripe.com/c/pay/cs_…', sessionId: 'cs_…' } },
      { status: 303, description: 'Form post.', headers: { Location: 'https://checkout.stripe.com/c/pay/cs_…' } },
    ],
    errors: ['invalid-request', 'invalid-credits-key', 'cross-origin-refused', 'payload-too-large', 'rate-limited', 'payments-unavailable', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'GET', path: '/api/billing/session', operationId: 'getCheckoutSessionStatus', title: 'Purchase status',
    summary: 'The state of a purchase, and its new key once',
    description: 'Polled by the purchase success page. A new key is in the first answer after payment only; later answers say it was shown. A top-up answers the key\'s new balance.',
    price: 'free', auth: 'the Checkout Session id', access: ['anonymous'],
    query: [{ name: 'session_id', required: true, description: 'The Checkout Session id (cs_…)', schema: z.string(), example: 'cs_…' }],
    ok: { description: 'Pending, or fulfilled', contentType: 'application/json', schema: SessionStatus },
    examples: () => [
      { status: 200, description: 'Payment not confirmed yet.', body: { status: 'pending', plan: 'bundle-25' } },
      { status: 200, description: 'First answer after payment.', body: { status: 'fulfilled', kind: 'new-key', plan: 'bundle-25', key: keyExample, callsLeft: 25, revealed: true } },
      { status: 200, description: 'Every later answer.', body: { status: 'fulfilled', kind: 'new-key', plan: 'bundle-25', revealed: false, detail: 'The key for this purchase was already shown once …' } },
      { status: 200, description: 'A top-up.', body: { status: 'fulfilled', kind: 'top-up', plan: 'bundle-100', key: maskedKey, callsLeft: 124 } },
    ],
    errors: ['invalid-request', 'not-found', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/billing/account', operationId: 'getAccount', title: 'Account',
    summary: 'Calls left per grant and subscription state for a key',
    description: 'Calls left per grant with expiries, and the state of any subscription bought with the key. Signed in on this site, send an empty object: the answer is for the session\'s key.',
    price: 'free', auth: 'the credits key, in the body, or the site session', access: ['anonymous'],
    request: { contentTypes: ['application/json'], schema: KeyBody, example: { key: keyExample } },
    ok: { description: 'The key\'s grants and subscriptions', contentType: 'application/json', schema: AccountSummary },
    examples: () => [{ status: 200, description: 'The key\'s grants and subscriptions.', body: { key: maskedKey, callsLeft: 74, grants: [{ id: 'gr_…', plan: 'subscription', calls: 50, used: 1, reserved: 0, callsLeft: 49, expiresAt: '2026-12-02T12:00:00.000Z', expired: false }, { id: 'gr_…', plan: 'bundle-25', calls: 25, used: 0, reserved: 0, callsLeft: 25, expiresAt: '2027-11-01T12:00:00.000Z', expired: false }], subscriptions: [{ id: 'sub_…', status: 'active', currentPeriodEnd: '2026-12-01T12:00:00.000Z', endedAt: null }], billingPortal: true } }],
    errors: ['invalid-request', 'invalid-credits-key', 'cross-origin-refused', 'payload-too-large', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/billing/portal', operationId: 'createBillingPortalSession', title: 'Billing portal',
    summary: 'Open the Stripe billing portal of the customer who bought a key',
    description: 'Opens the Stripe billing portal of the customer who bought the key: invoices, payment method, cancel the subscription. Signed in on this site, send no key: it is the session\'s.',
    price: 'free', auth: 'the credits key, in the body, or the site session', access: ['anonymous'],
    request: { contentTypes: ['application/json', 'application/x-www-form-urlencoded'], schema: KeyBody, example: { key: keyExample } },
    ok: { description: 'JSON request: the portal address', contentType: 'application/json', schema: PortalCreated },
    redirect: { status: 303, description: 'Form post: Location is the portal' },
    examples: () => [{ status: 200, description: 'JSON request (a form post gets 303 to the same address).', body: { url: 'https://billing.stripe.com/p/session/…' } }],
    errors: ['invalid-request', 'invalid-credits-key', 'cross-origin-refused', 'not-found', 'payments-unavailable', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/billing/webhook', operationId: 'receiveStripeWebhook', title: 'Stripe webhook',
    summary: 'Stripe events (signed); for Stripe only',
    description: 'For Stripe only. Verifies Stripe-Signature over the raw body with STRIPE_WEBHOOK_SECRET and processes each event id once: checkout.session.completed, checkout.session.async_payment_succeeded, invoice.paid, customer.subscription.deleted, charge.refunded. Other event types are acknowledged and ignored.',
    price: 'free', auth: 'Stripe-Signature', access: ['stripeSignature'],
    request: { contentTypes: ['application/json'], schema: StripeEvent, headers: ['Stripe-Signature: t=…,v1=…'] },
    ok: { description: 'Accepted (processed, a replay, or an ignored type)', contentType: 'application/json', schema: WebhookAnswer },
    examples: () => [{ status: 200, description: 'Accepted (processed, a replay, or an ignored type).', body: { received: true, result: 'processed' } }],
    errors: ['invalid-request', 'invalid-signature', 'payload-too-large', 'webhook-in-progress', 'billing-unavailable', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'GET', path: '/api/health', operationId: 'health', title: 'Health',
    summary: 'Liveness, or readiness with ?ready=1 (free)',
    description:
      'Free. Without a query: liveness, answered while the server runs, checking no dependency. With ?ready=1: readiness, ' +
      'the store asked one cheap question (1.5 s deadline) and the payment rails this instance offers; 503 store-unavailable when the store does not answer.',
    price: 'free', auth: 'none', access: ['anonymous'],
    query: [{ name: 'ready', required: false, description: '1: check the store and report the live rails', schema: z.literal('1'), example: '1' }],
    ok: { description: 'Up (liveness), or ready to serve paid calls (readiness)', contentType: 'application/json', schema: z.union([Health, ReadyAnswer]) },
    examples: () => [
      { status: 200, description: 'The server is up.', body: { ok: true } },
      { status: 200, description: 'With ?ready=1: the store answered.', body: { ok: true, ready: true, store: { kind: 'redis', latencyMs: 0.6 }, rails: ['stripe', 'evm', 'x402'], prepaidCredits: true } },
    ],
    errors: ['store-unavailable'],
  },
  {
    kind: 'free', method: 'GET', path: '/api/metrics', operationId: 'metrics', title: 'Metrics (operators)',
    summary: 'Prometheus metrics of this instance (operators only)',
    description:
      'For operators. This instance\'s counters and histograms in the Prometheus text format: paid calls by operation, rail and outcome, ' +
      'check durations, 402s issued, settlement failures, store latency, fetches by outcome, process metrics. Each instance exports its own. ' +
      'Answers Authorization: Bearer <METRICS_TOKEN> only; 404 when METRICS_TOKEN is not set.',
    price: 'free', auth: 'Authorization: Bearer <METRICS_TOKEN>', access: ['metricsToken'],
    ok: { description: 'Prometheus text exposition format 0.0.4', contentType: METRICS_CONTENT_TYPE, schema: z.string().regex(/^# HELP /) },
    examples: () => [{ status: 200, description: 'Abbreviated.', body: '# HELP pac_paid_calls_total Paid calls by operation, payment rail and outcome\n# TYPE pac_paid_calls_total counter\npac_paid_calls_total{operation="createAgentReadinessAssessment",rail="credits",outcome="fulfilled"} 3' }],
    errors: ['unauthorized', 'not-found'],
  },
  {
    kind: 'free', method: 'GET', path: '/openapi.json', operationId: 'openApiDocument', title: 'OpenAPI document',
    summary: 'This OpenAPI 3.1 document (free)',
    description: 'Free. Every endpoint with its request and response schemas; the paid operations carry x-payment-info with one offer per live rail. Cached for 5 minutes.',
    price: 'free', auth: 'none', access: ['anonymous'],
    ok: { description: 'The OpenAPI 3.1 document', contentType: 'application/json', schema: OpenApiDocument },
    examples: (appUrl) => [{ status: 200, description: 'Abbreviated.', body: { openapi: '3.1.0', info: { title: 'Paid Agent Checks', version: '…' }, servers: [{ url: appUrl }], paths: { '…': {} }, components: {} } }],
    errors: [],
    llms: { section: 'Discovery and docs', label: 'OpenAPI 3.1', text: 'every endpoint, request and response schemas and x-payment-info offers' },
  },
  {
    kind: 'free', method: 'GET', path: SIGNATURES_DIRECTORY_PATH, operationId: 'signaturesDirectory', title: 'Web Bot Auth key directory',
    summary: 'The public keys this service signs its requests with (free)',
    description:
      'Free. The HTTP Message Signatures directory of Web Bot Auth: a JWKS of the Ed25519 public keys (kid = RFC 7638 thumbprint) that verify ' +
      'the signatures on the requests this service sends under its own user agent; each such request names this origin in Signature-Agent. ' +
      'The response is itself signed (tag http-message-signatures-directory). Cached for a day. 404 when the operator has set no key (WEB_BOT_AUTH_KEY): then nothing is signed.',
    price: 'free', auth: 'none', access: ['anonymous'],
    ok: {
      description: 'A JWKS of public keys',
      contentType: SIGNATURES_DIRECTORY_MEDIA_TYPE,
      schema: z.strictObject({ keys: z.array(z.strictObject({ kty: z.literal('OKP'), crv: z.literal('Ed25519'), x: z.string(), kid: z.string() })).min(1) }),
      headers: { Signature: 'The response signature (RFC 9421)', 'Signature-Input': 'Its parameters: ("@authority";req), tag="http-message-signatures-directory"' },
    },
    examples: () => [{ status: 200, description: 'One key.', body: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs', kid: 'poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U' }] } }],
    errors: ['not-found'],
    llms: { section: 'Discovery and docs', label: 'Web Bot Auth keys', text: 'the public keys that verify the Web Bot Auth signatures on the requests this service sends' },
  },
  {
    kind: 'free', method: 'GET', path: '/llms.txt', operationId: 'llmsTxt', title: 'llms.txt',
    summary: 'A summary for language models, with links (free)',
    description: 'Free. The llmstxt.org summary of this service: the paid operations, discovery documents and prepaid plans. Cached for 5 minutes.',
    price: 'free', auth: 'none', access: ['anonymous'],
    ok: { description: 'Markdown', contentType: 'text/markdown', schema: z.string().min(1) },
    examples: () => [],
    errors: [],
  },
];

/** What a prepaid 200 says it cost (lib/paid-call/http.ts); the OpenAPI 200 of each paid route names them too. */
export const PREPAID_RESPONSE_HEADERS: Record<string, string> = {
  'Credits-Remaining': 'Calls left on the credits key after this call (on a replay: left now). Only when a credits key paid.',
  Link: 'The stored report of this call: </api/reports/rep_…>; rel="related" (kept REPORT_RETENTION_DAYS, readable with the same key, or by the paying wallet with SIGN-IN-WITH-X). When a credits key or a wallet (MPP evm, x402) paid.',
};

const sessionAuth = `the ${SECURE_SESSION_COOKIE} cookie set by POST /api/session (${SESSION_COOKIE} on plain-http development)`;
const ownerAuth = `Authorization: Bearer <credits key>, ${sessionAuth}, or for a wallet that paid SIGN-IN-WITH-X: <base64 signed message> (the request sent without credentials gets a 401 whose extensions["sign-in-with-x"] is the message to sign for that method and path, with a nonce issued for it: signed as it stands, it is good for that request once, for 5 minutes)`;
const ownerAccess: Access[] = ['creditsKey', 'siteSession', 'siwx'];
const sessionCookieHeader = `Set-Cookie: ${SECURE_SESSION_COOKIE}=<opaque id>; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800; Secure (in production or behind an https APP_URL; on plain-http development ${SESSION_COOKIE}=<opaque id> without Secure)`;
const reportIdExample = 'rep_3q2mVZ0Lr8Yc1xN4T7bKpWsA9eHfJdUg';

function sessionCheckEndpoint(op: CheckEntry): FreeEndpoint {
  return {
    kind: 'free', method: 'POST', path: `/api/session/checks/${op.id}`, operationId: `session${op.operationId.charAt(0).toUpperCase()}${op.operationId.slice(1)}`,
    title: `Run from the site: ${op.service}`,
    summary: `${op.service}, paid with the signed-in key (site session)`,
    description:
      `The check behind ${op.path}, run for the signed-in site session and paid with its credits key: the same pipeline, idempotency, charge rules and answer as a Bearer call ` +
      '(Credits-Remaining and Link on the 200; a 422 charges nothing). Idempotency-Key is required: a fresh one per submission, the same one to retry it. ' +
      'A request whose Origin is another site is refused with 403.',
    price: `${PRICE_USD} USD: one prepaid call`,
    auth: sessionAuth, access: ['siteSession'],
    request: { contentTypes: ['application/json'], schema: op.input, headers: ['Content-Type: application/json', 'Idempotency-Key: <fresh per submission>', `Cookie: ${SECURE_SESSION_COOKIE}=…`], example: op.example },
    ok: { description: 'The result, as the paid REST route answers it', contentType: 'application/json', schema: op.output, headers: PREPAID_RESPONSE_HEADERS },
    // The 200 is the paid route's, shown in that route's section with its headers.
    examples: () => [],
    errors: [
      'invalid-request', 'invalid-url', 'invalid-idempotency-key', 'payload-too-large', 'not-signed-in', 'payment-required', 'credits-exhausted', 'cross-origin-refused',
      'idempotency-conflict', 'idempotency-in-flight', ...(op.workBeforeCharge ? (['site-unreachable'] as const) : []), 'rate-limited', 'credits-exhausted-no-rails', 'store-unavailable',
    ],
  };
}

const reportIdParam = { name: 'id', description: 'The report id (from the Link header, _meta.reportUrl or GET /api/reports)', schema: z.string(), example: reportIdExample };
const ShareCreated = z.strictObject({ url: z.string(), path: z.string() });
/** What GET /api/reports/{id}/har promises of HAR 1.2 (lib/outbound/har.ts writes it); the format has more members. */
const HarFile = z.looseObject({
  log: z.looseObject({
    version: z.literal('1.2'),
    creator: z.looseObject({ name: z.string(), version: z.string() }),
    pages: z.array(z.looseObject({ id: z.string(), title: z.string(), startedDateTime: z.string() })),
    entries: z.array(
      z.looseObject({
        pageref: z.string(),
        startedDateTime: z.string(),
        time: z.number(),
        request: z.looseObject({ method: z.string(), url: z.string() }),
        response: z.looseObject({ status: z.number().int(), redirectURL: z.string() }),
        _purpose: z.string(),
      }),
    ),
  }),
});

// Comparing, sharing and running again a stored report: the owner only, as for reading it.
const REPORT_ACTION_ROUTES: FreeEndpoint[] = [
  {
    kind: 'free', method: 'GET', path: '/api/reports/{id}/compare/{otherId}', operationId: 'compareReports', title: 'Compare two stored reports',
    summary: 'Two reports of one check and address: the score change and each finding fixed, new or unchanged',
    description:
      'Both reports must be the key\'s (else 404, as for GET /api/reports/{id}), of the same check and the same address or workflow (else 400). ' +
      'before is the older of the two, whichever id comes first; findings are matched by id. Reads are rate limited per client address (RATE_LIMIT_REPORTS_PER_IP).',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    pathParams: [reportIdParam, { name: 'otherId', description: 'The other report\'s id', schema: z.string(), example: 'rep_9ZkT4nQ1wX7bL0cV3mR8yH2sJ5dF6gA_' }],
    ok: { description: 'The comparison', contentType: 'application/json', schema: ReportComparison },
    examples: () => [{
      status: 200, description: 'One finding fixed since the earlier run.',
      body: {
        check: 'ai-visibility', target: 'https://example.com/',
        before: { id: 'rep_9ZkT4nQ1wX7bL0cV3mR8yH2sJ5dF6gA_', createdAt: '2026-11-20T09:00:00.000Z', score: 71, verdict: 'fair' },
        after: { id: reportIdExample, createdAt: '2026-11-23T12:00:00.000Z', score: 77, verdict: 'fair' },
        scoreChange: 6, counts: { fixed: 1, new: 0, unchanged: 1 },
        findings: [
          { id: 'llms-txt-missing', status: 'fixed', severity: 'low', title: 'No /llms.txt' },
          { id: 'meta-description-missing', status: 'unchanged', severity: 'medium', title: 'No meta description' },
        ],
      },
    }],
    errors: ['invalid-request', 'invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'not-found', 'rate-limited', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'GET', path: '/api/reports/{id}/har', operationId: 'getReportHar', title: 'A stored report\'s requests as HAR',
    summary: 'Every request the check sent (and each it did not send, and why) as a HAR 1.2 file for browser developer tools',
    description:
      'The report\'s request list (report.requests of an AI Visibility report: purpose, method, URL, user agent, status, content type, bytes, milliseconds, and who refused a request not sent) ' +
      'as a HAR 1.2 download, one entry per listed request in the order they started, each redirect hop its own entry. The same owner rule as GET /api/reports/{id} (else the same 404). ' +
      'A report that lists no requests (another check, or a visibility report from before check version 4) is a 404 saying so.',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    pathParams: [reportIdParam],
    ok: { description: 'The HAR file', contentType: 'application/json', schema: HarFile, headers: { 'Content-Disposition': 'attachment; filename="<report id>.har": a download named after the report' } },
    examples: () => [],
    errors: ['invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'not-found', 'rate-limited', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/reports/{id}/share', operationId: 'shareReport', title: 'Share a stored report',
    summary: 'A public, unguessable link to a stored report (/r/<token>)',
    description:
      'Anyone with the link sees the report, and nothing of the key or account; the page is never indexed. The token is shown only in this answer (the server keeps its hash); ' +
      'a new link replaces the earlier one, which stops working. The link lasts as long as the report. A request whose Origin is another site is refused with 403.',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    pathParams: [reportIdParam],
    ok: { description: 'The new link', contentType: 'application/json', schema: ShareCreated },
    examples: (appUrl) => [{ status: 200, description: 'Shared.', body: { url: `${appUrl}/r/shr_…`, path: '/r/shr_…' } }],
    errors: ['invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'cross-origin-refused', 'not-found', 'rate-limited', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'DELETE', path: '/api/reports/{id}/share', operationId: 'unshareReport', title: 'Stop sharing a stored report',
    summary: 'The report\'s public link stops working (404 from then on)',
    description: 'Always 204 for the owner, shared or not. A request whose Origin is another site is refused with 403.',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    pathParams: [reportIdParam],
    ok: { description: 'Revoked', contentType: 'application/json', schema: z.null(), status: 204 },
    examples: () => [{ status: 204, description: 'The link answers 404 from now on.' }],
    errors: ['invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'cross-origin-refused', 'not-found', 'rate-limited', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/reports/{id}/rerun', operationId: 'rerunReport', title: 'Run a stored report\'s check again',
    summary: 'The same check with the same input: a new paid call for the signed-in key',
    description:
      'For the site: runs the report\'s check again with the input it was made from, paid with the signed-in session\'s key exactly as POST /api/session/checks/{check} ' +
      '(one prepaid call; a fresh Idempotency-Key is required; the new report in the Link header). A Bearer client sends its own POST to the check again instead.',
    price: `${PRICE_USD} USD: one prepaid call`,
    auth: sessionAuth, access: ['siteSession'],
    pathParams: [reportIdParam],
    get ok() {
      return { description: 'The new result, as the paid REST route answers it', contentType: 'application/json', schema: z.union(checks().map((o) => o.output)), headers: PREPAID_RESPONSE_HEADERS };
    },
    examples: () => [],
    errors: [
      'invalid-request', 'invalid-idempotency-key', 'not-signed-in', 'not-found', 'credits-exhausted', 'cross-origin-refused', 'idempotency-conflict',
      'idempotency-in-flight', 'site-unreachable', 'rate-limited', 'store-unavailable',
    ],
  },
];

const SESSION_ROUTES: FreeEndpoint[] = [
  {
    kind: 'free', method: 'POST', path: '/api/session', operationId: 'signIn', title: 'Sign in (site session)',
    summary: 'Sign in on the site with a credits key: sets the session cookie',
    description:
      `For the site's pages. Checks the key and sets ${SECURE_SESSION_COOKIE} (${SESSION_COOKIE} on plain-http development): an opaque random id, never the key; the server keeps only the key\'s hash behind it. ` +
      'The session lasts 7 days from sign-in (not sliding). Sign-ins are rate limited per client address (RATE_LIMIT_SESSION_PER_IP); a request whose Origin is another site is refused with 403. ' +
      'The site\'s sign-in forms also post here as an HTML form (application/x-www-form-urlencoded: key, and return, /check or /account) when their script has not run: the answer is then 303 back to that page with the same cookie, or to the page with ?sign-in=invalid-key, missing-key, rate-limited or failed, so the key never travels in an address.',
    price: 'free', auth: 'the credits key, in the body', access: ['anonymous'],
    request: { contentTypes: ['application/json'], schema: SignInBody, example: { key: keyExample } },
    ok: { description: 'Signed in; Set-Cookie carries the session', contentType: 'application/json', schema: SessionAnswer, headers: { 'Set-Cookie': sessionCookieHeader } },
    examples: () => [{ status: 200, description: 'Signed in.', headers: { 'Set-Cookie': `${SECURE_SESSION_COOKIE}=…; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800; Secure` }, body: { signedIn: true, callsLeft: 24, keyPrefix: maskedKey } }],
    errors: ['invalid-request', 'invalid-credits-key', 'cross-origin-refused', 'payload-too-large', 'rate-limited', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'GET', path: '/api/session', operationId: 'getSession', title: 'Who is signed in',
    summary: 'The signed-in key (masked) and its calls left',
    description: 'The masked key and the calls left for the session cookie, or 401 when there is no live session (signed out, expired, or the key revoked).',
    price: 'free', auth: sessionAuth, access: ['siteSession'],
    ok: { description: 'Signed in', contentType: 'application/json', schema: SessionAnswer },
    examples: () => [{ status: 200, description: 'Signed in.', body: { signedIn: true, callsLeft: 24, keyPrefix: maskedKey } }],
    errors: ['not-signed-in', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'DELETE', path: '/api/session', operationId: 'signOut', title: 'Sign out',
    summary: 'Sign out: the session is deleted on the server and the cookie cleared',
    description: 'Deletes the session from the store at once (the cookie\'s id is worthless from then on) and clears the cookie. Answers 204 whether or not a session was there.',
    price: 'free', auth: sessionAuth, access: ['anonymous', 'siteSession'],
    ok: { description: 'Signed out; Set-Cookie clears the cookie', contentType: 'application/json', schema: z.null(), status: 204, headers: { 'Set-Cookie': `${SECURE_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure` } },
    examples: () => [{ status: 204, description: 'Signed out.', headers: { 'Set-Cookie': `${SECURE_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure` } }],
    errors: ['cross-origin-refused', 'store-unavailable'],
  },
  {
    kind: 'free', method: 'POST', path: '/api/session/rotate', operationId: 'rotateKey', title: 'Rotate the key',
    summary: 'A new key with the same grants and reports; the old key is refused at once',
    description:
      'Mints a new credits key for the signed-in one and moves to it every grant (the balance, held calls included), the stored reports and the billing records; the old key is revoked in the same step ' +
      '(a Bearer call with it answers 401). The new key is in this answer only. The session follows the new key. ' +
      `The session proves its owner: within ${RECENT_SIGN_IN_MS / 60_000} minutes of signing in the body may be empty; later it must carry the current key ({ "key": "pac_live_…" }), ` +
      'or the answer is 403 current-key-required and nothing changes. A request whose Origin is another site is refused with 403.',
    price: 'free', access: ['siteSession'], auth: `${sessionAuth}; after ${RECENT_SIGN_IN_MS / 60_000} minutes, also the current key in the body`,
    request: { contentTypes: ['application/json'], schema: RotateBody, example: { key: keyExample } },
    ok: { description: 'The new key, shown this once', contentType: 'application/json', schema: RotatedKey },
    examples: () => [{ status: 200, description: 'The new key, shown this once.', body: { key: keyExample, keyPrefix: maskedKey, callsLeft: 24 } }],
    errors: ['invalid-request', 'not-signed-in', 'invalid-credits-key', 'current-key-required', 'cross-origin-refused', 'payload-too-large', 'store-unavailable'],
  },
];

const REPORT_ROUTES: FreeEndpoint[] = [
  {
    kind: 'free', method: 'GET', path: '/api/reports', operationId: 'listReports', title: 'Stored reports',
    summary: 'The key\'s stored reports, newest first (paginated)',
    description:
      'Every fulfilled call paid with a credits key (site, REST or MCP) or a wallet (MPP evm, x402) keeps its 200 body for REPORT_RETENTION_DAYS (30 by default). This lists the key\'s or the wallet\'s reports, newest first (creditsUsage for a key, paymentReference, the transaction, for a wallet): ' +
      'target is the checked URL (visibility) or the workflow\'s name (readiness), score the report\'s score. Pass nextCursor as cursor for the next page (null: no more). Reads are rate limited per client address (RATE_LIMIT_REPORTS_PER_IP).',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    query: [
      { name: 'limit', required: false, description: `Reports per page, 1-${REPORT_PAGE_MAX} (default 20)`, schema: z.string(), example: '20' },
      { name: 'cursor', required: false, description: 'nextCursor of the previous page', schema: z.string(), example: '…' },
      { name: 'check', required: false, description: `Only this check's reports: ${checks().map((c) => c.id).join(' or ')}`, schema: z.string(), example: 'ai-visibility' },
    ],
    ok: { description: 'One page of reports', contentType: 'application/json', schema: ReportList },
    examples: () => [{
      status: 200, description: 'One page.',
      body: { reports: [{ id: reportIdExample, check: 'ai-visibility', createdAt: '2026-11-23T12:00:00.000Z', creditsUsage: 'cu_…', target: 'https://example.com/', score: 77, verdict: 'fair' }], nextCursor: null },
    }],
    errors: ['invalid-request', 'invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'rate-limited', 'store-unavailable'],
    llms: { section: 'Prepaid credits', label: 'Stored reports', text: 'with Authorization: Bearer <key> (or a wallet that paid: SIGN-IN-WITH-X), the paid results of the last 30 days, newest first; GET /api/reports/{id} returns one' },
  },
  {
    kind: 'free', method: 'GET', path: '/api/reports/{id}', operationId: 'getReport', title: 'One stored report',
    summary: 'A stored report: the 200 body of a paid call, to the key that paid for it',
    description: 'The 200 body exactly as the paid call answered it. Only the key that paid for it (or its session), or the wallet that paid for it (SIGN-IN-WITH-X), may read it: any other key or wallet, and an unknown or expired id, get the same 404. Reads are rate limited per client address (RATE_LIMIT_REPORTS_PER_IP).',
    price: 'free', auth: ownerAuth, access: ownerAccess,
    pathParams: [{ name: 'id', description: 'The report id (from the Link header, _meta.reportUrl or GET /api/reports)', schema: z.string(), example: reportIdExample }],
    get ok() {
      return { description: 'The stored 200 body of a paid check', contentType: 'application/json', schema: z.union(checks().map((o) => o.output)) };
    },
    // The body is a paid route's 200, shown in that route's section.
    examples: () => [],
    errors: ['invalid-credits-key', 'not-signed-in', 'wallet-sign-in-refused', 'not-found', 'rate-limited', 'store-unavailable'],
  },
  ...REPORT_ACTION_ROUTES,
];

/**
 * Every endpoint, in the order the docs page shows them: each paid POST and its free GET, then the free routes.
 * Read from the checks' registry each time, so a check registered after load is listed like the built-in ones.
 * @example endpoints().filter((e) => e.kind === 'paid').map((e) => e.path) // ['/api/agent/readiness', '/api/agent/ai-visibility']
 */
export function endpoints(): readonly Endpoint[] {
  return [
    ...checks().flatMap((operation): Endpoint[] => [{ kind: 'paid', method: 'POST', path: operation.path, operation }, describeEndpoint(operation)]),
    ...FREE_ROUTES,
    ...SESSION_ROUTES,
    ...checks().map(sessionCheckEndpoint),
    ...REPORT_ROUTES,
  ];
}
