// One JSON line per event on stdout. Callers pass masked identifiers only; as a second guard,
// anything shaped like a secret we hold or handle is masked here before it is written, and so is the
// exact text of every secret the configuration holds (registerLogSecrets). A line written while a request
// is served carries that request's id and route (lib/request-context.ts).
import { currentRequest } from '@/lib/request-context';

// Transaction hashes and EIP-3009 nonces have the same shape as a private key (0x + 64 hex) but are
// public on-chain identifiers that the audit trail needs, so they are kept under these field names only.
const PUBLIC_HASH_FIELDS = ['paymentIntent', 'transaction', 'txHash', 'nonce'];

// Secrets whose shape is free text (CREDITS_KEY_SECRET, KV_REST_API_TOKEN, METRICS_TOKEN, …): masked by value.
const holder = globalThis as unknown as { __pacLogSecrets?: Set<string> };
const registered = (holder.__pacLogSecrets ??= new Set<string>());

const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/pac_live_[0-9A-Za-z]{4,}/g, 'pac_live_…'],
  [/(Payment|Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 …'],
  // Stripe secret and restricted keys (sk_live_…, rk_test_…), webhook signing secrets, shared payment tokens.
  [/\b([sr]k_[a-z]+)_[0-9A-Za-z]{8,}/g, '$1_…'],
  [/\bwhsec_[0-9A-Za-z+/=]{8,}/g, 'whsec_…'],
  [/\bspt_[0-9A-Za-z]{8,}/g, 'spt_…'],
  // Passwords in connection strings (redis://:pw@host, https://user:pw@host).
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"':]*:[^\s/@"']+@/gi, '$1…@'],
  // base64url JSON (x402 payment signatures, MPP credentials, JWTs): a credential however it is labelled.
  [/\beyJ[A-Za-z0-9_-]{16,}(?:\.[A-Za-z0-9_-]+)*/g, 'eyJ…'],
  // A 32-byte private key; longer hex (signatures, calldata) is not this shape and is left alone.
  [new RegExp(`(?<!"(?:${PUBLIC_HASH_FIELDS.join('|')})":")\\b0x[0-9a-fA-F]{64}(?![0-9a-fA-F])`, 'g'), '0x…'],
];

/**
 * Masks anything shaped like a credits key, payment credential, Stripe secret or private key.
 * @example scrubSecrets('{"k":"sk_test_51Habcdefgh"}') // '{"k":"sk_test_…"}'
 */
export function scrubSecrets(text: string): string {
  let scrubbed = SECRET_SHAPES.reduce((t, [re, mask]) => t.replace(re, mask), text);
  for (const secret of registered) if (scrubbed.includes(secret)) scrubbed = scrubbed.split(secret).join('…');
  return scrubbed;
}

/**
 * Masks these exact values in every later log line. Short values are ignored: masking "abc" everywhere
 * would garble the log without protecting anything.
 * @example registerLogSecrets([config.CREDITS_KEY_SECRET, config.METRICS_TOKEN])
 */
export function registerLogSecrets(values: Array<string | undefined>): void {
  for (const value of values) if (value && value.length >= 8) registered.add(value);
}

/**
 * Writes one JSON line: the time, the current request's id and route (when serving one), then `event`.
 * @example logEvent({ event: 'fulfilled', operation: check.operationId, creditsUsage: 'cu_1' })
 */
export function logEvent(event: Record<string, unknown>): void {
  if (process.env.LOG_LEVEL === 'silent') return;
  const request = currentRequest();
  const line = request ? { t: new Date().toISOString(), requestId: request.requestId, route: request.route, ...event } : { t: new Date().toISOString(), ...event };
  process.stdout.write(scrubSecrets(JSON.stringify(line)) + '\n');
}

/** Query parameters of this site whose values an access line keeps: none of them can hold a secret. */
const PLAIN_QUERY_PARAMETERS = new Set(['check', 'cursor', 'limit', 'ready']);
/** A parameter name an access line prints as it is; any other (a key pasted as a name, say) is printed as `…`. */
const PLAIN_NAME = /^(?!pac_|shr_)[A-Za-z][A-Za-z0-9_-]{0,31}$/;

/**
 * A request's path and query as an access line prints them, without what a URL may carry that must not be logged:
 * the value of every query parameter but this site's plain ones (a credits key sent as `?key=`, a Checkout
 * session's id, anything a client put there) and any odd parameter name become `…`, and so does a share link's
 * token or a credits key in the path. Nothing is decoded, so an undecodable path is printed as it came.
 * @example loggedPath('http://localhost:3000/check?key=pac_live_x&check=readiness') // '/check?key=…&check=readiness'
 */
export function loggedPath(url: string): string {
  const cut = url.indexOf('://');
  const from = cut < 0 ? 0 : url.indexOf('/', cut + 3);
  const target = from < 0 ? '/' : url.slice(from);
  const hash = target.indexOf('#');
  const [path, query] = (hash < 0 ? target : target.slice(0, hash)).split(/\?(.*)/s, 2);
  const shownPath = path
    .split('/')
    .map((segment) => (/^shr_/.test(segment) ? 'shr_…' : /pac_live_/i.test(segment) ? '…' : segment))
    .join('/');
  if (query === undefined) return shownPath;
  const pairs = query.split('&').map((pair) => {
    const [name, value] = pair.split(/=(.*)/s, 2);
    if (!PLAIN_NAME.test(name)) return '…';
    return value === undefined ? name : `${name}=${PLAIN_QUERY_PARAMETERS.has(name) ? value : '…'}`;
  });
  return `${shownPath}?${pairs.join('&')}`;
}
