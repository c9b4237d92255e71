// The MCP route handler served over node:http in-process, on a test runtime wired to the local payment
// rails, and official SDK clients for it. In-process (not `next start`) because the visibility tool must
// reach a fixture site through CHECK_HOST_MAP, which a production server refuses.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { POST, GET, DELETE } from '@/app/api/mcp/route';
import { railsFor } from '@/lib/runtime';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import { serveWebHandler } from '../support/web-server';
import type { Rails } from '../../scripts/rails/start';

export interface McpTestServer {
  url: string;
  endpoint: URL;
  runtime: TestRuntime;
  close(): Promise<void>;
}

export async function startMcpServer(rails: Rails | null, env: Record<string, string> = {}): Promise<McpTestServer> {
  const handlers: Record<string, (r: Request) => Promise<Response>> = { POST, GET, DELETE };
  const server = await serveWebHandler((request) => (handlers[request.method] ?? GET)(request));
  const url = server.url;
  const runtime = installTestRuntime({ APP_URL: url, ...(rails ? rails.env : {}), ...env });
  if (rails) runtime.rails = railsFor(runtime.config, runtime.store);
  return {
    url,
    endpoint: new URL('/api/mcp', url),
    runtime,
    close: async () => {
      await server.close();
      await runtime.dispose();
    },
  };
}

/** An SDK client connected over Streamable HTTP; `headers` go on every HTTP request (e.g. a Bearer key). */
export async function connectClient(endpoint: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'paid-agent-checks-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } }));
  return client;
}


/**
 * Calls a tool that must fail with a JSON-RPC error (MPP's -32042 and its kin), and returns that error.
 * @example expect((await callError(client, { name, arguments: args })).code).toBe(-32042);
 */
export async function callError(c: Client, params: Parameters<Client['callTool']>[0]): Promise<McpError> {
  const outcome = await c.callTool(params).then(
    (result) => ({ result }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a JSON-RPC error, got ${JSON.stringify(outcome.result).slice(0, 300)}`);
  expect(outcome.error).toBeInstanceOf(McpError);
  return outcome.error as McpError;
}
