// The MCP route handler served over node:http in-process, on a test runtime wired to the local payment
// rails, and official SDK clients for it. In-process (not `next start`) because the visibility tool must
// reach a fixture site through CHECK_HOST_MAP, which a production server refuses.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { POST, GET, DELETE } from '@/app/api/mcp/route';
import { railsFor } from '@/lib/runtime';
import { installTestRuntime, type TestRuntime } from '../support/runtime';
import type { Rails } from '../../scripts/rails/start';

export interface McpTestServer {
  url: string;
  endpoint: URL;
  runtime: TestRuntime;
  close(): Promise<void>;
}

export async function startMcpServer(rails: Rails | null, env: Record<string, string> = {}): Promise<McpTestServer> {
  const handlers: Record<string, (r: Request) => Promise<Response>> = { POST, GET, DELETE };
  const server: Server = createServer((req, res) => {
    void toWebRequest(req)
      .then((request) => (handlers[request.method] ?? GET)(request))
      .then(async (response) => {
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => (headers[name] = value));
        res.writeHead(response.status, headers);
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => {
        // Surfaces as a failed assertion in the test that caused it: the endpoint must never get here.
        res.writeHead(599, { 'Content-Type': 'text/plain' });
        res.end(`handler threw: ${String(error)}`);
      });
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const url = `http://127.0.0.1:${port}`;
  const runtime = installTestRuntime({ APP_URL: url, ...(rails ? rails.env : {}), ...env });
  if (rails) runtime.rails = railsFor(runtime.config, runtime.store);
  return {
    url,
    endpoint: new URL('/api/mcp', url),
    runtime,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
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

async function toWebRequest(req: IncomingMessage): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  headers.set('x-forwarded-for', req.socket.remoteAddress ?? 'unknown');
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), {
    method: req.method,
    headers,
    body: hasBody ? Buffer.concat(chunks) : undefined,
  });
}
