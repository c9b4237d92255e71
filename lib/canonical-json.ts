import crypto from 'node:crypto';

// Canonical JSON: object keys sorted (by UTF-16 code units, as Array.prototype.sort does), no
// whitespace, numbers and strings written exactly as JSON.stringify writes them. Two equal values
// always give the same bytes, so a hash over it identifies an artifact regardless of how it was built.

// A string holding none of these is written as itself between quotes. Anything else (quotes,
// backslashes, control characters, surrogates, paired or lone) goes through JSON.stringify,
// whose escaping is the definition. Why not JSON.stringify every string: this runs on every paid
// response (artifactHash) and the native call per key and value was most of its cost.
const NEEDS_ESCAPING = /["\\\u0000-\u001f\ud800-\udfff]/;

function quote(text: string): string {
  return NEEDS_ESCAPING.test(text) ? JSON.stringify(text) : `"${text}"`;
}

export function canonicalJson(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('canonicalJson: non-finite number');
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonicalJson: bigint has no JSON form');
    case 'object':
      break;
    default:
      // undefined, functions and symbols: JSON has no such value (object members holding them are left out below).
      return 'null';
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = '{';
  for (const key of keys) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    out += (out.length > 1 ? ',' : '') + quote(key) + ':' + canonicalJson(member);
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
