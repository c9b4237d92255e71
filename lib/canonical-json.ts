import crypto from 'node:crypto';
import { canonicalText } from '@/lib/json-text';

// Canonical JSON: object keys sorted (by UTF-16 code units, as Array.prototype.sort does), no
// whitespace, numbers and strings written exactly as JSON.stringify writes them. Two equal values
// always give the same bytes, so a hash over it identifies an artifact regardless of how it was built.
// The text is made by `lib/json-text.ts`, which writes a part marked immutable only once.

/**
 * Canonical JSON of plain data; a non-finite number or a bigint throws.
 * @example canonicalJson({ b: 1, a: 'x' }) // '{"a":"x","b":1}'
 */
export function canonicalJson(value: unknown): string {
  return canonicalText(value);
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of an artifact. */
export function artifactHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
