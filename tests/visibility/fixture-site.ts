// A small configurable website on 127.0.0.1 for visibility tests and benchmarks. Point the checker at it
// with CHECK_HOST_MAP (see hostMap()) so it can be addressed as e.g. https://site.test/.
//
//   const site = await startFixtureSite({
//     '/': { headers: { 'content-type': 'text/html' }, body: '<title>Hi</title>' },
//     '*': { headers: { 'content-type': 'text/html' }, body: '<title>Hi</title>' },   // every other path
//     '/old': { redirect: '/', status: 301 },
//     '/robots.txt': (req) => ({ body: req.headers['x-forwarded-proto'] === 'https' ? 'User-agent: *' : '' }),
//   });
//   await safeFetch(new URL('https://site.test/'), { hostMap: site.hostMap(['site.test']) });
//   await site.close();

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';

export interface FixtureResponse {
  /** Default 200, or 302 with `redirect`. */
  status?: number;
  /** An array keeps repeated headers as separate header lines, in order. */
  headers?: Array<[string, string]> | Record<string, string | string[]>;
  body?: string | Buffer;
  /** Location to redirect to. */
  redirect?: string;
  /** Compress `body` and send Content-Encoding. */
  encoding?: 'gzip' | 'deflate' | 'br';
  /** Wait this long before sending anything (simulated latency). */
  delayMs?: number;
  /** Send headers, then `chunk` every `intervalMs`, `count` times (forever if omitted). */
  drip?: { chunk: string; intervalMs: number; count?: number };
  /** Accept the request and never answer. */
  hang?: boolean;
  /** Answer only once this promise settles (a test holds a page until it releases it). */
  held?: Promise<unknown>;
  /** Reset the TCP connection instead of answering. */
  reset?: boolean;
  /** Stream `bytes` bytes of `chunk` repeated, honouring back-pressure (for pages far over the cap). */
  stream?: { bytes: number; chunk?: string | Buffer };
}

export type FixtureRoute = FixtureResponse | ((req: IncomingMessage) => FixtureResponse);

interface FixtureRequest {
  method: string;
  path: string;
  host: string | undefined;
  headers: IncomingMessage['headers'];
  /** Bytes the server handed to the socket for this connection, updated as it goes. */
  bytesWritten: number;
  /** The client went away before the response finished. */
  closedEarly: boolean;
}

export interface FixtureSite {
  port: number;
  /** http://127.0.0.1:port */
  origin: string;
  url(path: string): string;
  /** CHECK_HOST_MAP value sending each host to this server. */
  hostMap(hosts: string[]): string;
  /** The routes passed in, looked up on every request: a test may add or replace entries. */
  routes: Record<string, FixtureRoute>;
  /** Paths hit, in order, query included. */
  requests: string[];
  /** Details per request, in order. */
  log: FixtureRequest[];
  close(): Promise<void>;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function encode(body: Buffer, encoding: FixtureResponse['encoding']): Buffer {
  if (encoding === 'gzip') return zlib.gzipSync(body);
  if (encoding === 'deflate') return zlib.deflateSync(body);
  if (encoding === 'br') return zlib.brotliCompressSync(body);
  return body;
}

/**
 * `body` gzipped `layers` times, as a hostile site may send it under `Content-Encoding: gzip, gzip, …`
 * (outer layers stored, so 3,000 of them build in a fraction of a second).
 * @example { headers: { 'content-encoding': Array(3000).fill('gzip').join(',') }, body: gzipLayers('<p>x</p>', 3000) }
 */
export function gzipLayers(body: string | Buffer, layers: number): Buffer {
  let out = zlib.gzipSync(body);
  for (let i = 1; i < layers; i++) out = zlib.gzipSync(out, { level: 0 });
  return out;
}

function headerLines(headers: FixtureResponse['headers']): Array<[string, string]> {
  if (!headers) return [];
  if (Array.isArray(headers)) return [...headers];
  return Object.entries(headers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v]]));
}

async function respond(spec: FixtureResponse, req: IncomingMessage, res: ServerResponse, entry: FixtureRequest) {
  const socket = req.socket;
  if (spec.delayMs) await wait(spec.delayMs);
  if (spec.held) await spec.held.catch(() => {});
  if (spec.hang) return;
  if (spec.reset) {
    socket.resetAndDestroy();
    return;
  }

  const lines = headerLines(spec.headers);
  if (spec.redirect !== undefined) lines.push(['Location', spec.redirect]);
  const status = spec.status ?? (spec.redirect !== undefined ? 302 : 200);
  const hasType = lines.some(([k]) => k.toLowerCase() === 'content-type');
  if (!hasType) lines.push(['Content-Type', 'text/html; charset=utf-8']);

  if (spec.stream || spec.drip) {
    // A flat [name, value, ...] list is how Node sends repeated headers as separate lines.
    res.writeHead(status, lines.flat());
    const update = () => (entry.bytesWritten = socket.bytesWritten);
    if (spec.stream) {
      const chunk = Buffer.from(spec.stream.chunk ?? 'x'.repeat(64 * 1024));
      let left = spec.stream.bytes;
      while (left > 0 && !res.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
        }
        update();
      }
    } else if (spec.drip) {
      for (let i = 0; (spec.drip.count === undefined || i < spec.drip.count) && !res.destroyed; i++) {
        res.write(spec.drip.chunk);
        update();
        await wait(spec.drip.intervalMs);
      }
    }
    if (!res.destroyed) res.end();
    return;
  }

  const body = encode(Buffer.isBuffer(spec.body) ? spec.body : Buffer.from(spec.body ?? ''), spec.encoding);
  if (spec.encoding) lines.push(['Content-Encoding', spec.encoding]);
  lines.push(['Content-Length', String(body.length)]);
  res.writeHead(status, lines.flat());
  res.end(body);
}

export async function startFixtureSite(routes: Record<string, FixtureRoute>): Promise<FixtureSite> {
  const requests: string[] = [];
  const log: FixtureRequest[] = [];
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    const entry: FixtureRequest = {
      method: req.method ?? 'GET',
      path,
      host: req.headers.host,
      headers: req.headers,
      bytesWritten: 0,
      closedEarly: false,
    };
    requests.push(path);
    log.push(entry);
    res.on('close', () => {
      entry.bytesWritten = req.socket.bytesWritten;
      entry.closedEarly = !res.writableFinished;
    });

    // `*` answers every path no other route names (a single-page app's catch-all).
    const route = routes[path] ?? routes[path.split('?')[0]] ?? routes['*'];
    const spec: FixtureResponse = route === undefined
      ? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'Not found' }
      : typeof route === 'function' ? route(req) : route;
    respond(spec, req, res, entry).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    port,
    origin,
    url: (path) => origin + path,
    hostMap: (hosts) => hosts.map((h) => `${h}=127.0.0.1:${port}`).join(','),
    routes,
    requests,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging and dripping responses never finish on their own.
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
