// The process's shutdown: on SIGTERM the server stops taking new paid calls, lets the ones in flight finish
// within a bound, gives back every prepaid call it could not finish, runs the registered shutdown hooks,
// then exits. A deploy therefore never leaves a customer's call held for the reservation timeout.
//
// State lives on globalThis: `next build` gives each route (and instrumentation) its own copy of this
// module, and all of them must see one drain.

/** One paid call in flight: how to cut it short, and what to give back if it never ends. */
interface Flight {
  /** Made when the call first reads its signal: most calls (every unpaid 402) never do. */
  controller: AbortController | null;
  /** Set when the grace ended: the call is cut short, its signal (made now or later) aborted. */
  cut: Error | null;
  /** Releases of what the call holds (a prepaid reservation); run when the grace ends before the call does. */
  releases: Array<() => Promise<unknown>>;
}

interface LifecycleState {
  draining: boolean;
  flights: Set<Flight>;
  /** Resolves a waiting drain when the last flight lands. */
  idle: Array<() => void>;
  hooks: Array<{ name: string; run: () => unknown }>;
  drained: Promise<void> | null;
}

const holder = globalThis as unknown as { __pacLifecycle?: LifecycleState };
const state = (holder.__pacLifecycle ??= { draining: false, flights: new Set(), idle: [], hooks: [], drained: null });

/** The Retry-After a refused call carries: long enough for a load balancer to route it to another instance. */
export const SHUTDOWN_RETRY_AFTER_SECONDS = 5;

/** True once the process is shutting down: new paid calls are refused with 503 and Retry-After. */
export function isDraining(): boolean {
  return state.draining;
}

/** Paid calls in flight right now. */
export function inFlightCalls(): number {
  return state.flights.size;
}

/** What a tracked call is handed: the signal that cuts it short at the end of the grace, and where to register a hold. */
export interface FlightHandle {
  signal: AbortSignal;
  /** Registers a release to run if the process must exit before the call ends. */
  holds(release: () => Promise<unknown>): void;
  /** True when the shutdown cut this call short (its signal fired). */
  readonly cutShort: boolean;
}

/**
 * Runs one paid call as in flight: a drain waits for it (up to its grace), then aborts its signal and runs
 * the releases it registered. Call only when `isDraining()` is false; a call started during a drain is
 * tracked too, so it is never lost, but the edge should have refused it.
 * @example const outcome = await trackFlight((flight) => runPaidCall(runtime, { ...call, signal: () => flight.signal, onReserved: (r) => flight.holds(r) }));
 */
export async function trackFlight<T>(run: (flight: FlightHandle) => Promise<T>): Promise<T> {
  const flight: Flight = { controller: null, cut: null, releases: [] };
  state.flights.add(flight);
  const handle: FlightHandle = {
    get signal() {
      if (!flight.controller) {
        flight.controller = new AbortController();
        if (flight.cut) flight.controller.abort(flight.cut);
      }
      return flight.controller.signal;
    },
    holds: (release) => void flight.releases.push(release),
    get cutShort() {
      return flight.cut !== null;
    },
  };
  try {
    return await run(handle);
  } finally {
    state.flights.delete(flight);
    if (state.flights.size === 0) for (const resolve of state.idle.splice(0)) resolve();
  }
}

/**
 * Registers work to run once at shutdown, after the paid calls in flight ended or were given back (close a
 * browser, flush a buffer). Hooks run in registration order; one that throws or hangs (past 5 s) does not stop
 * the rest. The name, when given, is what the log says about a hook that timed out.
 * @example onShutdown('renderer', () => closeRenderer());
 * @example onShutdown(closeRenderer);
 */
export function onShutdown(run: () => unknown): void;
export function onShutdown(name: string, run: () => unknown): void;
export function onShutdown(nameOrRun: string | (() => unknown), run?: () => unknown): void {
  if (typeof nameOrRun === 'function') state.hooks.push({ name: nameOrRun.name || 'anonymous', run: nameOrRun });
  else state.hooks.push({ name: nameOrRun, run: run! });
}

export interface DrainOptions {
  /** How long calls in flight may take to finish before they are cut short and their holds released. */
  graceMs: number;
  /** After the cut: how long the cut calls get to answer (their releases run first, whatever they do). */
  settleMs?: number;
  log?: (event: Record<string, unknown>) => void;
}

const HOOK_TIMEOUT_MS = 5_000;

function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  return Promise.race([work.then(() => true, () => true), timeout]).finally(() => clearTimeout(timer));
}

function untilIdle(): Promise<void> {
  return state.flights.size === 0 ? Promise.resolve() : new Promise((resolve) => state.idle.push(resolve));
}

/**
 * Drains the process once (a second call returns the first drain): refuses new paid calls from now on, waits
 * up to `graceMs` for those in flight, then cuts the rest short, gives back what they hold, and runs the
 * shutdown hooks. Resolves when that is done; exiting is the caller's part.
 * @example await drain({ graceMs: 20_000, log });
 */
export function drain(options: DrainOptions): Promise<void> {
  state.draining = true;
  return (state.drained ??= runDrain(options));
}

async function runDrain({ graceMs, settleMs = 2_000, log }: DrainOptions): Promise<void> {
  const inFlight = state.flights.size;
  log?.({ event: 'shutdown-started', inFlight, graceMs });
  const finished = await within(graceMs, untilIdle());
  if (!finished) {
    const cut = [...state.flights];
    for (const flight of cut) {
      flight.cut = new Error('the server is shutting down');
      flight.controller?.abort(flight.cut);
    }
    // Give back every hold at once, whatever the cut calls do next: a release is idempotent and a later
    // commit of a released call is refused by the store, so the customer is never charged for it.
    const releases = cut.flatMap((f) => f.releases.map((release) => release().then(() => true, () => false)));
    const released = (await Promise.all(releases)).filter(Boolean).length;
    log?.({ event: 'shutdown-cut-short', calls: cut.length, released });
    await within(settleMs, untilIdle());
  }
  for (const hook of state.hooks) {
    const run = Promise.resolve()
      .then(hook.run)
      .catch((error: unknown) => log?.({ event: 'shutdown-hook-failed', hook: hook.name, error: error instanceof Error ? error.message : String(error) }));
    if (!(await within(HOOK_TIMEOUT_MS, run))) log?.({ event: 'shutdown-hook-timeout', hook: hook.name });
  }
  log?.({ event: 'shutdown-drained', inFlight: state.flights.size });
}

type SignalName = 'SIGTERM' | 'SIGINT';
const EXIT_CODES: Record<SignalName, number> = { SIGTERM: 143, SIGINT: 130 };

/**
 * Makes SIGTERM and SIGINT drain before the process exits. `next start` installs its own handlers first
 * (they close the HTTP server, so new connections are refused, then exit); they are taken off and run after
 * the drain, so during the grace the server still answers: new paid calls get 503 with Retry-After, and
 * the calls in flight finish. A second signal exits at once. Installed once per process.
 * @example installShutdownHandlers({ graceMs: config.SHUTDOWN_GRACE_SECONDS * 1000, log });
 */
export function installShutdownHandlers(options: DrainOptions & { exit?: (code: number) => void }): void {
  const marker = globalThis as unknown as { __pacShutdownInstalled?: boolean };
  if (marker.__pacShutdownInstalled) return;
  marker.__pacShutdownInstalled = true;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const previous = process.listeners(signal) as Array<(s: NodeJS.Signals) => void>;
    for (const listener of previous) process.off(signal, listener);
    let received = false;
    process.on(signal, () => {
      if (received) return exit(EXIT_CODES[signal]);
      received = true;
      // Whatever the framework's own close does afterwards, the process ends within the grace and a margin.
      setTimeout(() => exit(EXIT_CODES[signal]), options.graceMs + (options.settleMs ?? 2_000) + HOOK_TIMEOUT_MS + 5_000).unref();
      void drain(options).finally(() => {
        if (previous.length === 0) return exit(EXIT_CODES[signal]);
        for (const listener of previous) listener(signal);
      });
    });
  }
}

/** Tests run several drains in one process: forget the last one (and its hooks and handlers' marker). */
export function resetLifecycleForTests(): void {
  Object.assign(state, { draining: false, flights: new Set(), idle: [], hooks: [], drained: null });
  (globalThis as unknown as { __pacShutdownInstalled?: boolean }).__pacShutdownInstalled = false;
}
