import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { withPeer } from '@/lib/http/peer-address';

// Serves a Web-standard handler (an App Router route, a test endpoint) over node:http on a free loopback
// port, as `next start` would for those routes, so real paying clients can call it by URL.

export interface WebServer {
  url: string;
  close(): Promise<void>;
}

export async function serveWebHandler(handle: (request: Request) => Response | Promise<Response>): Promise<WebServer> {
  let origin = '';
  const server = createServer((req, res) => {
    // As under `next start`, the request's signal says the client went away before its answer was sent.
    const client = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) client.abort();
    });
    void toWebRequest(req, origin, client.signal)
      .then(handle)
      .then(async (response) => {
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => (headers[name] = value));
        res.writeHead(response.status, headers);
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => {
        // 599 is never a status the service sends: a test seeing it knows the handler threw.
        res.writeHead(599, { 'Content-Type': 'text/plain' });
        res.end(`handler threw: ${String(error)}`);
      });
  });
  const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function toWebRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // What `next start` does with instrumentation.ts: the socket's address appended, for per-IP rate limits.
  headers.set('x-forwarded-for', withPeer(headers.get('x-forwarded-for') ?? undefined, req.socket.remoteAddress));
  const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', origin), { method: req.method, headers, body: hasBody ? Buffer.concat(chunks) : undefined, signal });
}
