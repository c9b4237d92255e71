import crypto from 'node:crypto';

// Canonical JSON: object keys sorted, no whitespace. Two equal values always give the same
// bytes, so a hash over it identifies an artifact regardless of how it was built.
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
    return JSON.stringify(value) ?? 'null';
  }
  // Plain loops and concatenation: this runs on every paid response (artifactHash), so it avoids
  // the intermediate arrays of map/filter/join.
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i] === undefined ? null : value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  let first = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + canonicalJson(v);
    first = false;
  }
  return out + '}';
}

export function sha256Hex(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex');
}

/** `sha256:<hex>` of the canonical JSON of an artifact. */
export function artifactHash(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}
