// Stripe's API takes application/x-www-form-urlencoded bodies with bracketed keys (`metadata[plan]`);
// the local fakes read them with these.

export type Params = Map<string, string>;

export function parseForm(text: string): Params {
  const params: Params = new Map();
  for (const [k, v] of new URLSearchParams(text)) params.set(k, v);
  return params;
}

/** `prefix[name]=value` pairs as `{ name: value }`. */
export function prefixed(params: Params, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = new RegExp(`^${prefix}\\[([^\\]]+)\\]$`);
  for (const [k, v] of params) {
    const m = re.exec(k);
    if (m) out[m[1]!] = v;
  }
  return out;
}

/** Stripe timestamps are Unix seconds. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
