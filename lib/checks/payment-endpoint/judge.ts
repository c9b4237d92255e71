import type { ProbeContext } from './context';
import type { Evidence, Fault, FindingSpec, ItemOutcome } from './types';

// What the terms items (x402 terms, MPP challenges, discovery, one price) share: how the unpaid request reads in
// evidence, and how faults become a state.

/**
 * How the check's unpaid request is described in evidence: method, URL, where its body came from, no credential.
 * @example unpaidRequest(ctx) // 'POST http://seller.test/api/agent/readiness (body from the OpenAPI example, no credential)'
 */
export function unpaidRequest(ctx: Pick<ProbeContext, 'input' | 'url' | 'bodySource'>, what = 'no credential'): string {
  const body = { given: 'the given body', openapi: 'body from the OpenAPI example', bazaar: "body from the bazaar's example", empty: 'body {}', none: 'no body' }[ctx.bodySource];
  return `${ctx.input.method} ${ctx.url.href} (${body}, ${what})`;
}

/**
 * A string cut to `max` characters, for evidence.
 * @example clip('x'.repeat(3000)).length // 2001
 */
export function clip(text: string, max = 2000): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * An item's outcome from its faults: `fail` when one is medium or worse, `warn` for lesser ones, else `pass`.
 * @example judged([], FINDINGS, 'All good.', evidence).state // 'pass'
 */
export function judged(faults: Fault[], catalog: Readonly<Record<string, FindingSpec>>, passWhy: string, evidence: Evidence[]): ItemOutcome {
  if (faults.length === 0) return { state: 'pass', why: passWhy, evidence, faults };
  const failing = faults.some((f) => ['critical', 'high', 'medium'].includes(catalog[f.id]?.severity ?? 'high'));
  return { state: failing ? 'fail' : 'warn', why: `${faults.length} fault${faults.length === 1 ? '' : 's'}: ${faults.map((f) => f.id).join(', ')}.`, evidence, faults };
}

/**
 * A value small enough for evidence: itself when its JSON is short, else its JSON cut to `max` characters.
 * @example small({ a: 1 }) // { a: 1 }
 */
export function small(value: unknown, max = 2000): unknown {
  const json = JSON.stringify(value) ?? 'undefined';
  return json.length <= max ? value : clip(json, max);
}
