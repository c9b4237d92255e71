import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// The service's Prometheus metrics, served by GET /api/metrics. One registry per process: each instance
// exports its own counters and Prometheus adds them up across instances (sum by (…) over the scrape targets),
// so nothing here needs a shared store. This module sits at the bottom of the import graph (like lib/log.ts)
// so the checks and the store's wrapper can count without reaching up; label values are closed sets, never
// anything a client chose (a URL, a key), so a client cannot grow the series (the directory listing's resource
// and facilitator are our own routes' URLs and the configured facilitator's).

/** The rail a paid call was paid (or offered to be paid) over; `none` when it carried neither key nor credential. */
export type MetricRail = 'credits' | 'stripe' | 'evm' | 'x402' | 'none';
/**
 * What became of a paid call: `fulfilled` (delivered and charged once), `replayed` (an Idempotency-Key replay, not
 * charged again), `unpaid` (answered 402 with the terms: no payment, or a key with no calls left), `refused` (the
 * request or its credential was refused: 400, 401, 402 payment-failed, 409, 413, 429), `failed` (the work or a
 * dependency failed: 422, 5xx; nothing charged).
 */
export type MetricOutcome = 'fulfilled' | 'replayed' | 'unpaid' | 'refused' | 'failed';

export interface Metrics {
  registry: Registry;
  paidCalls: Counter<'operation' | 'rail' | 'outcome'>;
  checkDuration: Histogram<'operation'>;
  paymentRequired: Counter<'operation' | 'surface'>;
  settlementFailures: Counter<'rail' | 'reason'>;
  storeDuration: Histogram<'op'>;
  storeErrors: Counter<'op'>;
  fetches: Counter<'outcome'>;
  httpRequests: Counter<'route' | 'status'>;
  httpDuration: Histogram<'route'>;
  directoryListing: Gauge<'resource' | 'facilitator' | 'status'>;
}

function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    paidCalls: new Counter({ name: 'pac_paid_calls_total', help: 'Paid calls by operation, payment rail and outcome', labelNames: ['operation', 'rail', 'outcome'], registers }),
    checkDuration: new Histogram({
      name: 'pac_check_duration_seconds',
      help: 'Time a check ran (the work between payment and charge), per operation',
      labelNames: ['operation'],
      buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30],
      registers,
    }),
    paymentRequired: new Counter({ name: 'pac_payment_required_total', help: '402 payment-required answers issued (REST 402, MCP -32042), per operation', labelNames: ['operation', 'surface'], registers }),
    settlementFailures: new Counter({ name: 'pac_settlement_failures_total', help: 'Settlements that did not charge after the work was done (the call was not delivered), per rail and reason', labelNames: ['rail', 'reason'], registers }),
    storeDuration: new Histogram({
      name: 'pac_store_operation_duration_seconds',
      help: 'Latency of store operations as the server sees them (worker thread or network included)',
      labelNames: ['op'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 2.5],
      registers,
    }),
    storeErrors: new Counter({ name: 'pac_store_errors_total', help: 'Store operations that threw (StoreUnavailableError and others)', labelNames: ['op'], registers }),
    fetches: new Counter({ name: 'pac_fetches_total', help: 'Fetches of user-supplied URLs through safeFetch, by outcome (ok, or the refusal/failure code)', labelNames: ['outcome'], registers }),
    httpRequests: new Counter({ name: 'pac_http_requests_total', help: 'API responses by route and status', labelNames: ['route', 'status'], registers }),
    httpDuration: new Histogram({
      name: 'pac_http_request_duration_seconds',
      help: 'API response time by route (to the response headers; a streamed body is not included)',
      labelNames: ['route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    directoryListing: new Gauge({
      name: 'pac_directory_listing',
      help: 'Whether a directory lists a resource, as its facilitator last said (EXTENSION-RESPONSES bazaar): 1 for the current status, 0 for the others',
      labelNames: ['resource', 'facilitator', 'status'],
      registers,
    }),
  };
}

// On globalThis: Next's dev server re-evaluates modules on edit, and registering a metric name twice throws.
const holder = globalThis as unknown as { __pacMetrics?: Metrics };

/**
 * The process's metrics.
 * @example metrics().paidCalls.inc({ operation: check.operationId, rail: 'credits', outcome: 'fulfilled' })
 */
export function metrics(): Metrics {
  return (holder.__pacMetrics ??= createMetrics());
}

/**
 * Counts one safeFetch by outcome without ever letting counting break a fetch.
 * @example countFetch('ok'); countFetch('dns')
 */
export function countFetch(outcome: string): void {
  try {
    metrics().fetches.inc({ outcome });
  } catch {
    // A metric must never change what a check answers.
  }
}

/**
 * `target` with every method timed into the store latency histogram (and its throws counted). The wrapper
 * inherits everything else (`kind`, fields) from `target` through its prototype.
 * @example const store = timedStore(openStore(config))
 */
export function timedStore<T extends object>(target: T): T {
  const { storeDuration, storeErrors } = metrics();
  const timed = Object.create(target) as Record<string, unknown>;
  for (const name of methodNames(target)) {
    const method = (target as Record<string, unknown>)[name] as (...args: unknown[]) => unknown;
    timed[name] = function (...args: unknown[]) {
      const started = performance.now();
      const done = () => storeDuration.observe({ op: name }, (performance.now() - started) / 1000);
      let result: unknown;
      try {
        result = method.apply(target, args);
      } catch (error) {
        storeErrors.inc({ op: name });
        throw error;
      }
      if (!(result instanceof Promise)) {
        done();
        return result;
      }
      return result.then(
        (value) => (done(), value),
        (error: unknown) => {
          done();
          storeErrors.inc({ op: name });
          throw error;
        },
      );
    };
  }
  return timed as T;
}

function methodNames(target: object): string[] {
  const names = new Set<string>();
  for (let o: object | null = target; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name !== 'constructor' && typeof (target as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}
