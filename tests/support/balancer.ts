import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A round-robin load balancer in front of several instances of the service, as a platform or nginx would put
// one: each request goes to the next upstream in turn, its answer carries `x-served-by` (the upstream's index)
// so a test can tell which instance answered, and an upstream that refuses the connection (killed) is skipped
// for the next one: nothing of the request reached it, so nothing is sent twice.

export interface Balancer {
  url: string;
  port: number;
  /** The instances, in turn; set after the balancer started (their APP_URL is the balancer's address). */
  upstreams: string[];
  close(): Promise<void>;
}

/**
 * Starts the balancer on a free loopback port.
 * @example const lb = await startBalancer(); lb.upstreams = servers.map((s) => s.url);
 */
export async function startBalancer(): Promise<Balancer> {
  let turn = 0;
  const balancer: Balancer = { url: '', port: 0, upstreams: [], close: async () => {} };
  const server = http.createServer(async (req, res) => {
    const body = Buffer.concat(await req.toArray());
    const first = turn++;
    const forward = (attempt: number) => {
      const index = (first + attempt) % balancer.upstreams.length;
      const target = new URL(req.url ?? '/', balancer.upstreams[index]);
      // The Host header stays the balancer's, as a real one keeps it: the instances' APP_URL names it.
      const out = http.request(target, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, { ...answer.headers, 'x-served-by': String(index) });
        answer.pipe(res);
      });
      out.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED' && attempt + 1 < balancer.upstreams.length) return forward(attempt + 1);
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain', 'x-served-by': String(index) });
        res.end(`upstream ${index}: ${error.code ?? error.message}`);
      });
      out.end(body);
    };
    forward(0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  balancer.port = (server.address() as AddressInfo).port;
  balancer.url = `http://127.0.0.1:${balancer.port}`;
  balancer.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return balancer;
}
