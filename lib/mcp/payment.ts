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
// So the MCP edge speaks to the very same HTTP rails the REST routes use, and converts at the boundary:
//   - the credential object in `_meta` is serialized to `Authorization: Payment <base64url>` (the exact wire
//     form mppx's HTTP transport reads) on a request addressed to the operation's REST resource;
//   - the gate's 402 (both challenges merged in WWW-Authenticate) is parsed back into challenge objects;
//   - the gate's Payment-Receipt header is decoded into the result's `_meta` receipt.
// One gate, one set of challenges, one single-use claim per credential, whichever transport carried it.
import { Challenge, Credential, Mcp, Receipt } from 'mppx';
import type { GateResponse } from '@/lib/payments/gate';
import type { Problem } from '@/lib/problems';

export const CREDENTIAL_META_KEY = Mcp.credentialMetaKey; // 'org.paymentauth/credential'
export const RECEIPT_META_KEY = Mcp.receiptMetaKey; // 'org.paymentauth/receipt'
export const PAYMENT_REQUIRED_CODE = Mcp.paymentRequiredCode; // -32042
export const PAYMENT_VERIFICATION_FAILED_CODE = Mcp.paymentVerificationFailedCode; // -32043
export const INVALID_PARAMS_CODE = Mcp.invalidParamsCode; // -32602

/** Where an MCP client puts its Idempotency-Key: `params._meta.idempotencyKey`. */
export const IDEMPOTENCY_META_KEY = 'idempotencyKey';

// A value in `_meta` that is not a credential still has to reach the rails as a credential, so that it is
// answered like any unreadable credential (a fresh challenge, reason malformed-credential) and only after
// the arguments, the Idempotency-Key and the rate limits were checked, in the gate's order.
const UNREADABLE_CREDENTIAL = 'Payment unreadable';

/**
 * The `Authorization` value carrying the credential sent in `_meta`, or null when none was sent. mppx
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
export function challengeIdOf(header: string | null): string | undefined {
  if (header === null || header === UNREADABLE_CREDENTIAL) return undefined;
  try {
    return Credential.deserialize(header).challenge.id;
  } catch {
    return undefined;
  }
}

export interface PaymentRequiredData {
  httpStatus: 402;
  challenges: Challenge.Challenge[];
  problem: Problem;
}

/** The JSON-RPC error code and data for a gate 402: -32042 when nothing (usable) was paid yet, -32043 when a credential was refused. */
export function paymentErrorFromGate(reply: GateResponse): { code: number; message: string; data: PaymentRequiredData } {
  const problem = reply.body as Problem;
  const header = headerValue(reply.headers, 'www-authenticate');
  const challenges = header ? Challenge.deserializeList(header) : [];
  const reason = typeof problem.reason === 'string' ? problem.reason : undefined;
  // Same mapping as mppx's Mcp.errorCode(): an unreadable credential is invalid params, any other refused
  // credential a verification failure; both still carry a fresh challenge to pay.
  const code = !problem.type.endsWith('/payment-failed')
    ? PAYMENT_REQUIRED_CODE
    : reason === 'malformed-credential'
      ? INVALID_PARAMS_CODE
      : PAYMENT_VERIFICATION_FAILED_CODE;
  return { code, message: problem.detail, data: { httpStatus: 402, challenges, problem } };
}

/** The receipt for the result's `_meta`, decoded from the gate's Payment-Receipt header (null when paid otherwise). */
export function receiptFromGate(reply: GateResponse, challengeId: string | undefined): Record<string, unknown> | null {
  const header = headerValue(reply.headers, 'payment-receipt');
  if (!header) return null;
  try {
    const receipt = Receipt.deserialize(header) as Record<string, unknown>;
    return challengeId ? { ...receipt, challengeId } : receipt;
  } catch {
    return null;
  }
}

export function headerValue(headers: Record<string, string>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}
