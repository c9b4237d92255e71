// POST /api/mcp: a stateless Streamable HTTP MCP endpoint (JSON responses, no sessions). Each HTTP request
// gets its own protocol server and transport: nothing is shared between requests, so any instance of the
// service can answer any request.
//
// Paid tool calls go through the same paid-call pipeline as the REST routes (servePaidCall): this file's
// transport reads the call out of the MCP request (arguments, `_meta` credential and Idempotency-Key, the HTTP
// request's Bearer key and client address), and lib/paid-call/mcp.ts renders the outcome as a result or an error.
//
// The low-level protocol `Server` is used on purpose: McpServer turns every error a tool throws into an
// isError result, and MPP needs the payment error as a JSON-RPC error; it would also validate arguments
// itself, before our pipeline, without the JSON paths the REST routes report.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { servePaidCall, type PaidCallTransport } from '@/lib/paid-call/serve';
import { JsonRpcError, outcomeToolResult } from '@/lib/transports/mcp/result';
import { ProblemError, errorResponse, problem, problemResponse } from '@/lib/problems';
import { bearerToken } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { getRuntime, type Runtime } from '@/lib/runtime';
import type { PaymentCredential } from '@/lib/payments/verify';
import { logEvent } from '@/lib/log';
import { PRICE_USD } from '@/lib/price';
import { checksInWords } from '@/lib/checks/registry';
import { CREDENTIAL_META_KEY, INVALID_PARAMS_CODE, IDEMPOTENCY_META_KEY, challengeIdOf, credentialFromMeta } from './payment';
import { X402_PAYMENT_META_KEY, declaresX402, x402PaymentFromMeta } from './x402';
import { LIST_PAID_SERVICES, checkByTool, listPaidServices, toolList } from './tools';

const MCP_SERVER_INFO = { name: 'paid-agent-checks', version: '1.0.0' };

const instructions = () =>
  `${checksInWords()} paid checks (${PRICE_USD} USD per fulfilled call) and a free catalogue. Call list_paid_services first. Paid tools answer an unpaid call ` +
  'with JSON-RPC error -32042 whose data.challenges are MPP challenges (card, USDC on Base); pay one and retry with the credential in ' +
  'params._meta["org.paymentauth/credential"] (mppx McpClient does this), or send "Authorization: Bearer <credits key>" on the HTTP request. ' +
  'x402 clients pay with the PaymentPayload in params._meta["x402/payment"] and get the settlement in the result\'s _meta["x402/payment-response"]; ' +
  'a call declaring "org.x402/payment" in params._meta["io.modelcontextprotocol/clientCapabilities"].extensions gets the x402 terms as an isError result.';

/** Room for the JSON-RPC envelope around a body of MAX_BODY_BYTES. */
const ENVELOPE_BYTES = 16 * 1024;

interface CallContext {
  runtime: Runtime;
  request: Request;
}

export async function handleMcpRequest(request: Request, runtime?: Runtime): Promise<Response> {
  if (request.method !== 'POST') {
    // Stateless JSON mode has no server-to-client stream to open (GET) and no session to end (DELETE).
    return problemResponse(problem('method-not-allowed', 'The MCP endpoint is stateless: send JSON-RPC messages with POST.'), { Allow: 'POST' });
  }
  let server: Server | undefined;
  try {
    const rt = runtime ?? getRuntime();
    server = createMcpServer({ runtime: rt, request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: rt.config.MAX_BODY_BYTES + ENVELOPE_BYTES,
    });
    await server.connect(transport);
    return await transport.handleRequest(request);
  } catch (error) {
    // The SDK answers protocol errors itself; reaching here means our setup failed (configuration, store).
    return errorResponse(error, { route: 'mcp', log: runtime?.log ?? logEvent });
  } finally {
    await server?.close().catch(() => {});
  }
}

const INTERNAL_ERROR_CODE = -32603;

// The SDK parses a request with the handler's schema before its own tools/call check, and a failed parse
// there is answered -32603 internal error with the raw zod dump. Registering tools/call with a schema that
// accepts any params leaves the shape check to the Server's wrapper, which answers a malformed call
// (`arguments` not an object, no `name`) with -32602 invalid params, as a client error should be.
const AnyToolCall = z.object({ method: z.literal('tools/call'), params: z.unknown() });

function createMcpServer(context: CallContext): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: instructions() });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(AnyToolCall, async (request, extra) => {
    try {
      return await callTool(context, CallToolRequestSchema.parse(request).params, extra.signal);
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      context.runtime.log({ event: 'internal-error', route: 'mcp', error: error instanceof Error ? error.message : String(error) });
      throw new JsonRpcError(INTERNAL_ERROR_CODE, 'Something went wrong on our side. Nothing was charged.');
    }
  });
  return server;
}

async function callTool(context: CallContext, params: z.infer<typeof CallToolRequestSchema>['params'], signal: AbortSignal): Promise<CallToolResult> {
  const { name, arguments: args, _meta: meta } = params;
  if (name === LIST_PAID_SERVICES) {
    const list = listPaidServices(context.runtime.config.APP_URL, context.runtime.rails?.live ?? []);
    const summary = list.services.map((s) => `${s.toolName}: ${s.name}, ${s.price.amount} USD`).join('; ');
    return { content: [{ type: 'text', text: summary }], structuredContent: list };
  }
  const check = checkByTool(name);
  if (!check) {
    throw new JsonRpcError(INVALID_PARAMS_CODE, `Unknown tool "${name}". Call tools/list, or list_paid_services for the paid ones.`);
  }
  const call = { args, meta: meta as Record<string, unknown> | undefined, signal, request: context.request };
  return servePaidCall(mcpTransport, check, call, context.runtime);
}

/** A tool call as the MCP transport reads it: the call's arguments and `_meta`, and the HTTP request that carried it. */
interface ToolCall {
  args: Record<string, unknown> | undefined;
  meta: Record<string, unknown> | undefined;
  signal: AbortSignal;
  request: Request;
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
 * MCP: the arguments are the body; the credential (MPP's or x402's) and the Idempotency-Key ride in `_meta`; a
 * Bearer key and the client's address come from the HTTP request. The outcome becomes a tool result or a
 * JSON-RPC error, in the payment binding the call speaks (lib/mcp/x402.ts says how a call is recognised).
 */
const mcpTransport: PaidCallTransport<ToolCall, CallToolResult> = {
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
  respond: (outcome, check, { meta }, runtime) =>
    outcomeToolResult(check, outcome, {
      // An MPP credential is answered in MPP's binding even beside an x402 declaration.
      binding: declaresX402(meta) && credentialFromMeta(meta) === null ? 'x402' : 'mpp',
      challengeId: challengeIdOf(credentialFromMeta(meta)),
      appUrl: runtime?.config.APP_URL,
    }),
};
