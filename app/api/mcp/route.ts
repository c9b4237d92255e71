import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { observed } from '@/lib/http/observe';
import { atOwnHost } from '@/lib/http/served-host';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';
// A paid check over MCP can take verify + check + settle: see the REST route.
export const maxDuration = 120;

// Stateless Streamable HTTP MCP endpoint, MCP 2025-11-25 and 2026-07-28 on one path (lib/transports/mcp/server.ts),
// at this service's own host names only.
const mcp = atOwnHost((request) => handleMcpRequest(request));
export const POST = observed('mcp', mcp);
export const GET = observed('mcp', mcp);
export const DELETE = observed('mcp', mcp);
