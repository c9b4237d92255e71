import { z } from 'zod';
import type { CheckEntry } from '@/lib/checks/entry';
import { endpoints, type ExampleResponse, type FreeEndpoint, type HttpMethod } from '@/lib/endpoints';
import { PRICE_USD } from '@/lib/price';
import { PROBLEMS, PROBLEM_BASE, type ProblemKind } from '@/lib/problems';

// Everything the docs and home pages state about the API is derived here from the code that implements
// it: the endpoint registry (lib/endpoints.ts), the problem table, the plans and the rubrics. The
// operations' examples are validated against the operation's own schema below, so an example the API
// would refuse fails the build instead of misleading a reader.

export interface EndpointDoc {
  anchor: string;
  method: HttpMethod;
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
  'credits-exhausted-no-rails', 'store-unavailable', 'shutting-down',
];

const FIXED_NOW = new Date('2026-11-01T12:00:00.000Z');

async function paidEndpoint(op: CheckEntry): Promise<EndpointDoc> {
  const example: unknown = op.example;
  const parsed = op.input.safeParse(example);
  if (!parsed.success) throw new Error(`docs example for ${op.operationId} does not match its schema: ${parsed.error.message}`);
  const responses: ExampleResponse[] = [];
  if (!op.workBeforeCharge) {
    // Deterministic operations run for real, so the example is exactly what the API returns.
    const result = await op.run(parsed.data, { signal: AbortSignal.timeout(5_000), now: FIXED_NOW });
    responses.push({
      status: 200,
      description: 'Paid with a prepaid key. A call paid over HTTP 402 carries Payment-Receipt or PAYMENT-RESPONSE, and its body names the payment instead of the prepaid call it spent.',
      body: { service: op.service, idempotencyKey: 'order-0001', creditsUsage: 'cu_…', ...result },
    });
  } else {
    responses.push({ status: 200, description: 'The result; its members are described by the response schema below.' });
  }
  responses.push({
    status: 402,
    description: 'No payment: the challenges. WWW-Authenticate carries the MPP card and evm challenges; PAYMENT-REQUIRED the x402 offer.',
    headers: { 'WWW-Authenticate': 'Payment id="…", realm="…", method="stripe", intent="charge", request="…", expires="…", opaque="…", Payment id="…", method="evm", …', 'PAYMENT-REQUIRED': '<base64 JSON: x402Version 2, accepts[…], resource>' },
    body: { type: `${PROBLEM_BASE}payment-required`, title: PROBLEMS['payment-required'].title, status: 402, detail: `This request costs ${PRICE_USD} USD.` },
  });
  const errors = [...PAID_ERRORS];
  if (op.workBeforeCharge) errors.splice(1, 0, 'invalid-url', 'site-unreachable');
  return {
    anchor: `op-${op.operationId}`,
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

function freeEndpointDoc(endpoint: FreeEndpoint, appUrl: string): EndpointDoc {
  const { request, query } = endpoint;
  const errors = [...endpoint.errors];
  return {
    anchor: endpoint.operationId,
    method: endpoint.method,
    path: query ? `${endpoint.path}?${query.map((q) => `${q.name}=${q.example}`).join('&')}` : endpoint.path,
    title: endpoint.title,
    summary: endpoint.refusedMethods?.length
      ? `${endpoint.description} ${endpoint.refusedMethods.join(' and ')} answer 405.`
      : endpoint.description,
    price: endpoint.price,
    auth: endpoint.auth,
    ...(request?.headers ? { requestHeaders: request.headers } : {}),
    ...(request ? { requestContentType: request.contentTypes.join(' or ') } : {}),
    ...(request?.example !== undefined ? { requestBody: request.example } : {}),
    ...(request ? { inputSchema: z.toJSONSchema(request.schema, { io: 'input', unrepresentable: 'any' }) } : {}),
    outputSchema: z.toJSONSchema(endpoint.ok.schema, { unrepresentable: 'any' }),
    responses: endpoint.examples(appUrl).map(({ abbreviate: shorten, ...example }) => (shorten ? { ...example, body: abbreviate(example.body) } : example)),
    errors,
  };
}

/**
 * One section of the docs page's API reference per registry entry, in registry order.
 * @example (await endpointDocs('https://checks.example')).map((d) => `${d.method} ${d.path}`)
 */
export async function endpointDocs(appUrl: string): Promise<EndpointDoc[]> {
  const docs: EndpointDoc[] = [];
  for (const endpoint of endpoints()) docs.push(endpoint.kind === 'paid' ? await paidEndpoint(endpoint.operation) : freeEndpointDoc(endpoint, appUrl));
  return docs;
}

export function problemTable() {
  return (Object.entries(PROBLEMS) as Array<[ProblemKind, { status: number; title: string }]>)
    .map(([kind, p]) => ({ kind, type: PROBLEM_BASE + kind, status: p.status, title: p.title }))
    .sort((a, b) => a.status - b.status);
}

/** Shortens deep or long values so an example shows the shape without pages of rubric. */
function abbreviate(value: unknown, depth = 0): unknown {
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
