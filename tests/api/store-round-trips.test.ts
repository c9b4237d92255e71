import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import type { Store } from '@/lib/store';
import { installTestRuntime, post, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST } = agentCheckRoute('readiness');

// Each store call is a round trip to the store's thread (SQLite) or to Redis, and on a paid call they were most
// of its cost beyond a trivial route (`npm run bench -- readiness`). These pin how many a paid call makes, and
// which: a prepaid call without an Idempotency-Key makes two in sequence (the admission holding its call; the
// commit with its report, its answer naming that report, and the calls left for Credits-Remaining).

const URL_ = 'http://localhost:3000/api/agent/readiness';

let rt: TestRuntime;
let key: string;
let calls: string[];

beforeEach(async () => {
  rt = installTestRuntime();
  key = (await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25')).key;
  calls = [];
  const real = rt.store;
  rt.store = new Proxy(real, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as Store;
});
afterEach(() => rt.dispose());

describe('store round trips per paid call', () => {
  it('a prepaid call without Idempotency-Key: two, the admission holding its call and the commit keeping its report', async () => {
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}` }));
    expect(res.status).toBe(200);
    expect(res.headers.get('credits-remaining')).toBe('24');
    expect(calls).toEqual(['admitCall', 'finishReservation']);
  });

  it('a prepaid call with an Idempotency-Key: the replay lookup and the in-flight claim besides', async () => {
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-trips-1' }));
    expect(res.status).toBe(200);
    expect(calls).toEqual(['admitCall', 'getIdempotent', 'reserveCall', 'beginIdempotent', 'finishReservation']);
  });

  it('its replay: the admission, the lookup, the report that holds its body and the calls left', async () => {
    await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-trips-2' }));
    calls.length = 0;
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer ${key}`, 'idempotency-key': 'order-trips-2' }));
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(calls).toEqual(['admitCall', 'getIdempotent', 'getReport', 'listGrants']);
  });

  it('an unknown key: refused by the admission alone', async () => {
    const res = await POST(post(URL_, validReadinessBody(), { authorization: `Bearer pac_live_${'A'.repeat(40)}` }));
    expect(res.status).toBe(401);
    expect(calls).toEqual(['admitCall']);
  });
});
