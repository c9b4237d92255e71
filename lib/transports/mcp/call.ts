// A tool call over MCP, whichever protocol generation carried it (server.ts serves 2025-11-25, modern.ts
// 2026-07-28): list_paid_services answered here, a paid tool through the one paid-call pipeline (servePaidCall)
// with this file's MCP transport, and the outcome rendered by result.ts in the payment binding the call speaks.
import { servePaidCall, type PaidCallTransport } from '@/lib/paid-call/serve';
import { JsonRpcError, outcomeToolResult, type ToolAnswer, type ToolResultContext } from '@/lib/transports/mcp/result';
import { ProblemError } from '@/lib/problems';
import { bearerToken } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import type { Runtime } from '@/lib/runtime';
import type { PaymentCredential } from '@/lib/payments/verify';
import { CREDENTIAL_META_KEY, INVALID_PARAMS_CODE, IDEMPOTENCY_META_KEY, challengeIdOf, credentialFromMeta } from './payment';
import { X402_PAYMENT_META_KEY, declaresX402, declaresX402Extension, x402PaymentFromMeta } from './x402';
import { LIST_PAID_SERVICES, checkByTool, listPaidServices } from './tools';

const INTERNAL_ERROR_CODE = -32603;

/** What every tool call needs of its HTTP request: the runtime serving it and the request itself (key, address). */
export interface CallContext {
  runtime: Runtime;
  request: Request;
}

/** The protocol generation a call came in, and (2026-07-28) the client capabilities its envelope declared. */
export interface CallProtocol {
  era: 'legacy' | 'modern';
  /** MCP 2026-07-28 carries the client's capabilities on every request (`_meta` envelope); the SDK lifts them out. */
  clientCapabilities?: unknown;
}

/** `tools/call` params as both SDKs hand them over. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/**
 * Answers one `tools/call`: a result, or a thrown JsonRpcError; anything else thrown is logged and answered as
 * an internal error that says nothing was charged.
 * @example server.setRequestHandler('tools/call', (r, ctx) => answerToolCall(context, () => r.params, ctx.mcpReq.signal, { era: 'modern' }))
 */
export async function answerToolCall(context: CallContext, readParams: () => ToolCallParams, signal: AbortSignal, protocol: CallProtocol): Promise<ToolAnswer> {
  try {
    return await callTool(context, readParams(), signal, protocol);
  } catch (error) {
    if (error instanceof JsonRpcError) throw error;
    context.runtime.log({ event: 'internal-error', route: 'mcp', error: error instanceof Error ? error.message : String(error) });
    throw new JsonRpcError(INTERNAL_ERROR_CODE, 'Something went wrong on our side. Nothing was charged.');
  }
}

async function callTool(context: CallContext, params: ToolCallParams, signal: AbortSignal, protocol: CallProtocol): Promise<ToolAnswer> {
  const { name, arguments: args, _meta: meta } = params;
  if (name === LIST_PAID_SERVICES) {
    const list = listPaidServices(context.runtime.config.APP_URL, context.runtime.rails?.live ?? []);
    const summary = list.services.map((s) => `${s.toolName}: ${s.name}, ${s.price.amount} USD`).join('; ');
    return { ...(protocol.era === 'modern' ? { resultType: 'complete' } : {}), content: [{ type: 'text', text: summary }], structuredContent: list };
  }
  const check = checkByTool(name);
  if (!check) {
    throw new JsonRpcError(INVALID_PARAMS_CODE, `Unknown tool "${name}". Call tools/list, or list_paid_services for the paid ones.`);
  }
  return servePaidCall(mcpTransport, check, { args, meta, signal, request: context.request, protocol }, context.runtime);
}

/** A tool call as the MCP transport reads it: the call's arguments and `_meta`, and the HTTP request that carried it. */
interface ToolCall {
  args: Record<string, unknown> | undefined;
  meta: Record<string, unknown> | undefined;
  signal: AbortSignal;
  request: Request;
  protocol: CallProtocol;
}

/** The payment a call carries in `_meta`: MPP's credential or x402's payload; both at once is refused. */
function credentialOf(meta: Record<string, unknown> | undefined): PaymentCredential | null {
  const mpp = credentialFromMeta(meta);
  const x402 = x402PaymentFromMeta(meta);
  if (mpp && x402) {
    throw new ProblemError('invalid-request', 'Send one payment: an MPP credential or an x402 payment, not both.', {
      errors: [{ path: `$._meta["${X402_PAYMENT_META_KEY}"]`, message: `not allowed beside $._meta["${CREDENTIAL_META_KEY}"]` }],
    });
  }
  return mpp ?? x402;
}

/**
 * The payment binding a call is answered in. An MPP credential is answered in MPP's binding even beside an x402
 * declaration. On 2026-07-28 a client declaring x402's extension gets its `payment_required` result (x402 says a
 * server supporting the extension must use it then), and one paying with x402 without declaring it the
 * tool-result binding; on 2025-11-25 either gets the tool-result binding, the only one that generation has.
 */
function bindingOf(meta: Record<string, unknown> | undefined, protocol: CallProtocol): ToolResultContext['binding'] {
  if (credentialFromMeta(meta) !== null) return 'mpp';
  if (protocol.era === 'legacy') return declaresX402(meta) ? 'x402' : 'mpp';
  if (declaresX402Extension(protocol.clientCapabilities)) return 'x402-extension';
  return x402PaymentFromMeta(meta) !== null ? 'x402' : 'mpp';
}

/**
 * MCP: the arguments are the body; the credential (MPP's or x402's) and the Idempotency-Key ride in `_meta`; a
 * Bearer key and the client's address come from the HTTP request. The outcome becomes a result or a JSON-RPC
 * error, in the payment binding the call speaks (x402.ts says how a call is recognised).
 */
const mcpTransport: PaidCallTransport<ToolCall, ToolAnswer> = {
  surface: 'mcp',
  readCall({ args, meta, signal, request }, _check, runtime) {
    const rawKey = meta?.[IDEMPOTENCY_META_KEY];
    return {
      body: args ?? {},
      idempotencyKey: rawKey === undefined || rawKey === null ? null : String(rawKey),
      idempotencyKeySource: `$._meta.${IDEMPOTENCY_META_KEY}`,
      clientIp: clientIp(request.headers, runtime.config.TRUSTED_PROXY),
      bearerKey: bearerToken(request.headers),
      credential: credentialOf(meta),
      // A cancellation and a closed connection are both the client going away.
      departure: () => AbortSignal.any([signal, request.signal]),
    };
  },
  respond: (outcome, check, { meta, protocol }, runtime) =>
    outcomeToolResult(check, outcome, {
      binding: bindingOf(meta, protocol),
      era: protocol.era,
      challengeId: challengeIdOf(credentialFromMeta(meta)),
      appUrl: runtime?.config.APP_URL,
    }),
};
