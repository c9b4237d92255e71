import { isDeepStrictEqual } from 'node:util';
import { PaymentInfoSchema } from '@agentcash/discovery';
import { validateDiscoveryExtension, validateDiscoveryExtensionSpec, type DiscoveryExtension } from '@x402/extensions/bazaar';
import { PaymentInfo } from 'mppx/discovery';
import { field, termsOf, type ProbeContext, type ProbeItem } from './context';
import { judged, small, unpaidRequest } from './judge';
import type { Evidence, Fault, FindingSpec, ItemOutcome, ItemSpec } from './types';
import { SOURCES, rerun } from './sources';

// How an agent or a directory finds the endpoint and what it costs before paying: the OpenAPI operation with
// x-payment-info in both shapes directories read (the payment-discovery draft's `offers`, as mppx validates it;
// AgentCash's `price` + `protocols`, as @agentcash/discovery's schema has it) and a 402 response; the x402 bazaar
// extension, validated with @x402/extensions and its example request actually sent; the extensions echoed the
// same way twice (a client echoes them back and the server compares them strictly); llms.txt.

const RERUN = rerun('the discovery item passes with no finding');
const MPPX_DISCOVER = 'Run `npx mppx discover validate <origin>/openapi.json`: no error.';

const FINDINGS = {
  'openapi-missing': {
    title: 'No OpenAPI document at /openapi.json',
    severity: 'medium',
    points: 6,
    why: 'Directories (x402scan, mppscan, AgentCash) and agents read /openapi.json to find paid operations, their inputs and prices; without it the endpoint is found only by someone who already knows it.',
    fix: 'Serve an OpenAPI 3.1 document at /openapi.json listing the paid operation.',
    verify: ['`curl -s <origin>/openapi.json | jq .openapi` prints "3.1.0".', RERUN],
    references: [SOURCES.openApi, SOURCES.paymentDiscovery],
  },
  'openapi-operation-missing': {
    title: 'The OpenAPI document does not list the operation',
    severity: 'medium',
    points: 6,
    why: 'A directory lists the operations the document names; one it does not name is not listed, and an agent has no schema for its body.',
    fix: 'Add the path and method to paths, with its requestBody schema and an example.',
    verify: ['`curl -s <origin>/openapi.json | jq \'.paths["<path>"]\'` shows the method.', RERUN],
    references: [SOURCES.openApi],
  },
  'openapi-payment-info-missing': {
    title: 'The OpenAPI operation has no x-payment-info',
    severity: 'medium',
    points: 5,
    why: 'x-payment-info is how discovery tells a paid operation from a free one and what it costs; without it directories list the operation as free, or not at all.',
    fix: 'Add x-payment-info to the operation with offers[] (method, intent, amount, currency) and price + protocols.',
    verify: [MPPX_DISCOVER, RERUN],
    references: [SOURCES.paymentDiscovery, SOURCES.agentcash],
  },
  'openapi-offers-invalid': {
    title: "x-payment-info has no valid offers[] (the payment-discovery draft's shape)",
    severity: 'low',
    points: 2,
    why: 'mppx and the MPP directory read offers[]: one per method, with intent, an integer amount and a currency; without them those clients do not know how the operation is paid.',
    fix: 'Add offers: one object per payment method (e.g. { method: "evm", intent: "charge", amount: "1000000", currency: "<USDC address>" }).',
    verify: [MPPX_DISCOVER, RERUN],
    references: [SOURCES.paymentDiscovery],
  },
  'openapi-price-invalid': {
    title: "x-payment-info has no valid price and protocols (the AgentCash shape)",
    severity: 'low',
    points: 2,
    why: 'x402scan, mppscan and AgentCash read price ({ mode, currency, amount }) and protocols; without them they show no price and may not list the operation as paid.',
    fix: 'Add price: { mode: "fixed", currency: "USD", amount: "1.00" } and protocols: [{ x402: {} }, { mpp: { method, intent, currency } }] beside offers.',
    verify: ['Run `npx @agentcash/discovery <origin>`: the operation shows its price.', RERUN],
    references: [SOURCES.agentcash],
  },
  'openapi-no-402-response': {
    title: 'The paid OpenAPI operation declares no 402 response',
    severity: 'low',
    points: 2,
    why: 'A client generated from the document does not expect the 402 every first call gets; the payment-discovery draft requires one on an operation with x-payment-info.',
    fix: "Add responses['402'] with the WWW-Authenticate and PAYMENT-REQUIRED headers described.",
    verify: [MPPX_DISCOVER, RERUN],
    references: [SOURCES.paymentDiscovery, SOURCES.openApi],
  },
  'bazaar-missing': {
    title: 'The x402 terms carry no bazaar extension',
    severity: 'medium',
    points: 5,
    why: 'The x402 Bazaar and x402scan list a resource from the bazaar extension its payments echo: how to call it and what it answers. Without it the resource is paid but never listed.',
    fix: "Declare the bazaar extension for the route (@x402/extensions/bazaar's declareDiscoveryExtension: the input example and schema, the output example).",
    verify: ['Decode PAYMENT-REQUIRED: extensions.bazaar.info.input is there.', RERUN],
    references: [SOURCES.x402Bazaar],
  },
  'bazaar-invalid': {
    title: 'The bazaar extension does not validate',
    severity: 'medium',
    points: 5,
    why: "A facilitator validates the echoed bazaar info against its schema before it catalogs the resource; info that fails is dropped, and so is the listing.",
    fix: "Build the extension with declareDiscoveryExtension so info matches its schema; check it with @x402/extensions' validateDiscoveryExtension.",
    verify: ['validateDiscoveryExtension(extensions.bazaar) from @x402/extensions/bazaar returns valid: true.', RERUN],
    references: [SOURCES.x402Bazaar],
  },
  'bazaar-example-not-402': {
    title: "The bazaar's example request is not answered 402",
    severity: 'medium',
    points: 4,
    why: 'Directories and agents send the example as it stands; when it gets a 400 or a 200 instead of the terms, the listed example does not lead to a payment.',
    fix: 'Make the example a valid request of the route (the same body the OpenAPI example has), answered 402 unpaid.',
    verify: ['POST the bazaar\'s info.input.body unpaid: 402.', RERUN],
    references: [SOURCES.x402Bazaar],
  },
  'extension-echo-unstable': {
    title: 'Two 402s carry different extension info',
    severity: 'high',
    points: 6,
    why: 'A client echoes the extensions of the 402 it paid, and the server compares the echo with what it would send now; info that changes per answer (a timestamp, a random id) makes every echo fail that comparison.',
    fix: 'Build extension info once per resource: nothing per request in bazaar or payment-identifier (only sign-in-with-x carries a fresh nonce).',
    verify: ['Decode PAYMENT-REQUIRED of two unpaid requests: extensions.*.info are equal.', RERUN],
    references: [SOURCES.x402, SOURCES.x402Bazaar],
  },
  'llms-txt-missing': {
    title: 'No /llms.txt',
    severity: 'low',
    points: 2,
    why: 'Agents read /llms.txt for how to use a service in words: what it sells, at what price, how to pay.',
    fix: 'Serve /llms.txt: a title, a one-paragraph summary with the price and how to pay, and a line per paid operation.',
    verify: ['`curl -s <origin>/llms.txt` answers 200 with Markdown.', RERUN],
    references: [SOURCES.llmsTxt],
  },
} satisfies Record<string, FindingSpec>;

type FindingId = keyof typeof FINDINGS;

const discoverySpec: ItemSpec = {
  id: 'discovery',
  title: 'Discovery',
  points: 15,
  verifies: '/openapi.json lists the operation with x-payment-info in both shapes and a 402 response; the bazaar extension validates and its example request gets a 402; two 402s carry the same extension info; /llms.txt is served.',
  findings: FINDINGS,
};

/** Extensions whose info is fresh per answer by design: sign-in-with-x carries a nonce and an issue time. */
const DYNAMIC_EXTENSIONS = new Set(['sign-in-with-x']);

/**
 * The operation an OpenAPI document states for `method` on `pathname`, matching templated paths (`/items/{id}`).
 * @example openapiOperation(doc, 'POST', '/api/agent/readiness')?.path // '/api/agent/readiness'
 */
export function openapiOperation(doc: unknown, method: string, pathname: string): { path: string; operation: unknown } | null {
  const paths = field(doc, 'paths');
  if (!paths || typeof paths !== 'object') return null;
  const verb = method.toLowerCase();
  const exact = field(field(paths, pathname), verb);
  if (exact !== undefined) return { path: pathname, operation: exact };
  for (const [path, item] of Object.entries(paths)) {
    const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^{}]*\}/g, '[^/]+')}$`);
    if (path.includes('{') && pattern.test(pathname) && field(item, verb) !== undefined) return { path, operation: field(item, verb) };
  }
  return null;
}

function issuesOf(result: { success: boolean; error?: { issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }> } }): string {
  return (result.error?.issues ?? []).slice(0, 4).map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

/** The OpenAPI half: the document, the operation, x-payment-info in both shapes, the 402 response. */
function openapiFaults(ctx: ProbeContext, add: (id: FindingId, observed: string) => void): Evidence {
  const doc = ctx.discovery.openapi;
  const request = `GET ${doc.url}`;
  if (doc.json === null) {
    add('openapi-missing', doc.status === null ? `${doc.url} gave no answer` : `${doc.url} answered ${doc.status}${doc.text !== null ? ' with a body that is not JSON' : ''}`);
    return { request, status: doc.status, note: 'no OpenAPI document' };
  }
  const found = openapiOperation(doc.json, ctx.input.method, ctx.url.pathname);
  if (!found) {
    add('openapi-operation-missing', `paths has no ${ctx.input.method.toLowerCase()} operation for ${ctx.url.pathname}`);
    return { request, status: doc.status, answer: { paths: small(Object.keys((field(doc.json, 'paths') as object) ?? {}), 1000) } };
  }
  const at = `paths["${found.path}"].${ctx.input.method.toLowerCase()}`;
  const info = field(found.operation, 'x-payment-info');
  const responses = field(found.operation, 'responses');
  const responseCodes = responses && typeof responses === 'object' ? Object.keys(responses) : [];
  if (info === undefined) add('openapi-payment-info-missing', `${at} has no x-payment-info`);
  else {
    const offers = PaymentInfo.safeParse(info);
    if (!offers.success) add('openapi-offers-invalid', `${at}["x-payment-info"]: ${issuesOf(offers)}`);
    else if (!Array.isArray(field(info, 'offers'))) add('openapi-offers-invalid', `${at}["x-payment-info"] has no offers[]`);
    const price = PaymentInfoSchema.safeParse(info);
    if (!price.success) add('openapi-price-invalid', `${at}["x-payment-info"]: ${issuesOf(price)}`);
  }
  if (!responseCodes.includes('402')) add('openapi-no-402-response', `${at}.responses has ${responseCodes.join(', ') || 'nothing'}, no 402`);
  return { request, status: doc.status, answer: { operation: `${ctx.input.method} ${found.path}`, 'x-payment-info': small(info ?? null), responses: responseCodes } };
}

/** Each extension's info, the dynamic ones left out. */
function stableInfo(paymentRequired: unknown): Record<string, unknown> {
  const extensions = field(paymentRequired, 'extensions');
  if (!extensions || typeof extensions !== 'object') return {};
  return Object.fromEntries(Object.entries(extensions).filter(([key]) => !DYNAMIC_EXTENSIONS.has(key)).map(([key, value]) => [key, field(value, 'info')]));
}

/** The bazaar half: present, valid, its example answered 402, and the extensions stable across two 402s. */
async function bazaarFaults(ctx: ProbeContext, add: (id: FindingId, observed: string) => void): Promise<Evidence[]> {
  const decoded = ctx.terms.x402.decoded;
  const evidence: Evidence[] = [];
  const bazaar = field(field(decoded, 'extensions'), 'bazaar');
  let example: { method: 'GET' | 'POST'; url: URL; body: string | undefined } | null = null;
  if (bazaar === undefined) {
    add('bazaar-missing', `PAYMENT-REQUIRED's extensions are ${JSON.stringify(Object.keys((field(decoded, 'extensions') as object) ?? {}))}, no bazaar`);
    evidence.push({ request: unpaidRequest(ctx), status: ctx.unpaidResponse?.status ?? null, answer: { extensions: Object.keys((field(decoded, 'extensions') as object) ?? {}) } });
  } else {
    const consistent = validateDiscoveryExtension(bazaar as DiscoveryExtension);
    const spec = validateDiscoveryExtensionSpec(bazaar as Record<string, unknown>);
    const errors = [...(consistent.errors ?? []), ...(spec.errors ?? [])];
    if (!consistent.valid || !spec.valid) add('bazaar-invalid', `extensions.bazaar: ${errors.slice(0, 4).join('; ')}`);
    evidence.push({ request: unpaidRequest(ctx), status: ctx.unpaidResponse?.status ?? null, answer: { bazaar: { input: small(field(field(bazaar, 'info'), 'input'), 1500), valid: consistent.valid && spec.valid, errors } } });
    const input = field(field(bazaar, 'info'), 'input');
    if (field(input, 'type') === 'http') {
      const declared = String(field(input, 'method') ?? ctx.input.method).toUpperCase();
      const method = declared === 'GET' ? 'GET' : 'POST';
      const url = new URL(ctx.url);
      const query = field(input, 'queryParams');
      if (query && typeof query === 'object') for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
      const body = field(input, 'body');
      example = { method, url, body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined };
    }
  }

  // The bazaar's example is the second unpaid request; when there is none to send, the declared request again.
  const second = example ?? { method: ctx.input.method, url: ctx.url, body: ctx.body };
  const purpose = example ? 'bazaar example request' : 'second unpaid request (extension echo)';
  const answer = await ctx.http.send({ purpose, method: second.method, url: second.url, headers: second.body !== undefined ? { 'content-type': 'application/json' } : {}, ...(second.body !== undefined ? { body: second.body } : {}) });
  const request = `${second.method} ${second.url.href} (${example ? "the bazaar's example" : 'the same request'}, no credential)`;
  if (answer.kind !== 'answer') {
    evidence.push({ request, status: null, note: `not answered: ${answer.message}` });
    return evidence;
  }
  const status = answer.response.status;
  if (example && status !== 402) add('bazaar-example-not-402', `${request} was answered ${status}`);
  const again = termsOf(answer.response).x402.decoded;
  const first = stableInfo(decoded);
  const next = again === null ? null : stableInfo(again);
  const changed = next === null ? [] : [...new Set([...Object.keys(first), ...Object.keys(next)])].filter((k) => !isDeepStrictEqual(first[k], next[k]));
  if (changed.length) add('extension-echo-unstable', `extensions ${changed.join(', ')}: info differs between two 402s (${changed.map((k) => `${k}: ${diffPath(first[k], next?.[k])}`).join('; ')})`);
  evidence.push({ request, status, answer: { extensionsCompared: Object.keys(first), changed, dynamicLeftOut: [...DYNAMIC_EXTENSIONS] } });
  return evidence;
}

/** The first path where two JSON values differ, for the finding's observed. */
function diffPath(a: unknown, b: unknown, at = 'info'): string {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const x = (a as Record<string, unknown>)[key];
      const y = (b as Record<string, unknown>)[key];
      if (!isDeepStrictEqual(x, y)) return diffPath(x, y, `${at}.${key}`);
    }
  }
  return `${at} was ${small(a, 120) === a ? JSON.stringify(a) : 'long'}, then ${small(b, 120) === b ? JSON.stringify(b) : 'long'}`;
}

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  const x402 = ctx.terms.x402.decoded !== null;
  if (!x402 && ctx.terms.mpp.headers.length === 0) {
    return { state: 'not-applicable', why: 'The unpaid answer states no payment terms (neither PAYMENT-REQUIRED nor WWW-Authenticate: Payment): there is no paid operation to discover.', evidence: [{ request: unpaidRequest(ctx), status: ctx.unpaidResponse?.status ?? null }], faults: [] };
  }
  const byId = new Map<FindingId, string>();
  const add = (id: FindingId, observed: string) => byId.set(id, byId.has(id) ? `${byId.get(id)}; ${observed}` : observed);
  const evidence: Evidence[] = [openapiFaults(ctx, add)];
  if (x402) evidence.push(...(await bazaarFaults(ctx, add)));
  const llms = ctx.discovery.llms;
  if (llms.text === null) add('llms-txt-missing', `${llms.url} answered ${llms.status ?? 'nothing'}`);
  evidence.push({ request: `GET ${llms.url}`, status: llms.status, answer: { bytes: llms.text === null ? 0 : Buffer.byteLength(llms.text) } });
  const faults: Fault[] = [...byId].map(([id, observed]) => ({ id, observed }));
  const pass = x402
    ? 'The OpenAPI operation has x-payment-info in both shapes and a 402; the bazaar validates and its example gets a 402; two 402s echo the same extension info; llms.txt is served.'
    : 'The OpenAPI operation has x-payment-info in both shapes and a 402; llms.txt is served (no x402 terms: no bazaar to check).';
  return judged(faults, FINDINGS, pass, evidence);
}

export const discovery: ProbeItem = { spec: discoverySpec, probe };
