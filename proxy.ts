import { NextResponse, type NextRequest } from 'next/server';
import { contentSecurityPolicy } from '@/lib/http/csp';
import { requestIdFrom, withRequestContext } from '@/lib/request-context';
import { logEvent, loggedPath } from '@/lib/log';
import { reportPageRefusal } from '@/lib/http/page-rate-limit';
import { problem, problemResponse } from '@/lib/problems';

/** The pages that read stored reports: each view is a store read and a render, free to anyone who asks. */
const REPORT_PAGE = /^\/(?:reports\/[^/]+|r\/[^/]+|account)\/?$/;

/** A plain page saying when to come back: no scripts, no styles, nothing to render. */
function tooManyRequests(retryAfterMs: number): NextResponse {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Too many requests</title></head><body><h1>Too many requests</h1><p>This address has opened too many report pages in a short time. Try again in ${seconds} s.</p></body></html>`;
  return new NextResponse(html, {
    status: 429,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'retry-after': String(seconds),
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-content-type-options': 'nosniff',
    },
  });
}

// Every rendered page gets its own script nonce. Next reads it from the request's
// Content-Security-Policy header while rendering and puts it on every script it emits, so a page
// must be rendered per request (app/layout.tsx is force-dynamic). The response header set here
// replaces the nonce-less policy next.config.ts sets on every path (Next applies config headers
// first, then the proxy's: router-utils/resolve-routes.js).
/**
 * Whether the path has a segment that does not percent-decode (`/reports/%E0%A4%A`). Next's router fails on
 * such a segment with a 500 when it fills a page's or a route's `[id]`; here it is a 400 first.
 */
function undecodablePath(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

function badPath(pathname: string): Response {
  if (pathname.startsWith('/api/')) return problemResponse(problem('invalid-request', 'The address has invalid percent-encoding.'));
  return new NextResponse('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad request</title></head><body><h1>Bad request</h1><p>The address has invalid percent-encoding.</p></body></html>', {
    status: 400,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'; frame-ancestors 'none'", 'x-content-type-options': 'nosniff' },
  });
}

/**
 * The access line of a page request: its id (the one the page answers with), method and path, as the API routes'
 * lines name theirs (lib/http/observe.ts). The path goes through loggedPath: a key typed into a form that was
 * submitted as a GET (`/check?key=pac_live_…`), a share link's token or a Checkout session's id never reaches the log.
 */
function logPageRequest(request: NextRequest, requestId: string): void {
  withRequestContext({ requestId, route: 'page' }, () => logEvent({ event: 'page-request', method: request.method, path: loggedPath(request.url) }));
}

export async function proxy(request: NextRequest) {
  const api = request.nextUrl.pathname.startsWith('/api/');
  // Pages carry a request id like the API routes (lib/http/observe.ts wraps those): a valid incoming one, else new.
  const requestId = requestIdFrom(request.headers);
  if (!api) logPageRequest(request, requestId);
  if (undecodablePath(request.nextUrl.pathname)) return badPath(request.nextUrl.pathname);
  if (api) return NextResponse.next();
  if (REPORT_PAGE.test(request.nextUrl.pathname)) {
    // Counted in the store before anything renders, prefetches included (they render the page's data too).
    const refused = await reportPageRefusal(request.headers, Date.now());
    if (refused) return tooManyRequests(refused.retryAfterMs);
    if (isPrefetch(request)) return NextResponse.next();
  }
  // Behind a TLS terminator (the platform, a load balancer, nginx), a page asked for over plain http is
  // sent to its https address, as APP_URL names it. The header is only a hint: a client that sends it
  // itself is redirected to https, which costs it nothing.
  const appUrl = process.env.APP_URL;
  if (request.headers.get('x-forwarded-proto') === 'http' && appUrl?.startsWith('https://')) {
    return NextResponse.redirect(new URL(`${request.nextUrl.pathname}${request.nextUrl.search}`, appUrl), 308);
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64');
  const policy = contentSecurityPolicy({ nonce, development: process.env.NODE_ENV === 'development' });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', policy);
  requestHeaders.set('x-request-id', requestId);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('content-security-policy', policy);
  response.headers.set('x-request-id', requestId);
  return response;
}

/** A Link prefetch: an RSC payload, not HTML, so it needs no nonce (the second matcher entry lets these in). */
function isPrefetch(request: NextRequest): boolean {
  return request.headers.has('next-router-prefetch') || request.headers.get('purpose') === 'prefetch';
}

export const config = {
  // Pages only: API routes, files and Next's static chunks keep the nonce-less policy (they run no
  // script), and skipping them keeps the paid routes free of the proxy's cost. Link prefetches
  // fetch RSC payloads, not HTML.
  matcher: [
    {
      source: '/((?!api/|\\.well-known/|_next/static|_next/image|icon\\.svg|llms\\.txt|openapi\\.json|favicon\\.ico|robots\\.txt|sitemap\\.xml|opengraph-image).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
    // The report pages, prefetches included: each is counted against RATE_LIMIT_REPORTS_PER_IP.
    '/reports/:id',
    '/r/:token',
    '/account',
    // The API routes with an `[id]` (and those under it), for their path's encoding only.
    '/api/reports/:path+',
  ],
};
