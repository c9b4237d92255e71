import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// A paid check over MCP can take verify + check + settle: see the REST route.
export const maxDuration = 120;

// Stateless Streamable HTTP MCP endpoint, MCP 2025-11-25 and 2026-07-28 on one path; see lib/transports/mcp/server.ts.
export const POST = observed('mcp', (request: Request) => handleMcpRequest(request));
export const GET = observed('mcp', (request: Request) => handleMcpRequest(request));
export const DELETE = observed('mcp', (request: Request) => handleMcpRequest(request));
