import type { Reference } from './types';

// One home for what the items cite and for the "run it again" step every finding ends with, so the same
// specification carries one title and one address across the whole report.

/**
 * The primary sources the items cite, by what they specify.
 * @example references: [SOURCES.x402, SOURCES.x402Http]
 */
export const SOURCES = {
  http402: { title: 'RFC 9110, HTTP Semantics: 402 Payment Required', url: 'https://www.rfc-editor.org/rfc/rfc9110.html#name-402-payment-required' },
  httpAuth: { title: 'RFC 9110 §11: HTTP authentication (WWW-Authenticate)', url: 'https://www.rfc-editor.org/rfc/rfc9110.html#name-http-authentication' },
  caching: { title: 'RFC 9111, HTTP Caching: the no-store response directive', url: 'https://www.rfc-editor.org/rfc/rfc9111.html#name-no-store-2' },
  mpp: { title: 'The "Payment" HTTP Authentication Scheme (MPP core, IETF Internet-Draft)', url: 'https://datatracker.ietf.org/doc/draft-httpauth-payment/' },
  mppStripe: { title: 'Stripe charge method for the Payment scheme', url: 'https://github.com/tempoxyz/payment-auth-spec/blob/main/specs/methods/stripe/draft-stripe-charge-00.md' },
  mppMcp: { title: 'Payment Authentication Scheme: JSON-RPC & MCP Transport (error -32042)', url: 'https://paymentauth.org/draft-payment-transport-mcp-00.html' },
  paymentDiscovery: { title: 'Payment discovery (draft-payment-discovery-00): x-payment-info', url: 'https://paymentauth.org/draft-payment-discovery-00.html' },
  x402: { title: 'x402 protocol specification, version 2', url: 'https://github.com/coinbase/x402/blob/main/specs/x402-specification-v2.md' },
  x402Http: { title: 'x402 v2 HTTP transport: PAYMENT-REQUIRED, PAYMENT-SIGNATURE, PAYMENT-RESPONSE', url: 'https://github.com/coinbase/x402/blob/main/specs/transports-v2/http.md' },
  x402Mcp: { title: 'x402 v2: MCP transport', url: 'https://github.com/coinbase/x402/blob/main/specs/transports-v2/mcp.md' },
  x402ExactEvm: { title: 'x402 "exact" scheme on EVM chains (EIP-3009 transferWithAuthorization)', url: 'https://github.com/coinbase/x402/blob/main/specs/schemes/exact/scheme_exact_evm.md' },
  x402Bazaar: { title: 'x402 bazaar (discovery) extension', url: 'https://github.com/coinbase/x402/blob/main/specs/extensions/bazaar.md' },
  x402PaymentId: { title: 'x402 payment-identifier extension', url: 'https://github.com/coinbase/x402/blob/main/specs/extensions/payment-identifier.md' },
  eip3009: { title: 'EIP-3009: Transfer With Authorization (validAfter / validBefore)', url: 'https://eips.ethereum.org/EIPS/eip-3009' },
  caip2: { title: 'CAIP-2: blockchain ID specification', url: 'https://github.com/ChainAgnostic/CAIPs/blob/main/CAIPs/caip-2.md' },
  cors: { title: 'Fetch Standard: CORS protocol (Access-Control-Expose-Headers, Access-Control-Allow-Headers)', url: 'https://fetch.spec.whatwg.org/#http-cors-protocol' },
  preflight: { title: 'Fetch Standard: CORS-preflight fetch', url: 'https://fetch.spec.whatwg.org/#cors-preflight-fetch' },
  problem: { title: 'RFC 9457, Problem Details for HTTP APIs', url: 'https://www.rfc-editor.org/rfc/rfc9457.html' },
  openApi: { title: 'OpenAPI Specification 3.1', url: 'https://spec.openapis.org/oas/v3.1.0' },
  agentcash: { title: '@agentcash/discovery specification: payment metadata', url: 'https://github.com/merit-systems/agentcash-discovery/blob/main/docs/SPECIFICATION.md' },
  llmsTxt: { title: 'The /llms.txt file', url: 'https://llmstxt.org' },
  mcp: { title: 'MCP specification (2025-11-25): lifecycle and tools', url: 'https://modelcontextprotocol.io/specification/2025-11-25/server/tools' },
  mcp2026: { title: 'MCP specification (2026-07-28): server/discover and stateless requests', url: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle' },
} as const satisfies Record<string, Reference>;

/**
 * The last verify step of a finding: run the check again and see the item pass.
 * @example rerun('the CORS for browser agents item passes') // 'Run the Agent Payment Endpoint Check again: the CORS for browser agents item passes.'
 */
export function rerun(outcome: string): string {
  return `Run the Agent Payment Endpoint Check again: ${outcome}.`;
}
