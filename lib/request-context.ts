import { AsyncLocalStorage } from 'node:async_hooks';
import crypto from 'node:crypto';

// What one request is, for every log line written while it runs: its id and route, and for a paid call the
// operation, payment rail and outcome once they are known. Held in AsyncLocalStorage so code deep in the stack
// (the pipeline, the store, the checks) logs with the request's id without passing it down.

export interface RequestContext {
  requestId: string;
  route: string;
  operation?: string;
  rail?: string;
  outcome?: string;
}

/**
 * An incoming X-Request-Id we echo: 1-128 characters of letters, digits and `. _ : -` (what ids from nginx
 * `$request_id`, UUIDs, ULIDs and trace ids look like). Anything else is replaced, so a client cannot put
 * spaces, quotes or control characters into our logs or headers.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id: a valid incoming X-Request-Id, else a new UUID.
 * @example requestIdFrom(new Headers({ 'x-request-id': 'abc-123' })) // 'abc-123'
 */
export function requestIdFrom(headers: Headers | undefined): string {
  const incoming = headers?.get('x-request-id');
  return incoming && REQUEST_ID_PATTERN.test(incoming) ? incoming : crypto.randomUUID();
}

// One store per process on globalThis: Next bundles each route on its own, so this module can be loaded
// several times, and the runtime's log function (built by whichever route came first) must see the context
// another route's copy set.
const holder = globalThis as unknown as { __pacRequestContext?: AsyncLocalStorage<RequestContext> };
const storage = (holder.__pacRequestContext ??= new AsyncLocalStorage<RequestContext>());

/**
 * Runs `fn` as part of the request `context` (log lines written inside carry its id and route).
 * @example withRequestContext({ requestId: 'r1', route: 'health' }, () => handler(request))
 */
export function withRequestContext<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The request being served by the current async call chain, if any. */
export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}
