// In-band payment for MCP tool calls, as MPP defines it for MCP: challenges travel in a JSON-RPC error
// (-32042 payment required, -32043 verification failed), the credential in `params._meta`, the receipt in
// the result's `_meta`. Field names are mppx's own (`Mcp` in the mppx package), so `McpClient.wrap` pays us.
//
// Why we translate instead of using mppx's MCP transport: mppx 0.11's `Transport.mcpSdk()` cannot offer our
// two methods together. `mppx.compose()` under an MCP transport refuses stripe.charge ("does not support HTTP
// canOffer hooks": stripe.charge always installs one, for Stripe's minimum amount) and evm.charge ("requires
// methods using the configured MCP transport": evm.charge pins its own HTTP transport for x402); the implicit
// `mppx.charge()` compose reads `input.url` and throws on an MCP request; evm.charge alone fails parsing the
// x402 resource URL. tests/mcp/mppx-compose.test.ts pins each of those facts.
//
// So the MCP edge hands the very same rails the REST routes use the credential as data: the credential object
// in `_meta` is serialized to MPP's wire form (`Payment <base64url>`, what mppx's HTTP transport reads) and
// passed to the paid-call pipeline as a PaymentCredential; the pipeline's challenges come back as objects and
// its receipt as mppx wrote it (lib/paid-call/mcp.ts). One pipeline, one set of challenges, one single-use
// claim per credential, whichever transport carried it.
import { Credential, Mcp } from 'mppx';
import type { PaymentCredential } from '@/lib/payments/verify';

export const CREDENTIAL_META_KEY = Mcp.credentialMetaKey; // 'org.paymentauth/credential'
export const RECEIPT_META_KEY = Mcp.receiptMetaKey; // 'org.paymentauth/receipt'
export const PAYMENT_REQUIRED_CODE = Mcp.paymentRequiredCode; // -32042
export const PAYMENT_VERIFICATION_FAILED_CODE = Mcp.paymentVerificationFailedCode; // -32043
export const INVALID_PARAMS_CODE = Mcp.invalidParamsCode; // -32602

/** Where an MCP client puts its Idempotency-Key: `params._meta.idempotencyKey`. */
export const IDEMPOTENCY_META_KEY = 'idempotencyKey';

// A value in `_meta` that is not a credential still has to reach the rails as a credential, so that it is
// answered like any unreadable credential (a fresh challenge, reason malformed-credential) and only after
// the arguments, the Idempotency-Key and the rate limits were checked, in the pipeline's order.
const UNREADABLE_CREDENTIAL = 'Payment unreadable';

/**
 * The credential sent in `_meta` as the pipeline takes it, or null when none was sent.
 * @example credentialFromMeta({ 'org.paymentauth/credential': credential }) // { scheme: 'mpp', authorization: 'Payment eyJ…' }
 */
export function credentialFromMeta(meta: Record<string, unknown> | undefined): PaymentCredential | null {
  const authorization = credentialHeaderFromMeta(meta);
  return authorization === null ? null : { scheme: 'mpp', authorization };
}

/**
 * The credential sent in `_meta` in MPP's wire form (`Payment <base64url>`), or null when none was sent. mppx
 * clients send the deserialized credential object; a client that sends the HTTP wire form (a `Payment …`
 * string, or just its base64url part) is served too.
 */
export function credentialHeaderFromMeta(meta: Record<string, unknown> | undefined): string | null {
  const value = meta?.[CREDENTIAL_META_KEY];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (trimmed === '') return UNREADABLE_CREDENTIAL;
    return /^Payment\s/i.test(trimmed) ? trimmed : `Payment ${trimmed}`;
  }
  if (typeof value !== 'object') return UNREADABLE_CREDENTIAL;
  try {
    return Credential.serialize(value as Credential.Credential);
  } catch {
    return UNREADABLE_CREDENTIAL;
  }
}

/** The id of the challenge the `_meta` credential answers, for the receipt's `challengeId`. */
export function challengeIdOf(credential: PaymentCredential | null): string | undefined {
  if (credential?.scheme !== 'mpp' || credential.authorization === UNREADABLE_CREDENTIAL) return undefined;
  try {
    return Credential.deserialize(credential.authorization).challenge.id;
  } catch {
    return undefined;
  }
}
