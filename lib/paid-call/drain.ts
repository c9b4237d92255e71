// The paid-call pipeline under a shutdown (lib/lifecycle.ts), for both transports: while the process drains
// a new call is refused with 503 `shutting-down` and Retry-After before anything is held or claimed; a call
// in flight is tracked, so the drain waits for it, and if the grace ends first its work is cut short and its
// held call given back, and it answers the same 503 (nothing charged) rather than the error the cut caused.
import { isDraining, SHUTDOWN_RETRY_AFTER_SECONDS, trackFlight } from '@/lib/lifecycle';
import { problem } from '@/lib/problems';
import { runPaidCall, type PaidCall, type PaidCallDeps, type PaidCallOutcome } from './pipeline';

/** The answer to a paid call this server will not finish: retry shortly (elsewhere, behind a load balancer). */
export function shuttingDownOutcome(): PaidCallOutcome {
  return {
    kind: 'problem',
    problem: problem('shutting-down', 'This server is restarting and takes no new paid calls. Nothing was charged; retry in a few seconds.'),
    retryAfterSeconds: SHUTDOWN_RETRY_AFTER_SECONDS,
  };
}

/**
 * `runPaidCall`, refused while the process drains and tracked while in flight so a shutdown waits for it.
 * @example return outcomeResponse(await runPaidCallUnlessDraining(runtime, call));
 */
export async function runPaidCallUnlessDraining(deps: PaidCallDeps, call: PaidCall): Promise<PaidCallOutcome> {
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
