// The one Content-Security-Policy of the site. Pages load nothing from other origins (no fonts, CDNs
// or analytics), so the policy can be tight. Scripts: pages get a fresh nonce per request from
// `proxy.ts`, and Next puts it on its own bootstrap and inline scripts; 'strict-dynamic' lets those
// scripts load the page's chunks. Anything else (API answers, files) runs no script at all.
// form-action is left open on purpose: checkout forms post to us and we redirect the browser to
// Stripe Checkout, a redirect Chrome would check against it.

/**
 * The policy for one response: with a nonce for a rendered page, without one for everything else.
 * `next dev` also needs 'unsafe-eval' (React rebuilds server error stacks with eval).
 * @example contentSecurityPolicy({ nonce: 'k2J…', development: false })
 */
export function contentSecurityPolicy({ nonce, development }: { nonce?: string; development: boolean }): string {
  const scripts = nonce ? `'self' 'nonce-${nonce}' 'strict-dynamic'` : "'self'";
  return [
    "default-src 'self'",
    `script-src ${scripts}${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}
