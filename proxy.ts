import { NextResponse, type NextRequest } from 'next/server';
import { contentSecurityPolicy } from '@/lib/http/csp';
import { requestIdFrom } from '@/lib/request-context';

// Every rendered page gets its own script nonce. Next reads it from the request's
// Content-Security-Policy header while rendering and puts it on every script it emits, so a page
// must be rendered per request (app/layout.tsx is force-dynamic). The response header set here
// replaces the nonce-less policy next.config.ts sets on every path (Next applies config headers
// first, then the proxy's: router-utils/resolve-routes.js).
export function proxy(request: NextRequest) {
  // Behind a TLS terminator (the platform, a load balancer, nginx), a page asked for over plain http is
  // sent to its https address, as APP_URL names it. The header is only a hint: a client that sends it
  // itself is redirected to https, which costs it nothing.
  const appUrl = process.env.APP_URL;
  if (request.headers.get('x-forwarded-proto') === 'http' && appUrl?.startsWith('https://')) {
    return NextResponse.redirect(new URL(`${request.nextUrl.pathname}${request.nextUrl.search}`, appUrl), 308);
  }
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64');
  const policy = contentSecurityPolicy({ nonce, development: process.env.NODE_ENV === 'development' });
  // Pages carry a request id like the API routes (lib/http/observe.ts wraps those): a valid incoming one, else new.
  const requestId = requestIdFrom(request.headers);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set('content-security-policy', policy);
  requestHeaders.set('x-request-id', requestId);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set('content-security-policy', policy);
  response.headers.set('x-request-id', requestId);
  return response;
}

export const config = {
  // Pages only: API routes, files and Next's static chunks keep the nonce-less policy (they run no
  // script), and skipping them keeps the paid routes free of the proxy's cost. Link prefetches
  // fetch RSC payloads, not HTML.
  matcher: [
    {
      source: '/((?!api/|_next/static|_next/image|icon\\.svg|llms\\.txt|openapi\\.json|favicon\\.ico|robots\\.txt|sitemap\\.xml|opengraph-image).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
