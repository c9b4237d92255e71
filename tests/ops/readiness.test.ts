import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as healthGET } from '@/app/api/health/route';
import { openRedisStore } from '@/lib/store/redis';
import { railsFor } from '@/lib/runtime';
import type { Store } from '@/lib/store';
import { redisServerAvailable, startRedisServer } from '../support/redis-server';
import { installTestRuntime, type TestRuntime } from '../support/runtime';

// GET /api/health stays liveness; ?ready=1 asks the store and names the live rails, 503 when the store is gone.

const BASE = 'http://localhost:3000';
const ready = () => healthGET(new Request(`${BASE}/api/health?ready=1`));
const hasRedis = redisServerAvailable();

let rt: TestRuntime | undefined;
const opened: Store[] = [];
afterEach(async () => {
  await rt?.dispose();
  rt = undefined;
  await Promise.all(opened.splice(0).map((s) => s.close().catch(() => {})));
});

/** A loopback port nothing listens on (taken, then released). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('GET /api/health', () => {
  it('answers liveness without touching the store', async () => {
    const store = { kind: 'sqlite', getRecord: () => Promise.reject(new Error('must not be asked')) } as unknown as Store;
    rt = installTestRuntime({}, { store: { ...store, close: async () => {} } as Store });
    const res = await healthGET(new Request(`${BASE}/api/health`));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('?ready=1 answers the store kind and the live rails when the store answers', async () => {
    rt = installTestRuntime({ MPP_SECRET_KEY: 'm'.repeat(40), PAY_TO_ADDRESS: '0x' + '1'.repeat(40), X402_FACILITATOR_URL: 'http://127.0.0.1:9/' });
    rt.rails = railsFor(rt.config, rt.store);
    const res = await ready();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ ok: true, ready: true, store: { kind: 'sqlite', latencyMs: expect.any(Number) }, rails: ['evm', 'x402'], prepaidCredits: true });
  });

  it('?ready=1 answers 503 store-unavailable (problem+json) when a Redis store points at a dead port', async () => {
    const store = openRedisStore(`redis://127.0.0.1:${await deadPort()}`);
    opened.push(store);
    rt = installTestRuntime({}, { store });
    const res = await ready();
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toMatchObject({ type: 'https://paid-agent-checks.dev/problems/store-unavailable', status: 503, ready: false, store: { kind: 'redis' }, rails: [] });
  });

  it.runIf(hasRedis)('?ready=1 follows a real Redis going away and coming back', async () => {
    const redis = await startRedisServer();
    try {
      const store = openRedisStore(redis.url);
      opened.push(store);
      rt = installTestRuntime({}, { store });
      expect((await ready()).status).toBe(200);
      await redis.stop();
      expect((await ready()).status).toBe(503);
      // Liveness does not depend on the store.
      expect((await healthGET(new Request(`${BASE}/api/health`))).status).toBe(200);
      await redis.restart();
      let status = 0;
      // ioredis reconnects on its own schedule; readiness follows as soon as it is back.
      for (let i = 0; i < 50 && status !== 200; i++) {
        status = (await ready()).status;
        if (status !== 200) await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe(200);
    } finally {
      await redis.stop();
    }
  });
});
