import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '@/lib/config';
import { createKey } from '@/lib/credits/ledger';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import { PROBLEM_BASE } from '@/lib/problems';
import { runPaidCall, type PaidCallDeps, type PaidCall } from '@/lib/paid-call/pipeline';
import { outcomeResponse } from '@/lib/transports/http';
import { validReadinessBody } from '../support/runtime';
import { redisHarness, sqliteHarness, vercelKvHarness } from './adapters';

// A request that dies mid-run leaves its Idempotency-Key in flight. On every adapter the
// marker must free itself after its ttl on the caller's clock, and the pipeline must then accept the retry
// (run it and charge it once). The clock is the gate's `now`, moved forward instead of sleeping.

const T0 = Date.UTC(2026, 10, 1, 12);
/** The pipeline's in-flight ttl (lib/paid-call/pipeline.ts IN_FLIGHT_TTL_MS): a crashed request frees its key after it. */
const IN_FLIGHT_TTL_MS = 3 * 60 * 1000;
const config = parseConfig({ NODE_ENV: 'test', CREDITS_KEY_SECRET: 'x'.repeat(40), DATA_DIR: '/nonexistent' });

for (const harness of [sqliteHarness(), sqliteHarness({ offThread: true }), redisHarness(), vercelKvHarness()]) {
  describe.skipIf(!harness.available)(`an abandoned in-flight Idempotency-Key: ${harness.name}`, () => {
    beforeAll(() => harness.setup());
    afterAll(() => harness.teardown());

    it('is refused while in flight, frees itself after its ttl, and the pipeline then runs and charges the retry once', async () => {
      const store = harness.fresh();
      let clock = T0;
      const deps: PaidCallDeps = { config, store, rails: null, now: () => new Date(clock) };
      const { key, grant } = await createKey(store, config.CREDITS_KEY_SECRET, 'bundle-25', { now: T0 });
      const call = (check = readinessCheck): PaidCall => ({
        check, body: validReadinessBody(), idempotencyKey: 'order-crashed-0001', idempotencyKeySource: 'header:Idempotency-Key',
        clientIp: '203.0.113.9', bearerKey: key, credential: null,
      });

      // The first request reserves a call, claims the key, then never finishes (its process died).
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      void runPaidCall(deps, call({ ...readinessCheck, run: () => (started(), new Promise(() => {})) }));
      await running;

      clock = T0 + IN_FLIGHT_TTL_MS - 1;
      const early = await answer(deps, call());
      expect([early.status, (early.body as { type: string }).type]).toEqual([409, `${PROBLEM_BASE}idempotency-in-flight`]);

      clock = T0 + IN_FLIGHT_TTL_MS;
      const retry = await answer(deps, call());
      expect(retry.status).toBe(200);
      expect(retry.headers['Idempotent-Replayed']).toBeUndefined();
      const usage = (retry.body as { creditsUsage: string }).creditsUsage;
      expect(await store.getReservation(usage)).toMatchObject({ state: 'committed' });
      // One call spent: the crashed request's hold lapsed long before, so its call came back.
      const [state] = await store.listGrants(grant.keyHash, clock);
      expect([state.used, state.reserved, state.remaining]).toEqual([1, 0, 24]);

      const replay = await answer(deps, call());
      expect([replay.status, replay.headers['Idempotent-Replayed']]).toEqual([200, 'true']);
      expect((await store.listGrants(grant.keyHash, clock))[0].used).toBe(1);
    });
  });
}

/** The pipeline's outcome as the HTTP answer it renders to (status, headers by name, parsed body). */
async function answer(deps: PaidCallDeps, call: PaidCall) {
  const res = outcomeResponse(await runPaidCall(deps, call));
  const headers = new Proxy({} as Record<string, string | undefined>, { get: (_, name) => res.headers.get(String(name)) ?? undefined });
  return { status: res.status, headers, body: (await res.json()) as unknown };
}
