// CORS on the public API: the paid checks and their free descriptions, the stored reports (read with a key or
// a wallet's SIGN-IN-WITH-X), the discovery documents. A page on any origin may call them and read the headers
// an agent needs to pay (PAYMENT-REQUIRED, WWW-Authenticate) and to follow up (PAYMENT-RESPONSE,
// Payment-Receipt, Link, ...). It gets nothing curl would not: `*` admits no credentials, so the browser never
// sends the site's session cookie with such a call, or never shows the page the answer when it does.
// The session, billing and operator routes and the site's report actions (share, re-run: they act for a signed-in
// session) are left out: no CORS header, so another origin reads nothing.
// next.config.ts applies these headers to the listed paths; Next answers a preflight (OPTIONS) to any route
// handler with 204, and the same headers. Kept free of imports: next.config.ts loads it.

/** The public paths, as next.config.ts `source` patterns. */
export const CORS_PATHS = ['/api/agent/:path*', '/api/reports', '/api/reports/:id', '/api/reports/:id/compare/:otherId', '/openapi.json', '/llms.txt', '/.well-known/:path*'] as const;

/** The headers a preflight may ask for: keys, bodies, idempotency, payment credentials and the wallet sign-in. */
const ALLOWED_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'PAYMENT-SIGNATURE', 'X-PAYMENT', 'SIGN-IN-WITH-X'];

/** Every header an agent reads from our answers: the terms, the receipts, replays, calls left, the report, when to retry. */
const EXPOSED_RESPONSE_HEADERS = [
  'PAYMENT-REQUIRED',
  'PAYMENT-RESPONSE',
  'Payment-Receipt',
  'WWW-Authenticate',
  'Idempotent-Replayed',
  'Credits-Remaining',
  'Link',
  'Retry-After',
  'X-Request-Id',
];

/**
 * The CORS headers of every public path's answers, preflights included.
 * @example headers: CORS_PATHS.map((source) => ({ source, headers: CORS_HEADERS }))
 */
export const CORS_HEADERS: ReadonlyArray<{ key: string; value: string }> = [
  { key: 'Access-Control-Allow-Origin', value: '*' },
  { key: 'Access-Control-Allow-Methods', value: 'GET, POST, OPTIONS' },
  { key: 'Access-Control-Allow-Headers', value: ALLOWED_REQUEST_HEADERS.join(', ') },
  { key: 'Access-Control-Expose-Headers', value: EXPOSED_RESPONSE_HEADERS.join(', ') },
  { key: 'Access-Control-Max-Age', value: '600' },
];
