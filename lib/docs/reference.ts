import { z } from 'zod';
import { OPERATIONS, PRICE_USD, readinessOperation, type PaidOperation } from '@/lib/operations';
import { PROBLEMS, PROBLEM_BASE, type ProblemKind } from '@/lib/http/problem';
import { ReadinessRequest } from '@/lib/checks/readiness/schema';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { planList } from '@/lib/http/describe';
import { PLANS } from '@/lib/credits/plans';

// Everything the docs and home pages state about the API is derived here from the code that implements
// it: the operations registry, the problem table, the plans and the rubrics. The only hand-written parts
// are the billing examples; the operations' examples live in the registry and are validated against the
// operation's own schema below, so an example the API would refuse fails the build instead of misleading a reader.

export const EXAMPLE_READINESS_REQUEST: ReadinessRequest = ReadinessRequest.parse(readinessOperation.example);

export function exampleAssessment() {
  return assessReadiness(EXAMPLE_READINESS_REQUEST);
}

export interface ExampleResponse {
  status: number;
  description: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface EndpointDoc {
  anchor: string;
  method: 'GET' | 'POST';
  path: string;
  title: string;
  summary: string;
  price: string;
  auth: string;
  requestHeaders?: string[];
  requestBody?: unknown;
  requestContentType?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  responses: ExampleResponse[];
  errors: ProblemKind[];
}

const PAID_ERRORS: ProblemKind[] = [
  'invalid-request', 'invalid-idempotency-key', 'payload-too-large', 'invalid-credits-key', 'payment-required', 'payment-failed',
  'credits-exhausted', 'idempotency-conflict', 'idempotency-in-flight', 'rate-limited', 'payments-unavailable',
  'credits-exhausted-no-rails', 'store-unavailable',
];

const FIXED_NOW = new Date('2026-11-01T12:00:00.000Z');

async function paidEndpoint(op: PaidOperation): Promise<EndpointDoc> {
  const example: unknown = op.example;
  const parsed = op.input.safeParse(example);
  if (!parsed.success) throw new Error(`docs example for ${op.id} does not match its schema: ${parsed.error.message}`);
  const responses: ExampleResponse[] = [];
  if (!op.workBeforeCharge) {
    // Deterministic operations run for real, so the example is exactly what the API returns.
    const result = await op.run(parsed.data, { signal: AbortSignal.timeout(5_000), now: FIXED_NOW });
    responses.push({
      status: 200,
      description: 'Paid with a prepaid key (a 402-paid call carries Payment-Receipt or PAYMENT-RESPONSE and paymentIntent instead of creditsUsage).',
      body: { service: op.service, idempotencyKey: 'order-0001', creditsUsage: 'cu_…', ...result },
    });
  } else {
    responses.push({ status: 200, description: 'The result; its members are described by the response schema below.' });
  }
  responses.push({
    status: 402,
    description: 'No payment: the challenges. WWW-Authenticate carries the MPP card and evm challenges; PAYMENT-REQUIRED the x402 offer.',
    headers: { 'WWW-Authenticate': 'Payment id="…", realm="…", method="stripe", intent="charge", request="…", expires="…", Payment id="…", method="evm", …', 'PAYMENT-REQUIRED': '<base64 JSON: x402Version 2, accepts[…], resource>' },
    body: { type: `${PROBLEM_BASE}payment-required`, title: PROBLEMS['payment-required'].title, status: 402, detail: `This request costs ${PRICE_USD} USD.` },
  });
  const errors = [...PAID_ERRORS];
  if (op.workBeforeCharge) errors.splice(1, 0, 'invalid-url', 'site-unreachable');
  return {
    anchor: `op-${op.id}`,
    method: 'POST',
    path: op.path,
    title: op.service,
    summary: op.description,
    price: `${PRICE_USD} USD per fulfilled request${op.workBeforeCharge ? '; nothing is charged when the check fails' : ''}`,
    auth: 'Authorization: Bearer <credits key>, Authorization: Payment <MPP credential>, or PAYMENT-SIGNATURE / X-PAYMENT <x402 payload>; none answers 402',
    requestHeaders: ['Content-Type: application/json', 'Idempotency-Key: <8-128 characters> (optional; same key and body replay the result free)'],
    requestBody: example,
    requestContentType: 'application/json',
    inputSchema: z.toJSONSchema(op.input),
    outputSchema: z.toJSONSchema(op.output, { unrepresentable: 'any' }),
    responses,
    errors,
  };
}

function describeEndpoint(op: PaidOperation): EndpointDoc {
  return {
    anchor: `get-${op.id}`,
    method: 'GET',
    path: op.path,
    title: `Describe: ${op.service}`,
    summary: 'Free. What the check does, its price and live payment rails, its rubric and its limits.',
    price: 'free',
    auth: 'none',
    responses: [{
      status: 200,
      description: 'Cached for 5 minutes.',
      body: abbreviate({ operationId: op.id, service: op.service, description: op.description, method: 'POST', path: op.path, mcpTool: op.toolName, price: { amount: PRICE_USD, currency: 'USD', cents: 100, per: 'fulfilled request' }, payment: { rails: ['…'], prepaid: { header: 'Authorization: Bearer <credits key>', plans: '/api/agent/credits' } }, ...op.describe() }),
    }],
    errors: [],
  };
}

export async function endpointDocs(appUrl: string): Promise<EndpointDoc[]> {
  const docs: EndpointDoc[] = [];
  for (const op of OPERATIONS) docs.push(await paidEndpoint(op), describeEndpoint(op));
  const plans = planList(appUrl);
  docs.push(
    {
      anchor: 'credits', method: 'GET', path: '/api/agent/credits', title: 'Plans and calls left',
      summary: 'Free. Without Authorization: the prepaid plans and where to buy them. With Authorization: Bearer <key>: the calls left on that key, per grant.',
      price: 'free', auth: 'optional Bearer credits key',
      responses: [
        { status: 200, description: 'Without a key.', body: { plans: plans.slice(0, 1).concat([{ ...plans[1], description: '…' }]), pricePerCall: { amount: PRICE_USD, currency: 'USD' } } },
        { status: 200, description: 'With a key.', body: { key: 'pac_live_…a1B2', callsLeft: 24, grants: [{ id: 'gr_…', plan: 'bundle-25', calls: 25, used: 1, reserved: 0, callsLeft: 24, expiresAt: '2027-11-01T12:00:00.000Z', expired: false }] } },
      ],
      errors: ['invalid-credits-key', 'store-unavailable'],
    },
    {
      anchor: 'mcp', method: 'POST', path: '/api/mcp', title: 'MCP tools',
      summary: `MCP Streamable HTTP (stateless JSON-RPC). Tools: ${OPERATIONS.map((o) => o.toolName).join(', ')} (paid, ${PRICE_USD} USD each or one prepaid call) and list_paid_services (free). An unpaid paid-tool call answers JSON-RPC error -32042 carrying the payment challenge; the client retries with its credential in the request's _meta.`,
      price: `${PRICE_USD} USD per paid tool call`, auth: 'credential in params._meta["org.paymentauth/credential"], or Authorization: Bearer <credits key> on the HTTP request',
      requestContentType: 'application/json',
      requestHeaders: ['Content-Type: application/json', 'Accept: application/json, text/event-stream'],
      requestBody: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: readinessOperation.toolName, arguments: EXAMPLE_READINESS_REQUEST, _meta: { idempotencyKey: 'order-0001' } } },
      responses: [{ status: 200, description: 'Unpaid: a JSON-RPC error with the challenge.', body: { jsonrpc: '2.0', id: 1, error: { code: -32042, message: 'Payment required', data: { challenges: ['…'] } } } }],
      errors: [],
    },
    {
      anchor: 'billing-checkout', method: 'POST', path: '/api/billing/checkout', title: 'Buy a plan (Stripe Checkout)',
      summary: 'Creates a Stripe Checkout Session for a plan: a one-time payment for a bundle, a monthly subscription for the monthly plan. For a top-up, send your key in the body: it is checked here and never sent to Stripe or put in a URL. A form post gets 303 to the checkout page; JSON gets the address.',
      price: 'the plan\'s price, paid on the checkout page', auth: 'none (a top-up names its key in the body)',
      requestContentType: 'application/json or application/x-www-form-urlencoded',
      requestBody: { plan: PLANS[0].id, topUp: true, key: 'pac_live_…' },
      responses: [
        { status: 200, description: 'JSON request.', body: { url: 'https://checkout.stripe.com/c/pay/cs_…', sessionId: 'cs_…' } },
        { status: 303, description: 'Form post.', headers: { Location: 'https://checkout.stripe.com/c/pay/cs_…' } },
      ],
      errors: ['invalid-request', 'invalid-credits-key', 'payload-too-large', 'payments-unavailable', 'store-unavailable'],
    },
    {
      anchor: 'billing-session', method: 'GET', path: '/api/billing/session?session_id=cs_…', title: 'Purchase status',
      summary: 'Polled by the purchase success page. A new key is in the first answer after payment only; later answers say it was shown. A top-up answers the key\'s new balance.',
      price: 'free', auth: 'the Checkout Session id',
      responses: [
        { status: 200, description: 'Payment not confirmed yet.', body: { status: 'pending', plan: 'bundle-25' } },
        { status: 200, description: 'First answer after payment.', body: { status: 'fulfilled', kind: 'new-key', plan: 'bundle-25', key: 'pac_live_…', callsLeft: 25, revealed: true } },
        { status: 200, description: 'Every later answer.', body: { status: 'fulfilled', kind: 'new-key', plan: 'bundle-25', revealed: false, detail: 'The key for this purchase was already shown once …' } },
        { status: 200, description: 'A top-up.', body: { status: 'fulfilled', kind: 'top-up', plan: 'bundle-100', key: 'pac_live_…a1B2', callsLeft: 124 } },
      ],
      errors: ['invalid-request', 'not-found', 'store-unavailable'],
    },
    {
      anchor: 'billing-account', method: 'POST', path: '/api/billing/account', title: 'Account',
      summary: 'Calls left per grant with expiries, and the state of any subscription bought with the key.',
      price: 'free', auth: 'the credits key, in the body', requestContentType: 'application/json',
      requestBody: { key: 'pac_live_…' },
      responses: [{ status: 200, description: 'The key\'s grants and subscriptions.', body: { key: 'pac_live_…a1B2', callsLeft: 74, grants: [{ id: 'gr_…', plan: 'subscription', calls: 50, used: 1, reserved: 0, callsLeft: 49, expiresAt: '2026-12-02T12:00:00.000Z', expired: false }, { id: 'gr_…', plan: 'bundle-25', calls: 25, used: 0, reserved: 0, callsLeft: 25, expiresAt: '2027-11-01T12:00:00.000Z', expired: false }], subscriptions: [{ id: 'sub_…', status: 'active', currentPeriodEnd: '2026-12-01T12:00:00.000Z', endedAt: null }], billingPortal: true } }],
      errors: ['invalid-request', 'invalid-credits-key', 'payload-too-large', 'store-unavailable'],
    },
    {
      anchor: 'billing-portal', method: 'POST', path: '/api/billing/portal', title: 'Billing portal',
      summary: 'Opens the Stripe billing portal of the customer who bought the key: invoices, payment method, cancel the subscription.',
      price: 'free', auth: 'the credits key, in the body', requestContentType: 'application/json or application/x-www-form-urlencoded',
      requestBody: { key: 'pac_live_…' },
      responses: [{ status: 200, description: 'JSON request (a form post gets 303 to the same address).', body: { url: 'https://billing.stripe.com/p/session/…' } }],
      errors: ['invalid-request', 'invalid-credits-key', 'not-found', 'payments-unavailable', 'store-unavailable'],
    },
    {
      anchor: 'billing-webhook', method: 'POST', path: '/api/billing/webhook', title: 'Stripe webhook',
      summary: 'For Stripe only. Verifies Stripe-Signature over the raw body with STRIPE_WEBHOOK_SECRET and processes each event id once: checkout.session.completed, checkout.session.async_payment_succeeded, invoice.paid, customer.subscription.deleted, charge.refunded. Other event types are acknowledged and ignored.',
      price: 'free', auth: 'Stripe-Signature', requestContentType: 'application/json',
      responses: [{ status: 200, description: 'Accepted (processed, a replay, or an ignored type).', body: { received: true, result: 'processed' } }],
      errors: ['invalid-request', 'payload-too-large', 'webhook-in-progress', 'payments-unavailable', 'store-unavailable'],
    },
  );
  return docs;
}

export function problemTable() {
  return (Object.entries(PROBLEMS) as Array<[ProblemKind, { status: number; title: string }]>)
    .map(([kind, p]) => ({ kind, type: PROBLEM_BASE + kind, status: p.status, title: p.title }))
    .sort((a, b) => a.status - b.status);
}

/** Shortens deep or long values so an example shows the shape without pages of rubric. */
export function abbreviate(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) {
    if (depth >= 2) return value.length ? ['…'] : [];
    const head = value.slice(0, 2).map((v) => abbreviate(v, depth + 1));
    return value.length > 2 ? [...head, `… ${value.length - 2} more`] : head;
  }
  if (typeof value === 'object' && value !== null) {
    if (depth >= 3) return '{…}';
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, abbreviate(v, depth + 1)]));
  }
  if (typeof value === 'string' && value.length > 160) return value.slice(0, 157) + '…';
  return value;
}
