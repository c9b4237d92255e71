import { handleMcpRequest } from '@/lib/mcp/server';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// A paid visibility check over MCP can take verify + check + settle: see the REST route.
export const maxDuration = 120;

// Stateless Streamable HTTP MCP endpoint; see lib/mcp/server.ts.
export const POST = (request: Request) => handleMcpRequest(request);
export const GET = (request: Request) => handleMcpRequest(request);
export const DELETE = (request: Request) => handleMcpRequest(request);
