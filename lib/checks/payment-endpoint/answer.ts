import type { FetchResult } from '@/lib/outbound/safe-fetch';
import { field, termsOf, type ProbeContext, type Terms } from './context';

// How the behaviour probes (reachability, bad credentials, CORS) describe an answer in their evidence: the status,
// the terms decoded to what an agent acts on, a problem body's words, each cut short so a report stays small.

/** Longest string any evidence field carries. */
const MAX_EVIDENCE_CHARS = 2000;

/**
 * `text` cut to the evidence limit, marked when cut.
 * @example cut('x'.repeat(3000)).length // 2001
 */
function cut(text: string, max = MAX_EVIDENCE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Whether an answer states either protocol's terms: a PAYMENT-REQUIRED header, or a `WWW-Authenticate: Payment`
 * challenge. Presence is what an agent needs to try again; whether the terms are valid is the terms items' work.
 * @example statesTerms(termsOf(response)) // true
 */
export function statesTerms(terms: Terms): boolean {
  return terms.x402.header !== null || terms.mpp.headers.length > 0;
}

/**
 * The terms an answer states, decoded to the fields an agent picks a payment by.
 * @example termsEvidence(termsOf(response)) // { x402: { x402Version: 2, accepts: [...] }, mpp: [{ id, method, intent, expires }] }
 */
function termsEvidence(terms: Terms): Record<string, unknown> {
  const { x402, mpp } = terms;
  const accepts = field(x402.decoded, 'accepts');
  return {
    x402:
      x402.header === null
        ? null
        : x402.error !== null
          ? { error: cut(x402.error) }
          : {
              x402Version: field(x402.decoded, 'x402Version') ?? null,
              accepts: Array.isArray(accepts)
                ? accepts.map((a) => ({ scheme: field(a, 'scheme') ?? null, network: field(a, 'network') ?? null, amount: field(a, 'amount') ?? null }))
                : null,
            },
    mpp: mpp.headers.length === 0 ? null : { challenges: mpp.challenges.map((c) => ({ id: c.id, method: c.method, intent: c.intent, expires: c.expires ?? null })), errors: mpp.errors.map((e) => cut(e)) },
  };
}

/**
 * What an answer says besides its terms: a problem+json's type, title, detail and reason, else the start of its body.
 * @example bodyEvidence(response) // { type: '…/payment-failed', title: 'Payment failed', detail: '…' }
 */
function bodyEvidence(response: FetchResult): unknown {
  try {
    const body: unknown = JSON.parse(response.body);
    if (body && typeof body === 'object' && !Array.isArray(body) && ('type' in body || 'title' in body || 'detail' in body)) {
      const words: Record<string, unknown> = {};
      for (const key of ['type', 'title', 'detail', 'reason'] as const) {
        const value = field(body, key);
        if (value !== undefined) words[key] = typeof value === 'string' ? cut(value, 500) : value;
      }
      return words;
    }
  } catch {
    // Not JSON: its text, cut.
  }
  return cut(response.body, 500);
}

/**
 * The named headers of an answer, each value (repeated lines joined) or null when absent.
 * @example headerEvidence(response, ['cache-control']) // { 'cache-control': 'no-store' }
 */
export function headerEvidence(response: FetchResult, headers: readonly string[]): Record<string, string | null> {
  const named: Record<string, string | null> = {};
  for (const name of headers) {
    const values = response.headerAll(name);
    named[name] = values.length === 0 ? null : cut(values.join(', '));
  }
  return named;
}

/**
 * One answer as evidence: the headers named, the terms decoded, the body's words.
 * @example answerEvidence(response, ['cache-control']) // { 'cache-control': 'no-store', terms: {...}, body: {...} }
 */
export function answerEvidence(response: FetchResult, headers: readonly string[] = []): Record<string, unknown> {
  return { ...headerEvidence(response, headers), terms: termsEvidence(termsOf(response)), body: bodyEvidence(response) };
}

/**
 * The body the endpoint requests carry, in words.
 * @example bodyLine(ctx) // "the seller's OpenAPI example body (312 bytes)"
 */
export function bodyLine(ctx: Pick<ProbeContext, 'body' | 'bodySource'>): string {
  return ctx.body === undefined ? 'no body' : `${BODY_SOURCE[ctx.bodySource]} (${Buffer.byteLength(ctx.body)} bytes)`;
}

/**
 * The endpoint request as evidence names it: `METHOD url` and what it carried.
 * @example requestLine(ctx, 'no credential') // "POST https://api.example/paid with no credential and the seller's OpenAPI example body (312 bytes)"
 */
export function requestLine(ctx: Pick<ProbeContext, 'input' | 'url' | 'body' | 'bodySource'>, carried: string): string {
  return `${ctx.input.method} ${ctx.url.href} with ${carried} and ${bodyLine(ctx)}`;
}

const BODY_SOURCE: Record<ProbeContext['bodySource'], string> = {
  given: 'the body the buyer gave',
  openapi: "the seller's OpenAPI example body",
  bazaar: "the seller's bazaar example body",
  empty: 'the body {}',
  none: 'no body',
};
