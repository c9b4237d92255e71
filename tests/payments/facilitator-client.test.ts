// The x402 facilitator client's transport (lib/payments/facilitator.ts), against real HTTP servers on
// 127.0.0.1: what it sends, and how it tells a settle that never left us (nothing can have moved: a plain
// 503) from one that may have reached the facilitator (the money may move: recorded for the reconciler).
// The second distinction decides whether a settlement is recorded as unconfirmed, so it is pinned here for
// the transport the service uses, whose errors are shaped unlike fetch's.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { httpFacilitator } from '../../lib/payments/facilitator';
import { requestScope, type RequestScope } from '../../lib/payments/scope';
import { memoryCredentialClaims } from '../../lib/payments/claims';

const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on: bound, then released. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const PAYLOAD = { x402Version: 2, payload: { signature: '0xabc' } };
const REQUIREMENTS = { scheme: 'exact', network: 'eip155:8453', amount: '1000000' };

/** Runs one facilitator call inside a request scope, as verifyPayment does; returns the scope and the outcome. */
async function inScope(call: () => Promise<unknown>): Promise<{ scope: RequestScope; result: unknown; error: unknown }> {
  const scope: RequestScope = { claims: memoryCredentialClaims(), errors: [] };
  let result: unknown;
  let error: unknown;
  await requestScope.run(scope, async () => {
    try {
      result = await call();
    } catch (e) {
      error = e;
    }
  });
  return { scope, result, error };
}

describe('httpFacilitator', () => {
  it('POSTs the x402 v2 envelope as JSON to <url>/verify and passes the verdict through, its reason recorded', async () => {
    const seen: { method?: string; url?: string; type?: string; body?: unknown }[] = [];
    const url = await serve((req, res, body) => {
      seen.push({ method: req.method, url: req.url, type: req.headers['content-type'], body: JSON.parse(body) });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ isValid: false, invalidReason: 'insufficient_funds', payer: '0x1' }));
    });
    const client = httpFacilitator(`${url}/`);
    const { scope, result, error } = await inScope(() => client.verify(PAYLOAD as never, REQUIREMENTS as never));
    expect(error).toBeUndefined();
    expect(result).toEqual({ isValid: false, invalidReason: 'insufficient_funds', payer: '0x1' });
    expect(seen).toEqual([
      { method: 'POST', url: '/verify', type: 'application/json', body: { x402Version: 2, paymentPayload: PAYLOAD, paymentRequirements: REQUIREMENTS } },
    ]);
    expect(scope.facilitatorReason).toBe('insufficient_funds');
    expect(scope.unavailable).toBeUndefined();
  });

  it('a settle refused at connect never reached the facilitator: unavailable, not ambiguous', async () => {
    const client = httpFacilitator(await closedPort());
    const { scope, error } = await inScope(() => client.settle(PAYLOAD as never, REQUIREMENTS as never));
    expect((error as Error).name).toBe('VerificationFailedError');
    expect(scope.unavailable).toBe(true);
    expect(scope.ambiguous).toBeUndefined();
  });

  it('a settle whose connection drops after it was sent may have been acted on: unavailable and ambiguous', async () => {
    const url = await serve((req) => req.socket.destroy());
    const client = httpFacilitator(url);
    const { scope, error } = await inScope(() => client.settle(PAYLOAD as never, REQUIREMENTS as never));
    expect((error as Error).name).toBe('VerificationFailedError');
    expect(scope.unavailable).toBe(true);
    expect(scope.ambiguous).toBe(true);
  });

  it('a 5xx answer is no verdict, even with one in its body; the next call on the same client still gets its answer', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls += 1;
      res.writeHead(calls === 1 ? 502 : 200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ success: true, transaction: `0x${calls}`, network: 'eip155:8453', payer: '0x1' }));
    });
    const client = httpFacilitator(url);
    const first = await inScope(() => client.settle(PAYLOAD as never, REQUIREMENTS as never));
    expect((first.error as Error).name).toBe('VerificationFailedError');
    expect(first.scope.unavailable).toBe(true);
    expect(first.scope.ambiguous).toBe(true);
    const second = await inScope(() => client.settle(PAYLOAD as never, REQUIREMENTS as never));
    expect(second.error).toBeUndefined();
    expect(second.result).toEqual({ success: true, transaction: '0x2', network: 'eip155:8453', payer: '0x1' });
  });
});
