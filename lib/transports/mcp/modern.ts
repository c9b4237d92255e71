// MCP 2026-07-28 on POST /api/mcp, beside 2025-11-25 (server.ts): the official v2 SDK's serving entry
// (`createMcpHandler`), strict (it refuses 2025-era traffic, which server.ts serves as before), answering from a
// fresh low-level `Server` per request. The SDK does what the generation asks of a server: `server/discover`
// (the versions, our capabilities with x402's `org.x402/payment` extension, `ttlMs`, `cacheScope`), the
// per-request `_meta` envelope (protocol version, client capabilities) checked on every request, `resultType` on
// every result, no `initialize`, session, GET stream or `ping`. Tool calls go through call.ts, the same
// paid-call pipeline as every other transport.
//
// Which generation a request speaks is the SDK's own classification (`isLegacyRequest`): a request carrying the
// envelope's protocol-version claim, or the `MCP-Protocol-Version: 2026-07-28` header, is 2026-07-28. One more
// request is sent here: a `server/discover` without the claim, which the 2025 server would answer "method not
// found"; the strict entry answers it with the versions it serves (-32022), which is what a prober needs.
import {
  Server,
  createMcpHandler,
  isLegacyRequest,
  type CallToolResult,
  type JSONRPCRequest,
  type McpHttpHandler,
  type Result,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import type { Runtime } from '@/lib/runtime';
import { answerToolCall, type ToolCallParams } from './call';
import { CLIENT_CAPABILITIES_META_KEY, X402_EXTENSION_ID, isX402PaymentRequiredAnswer } from './x402';
import { MCP_SERVER_INFO, serverInstructions, toolList } from './tools';

const DISCOVER_METHOD = 'server/discover';

/**
 * How long a client or a shared cache may keep `server/discover` and `tools/list`: both are the same for every
 * caller and change only with a deployment.
 */
const LIST_CACHE = { ttlMs: 5 * 60_000, cacheScope: 'public' } as const;

/** One serving entry per runtime: it keeps nothing between requests but the runtime it answers from. */
const handlers = new WeakMap<Runtime, McpHttpHandler>();

/**
 * Whether a POST to the MCP endpoint speaks MCP 2026-07-28 (or at least is for the 2026-07-28 server to answer).
 * Reads the body from a clone: the request stays readable for whichever server answers it.
 * @example if (await speaksModernMcp(request, limit)) return serveModernMcp(request, runtime, limit);
 */
export async function speaksModernMcp(request: Request, maxRequestBodySize: number): Promise<boolean> {
  if (!(await isLegacyRequest(request, undefined, { maxRequestBodySize }))) return true;
  return namesDiscover(request);
}

async function namesDiscover(request: Request): Promise<boolean> {
  try {
    const body: unknown = await request.clone().json();
    return typeof body === 'object' && body !== null && (body as { method?: unknown }).method === DISCOVER_METHOD;
  } catch {
    return false;
  }
}

/**
 * Answers one MCP 2026-07-28 request.
 * @example return serveModernMcp(request, getRuntime(), config.MAX_BODY_BYTES + 16 * 1024);
 */
export function serveModernMcp(request: Request, runtime: Runtime, maxRequestBodySize: number): Promise<Response> {
  let handler = handlers.get(runtime);
  if (!handler) {
    handler = createMcpHandler(
      ({ requestInfo }) => {
        // Always there under createMcpHandler's fetch; the Bearer key and the client's address come from it.
        if (!requestInfo) throw new Error('MCP 2026-07-28: the serving entry gave no HTTP request');
        return modernServer(runtime, requestInfo);
      },
      {
        legacy: 'reject',
        // The default response mode answers with one JSON body unless a handler sends something before its
        // result, which ours never do: the same plain JSON answers as the 2025 side gives.
        maxRequestBodySize,
      },
    );
    handlers.set(runtime, handler);
  }
  return handler.fetch(request);
}

/**
 * The v2 SDK's low-level server (McpServer would turn MPP's payment error into an isError result, see
 * server.ts), but for one thing: the SDK gives every tools/call result without `content` an empty one, as a tool
 * result needs; x402's `payment_required` result is not a tool result and goes out in its own shape.
 */
class ModernServer extends Server {
  protected override _wrapHandler(method: string, handler: (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>) {
    const wrapped = super._wrapHandler(method, handler);
    if (method !== 'tools/call') return wrapped;
    return async (request: JSONRPCRequest, ctx: ServerContext): Promise<Result> => {
      const result = await wrapped(request, ctx);
      if (!isX402PaymentRequiredAnswer(result)) return result;
      const { content: _added, ...answer } = result as Result & { content?: unknown };
      return answer;
    };
  }
}

function modernServer(runtime: Runtime, request: Request): Server {
  // x402's extension is declared only when there are x402 terms to answer it with.
  const x402 = runtime.rails?.live.includes('x402') ?? false;
  const server = new ModernServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, ...(x402 ? { extensions: { [X402_EXTENSION_ID]: {} } } : {}) },
    instructions: serverInstructions(),
    cacheHints: { 'tools/list': LIST_CACHE, 'server/discover': LIST_CACHE },
  });
  // The same tools as 2025-11-25 serves: the two SDKs type a JSON Schema's properties differently, not the JSON.
  server.setRequestHandler('tools/list', () => ({ tools: toolList() as unknown as Tool[] }));
  server.setRequestHandler('tools/call', async (call, ctx) => {
    const answer = await answerToolCall({ runtime, request }, () => call.params as ToolCallParams, ctx.mcpReq.signal, {
      era: 'modern',
      clientCapabilities: (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY],
    });
    // The SDK's result types know `complete` and `input_required`; x402's `payment_required` is an extension's
    // own result type, which the SDK passes through verbatim on tools/call.
    return answer as CallToolResult;
  });
  return server;
}
