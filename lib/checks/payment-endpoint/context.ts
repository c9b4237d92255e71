import { Challenge } from 'mppx';
import type { FetchResult } from '@/lib/outbound/safe-fetch';
import type { ProbeAnswer, ProbeHttp } from './session';
import type { ProbeSettings } from './probe-settings';

// What every probe of the endpoint check reads: the request as the buyer gave it, the first unpaid answer and
// both protocols' terms decoded from it once, and the seller's discovery documents fetched once on first ask.

/** The check's input, after the schema. */
export interface EndpointInput {
  url: string;
  method: 'GET' | 'POST';
  body?: unknown;
  mcp?: { url: string; tool: string };
  paidRoundTrip: boolean;
}

/** The x402 terms of an answer: the `PAYMENT-REQUIRED` header as sent and as decoded (raw JSON, not yet validated). */
interface X402Terms {
  header: string | null;
  /** The header's base64 JSON, parsed; null when absent or not JSON. */
  decoded: unknown;
  /** Why `decoded` is null though a header came. */
  error: string | null;
  /** A v1-style `PaymentRequired` in a JSON body, when the body is one (`x402Version` + `accepts`). */
  bodyMirror: unknown;
}

/** The MPP terms of an answer: every `WWW-Authenticate` value of the Payment scheme, and what mppx parsed of them. */
interface MppTerms {
  headers: string[];
  challenges: Challenge.Challenge[];
  /** mppx's parse errors, one per header that did not parse. */
  errors: string[];
}

export interface Terms {
  x402: X402Terms;
  mpp: MppTerms;
}

/** A discovery document as fetched from the endpoint's origin. */
export interface FetchedDocument {
  url: string;
  status: number | null;
  /** The text, when it answered 2xx. */
  text: string | null;
  /** The JSON, for a JSON document that parsed. */
  json: unknown;
}

interface Discovery {
  openapi: FetchedDocument;
  llms: FetchedDocument;
}

export interface ProbeContext {
  input: EndpointInput;
  /** The endpoint, normalised. */
  url: URL;
  http: ProbeHttp;
  /** Headers every request to the endpoint carries (content-type for a POST). */
  requestHeaders: Readonly<Record<string, string>>;
  /** The JSON body every request to the endpoint sends, serialised; undefined for GET. */
  body: string | undefined;
  /** Where `body` came from. */
  bodySource: 'given' | 'openapi' | 'bazaar' | 'empty' | 'none';
  /** The first unpaid request's answer. */
  unpaid: ProbeAnswer;
  /** The unpaid answer, when one came. */
  unpaidResponse: FetchResult | null;
  /** Both protocols' terms, from the unpaid answer. */
  terms: Terms;
  discovery: Discovery;
  probe: ProbeSettings;
  /** What one probe saw that a later one compares: filled as the probes run (see ProbeItem.runsAfter). */
  observed: { mcpTool: { name: string; title: string | null; description: string } | null };
  signal: AbortSignal;
  now: Date;
}

/**
 * Both protocols' terms as an answer states them, decoded but not judged.
 * @example termsOf(response).mpp.challenges.map((c) => c.method) // ['evm', 'stripe']
 */
export function termsOf(response: FetchResult | null): Terms {
  const header = response?.header('payment-required') ?? null;
  let decoded: unknown = null;
  let error: string | null = null;
  if (header !== null) {
    try {
      decoded = JSON.parse(Buffer.from(header, 'base64').toString('utf8'));
    } catch (e) {
      error = `PAYMENT-REQUIRED is not base64-encoded JSON: ${(e as Error).message}`;
    }
  }
  let bodyMirror: unknown = null;
  try {
    const body: unknown = response ? JSON.parse(response.body) : null;
    if (body && typeof body === 'object' && 'x402Version' in body && 'accepts' in body) bodyMirror = body;
  } catch {
    // Not JSON: no mirror.
  }
  const headers = (response?.headerAll('www-authenticate') ?? []).filter((v) => /^\s*payment\s/i.test(v));
  const challenges: Challenge.Challenge[] = [];
  const errors: string[] = [];
  for (const value of headers) {
    try {
      challenges.push(...Challenge.deserializeList(value));
    } catch (e) {
      errors.push((e as Error).message);
    }
  }
  return { x402: { header, decoded, error, bodyMirror }, mpp: { headers, challenges, errors } };
}

/**
 * GETs a document on the endpoint's origin (never another), reading JSON when it is JSON.
 * @example const openapi = await fetchDocument(http, url, '/openapi.json', 'OpenAPI document')
 */
export async function fetchDocument(http: ProbeHttp, endpoint: URL, path: string, purpose: string): Promise<FetchedDocument> {
  const url = new URL(path, endpoint.origin).href;
  const answer = await http.send({ purpose, method: 'GET', url, accept: path.endsWith('.txt') ? 'text/plain, text/markdown;q=0.9, */*;q=0.5' : 'application/json' });
  if (answer.kind !== 'answer') return { url, status: null, text: null, json: null };
  const { status, body } = answer.response;
  const ok = status >= 200 && status < 300;
  let json: unknown = null;
  if (ok && !path.endsWith('.txt')) {
    try {
      json = JSON.parse(body);
    } catch {
      json = null;
    }
  }
  return { url, status, text: ok ? body : null, json };
}

/**
 * An example request body for `method` `path` from an OpenAPI document: the operation's JSON example, else its
 * schema's example; null when it states none.
 * @example openapiExampleBody(doc, 'POST', '/api/agent/readiness') // { workflow: { … } }
 */
export function openapiExampleBody(doc: unknown, method: string, path: string): unknown {
  const op = field(field(field(doc, 'paths'), path), method.toLowerCase());
  const json = field(field(field(op, 'requestBody'), 'content'), 'application/json');
  if (field(json, 'example') !== undefined) return field(json, 'example');
  const examples = field(json, 'examples');
  if (examples && typeof examples === 'object') {
    const first = Object.values(examples)[0];
    if (field(first, 'value') !== undefined) return field(first, 'value');
  }
  const schemaExample = field(field(json, 'schema'), 'example');
  return schemaExample === undefined ? null : schemaExample;
}

/**
 * The example request body an x402 `bazaar` extension declares (`info.input.body`), or null.
 * @example bazaarExampleBody(decoded) // { url: 'https://example.com' }
 */
export function bazaarExampleBody(paymentRequired: unknown): unknown {
  const body = field(field(field(field(field(paymentRequired, 'extensions'), 'bazaar'), 'info'), 'input'), 'body');
  return body === undefined ? null : body;
}

/**
 * A member of a value read as a JSON object, or undefined: documents from a seller have any shape.
 * @example field(field(doc, 'info'), 'title')
 */
export function field(value: unknown, key: string): unknown {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** One rubric item: what it publishes, and the probe that tests it. */
export interface ProbeItem {
  spec: import('./types').ItemSpec;
  probe(ctx: ProbeContext): Promise<import('./types').ItemOutcome>;
  /** An item whose findings this one reads (ctx.observed): it runs after that item, though the report lists it in rubric order. */
  runsAfter?: import('./types').ItemId;
}
