// POST /api/mcp: a stateless Streamable HTTP MCP endpoint (JSON responses, no sessions) speaking both protocol
// generations on one path. A request that speaks MCP 2026-07-28 (modern.ts says how it is recognised) is answered
// by the v2 SDK's server (modern.ts); every other one by the 2025-11-25 server here, as before. Each HTTP request
// gets its own protocol server: nothing is shared between requests, so any instance can answer any request.
//
// Paid tool calls go through the same paid-call pipeline as the REST routes, whichever generation carried them
// (call.ts: servePaidCall with the MCP transport; result.ts renders the outcome).
//
// The low-level protocol `Server` is used on purpose: McpServer turns every error a tool throws into an
// isError result, and MPP needs the payment error as a JSON-RPC error; it would also validate arguments
// itself, before our pipeline, without the JSON paths the REST routes report.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { z } from 'zod';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResponse, problem, problemResponse } from '@/lib/problems';
import { getRuntime, type Runtime } from '@/lib/runtime';
import { logEvent } from '@/lib/log';
import { answerToolCall, type CallContext } from './call';
import { serveModernMcp, speaksModernMcp } from './modern';
import { MCP_SERVER_INFO, serverInstructions, toolList } from './tools';

/** Room for the JSON-RPC envelope around a body of MAX_BODY_BYTES. */
const ENVELOPE_BYTES = 16 * 1024;

export async function handleMcpRequest(request: Request, runtime?: Runtime): Promise<Response> {
  if (request.method !== 'POST') {
    // Stateless JSON mode has no server-to-client stream to open (GET) and no session to end (DELETE).
    return problemResponse(problem('method-not-allowed', 'The MCP endpoint is stateless: send JSON-RPC messages with POST.'), { Allow: 'POST' });
  }
  try {
    const rt = runtime ?? getRuntime();
    const maxRequestBodySize = rt.config.MAX_BODY_BYTES + ENVELOPE_BYTES;
    if (await speaksModernMcp(request, maxRequestBodySize)) return await serveModernMcp(request, rt, maxRequestBodySize);
    return await serveLegacy(request, rt, maxRequestBodySize);
  } catch (error) {
    // The SDKs answer protocol errors themselves; reaching here means our setup failed (configuration, store).
    return errorResponse(error, { route: 'mcp', log: runtime?.log ?? logEvent });
  }
}

/** MCP 2025-11-25 (and earlier), stateless: the v1 SDK's Streamable HTTP transport in JSON mode. */
async function serveLegacy(request: Request, runtime: Runtime, maxRequestBodySize: number): Promise<Response> {
  const server = createMcpServer({ runtime, request });
  try {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize });
    await server.connect(transport);
    return await transport.handleRequest(request);
  } finally {
    await server.close().catch(() => {});
  }
}

// The SDK parses a request with the handler's schema before its own tools/call check, and a failed parse
// there is answered -32603 internal error with the raw zod dump. Registering tools/call with a schema that
// accepts any params leaves the shape check to the Server's wrapper, which answers a malformed call
// (`arguments` not an object, no `name`) with -32602 invalid params, as a client error should be.
const AnyToolCall = z.object({ method: z.literal('tools/call'), params: z.unknown() });

function createMcpServer(context: CallContext): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: serverInstructions() });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(
    AnyToolCall,
    // 2025-11-25 has no result but a tool result: the extension binding's answer is never chosen here (call.ts).
    async (request, extra) => (await answerToolCall(context, () => CallToolRequestSchema.parse(request).params, extra.signal, { era: 'legacy' })) as CallToolResult,
  );
  return server;
}
