// The one table of primary sources the assessment cites. Every finding names its sources by id, so a URL is
// written (and checked by hand) once. Only specifications, standards and the processors' own documentation
// belong here: a reader must be able to check each claim against the text it comes from.

export const REFERENCES = {
  'mpp-core': {
    title: 'The "Payment" HTTP Authentication Scheme (MPP core, IETF Internet-Draft)',
    url: 'https://datatracker.ietf.org/doc/draft-httpauth-payment/',
  },
  'mpp-discovery': {
    title: 'Service Discovery for HTTP Payment Authentication: OpenAPI x-payment-info and x-service-info (MPP discovery draft)',
    url: 'https://paymentauth.org/draft-payment-discovery-00.html',
  },
  mppx: {
    title: 'mppx: the MPP TypeScript SDK and CLI (mppx validate, mppx discover validate)',
    url: 'https://github.com/wevm/mppx',
  },
  'x402-v2': {
    title: 'x402 protocol specification, version 2',
    url: 'https://github.com/coinbase/x402/blob/main/specs/x402-specification-v2.md',
  },
  'x402-http': {
    title: 'x402 v2 HTTP transport: PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE',
    url: 'https://github.com/coinbase/x402/blob/main/specs/transports-v2/http.md',
  },
  'x402-exact-evm': {
    title: 'x402 "exact" scheme on EVM chains (EIP-3009 transferWithAuthorization or Permit2)',
    url: 'https://github.com/coinbase/x402/blob/main/specs/schemes/exact/scheme_exact_evm.md',
  },
  'x402-payment-identifier': {
    title: 'x402 payment-identifier extension (idempotent payments)',
    url: 'https://github.com/coinbase/x402/blob/main/specs/extensions/payment_identifier.md',
  },
  'x402-bazaar': {
    title: 'x402 bazaar extension (discovery of x402 resources)',
    url: 'https://github.com/coinbase/x402/blob/main/specs/extensions/bazaar.md',
  },
  'eip-3009': {
    title: 'EIP-3009: Transfer With Authorization',
    url: 'https://eips.ethereum.org/EIPS/eip-3009',
  },
  'eip-4361': {
    title: 'EIP-4361: Sign-In with Ethereum',
    url: 'https://eips.ethereum.org/EIPS/eip-4361',
  },
  'rfc-9110-402': {
    title: 'RFC 9110 HTTP Semantics, section 15.5.3: 402 Payment Required',
    url: 'https://www.rfc-editor.org/rfc/rfc9110.html#name-402-payment-required',
  },
  'rfc-9457': {
    title: 'RFC 9457: Problem Details for HTTP APIs',
    url: 'https://www.rfc-editor.org/rfc/rfc9457.html',
  },
  'rfc-9530': {
    title: 'RFC 9530: Digest Fields (Content-Digest)',
    url: 'https://www.rfc-editor.org/rfc/rfc9530.html',
  },
  'idempotency-key': {
    title: 'The Idempotency-Key HTTP Header Field (IETF httpapi Internet-Draft)',
    url: 'https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/',
  },
  'stripe-idempotency': {
    title: 'Stripe API: idempotent requests',
    url: 'https://docs.stripe.com/api/idempotent_requests',
  },
  'stripe-webhook-signatures': {
    title: 'Stripe: resolve webhook signature verification errors (Stripe-Signature, the raw body, the endpoint secret)',
    url: 'https://docs.stripe.com/webhooks/signature',
  },
  'stripe-webhooks': {
    title: 'Stripe: receive events in your webhook endpoint (duplicates, ordering, retries)',
    url: 'https://docs.stripe.com/webhooks',
  },
  'stripe-fulfillment': {
    title: 'Stripe: fulfill orders (a fulfilment function safe to call more than once for one Checkout Session)',
    url: 'https://docs.stripe.com/payments/checkout/fulfill-orders',
  },
  'stripe-disputes': {
    title: 'Stripe: responding to disputes (the evidence to submit)',
    url: 'https://docs.stripe.com/disputes/responding',
  },
  'stripe-payout-reconciliation': {
    title: 'Stripe: payout reconciliation report',
    url: 'https://docs.stripe.com/reports/payout-reconciliation',
  },
  'stripe-onramp': {
    title: 'Stripe: fiat-to-crypto onramp',
    url: 'https://docs.stripe.com/crypto/onramp',
  },
  'openapi-3.1': {
    title: 'OpenAPI Specification 3.1.0',
    url: 'https://spec.openapis.org/oas/v3.1.0.html',
  },
  'llms-txt': {
    title: 'The /llms.txt file proposal',
    url: 'https://llmstxt.org/',
  },
  'owasp-authentication': {
    title: 'OWASP Authentication Cheat Sheet',
    url: 'https://cheatsheetseries.owasp.org/cheatsheets/Authentication_Cheat_Sheet.html',
  },
  'owasp-session': {
    title: 'OWASP Session Management Cheat Sheet',
    url: 'https://cheatsheetseries.owasp.org/cheatsheets/Session_Management_Cheat_Sheet.html',
  },
  'owasp-logging': {
    title: 'OWASP Logging Cheat Sheet',
    url: 'https://cheatsheetseries.owasp.org/cheatsheets/Logging_Cheat_Sheet.html',
  },
} as const satisfies Record<string, { title: string; url: string }>;

export type ReferenceId = keyof typeof REFERENCES;

export interface Reference {
  title: string;
  url: string;
}

/**
 * The `{ title, url }` pairs for reference ids, in the order given.
 * @example references(['rfc-9457']) // [{ title: 'RFC 9457: Problem Details for HTTP APIs', url: 'https://www.rfc-editor.org/rfc/rfc9457.html' }]
 */
export function references(ids: readonly ReferenceId[]): Reference[] {
  return ids.map((id) => ({ title: REFERENCES[id].title, url: REFERENCES[id].url }));
}
