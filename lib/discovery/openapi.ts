import { z } from 'zod';
import type { CheckEntry } from '@/lib/checks/entry';
import { endpoints, PREPAID_RESPONSE_HEADERS, type Credential, type FreeEndpoint } from '@/lib/endpoints';
import { PRICE_CENTS, PRICE_USD, PRICE_USDC, PRICE_USDC_UNITS } from '@/lib/price';
import { checks, checkServicesInWords } from '@/lib/checks/registry';
import { PROBLEMS, PROBLEM_BASE, PROBLEM_MEDIA_TYPE, type ProblemKind } from '@/lib/problems';
import { IDEMPOTENCY_KEY_PATTERN } from '@/lib/paid-call/pipeline';
import { SECURE_SESSION_COOKIE, SESSION_COOKIE } from '@/lib/session';
import { SIWX_HEADER } from '@/lib/session/wallet';

// The OpenAPI 3.1 document, generated from the endpoint registry (lib/endpoints.ts) so it cannot
// drift from the routes. Each paid operation carries `x-payment-info` with one offer per live rail, which is
// what `mppx discover validate` and `mppx validate` read, and beside the offers the same terms in the shape
// the x402 directories read (x402scan, mppscan, AgentCash, through @agentcash/discovery): `price` and
// `protocols`. Those directories also read each operation's `security` to tell a paid route from a free or a
// signed-in one, so every operation declares it, `[]` for a public one; and `info.contact.email` is how
// they reach the operator. `info.x-guidance` tells an agent how to call us.

const INTERFACE_VERSION = '1.0.0';
const USDC_UNITS = String(PRICE_USDC_UNITS);

export interface DiscoveryContext {
  appUrl: string;
  rails: string[];
  usdcAddress: string;
}

/** What the OpenAPI document needs beyond the other discovery documents: where to write to the operator. */
interface OpenApiContext extends DiscoveryContext {
  contactEmail: string;
}

function paymentOffers(ctx: DiscoveryContext) {
  const offers: Array<Record<string, string>> = [];
  if (ctx.rails.includes('stripe')) {
    offers.push({ method: 'stripe', intent: 'charge', amount: String(PRICE_CENTS), currency: 'usd', description: `${PRICE_USD} USD by card or Link (shared payment token)` });
  }
  if (ctx.rails.includes('evm')) {
    offers.push({ method: 'evm', intent: 'charge', amount: USDC_UNITS, currency: ctx.usdcAddress, description: `${PRICE_USDC} on Base (chain 8453)` });
  }
  if (ctx.rails.includes('x402')) {
    offers.push({ method: 'x402', intent: 'exact', amount: USDC_UNITS, currency: ctx.usdcAddress, network: 'eip155:8453', description: `${PRICE_USDC} on Base over x402 v2 (PAYMENT-SIGNATURE)` });
  }
  return offers;
}

/**
 * The price and the protocols that take it, in the directories' shape: one fixed price in USD; `x402` when the
 * x402 rail is live, one `mpp` entry per live MPP method (its currency as the offer names it).
 */
function directoryPaymentInfo(offers: Array<Record<string, string>>) {
  const protocols = offers.map((offer): Record<string, Record<string, string>> =>
    offer.method === 'x402' ? { x402: {} } : { mpp: { method: offer.method, intent: offer.intent, currency: offer.currency } },
  );
  return { price: { mode: 'fixed', currency: 'USD', amount: PRICE_USD }, protocols };
}

/**
 * How an agent should call us, in a few sentences: the directories show it (OpenAPI `info.x-guidance`).
 * @example callGuidance().startsWith('POST') // true
 */
export function callGuidance(): string {
  return (
    `POST the JSON body of a paid operation without payment: the 402 carries the terms (${PRICE_USD} USD) in WWW-Authenticate (MPP: card, or USDC on Base) ` +
    'and PAYMENT-REQUIRED (x402 v2: USDC on Base). Retry the same request with Authorization: Payment <credential>, PAYMENT-SIGNATURE (or X-PAYMENT), ' +
    'or Authorization: Bearer <prepaid credits key>. Send an Idempotency-Key so a retry never pays twice: the same key and body return the stored answer. ' +
    'A check that fails (422) charges nothing. A wallet that paid reads its reports later at GET /api/reports with a SIGN-IN-WITH-X header. ' +
    'GET on a paid path describes it for free; /llms.txt summarises everything.'
  );
}

const problemRef = { $ref: '#/components/schemas/Problem' };
const problemResponse = (description: string) => ({ description, content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef } } });

function paidOperation(op: CheckEntry, ctx: DiscoveryContext) {
  const offers = paymentOffers(ctx);
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${op.description}\n\nPrice: ${PRICE_USD} USD per fulfilled request. Pay over HTTP 402 (the challenge is in WWW-Authenticate and PAYMENT-REQUIRED) or send a prepaid credits key as Authorization: Bearer. MCP tool: ${op.toolName}.`,
    tags: ['paid'],
    security: [{}, { creditsKey: [] }],
    parameters: [
      {
        name: 'Idempotency-Key', in: 'header', required: false,
        description: 'Same key and body replays the paid result without a second charge (Idempotent-Replayed: true); a different body is refused with 409. Kept 24 hours.',
        schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source, minLength: 8, maxLength: 128 },
      },
    ],
    requestBody: { required: true, content: { 'application/json': { schema: inlineDefs(z.toJSONSchema(op.input, { target: 'draft-2020-12' }) as Record<string, unknown>), example: op.example } } },
    responses: {
      '200': {
        description: 'The result. Payment-Receipt (MPP) or PAYMENT-RESPONSE (x402) on a paid response; Idempotent-Replayed: true on a replay.',
        headers: {
          'Payment-Receipt': { schema: { type: 'string' }, description: 'MPP receipt' },
          'PAYMENT-RESPONSE': { schema: { type: 'string' }, description: 'x402 settlement response (base64 JSON)' },
          'Idempotent-Replayed': { schema: { type: 'string', enum: ['true'] } },
          ...Object.fromEntries(Object.entries(PREPAID_RESPONSE_HEADERS).map(([name, description]) => [name, { schema: { type: 'string' }, description }])),
        },
        content: { 'application/json': { schema: jsonSchema(op.output, 'output') } },
      },
      '400': problemResponse('Invalid body, address or Idempotency-Key; no challenge is issued'),
      '401': problemResponse('The Bearer key is not a valid credits key'),
      '402': {
        description: 'Payment required: WWW-Authenticate carries the MPP challenges, PAYMENT-REQUIRED the x402 terms',
        headers: {
          'WWW-Authenticate': { schema: { type: 'string' } },
          'PAYMENT-REQUIRED': { schema: { type: 'string' }, description: 'base64 JSON, x402Version 2' },
        },
        content: { [PROBLEM_MEDIA_TYPE]: { schema: problemRef } },
      },
      '409': problemResponse('Idempotency-Key already used for a different request, or still in flight'),
      ...(op.workBeforeCharge ? { '422': problemResponse('The site could not be checked; nothing charged') } : {}),
      '429': problemResponse('Rate limited; see Retry-After'),
      '503': problemResponse('Machine payments not available right now; nothing charged'),
    },
    ...(offers.length ? { 'x-payment-info': { offers, ...directoryPaymentInfo(offers) } } : {}),
  };
}

/** A zod schema as JSON Schema 2020-12, without `$schema` (the document's dialect already says it). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output') {
  const generated = inlineDefs(z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>);
  delete generated.$schema;
  return generated;
}

/**
 * A schema with its `$defs` written in place. Readers of an OpenAPI document resolve every `$ref` from the
 * document's root, where the `#/$defs/…` zod emits for a recursive schema (a JSON value) names nothing; a
 * definition's reference to itself becomes `{}`, any value, one level down.
 */
function inlineDefs(schema: Record<string, unknown>): Record<string, unknown> {
  const { $defs, ...rest } = schema as { $defs?: Record<string, unknown> };
  if (!$defs) return schema;
  const walk = (node: unknown, open: ReadonlySet<string>): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, open));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...members } = node as Record<string, unknown>;
    const here = Object.fromEntries(Object.entries(members).map(([k, v]) => [k, walk(v, open)]));
    const name = typeof $ref === 'string' && $ref.startsWith('#/$defs/') ? $ref.slice('#/$defs/'.length) : null;
    if (name === null) return $ref === undefined ? here : { $ref, ...here };
    if (open.has(name) || !($defs[name] && typeof $defs[name] === 'object')) return here;
    return { ...(walk($defs[name], new Set([...open, name])) as Record<string, unknown>), ...here };
  };
  return walk(rest, new Set()) as Record<string, unknown>;
}

/** The problem responses of an endpoint, one per status, described by the titles of its kinds. */
function errorResponses(kinds: readonly ProblemKind[]) {
  const byStatus = new Map<number, string[]>();
  for (const kind of kinds) byStatus.set(PROBLEMS[kind].status, [...(byStatus.get(PROBLEMS[kind].status) ?? []), PROBLEMS[kind].title]);
  return Object.fromEntries([...byStatus].sort(([a], [b]) => a - b).map(([status, titles]) => [String(status), problemResponse(titles.join('; '))]));
}

function freeOperation(endpoint: FreeEndpoint) {
  const { request, query, redirect, pathParams, ok } = endpoint;
  const parameters = [
    ...(pathParams ?? []).map((p) => ({ name: p.name, in: 'path', required: true, description: p.description, schema: jsonSchema(p.schema, 'input') })),
    ...(query ?? []).map((q) => ({ name: q.name, in: 'query', required: q.required, description: q.description, schema: jsonSchema(q.schema, 'input') })),
  ];
  const okHeaders = ok.headers ? { headers: Object.fromEntries(Object.entries(ok.headers).map(([name, description]) => [name, { schema: { type: 'string' }, description }])) } : {};
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description,
    tags: ['free'],
    security: security(endpoint.access),
    ...(parameters.length ? { parameters } : {}),
    ...(request ? {
      requestBody: {
        required: true,
        content: Object.fromEntries(request.contentTypes.map((type) => [type, { schema: jsonSchema(request.schema, 'input'), ...(request.example !== undefined ? { example: request.example } : {}) }])),
      },
    } : {}),
    responses: {
      ...(ok.status === 204
        ? { '204': { description: ok.description, ...okHeaders } }
        : { '200': { description: ok.description, ...okHeaders, content: { [ok.contentType]: { schema: jsonSchema(ok.schema, 'output') } } } }),
      ...(redirect ? { [String(redirect.status)]: { description: redirect.description, headers: { Location: { schema: { type: 'string' } } } } } : {}),
      ...errorResponses(endpoint.errors),
    },
  };
}

/** An endpoint's access as OpenAPI `security`: `[]` for a public one (how the directories read "no credential"). */
function security(access: FreeEndpoint['access']) {
  if (access.every((a) => a === 'anonymous')) return [];
  return access.map((a) => (a === 'anonymous' ? {} : { [a]: [] }));
}

/**
 * The credentials the routes read, as OpenAPI security schemes. Each is an `apiKey` scheme naming the header or
 * cookie it travels in: that is the type the directories count as a credential (an `http` bearer scheme counts as
 * none there, and its operations as undeclared), so a Bearer token's description gives its value's form.
 */
const SECURITY_SCHEMES: Record<Credential, Record<string, string>> = {
  creditsKey: {
    type: 'apiKey', in: 'header', name: 'Authorization',
    description: 'A prepaid credits key, sent as Authorization: Bearer pac_live_…. On a paid operation it is the other way to pay: one prepaid call instead of a payment.',
  },
  siteSession: {
    type: 'apiKey', in: 'cookie', name: SECURE_SESSION_COOKIE,
    description: `The site's session, set by POST /api/session (${SESSION_COOKIE} on plain-http development): for the site's own pages.`,
  },
  siwx: {
    type: 'apiKey', in: 'header', name: SIWX_HEADER, 'x-agentcash-auth-kind': 'siwx',
    description:
      'x402 sign-in-with-x: a SIWE message signed by the wallet that paid, base64 JSON. Send the request without credentials: its 401 offers, in extensions["sign-in-with-x"], ' +
      'the message for that method and path (uri and resources the request\'s URL, statement "<what it does>: <METHOD> <path>") with a nonce issued for it. Sign it as it stands: good for that request once, for 5 minutes.',
  },
  metricsToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'For operators: Authorization: Bearer <METRICS_TOKEN>.' },
  stripeSignature: { type: 'apiKey', in: 'header', name: 'Stripe-Signature', description: 'Stripe\'s signature over the raw body (t=…,v1=…), checked with STRIPE_WEBHOOK_SECRET.' },
};

/** A method the route answers only with 405, so a client reading the document knows not to use it. */
function refusedOperation(endpoint: FreeEndpoint, method: string) {
  return {
    operationId: `${endpoint.operationId}${method.charAt(0)}${method.slice(1).toLowerCase()}`,
    summary: `Not supported: send ${endpoint.method}`,
    tags: ['free'],
    security: [],
    responses: errorResponses(['method-not-allowed']),
  };
}

/**
 * The OpenAPI 3.1 document: one operation per registry entry (lib/endpoints.ts), with its real schemas.
 * @example openApiDocument({ appUrl: 'https://checks.example', rails: ['evm'], usdcAddress: BASE_USDC_ADDRESS, contactEmail: 'support@checks.example' })
 */
export function openApiDocument(ctx: OpenApiContext) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const endpoint of endpoints()) {
    const item = (paths[endpoint.path] ??= {});
    if (endpoint.kind === 'paid') {
      item.post = paidOperation(endpoint.operation, ctx);
      continue;
    }
    item[endpoint.method.toLowerCase()] = freeOperation(endpoint);
    for (const method of endpoint.refusedMethods ?? []) item[method.toLowerCase()] = refusedOperation(endpoint, method);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Paid Agent Checks',
      version: INTERFACE_VERSION,
      description: `${checkServicesInWords({ articles: false })} at ${PRICE_USD} USD per fulfilled request, over HTTP 402 (MPP card, MPP evm, x402 v2) or prepaid credits keys.`,
      'x-guidance': callGuidance(),
      contact: { email: ctx.contactEmail },
    },
    servers: [{ url: ctx.appUrl }],
    'x-agentcash-guidance': { llmsTxtUrl: new URL('/llms.txt', ctx.appUrl).href },
    'x-service-info': {
      categories: ['developer-tools', 'seo', 'payments'],
      docs: { homepage: '/', apiReference: '/docs', llms: '/llms.txt' },
    },
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: {
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string', enum: Object.keys(PROBLEMS).map((k) => PROBLEM_BASE + k) },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            errors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
          },
        },
      },
    },
  };
}

// Building the document turns every check's zod schemas into JSON Schema: tens of milliseconds, for a document
// that changes only with the configuration and the list of checks (a test may add one). Kept as its text, per list.
const documentText = new WeakMap<readonly CheckEntry[], Map<string, string>>();

/**
 * openApiDocument as JSON text, built once per configuration and list of checks.
 * @example new Response(openApiJson(ctx), { headers: { 'content-type': 'application/json' } })
 */
export function openApiJson(ctx: OpenApiContext): string {
  const list = checks();
  let byContext = documentText.get(list);
  if (!byContext) documentText.set(list, (byContext = new Map()));
  const key = JSON.stringify([ctx.appUrl, ctx.rails, ctx.usdcAddress, ctx.contactEmail]);
  let text = byContext.get(key);
  if (text === undefined) byContext.set(key, (text = JSON.stringify(openApiDocument(ctx))));
  return text;
}
