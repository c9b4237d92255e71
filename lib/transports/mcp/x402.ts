// x402's MCP bindings (x402 transport v2 for MCP), served beside MPP's (payment.ts). The tool-result binding: an
// unpaid call is answered with a tool RESULT marked isError whose content[0].text is x402's PaymentRequired inside an `x402/error`
// wrapper (see x402PaymentRequiredResult for why not also structuredContent); the client pays with a PaymentPayload in `_meta["x402/payment"]`; the
// answer carries the SettlementResponse in `_meta["x402/payment-response"]`.
//
// The extension binding (`org.x402/payment`, MCP 2026-07-28 only): the server declares the extension in its
// `server/discover` capabilities, and a call whose per-request client capabilities declare it is answered
// `{ resultType: "payment_required", paymentRequired }` instead; paying and settling ride the same `_meta` keys.
//
// On MCP 2025-11-25 the endpoint is stateless, so nothing said at `initialize` reaches a later tools/call: a
// client is recognised per call, from the call's own `_meta` (where it may put its capabilities as 2026-07-28 does):
//   - `_meta["x402/payment"]` present               → x402 (the client is paying with x402)
//   - `_meta["org.paymentauth/credential"]` present → MPP
//   - the call declares `org.x402/payment` in `_meta["io.modelcontextprotocol/clientCapabilities"].extensions`
//                                                     → x402 terms for an unpaid call
//   - nothing declared                              → MPP's -32042, whose data also carries the x402 terms
//                                                     (`data.x402`), so an x402 client that reads errors can pay
//
// The PaymentRequired is the REST 402's, unchanged but for its `error` text and the MCP form of the bazaar
// discovery extension: its `resource` must stay the check's REST resource, because the rails bind an x402
// payment to exactly that resource (one price, one resource, whichever transport carried the payment).
import { declareDiscoveryExtension } from '@x402/extensions/bazaar';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CheckEntry } from '@/lib/checks/entry';
import type { PaymentCredential } from '@/lib/payments/verify';
import { jsonSchema } from './schema';

export const X402_PAYMENT_META_KEY = 'x402/payment';
export const X402_PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
/** Where MCP's stateless protocol puts the client's capabilities, on every request. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** The x402 foundation's MCP extension identifier: a call declaring it is answered in x402's terms. */
export const X402_EXTENSION_ID = 'org.x402/payment';

/** The result type of the extension binding's answer to an unpaid call. */
const PAYMENT_REQUIRED_RESULT_TYPE = 'payment_required';

/** `code` of the `x402/error` wrapper in content[0].text. */
const X402_ERROR_CODE = 402;

// A value in `x402/payment` that is not a payload still has to reach the rails, so that it is answered like any
// unreadable payment (reason malformed-credential, with fresh terms) after the arguments and limits were checked.
const UNREADABLE_PAYMENT = 'unreadable';

/**
 * The x402 payment sent in `_meta["x402/payment"]` as the pipeline takes it (PAYMENT-SIGNATURE's wire form),
 * or null when none was sent.
 * @example x402PaymentFromMeta({ 'x402/payment': payload }) // { scheme: 'x402', signature: 'eyJ4NDAy…' }
 */
export function x402PaymentFromMeta(meta: Record<string, unknown> | undefined): PaymentCredential | null {
  const value = meta?.[X402_PAYMENT_META_KEY];
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return { scheme: 'x402', signature: value.trim() === '' ? UNREADABLE_PAYMENT : value.trim() };
  if (typeof value !== 'object' || Array.isArray(value)) return { scheme: 'x402', signature: UNREADABLE_PAYMENT };
  try {
    return { scheme: 'x402', signature: encodePaymentSignatureHeader(value as Parameters<typeof encodePaymentSignatureHeader>[0]) };
  } catch {
    return { scheme: 'x402', signature: UNREADABLE_PAYMENT };
  }
}

/**
 * Whether the call asks for x402's terms: it pays with x402, or declares x402's MCP extension in its
 * per-request client capabilities.
 * @example declaresX402({ 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'org.x402/payment': {} } } }) // true
 */
export function declaresX402(meta: Record<string, unknown> | undefined): boolean {
  if (meta?.[X402_PAYMENT_META_KEY] !== undefined && meta[X402_PAYMENT_META_KEY] !== null) return true;
  return declaresX402Extension(meta?.[CLIENT_CAPABILITIES_META_KEY]);
}

/**
 * Whether a client's capabilities (MCP's `ClientCapabilities`) declare x402's MCP extension.
 * @example declaresX402Extension({ extensions: { 'org.x402/payment': {} } }) // true
 */
export function declaresX402Extension(capabilities: unknown): boolean {
  if (typeof capabilities !== 'object' || capabilities === null) return false;
  const extensions = (capabilities as { extensions?: unknown }).extensions;
  return typeof extensions === 'object' && extensions !== null && X402_EXTENSION_ID in extensions;
}

/** Built once per check: the schemas never change while the process runs. */
const bazaars = new WeakMap<CheckEntry, Record<string, unknown>>();

/**
 * The MCP form of x402's bazaar discovery extension for a check's tool (`{ bazaar: { info, schema } }`): the
 * tool's name, its input schema and example (the check's own), and the schema of its result.
 * @example mcpBazaarExtension(check).bazaar.info.input // { type: 'mcp', toolName: check.toolName, … }
 */
function mcpBazaarExtension(check: CheckEntry): Record<string, unknown> {
  let extension = bazaars.get(check);
  if (!extension) {
    extension = declareDiscoveryExtension({
      toolName: check.toolName,
      description: check.summary,
      transport: 'streamable-http',
      inputSchema: jsonSchema(check.input, 'input'),
      example: check.example as Record<string, unknown>,
      output: { schema: jsonSchema(check.output, 'output') },
    });
    bazaars.set(check, extension);
  }
  return extension;
}

/**
 * The x402 PaymentRequired a tool call of `check` is offered: the REST 402's terms (`required`), with `error`
 * saying why and the tool's bazaar extension beside whatever extensions the 402 carries. Null when the rails
 * offer no x402 terms.
 * @example mcpPaymentRequired(check, offer.x402, 'Payment required.')?.accepts[0].amount // '1000000'
 */
export function mcpPaymentRequired(check: CheckEntry, required: PaymentRequired | null, error: string): PaymentRequired | null {
  if (required === null) return null;
  return { ...required, error, extensions: { ...required.extensions, ...mcpBazaarExtension(check) } };
}

/**
 * x402's payment-required tool result: isError, and the PaymentRequired wrapped in `x402/error` as
 * content[0].text (the place x402's MCP transport requires, and the one every x402 client reads); `meta` rides
 * along in `_meta`. It is not repeated as structuredContent (which the transport makes optional): the paid tools
 * declare an outputSchema, and the MCP TypeScript SDK's client checks structuredContent against it even on an
 * isError result, so a client that listed the tools would throw instead of reading the terms.
 */
export function x402PaymentRequiredResult(required: PaymentRequired, meta: Record<string, unknown>): CallToolResult {
  const wrapped = { 'x402/error': { code: X402_ERROR_CODE, message: required.error ?? 'Payment required', data: required } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(wrapped) }], _meta: meta };
}

/** The extension binding's answer to an unpaid (or refused) call: not a tool result, a result of its own type. */
export interface X402PaymentRequiredAnswer {
  resultType: typeof PAYMENT_REQUIRED_RESULT_TYPE;
  paymentRequired: PaymentRequired;
  _meta?: Record<string, unknown>;
}

/**
 * x402's payment-required answer in the extension binding (MCP 2026-07-28, the client declared
 * `org.x402/payment`): `{ resultType: "payment_required", paymentRequired }`, `meta` riding along in `_meta`.
 * @example x402ExtensionPaymentRequired(required, { problem }) // { resultType: 'payment_required', paymentRequired: required, _meta: { problem } }
 */
export function x402ExtensionPaymentRequired(required: PaymentRequired, meta: Record<string, unknown>): X402PaymentRequiredAnswer {
  return { resultType: PAYMENT_REQUIRED_RESULT_TYPE, paymentRequired: required, _meta: meta };
}

/**
 * Whether a result is the extension binding's payment-required answer.
 * @example isX402PaymentRequiredAnswer({ resultType: 'payment_required', paymentRequired }) // true
 */
export function isX402PaymentRequiredAnswer(result: object): result is X402PaymentRequiredAnswer {
  return (result as { resultType?: unknown }).resultType === PAYMENT_REQUIRED_RESULT_TYPE;
}
