// The x402 `extensions` of a paid resource's 402, and the resource's service metadata: the one place they are
// made. Built from the check's registry entry, so a new check is listed with nothing added here.
//   - `bazaar` (discovery): how to call the resource (POST, a JSON body: the entry's `example`, its schema from
//     the entry's `input`) and what it answers (an example of the real answer and the schema of the 200 body,
//     from the entry's `output`). Directories (the x402 Bazaar, x402scan) list a resource only with it.
//   - `payment-identifier` (`required: false`): a payment may carry an id, which the pipeline treats as the
//     call's Idempotency-Key (see paymentIdentifierOf).
// PAYMENT-REQUIRED is a header, and Node's HTTP clients refuse a response whose headers pass 16 KiB, so the
// output example and schema are cut to a few levels (arrays to their first item); the input is sent whole.
import { x402 } from 'mppx';
import { z } from 'zod';
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { declarePaymentIdentifierExtension, PAYMENT_IDENTIFIER, validatePaymentIdentifier } from '@x402/extensions/payment-identifier';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { decodePaymentRequired } from './wire';
import { paidBody, type CheckEntry } from '@/lib/checks/entry';
import { checks } from '@/lib/checks/registry';

/** The service every paid resource belongs to, as directories show it (printable ASCII, at most 32 characters). */
const SERVICE_NAME = 'Paid Agent Checks';

/** What a 402 adds to x402's PaymentRequired for one paid resource. */
interface X402ResourceTerms {
  /** Added to `resource` beside its url: what directories show of the resource and its service. */
  resource: { description: string; mimeType: string; serviceName: string; tags: string[] };
  /** The PaymentRequired's `extensions`: `bazaar` and `payment-identifier`. */
  extensions: Record<string, { info: Record<string, unknown>; schema: Record<string, unknown> }>;
}

/** How deep the output example and schema go: the 200 body's members and the first level inside them. */
const OUTPUT_DEPTH = 3;

/** The envelope of the example answer: an Idempotency-Key and a transaction hash of the right shape. */
const EXAMPLE_IDEMPOTENCY_KEY = 'example-call-0001';
const EXAMPLE_TRANSACTION = `0x${'0'.repeat(63)}1`;

const built = new WeakMap<CheckEntry, X402ResourceTerms>();

/**
 * The x402 extensions and resource metadata of a check's 402, built once per check.
 * @example x402Terms(check).extensions.bazaar.info.input // { type: 'http', method: 'POST', bodyType: 'json', body: {...} }
 */
function x402Terms(check: CheckEntry): X402ResourceTerms {
  let terms = built.get(check);
  if (!terms) {
    terms = buildTerms(check);
    built.set(check, terms);
  }
  return terms;
}

/**
 * The x402 terms of the paid resource at `pathname` (a check's REST path), or null for a path no check serves.
 * @example x402TermsForPath(check.path)?.resource.serviceName // 'Paid Agent Checks'
 */
function x402TermsForPath(pathname: string): X402ResourceTerms | null {
  const check = checks().find((c) => c.path === pathname);
  return check ? x402Terms(check) : null;
}

/**
 * An x402 PAYMENT-REQUIRED header value (as mppx writes it) read as x402's PaymentRequired, with the resource's
 * service metadata and extensions added (unchanged for a resource no check serves; null for no header). mppx's
 * own `mppx` extension is kept.
 * @example withX402Terms(headers.get('PAYMENT-REQUIRED'), `https://checks.example${check.path}`)?.extensions?.bazaar
 */
export function withX402Terms(header: string | null, resourceUrl: string): PaymentRequired | null {
  if (header === null) return null;
  const required = decodePaymentRequired(header);
  const terms = x402TermsForPath(new URL(resourceUrl).pathname);
  if (!terms) return required;
  return {
    ...required,
    resource: { ...terms.resource, ...required.resource },
    extensions: { ...required.extensions, ...terms.extensions },
  };
}

function buildTerms(check: CheckEntry): X402ResourceTerms {
  // The 200 body as an x402 payment answers it: the check's answer in the pipeline's envelope.
  const body = paidBody(check.service, EXAMPLE_IDEMPOTENCY_KEY, { paymentIntent: EXAMPLE_TRANSACTION }, check.exampleAnswer());
  const answer = compact(check.output.parse(body), OUTPUT_DEPTH);
  const bazaar = declareDiscoveryExtension({
    bodyType: 'json',
    input: check.example as Record<string, unknown>,
    inputSchema: jsonSchema(check.input),
    output: { example: answer, schema: shallowSchema(jsonSchema(check.output), OUTPUT_DEPTH) },
  }).bazaar;
  // Our 402 is built by mppx rather than x402's resource server, so the method its enrichment would add is
  // set here, in the info and in the schema that validates it.
  const input = bazaar.schema.properties.input as { properties: Record<string, unknown> };
  input.properties.method = { type: 'string', enum: ['POST'] };
  (bazaar.info.input as { method?: string }).method = 'POST';
  return {
    resource: { description: check.summary, mimeType: 'application/json', serviceName: SERVICE_NAME, tags: tagsOf(check) },
    extensions: {
      bazaar: bazaar as unknown as X402ResourceTerms['extensions'][string],
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) as unknown as X402ResourceTerms['extensions'][string],
    },
  };
}

/** At most five short ASCII tags: the check's id and the kind of service it is. */
function tagsOf(check: CheckEntry): string[] {
  return [check.id, 'agents', 'ai', 'audit'];
}

/** A zod schema as a self-contained JSON Schema (no `$schema` of its own: it sits inside the extension's). */
function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** `value` cut to `depth` levels of objects and arrays; arrays keep their first item. */
function compact(value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return depth <= 0 ? [] : value.slice(0, 1).map((v) => compact(v, depth - 1));
  if (value !== null && typeof value === 'object') {
    if (depth <= 0) return {};
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compact(v, depth - 1)]));
  }
  return value;
}

/** A JSON Schema cut to `depth` levels: deeper objects and arrays keep their type (and description) only. */
function shallowSchema(schema: Record<string, unknown>, depth: number): Record<string, unknown> {
  if (depth <= 0) {
    const kept: Record<string, unknown> = {};
    if (schema.type !== undefined) kept.type = schema.type;
    if (schema.description !== undefined) kept.description = schema.description;
    return kept;
  }
  const out: Record<string, unknown> = { ...schema };
  if (schema.properties && typeof schema.properties === 'object') {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Record<string, unknown>>).map(([k, v]) => [k, shallowSchema(v, depth - 1)]),
    );
  }
  if (schema.items && typeof schema.items === 'object') out.items = shallowSchema(schema.items as Record<string, unknown>, depth - 1);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) out[key] = (schema[key] as Record<string, unknown>[]).map((s) => shallowSchema(s, depth));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = shallowSchema(schema.additionalProperties as Record<string, unknown>, depth - 1);
  }
  return out;
}

/** Decoded PAYMENT-SIGNATURE values by their text, oldest first; a few calls in flight at once is the usual load. */
const decodedPayments = new Map<string, { payment: unknown } | { error: unknown }>();
const DECODED_PAYMENTS_KEPT = 32;

/**
 * mppx's decoding of an x402 PAYMENT-SIGNATURE value (base64 JSON, validated), kept for the few payments in flight:
 * one paid call reads its payment four times (its payment-identifier, its verification, its payer and digest), and
 * a payment that echoes our discovery extension is some 12 KB to decode and validate. Throws as mppx does for a
 * value it cannot decode. The decoded payment is shared: read it, never change it.
 * @example const payment = decodedPaymentSignature(request.headers.get('payment-signature')!) // { x402Version: 2, accepted: {…}, payload: {…} }
 */
export function decodedPaymentSignature(signature: string): unknown {
  let decoded = decodedPayments.get(signature);
  if (!decoded) {
    try {
      decoded = { payment: x402.Header.decodePaymentSignature(signature) };
    } catch (error) {
      decoded = { error };
    }
    if (decodedPayments.size >= DECODED_PAYMENTS_KEPT) decodedPayments.delete(decodedPayments.keys().next().value!);
    decodedPayments.set(signature, decoded);
  }
  if ('error' in decoded) throw decoded.error;
  return decoded.payment;
}

/** What an x402 payment says about its payment-identifier: none, a valid id, or an id that is not one. */
export type PaymentIdentifier = { id: string | null } | { invalid: string };

/**
 * The payment-identifier id an x402 payment (its PAYMENT-SIGNATURE value) carries, null when it carries none, or why
 * the id it carries is not one. A payment that cannot be decoded carries none here: verifying it refuses it.
 * @example paymentIdentifierOf(request.headers.get('payment-signature')!) // { id: 'pay_7d5d747be160e280504c099d984bcfe0' }
 */
export function paymentIdentifierOf(signature: string): PaymentIdentifier {
  let payload: unknown;
  try {
    payload = decodedPaymentSignature(signature);
  } catch {
    return { id: null };
  }
  const extension = (payload as PaymentPayload).extensions?.[PAYMENT_IDENTIFIER];
  if (extension === undefined || extension === null) return { id: null };
  // The echoed extension's own `schema` is the client's to send: validating against it would compile whatever
  // JSON Schema a caller sends (tens of milliseconds of Ajv per paid call, more for a hostile one). Its `info` is
  // checked as the schema we declared says: `required` a boolean, `id` absent or 16-128 of A-Z a-z 0-9 _ -.
  const info = typeof extension === 'object' ? (extension as { info?: unknown }).info : undefined;
  const validation = validatePaymentIdentifier({ info });
  if (!validation.valid) return { invalid: (validation.errors ?? ['the payment identifier is not valid']).join('; ') };
  return { id: (info as { id?: string }).id ?? null };
}
