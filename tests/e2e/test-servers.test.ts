// The child servers of the test suites (redis-server, `next start`) take a port the kernel just freed. Here
// another process takes it first, posing as the server the suite wanted (a fake Redis answering +PONG, an
// HTTP server answering 200 to /api/health): the helpers must notice that their child did not bind the port,
// move to another, and hand back their own child, never the impostor.
import http from 'node:http';
import net from 'node:net';
import Redis from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports';
import { redisServerAvailable, startRedisServer, type RedisServer } from '../support/redis-server';
import { startServer, type RunningServer } from '../support/server';

/** The first port handed out is `taken`; later ones are free. */
function takenFirst(taken: number) {
  const handed: number[] = [];
  const pickPort = async () => {
    const port = handed.length === 0 ? taken : await freePort();
    handed.push(port);
    return port;
  };
  return { pickPort, handed };
}

async function listenOnFreePort(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as net.AddressInfo).port;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

describe.skipIf(!redisServerAvailable())('startRedisServer', () => {
  it('moves to another port when another process took the one it picked, and returns its own redis-server', async () => {
    const impostor = net.createServer((socket) => socket.on('data', () => socket.write('+PONG\r\n')));
    const taken = await listenOnFreePort(impostor);
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)));
    const ports = takenFirst(taken);

    const redis: RedisServer = await startRedisServer({ pickPort: ports.pickPort });
    cleanups.push(() => redis.stop());

    expect(ports.handed).toHaveLength(2);
    expect(ports.handed[0]).toBe(taken);
    expect(redis.port).toBe(ports.handed[1]);
    expect(redis.url).toBe(`redis://127.0.0.1:${ports.handed[1]}`);
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    try {
      expect(await client.set('owner', 'our redis-server')).toBe('OK');
      expect(await client.get('owner')).toBe('our redis-server');
      expect(await client.config('GET', 'port')).toEqual(['port', String(redis.port)]);
    } finally {
      client.disconnect();
    }
  });
});

describe('startServer (next start)', () => {
  it('moves to another port when another process took the one it picked, with APP_URL naming the new one', async () => {
    const impostor = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'));
    const taken = await listenOnFreePort(impostor);
    cleanups.push(() => new Promise((resolve) => impostor.close(resolve)));
    const ports = takenFirst(taken);

    const server: RunningServer = await startServer({}, { pickPort: ports.pickPort });
    cleanups.push(() => server.stop());

    expect(ports.handed).toHaveLength(2);
    expect(ports.handed[0]).toBe(taken);
    expect(server.port).toBe(ports.handed[1]);
    expect(server.url).toBe(`http://127.0.0.1:${ports.handed[1]}`);
    expect(server.env.APP_URL).toBe(server.url);
    // The service itself answers, and builds its links from the APP_URL it was started with.
    const credits = await fetch(`${server.url}/api/agent/credits`);
    expect(credits.status).toBe(200);
    const body = (await credits.json()) as { plans: Array<{ purchaseUrl: string }> };
    expect(body.plans[0].purchaseUrl).toBe(`${server.url}/pricing#bundle-25`);
  }, 240_000);
});
