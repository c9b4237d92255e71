import crypto from 'node:crypto';

// Canonical JSON: object keys sorted, no whitespace. Two equal values always give the same
// bytes, so a hash over it identifies an artifact regardless of how it was built.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(',')}}`;
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of an artifact. */
export function artifactHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
