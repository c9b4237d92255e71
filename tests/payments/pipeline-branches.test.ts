// Branches of the paid-call pipeline (lib/paid-call/pipeline.ts) that only a store at the wrong moment reaches:
// a reservation lost after its hold lapsed, and the reservation released when the idempotency claim fails.
// The real route and the real SQLite store, wrapped in a Proxy that misbehaves on one chosen method; the
// clock is frozen (fake Date), so a hold lapses only when a test moves the clock past it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { balance, createKey } from '@/lib/credits/ledger';
import { maskKey } from '@/lib/credits/keys';
import { PROBLEM_BASE } from '@/lib/problems';
import { StoreUnavailableError, type Store } from '@/lib/store';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('readiness');

const URL_ = 'http://localhost:3000/api/agent/readiness';
const START = new Date('2026-03-01T10:00:00.000Z');

let rt: TestRuntime;
let key: string;
let keyHash: string;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
  rt = installTestRuntime();
});
afterEach(async () => {
  vi.useRealTimers();
  await rt.dispose();
});

async function mintKey(calls: number) {
  ({ key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25', { calls }));
}

const send = (idempotencyKey?: string) =>
  POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) }));

/** The real store with `overrides` in place of some of its methods; each override gets the real store. */
function storeWith(overrides: { [M in keyof Store]?: (real: Store, ...args: Parameters<Store[M] & ((...a: never[]) => unknown)>) => ReturnType<Store[M] & ((...a: never[]) => unknown)> }): Store {
  const real = rt.store;
  return new Proxy(real, {
    get(target, prop, receiver) {
      const override = overrides[prop as keyof Store] as ((real: Store, ...args: unknown[]) => unknown) | undefined;
      if (override) return (...args: unknown[]) => override(real, ...args);
      return Reflect.get(target, prop, receiver);
    },
  });
}

/** Records the id of every reservation the gate makes. */
function reservationIds(): { ids: string[]; reserveCall: (real: Store, ...args: Parameters<Store['reserveCall']>) => ReturnType<Store['reserveCall']> } {
  const ids: string[] = [];
  return {
    ids,
    reserveCall: (real, keyHashArg, id, now, holdUntil) => {
      ids.push(id);
      return real.reserveCall(keyHashArg, id, now, holdUntil);
    },
  };
}

describe('a reservation lost after its hold lapsed', () => {
  it('delivers the finished work uncharged, logs the loss, and spends the last call once, for the request that holds it', async () => {
    await mintKey(1);
    const holdMs = rt.config.CREDITS_RESERVATION_HOLD_SECONDS * 1000;
    let second: Response | undefined;
    // Between A's run and A's commit, A's hold lapses and B takes the call that came back and spends it.
    rt.store = storeWith({
      finishReservation: async (real, id, now, answer) => {
        if (second === undefined) {
          vi.setSystemTime(START.getTime() + holdMs + 1_000);
          second = await send();
          return real.finishReservation(id, Date.now(), answer);
        }
        return real.finishReservation(id, now, answer);
      },
    });

    const first = await send();
    expect(second!.status).toBe(200);
    const answerB = (await second!.json()) as { creditsUsage: string };
    expect(first.status).toBe(200);
    const answerA = (await first.json()) as { creditsUsage: string; assessment: unknown };
    expect(answerA.assessment).toBeDefined();

    expect(await rt.store.getReservation(answerA.creditsUsage)).toMatchObject({ keyHash, state: 'released' });
    expect(await rt.store.getReservation(answerB.creditsUsage)).toMatchObject({ keyHash, state: 'committed' });
    const [grant] = await rt.store.listGrants(keyHash, Date.now());
    expect(grant).toMatchObject({ calls: 1, used: 1, reserved: 0, remaining: 0 });
    const lost = rt.logs.filter((e) => e.event === 'reservation-lost');
    expect(lost).toEqual([{ event: 'reservation-lost', operation: 'createAgentReadinessAssessment', usage: answerA.creditsUsage, key: maskKey(key) }]);
    expect(JSON.stringify(rt.logs)).not.toContain(key);
  });
});

describe('the reservation released when the idempotency claim fails', () => {
  it('the store failing on the claim: 503 store-unavailable, and the held call is back in the balance at once', async () => {
    await mintKey(25);
    const reservations = reservationIds();
    rt.store = storeWith({
      reserveCall: reservations.reserveCall,
      beginIdempotent: async () => {
        throw new StoreUnavailableError(new Error('connection reset'));
      },
    });
    const res = await send('order-claim-fails-1');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(((await res.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}store-unavailable`);
    expect(reservations.ids).toHaveLength(1);
    expect(await rt.store.getReservation(reservations.ids[0]!)).toMatchObject({ state: 'released' });
    // The clock is frozen, so the hold has not lapsed: the call is back only because it was released.
    expect((await balance(rt.store, keyHash)).callsLeft).toBe(25);
  });

  it('a concurrent request claiming the key between our look and our claim: 409 in-flight, and our held call is released', async () => {
    await mintKey(25);
    const reservations = reservationIds();
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
    let firstRunning!: () => void;
    const firstIsRunning = new Promise<void>((r) => (firstRunning = r));
    let commits = 0;
    rt.store = storeWith({
      reserveCall: reservations.reserveCall,
      // Every look finds nothing, as when it ran just before the other request's claim.
      getIdempotent: async () => null,
      finishReservation: async (real, id, now, answer) => {
        if (commits++ === 0) {
          firstRunning();
          await firstMayCommit;
        }
        return real.finishReservation(id, now, answer);
      },
    });

    const first = send('order-claim-race-1');
    await firstIsRunning;
    const second = await send('order-claim-race-1');
    releaseFirst();
    expect(second.status).toBe(409);
    expect(((await second.json()) as { type: string }).type).toBe(`${PROBLEM_BASE}idempotency-in-flight`);
    expect((await first).status).toBe(200);

    expect(reservations.ids).toHaveLength(2);
    expect(await rt.store.getReservation(reservations.ids[0]!)).toMatchObject({ state: 'committed' });
    expect(await rt.store.getReservation(reservations.ids[1]!)).toMatchObject({ state: 'released' });
    expect((await balance(rt.store, keyHash)).callsLeft).toBe(24);
  });
});

describe('the store going away while a finished call commits', () => {
  it('a commit applied but never acknowledged: retried (idempotent), delivered, charged exactly once', async () => {
    await mintKey(25);
    let failures = 0;
    rt.store = storeWith({
      finishReservation: async (real, id, now, answer) => {
        // The first two replies are lost: the first command did reach the store and was applied.
        const outcome = await real.finishReservation(id, now, answer);
        if (failures < 2) {
          failures++;
          throw new StoreUnavailableError(new Error('connection closed before the reply'));
        }
        return outcome;
      },
    });
    const res = await send('order-commit-reply-lost');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { creditsUsage: string };
    expect(failures).toBe(2);
    expect(await rt.store.getReservation(body.creditsUsage)).toMatchObject({ state: 'committed' });
    expect((await balance(rt.store, keyHash)).callsLeft).toBe(24);
    expect(rt.logs.filter((e) => e.event === 'commit-unconfirmed')).toEqual([]);
  });

  it('a store that never confirms: the finished work is delivered, logged unconfirmed, and the held call lapses back to the key', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout'] });
    vi.setSystemTime(START);
    await mintKey(25);
    let attempts = 0;
    rt.store = storeWith({
      finishReservation: async () => {
        attempts++;
        throw new StoreUnavailableError(new Error('connection refused'));
      },
    });
    const pending = send('order-commit-never');
    let settled = false;
    void pending.then(() => (settled = true));
    for (let i = 0; i < 60 && !settled; i++) await vi.advanceTimersByTimeAsync(500);
    const res = await pending;
    expect(res.status).toBe(200);
    const body = (await res.json()) as { creditsUsage: string; assessment: unknown };
    expect(body.assessment).toBeDefined();
    expect(attempts).toBe(7);
    expect(rt.logs.filter((e) => e.event === 'commit-unconfirmed')).toEqual([
      { event: 'commit-unconfirmed', operation: 'createAgentReadinessAssessment', usage: body.creditsUsage, key: maskKey(key) },
    ]);
    // Never committed: the hold is still on the books, and the call is back once it lapses.
    expect(await rt.store.getReservation(body.creditsUsage)).toMatchObject({ state: 'held' });
    const holdMs = rt.config.CREDITS_RESERVATION_HOLD_SECONDS * 1000;
    expect((await balance(rt.store, keyHash, Date.now() + holdMs + 1)).callsLeft).toBe(25);
  });
});
