// CORS on the public API: the paid checks and their free descriptions, the stored reports (read with a key or
// a wallet's SIGN-IN-WITH-X), the discovery documents, and the MCP endpoint (the same paid checks as tools).
// A page on any origin may call them and read the headers an agent needs to pay (PAYMENT-REQUIRED,
// WWW-Authenticate) and to follow up (PAYMENT-RESPONSE, Payment-Receipt, Link, Mcp-Session-Id, ...). It gets
// nothing curl would not: `*` admits no credentials, so the browser never sends the site's session cookie with
// such a call, or never shows the page the answer when it does.
// The session, billing and operator routes and the site's report actions (share, re-run: they act for a signed-in
// session) are left out: no CORS header, so another origin reads nothing.
// next.config.ts applies each rule's headers to its paths; Next answers a preflight (OPTIONS) to any route
// handler with 204, and the same headers. Kept free of imports: next.config.ts loads it.

/** One set of paths (next.config.ts `source` patterns) and what a page on another origin may do there. */
interface CorsRule {
  sources: readonly string[];
  methods: readonly string[];
  /** The request headers a preflight may ask for. */
  allowHeaders: readonly string[];
  /** The response headers a page may read besides the safelisted ones. */
  exposeHeaders: readonly string[];
}

/** The REST API: keys, bodies, idempotency, payment credentials and the wallet sign-in in; the terms, the receipts, replays, calls left, the report, when to retry out. */
const REST: CorsRule = {
  sources: ['/api/agent/:path*', '/api/reports', '/api/reports/:id', '/api/reports/:id/compare/:otherId', '/openapi.json', '/llms.txt'],
  methods: ['GET', 'POST', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'PAYMENT-SIGNATURE', 'X-PAYMENT', 'SIGN-IN-WITH-X'],
  exposeHeaders: ['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'Payment-Receipt', 'WWW-Authenticate', 'Idempotent-Replayed', 'Credits-Remaining', 'Link', 'Retry-After', 'X-Request-Id'],
};

/**
 * MCP's Streamable HTTP transport: what its clients send (the session and protocol version after `initialize`,
 * Last-Event-ID to resume a stream, a Bearer credits key; on MCP 2026-07-28 the method and the tool's name mirrored
 * as Mcp-Method and Mcp-Name on every request, which that generation requires) and read. GET and DELETE are allowed so a client's
 * stream or session-end request gets the endpoint's 405 rather than a CORS failure. An MCP call carries its
 * payment and Idempotency-Key in `_meta`, never in HTTP headers, so the REST payment headers are not asked for.
 */
const MCP: CorsRule = {
  sources: ['/api/mcp'],
  methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
  allowHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Session-Id', 'Mcp-Protocol-Version', 'Mcp-Method', 'Mcp-Name', 'Last-Event-ID'],
  exposeHeaders: ['Mcp-Session-Id', 'Mcp-Protocol-Version', 'WWW-Authenticate', 'Retry-After', 'X-Request-Id'],
};

/** A rule's headers, as next.config.ts `headers()` takes them. */
function corsHeaders(rule: CorsRule): ReadonlyArray<{ key: string; value: string }> {
  return [
    { key: 'Access-Control-Allow-Origin', value: '*' },
    { key: 'Access-Control-Allow-Methods', value: rule.methods.join(', ') },
    { key: 'Access-Control-Allow-Headers', value: rule.allowHeaders.join(', ') },
    { key: 'Access-Control-Expose-Headers', value: rule.exposeHeaders.join(', ') },
    { key: 'Access-Control-Max-Age', value: '600' },
  ];
}

/**
 * Every path that answers other origins, with the CORS headers of its answers, preflights included.
 * @example headers: CORS_ROUTES.map(({ source, headers }) => ({ source, headers: [...headers] }))
 */
export const CORS_ROUTES: ReadonlyArray<{ source: string; headers: ReadonlyArray<{ key: string; value: string }> }> = [REST, MCP].flatMap((rule) => {
  const headers = corsHeaders(rule);
  return rule.sources.map((source) => ({ source, headers }));
});
