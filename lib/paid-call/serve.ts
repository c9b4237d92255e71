// The one way into the paid-call pipeline. Each transport (REST, the site, MCP) is one small object: it reads
// a call out of its request and renders an outcome. Everything else happens here, once, in this order:
//   1. read the call (a request that cannot be read is answered as a problem, and counted)
//   2. refuse it while the process drains (503 shutting-down, nothing held), else track it in flight so a
//      shutdown waits for it, cuts its work short after the grace and gives its held call back
//   3. run the pipeline (runPaidCall), told what to count as it goes (the rail, the check's run time,
//      settlements that failed after the work)
//   4. count the outcome (pac_paid_calls_total, 402s issued) and name it on the request's access line
//   5. render it
// Request ids and the access line are the route's (lib/http/observe.ts `observed`), around all of this.
import type { CheckEntry } from '@/lib/checks/entry';
import { isDraining, SHUTDOWN_RETRY_AFTER_SECONDS, trackFlight } from '@/lib/lifecycle';
import { logEvent } from '@/lib/log';
import { INTERNAL_ERROR, knownProblem, problem } from '@/lib/problems';
import { getRuntime, type Runtime } from '@/lib/runtime';
import { metricsObserver, outcomeOf, railOf, recordPaidCall, type Surface } from './observe';
import { runPaidCall, type PaidCall, type PaidCallDeps, type PaidCallOutcome } from './pipeline';

/** A call as a transport reads it: everything the pipeline needs but the check, which the route resolved. */
type IncomingCall = Omit<PaidCall, 'check' | 'onReserved'>;

/**
 * What a transport provides: how to read a call out of its request, and how to render what became of it.
 * @example const rest: PaidCallTransport<Request, Response> = { surface: 'rest', readCall, respond: (outcome) => outcomeResponse(outcome) }
 */
export interface PaidCallTransport<Req, Res> {
  /** Which surface the metrics name. */
  surface: Surface;
  /** The call in the request; throws a ProblemError for a request it cannot read (400, 401, 413). */
  readCall(request: Req, check: CheckEntry, runtime: Runtime): Promise<IncomingCall> | IncomingCall;
  /** The outcome as this transport answers it. */
  respond(outcome: PaidCallOutcome, check: CheckEntry, request: Req, runtime: Runtime | undefined): Res;
}

/**
 * Serves one paid call of `check` that arrived on `transport`: read, drain-tracked, run, counted, rendered.
 * `runtime` defaults to the process's.
 * @example return servePaidCall(restTransport, check, request)
 */
export async function servePaidCall<Req, Res>(transport: PaidCallTransport<Req, Res>, check: CheckEntry, request: Req, runtime?: Runtime): Promise<Res> {
  let rt: Runtime;
  let incoming: IncomingCall;
  try {
    rt = runtime ?? getRuntime();
    incoming = await transport.readCall(request, check, rt);
  } catch (error) {
    // A call that never reached the pipeline: its body could not be read, or the runtime could not be built.
    const unread = unreadCall(error, check, runtime?.log ?? logEvent);
    recordPaidCall(check.operationId, 'none', outcomeOf(unread), transport.surface, false);
    return transport.respond(unread, check, request, runtime);
  }
  const seen = { rail: railOf(incoming) };
  const outcome = await runTracked({ ...rt, observer: metricsObserver(seen) }, { ...incoming, check });
  recordPaidCall(check.operationId, seen.rail, outcomeOf(outcome), transport.surface, outcome.kind === 'payment-required');
  return transport.respond(outcome, check, request, rt);
}

function unreadCall(error: unknown, check: CheckEntry, log: (event: Record<string, unknown>) => void): PaidCallOutcome {
  const known = knownProblem(error);
  if (known) return { kind: 'problem', problem: known.problem, ...(known.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: known.retryAfterSeconds }) };
  try {
    log({ event: 'internal-error', operation: check.operationId, error: error instanceof Error ? error.message : String(error) });
  } catch {
    // Logging never turns an answer into a crash.
  }
  return { kind: 'problem', problem: INTERNAL_ERROR.problem };
}

/** The answer to a paid call this server will not finish: retry shortly (elsewhere, behind a load balancer). */
function shuttingDownOutcome(): PaidCallOutcome {
  return {
    kind: 'problem',
    problem: problem('shutting-down', 'This server is restarting and takes no new paid calls. Nothing was charged; retry in a few seconds.'),
    retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
  };
}

/**
 * Step 2 and 3: `runPaidCall`, refused while the process drains and tracked while in flight so a shutdown
 * waits for it. A call cut short by the drain answers 503 shutting-down (nothing charged) rather than the error
 * the cut caused.
 * @example const outcome = await runTracked(runtime, { check, body, … })
 */
export async function runTracked(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
  if (isDraining()) return shuttingDownOutcome();
  return trackFlight(async (flight) => {
    const outcome = await runPaidCall(deps, {
      ...call,
      signal: () => (call.signal ? AbortSignal.any([call.signal(), flight.signal]) : flight.signal),
      onReserved: (release) => {
        flight.holds(release);
        call.onReserved?.(release);
      },
    });
    // A call cut short failed because of the cut (its fetch aborted), not because of the site: nothing was
    // charged, and the caller should simply retry. A call that finished anyway keeps its answer.
    return flight.cutShort && outcome.kind === 'problem' ? shuttingDownOutcome() : outcome;
  });
}
