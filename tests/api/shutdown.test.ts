import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { drain, inFlightCalls, installShutdownHandlers, onShutdown, resetLifecycleForTests, trackFlight } from '@/lib/lifecycle';
import { runTracked } from '@/lib/paid-call/serve';
import { readinessCheck } from '@/lib/checks/readiness/entry';
import type { CheckEntry } from '@/lib/checks/entry';
import { balance, createKey } from '@/lib/credits/ledger';
import { PROBLEM_BASE } from '@/lib/problems';
import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { startup } from '@/lib/startup';
import { installTestRuntime, validReadinessBody, type TestRuntime } from '../support/runtime';
import { agentCheckRoute } from '../support/check-routes';

const { POST: readinessPOST } = agentCheckRoute('readiness');

// The drain behind graceful shutdown (lib/lifecycle.ts, lib/paid-call/serve.ts runTracked), in process: what waits, what is
// cut short and given back, what is refused. The real signal against `next start` is tests/system/shutdown.test.ts.

let rt: TestRuntime;

beforeEach(() => {
  resetLifecycleForTests();
  rt = installTestRuntime();
});
afterEach(async () => {
  resetLifecycleForTests();
  await rt.dispose();
});

/** A paid operation whose work ends only when `finish` is called or its signal fires. */
function gatedOperation() {
  let finish!: () => void;
  let started!: () => void;
  let cut = false;
  const running = new Promise<void>((resolve) => (started = resolve));
  const operation: CheckEntry = {
    ...readinessCheck,
    run: (input, context) => {
      started();
      return new Promise((resolve, reject) => {
        finish = () => resolve(readinessCheck.run(input as never, context) as never);
        context.signal.addEventListener('abort', () => {
          cut = true;
          reject(new Error('aborted'));
        });
      });
    },
  };
  return { operation, running, finish: () => finish(), cut: () => cut };
}

const callWith = (check: CheckEntry, bearerKey: string) => ({
  check, body: validReadinessBody(), idempotencyKey: null, idempotencyKeySource: 'header:Idempotency-Key', clientIp: '203.0.113.9', bearerKey, credential: null,
});

describe('draining paid calls', () => {
  it('waits for a call in flight that finishes within the grace: it is charged once, then the hooks run', async () => {
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const gate = gatedOperation();
    const order: string[] = [];
    onShutdown('first', () => void order.push('first'));
    onShutdown('broken', () => { throw new Error('hook failed'); });
    onShutdown(function last() {
      order.push('last');
    });
    const outcome = runTracked(rt, callWith(gate.operation, key)).then((o) => (order.push('call'), o));
    await gate.running;
    expect(inFlightCalls()).toBe(1);

    const drained = drain({ graceMs: 600_000, log: rt.log }).then(() => order.push('drained'));
    // New calls are refused while the one in flight is still running.
    const refused = await readinessPOST(new Request('http://localhost:3000/api/agent/readiness', {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(validReadinessBody()),
    }));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await refused.json()).toMatchObject({ type: `${PROBLEM_BASE}shutting-down`, status: 503 });
    expect(order).toEqual([]);

    gate.finish();
    await drained;
    expect((await outcome).kind).toBe('fulfilled');
    expect(order).toEqual(['call', 'first', 'last', 'drained']);
    expect(rt.logs.find((e) => e.event === 'shutdown-hook-failed')).toEqual({ event: 'shutdown-hook-failed', hook: 'broken', error: 'hook failed' });
    expect((await balance(rt.store, keyHash)).callsLeft).toBe(24);
    expect(rt.logs.filter((e) => e.event === 'shutdown-cut-short')).toEqual([]);
  });

  it('cuts short a call that outlasts the grace: its held call is back at once, and it answers 503 shutting-down', async () => {
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    const gate = gatedOperation();
    const outcome = runTracked(rt, callWith(gate.operation, key));
    await gate.running;
    expect((await balance(rt.store, keyHash)).grants[0].reserved).toBe(1);

    await drain({ graceMs: 1, log: rt.log });
    expect(await outcome).toMatchObject({ kind: 'problem', problem: { type: `${PROBLEM_BASE}shutting-down`, status: 503 }, retryAfterSeconds: 5 });
    const after = await balance(rt.store, keyHash);
    expect([after.callsLeft, after.grants[0].reserved, after.grants[0].used]).toEqual([25, 0, 0]);
    expect(rt.logs.find((e) => e.event === 'shutdown-cut-short')).toEqual({ event: 'shutdown-cut-short', calls: 1, released: 1 });
  });

  it('gives back what a call holds even when its work ignores the cut', async () => {
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    let releases = 0;
    const stubborn = trackFlight(async (flight) => {
      flight.holds(async () => void releases++);
      held();
      await new Promise((resolve) => setTimeout(resolve, 200));
      return flight.cutShort;
    });
    await holding;
    await drain({ graceMs: 1, settleMs: 1 });
    expect(releases).toBe(1);
    expect(await stubborn).toBe(true);
  });

  it('refuses a paid MCP tool call during the drain with the same problem, as a tool error, and holds nothing', async () => {
    const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
    await drain({ graceMs: 1 });
    const res = await handleMcpRequest(new Request('http://localhost:3000/api/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() } }),
    }));
    expect(res.status).toBe(200);
    const { result } = (await res.json()) as { result: { isError: boolean; _meta: Record<string, unknown> } };
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ problem: { type: `${PROBLEM_BASE}shutting-down`, status: 503 }, retryAfterSeconds: 5 });
    const after = await balance(rt.store, keyHash);
    expect([after.callsLeft, after.grants[0].reserved]).toEqual([25, 0]);
  });

  it('drains once however often it is asked', async () => {
    let runs = 0;
    onShutdown('count', () => void runs++);
    await Promise.all([drain({ graceMs: 1 }), drain({ graceMs: 1 })]);
    await drain({ graceMs: 1 });
    expect(runs).toBe(1);
  });
});

describe('the grace of SHUTDOWN_GRACE_SECONDS, on real timers', () => {
  it('SIGTERM through the server\'s own startup: a call ending inside the grace is fulfilled and charged, one outlasting it is cut (503) and released', async () => {
    await rt.dispose();
    rt = installTestRuntime({ SHUTDOWN_GRACE_SECONDS: '1' });
    const saved = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.removeAllListeners(signal);
    const purges = globalThis as unknown as { __pacPurge?: { stop(): void } };
    const exits: number[] = [];
    let exited!: () => void;
    const exitCalled = new Promise<void>((resolve) => (exited = resolve));
    let cleanup = () => {};
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      exits.push(code ?? 0);
      exited();
    }) as typeof process.exit);
    try {
      // The handlers the server installs at boot, with the grace read from the configuration.
      startup();
      const { key, keyHash } = await createKey(rt.store, rt.config.CREDITS_KEY_SECRET, 'bundle-25');
      const quick = gatedOperation();
      const slow = gatedOperation();
      const quickOutcome = runTracked(rt, callWith(quick.operation, key));
      const slowOutcome = runTracked(rt, callWith(slow.operation, key));
      await Promise.all([quick.running, slow.running]);
      expect((await balance(rt.store, keyHash)).grants[0].reserved).toBe(2);

      // The handler's timers (the grace, and a last-resort exit past it) are kept to be cleared at the end, so
      // none outlives the test and ends this worker.
      const handlerTimers: NodeJS.Timeout[] = [];
      const realSetTimeout = setTimeout;
      const timers = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
        const timer = realSetTimeout(run, ms);
        handlerTimers.push(timer);
        return timer;
      }) as typeof setTimeout);
      try {
        process.emit('SIGTERM', 'SIGTERM');
      } finally {
        timers.mockRestore();
      }
      cleanup = () => handlerTimers.forEach((t) => clearTimeout(t));
      expect(handlerTimers).toHaveLength(2);
      // 100 ms into the drain, on a timer set in the same turn as the grace's: Node fires timers of one turn in
      // the order they expire, so this one runs first exactly when the grace is longer than 100 ms (a grace of
      // 0 cuts both calls before it). The call then ends by this test's hand, inside the grace.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([quick.cut(), slow.cut()]).toEqual([false, false]);
      quick.finish();
      expect((await quickOutcome).kind).toBe('fulfilled');
      expect([quick.cut(), slow.cut(), inFlightCalls()]).toEqual([false, false, 1]);
      expect(rt.logs.filter((e) => e.event === 'shutdown-cut-short')).toEqual([]);

      // The other one never ends by itself: the grace runs out, it is cut short and its call given back.
      expect(await slowOutcome).toMatchObject({ kind: 'problem', problem: { type: `${PROBLEM_BASE}shutting-down`, status: 503 }, retryAfterSeconds: 5 });
      expect(slow.cut()).toBe(true);
      await exitCalled;
      expect(exits).toEqual([143]);
      expect(rt.logs.filter((e) => String(e.event).startsWith('shutdown-'))).toEqual([
        { event: 'shutdown-started', inFlight: 2, graceMs: 1_000 },
        { event: 'shutdown-cut-short', calls: 1, released: 1 },
        { event: 'shutdown-drained', inFlight: 0 },
      ]);
      const after = await balance(rt.store, keyHash);
      expect([after.callsLeft, after.grants[0].reserved, after.grants[0].used]).toEqual([24, 0, 1]);
    } finally {
      cleanup();
      exit.mockRestore();
      log.mockRestore();
      purges.__pacPurge?.stop();
      delete purges.__pacPurge;
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.removeAllListeners(signal);
        for (const l of saved[signal]) process.on(signal, l);
      }
    }
  });
});

describe('the signal handlers', () => {
  it('hold back the framework\'s own SIGTERM handler until the drain is over, and a second signal exits at once', async () => {
    const saved = { SIGTERM: process.listeners('SIGTERM'), SIGINT: process.listeners('SIGINT') };
    for (const l of saved.SIGTERM) process.off('SIGTERM', l);
    const events: string[] = [];
    const framework = (signal: NodeJS.Signals) => void events.push(`framework ${signal}`);
    process.on('SIGTERM', framework);
    try {
      let finish!: () => void;
      const flight = trackFlight(() => new Promise<void>((resolve) => (finish = resolve)));
      installShutdownHandlers({ graceMs: 600_000, exit: (code) => void events.push(`exit ${code}`) });
      expect(process.listeners('SIGTERM')).not.toContain(framework);

      process.emit('SIGTERM', 'SIGTERM');
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual([]);
      finish();
      await flight;
      await drain({ graceMs: 1 });
      await new Promise((resolve) => setImmediate(resolve));
      expect(events).toEqual(['framework SIGTERM']);

      process.emit('SIGTERM', 'SIGTERM');
      expect(events).toEqual(['framework SIGTERM', 'exit 143']);
    } finally {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        process.removeAllListeners(signal);
        for (const l of saved[signal]) process.on(signal, l);
      }
    }
  });
});
