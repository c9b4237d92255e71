// Metrics and log fields for paid calls, taken at the adapters' edge so the pipeline stays as it is: the call
// goes in with its operation's run timed and its rails' verify/settle watched, and the outcome that comes back
// is classified (rail, outcome) for pac_paid_calls_total and the request's access line.
import type { PaidOperation } from '@/lib/operations';
import type { PaymentRails } from '@/lib/payments/rails';
import type { PaidRail, ValidCredential } from '@/lib/payments/verify';
import { metrics, type MetricOutcome, type MetricRail } from '@/lib/metrics';
import { currentRequest } from '@/lib/request-context';
import { runPaidCallUnlessDraining } from './drain';
import type { PaidCall, PaidCallDeps, PaidCallOutcome } from './pipeline';

export type Surface = 'rest' | 'mcp';

/**
 * runPaidCall (refused while the process drains, tracked while in flight: drain.ts), counted: the outcome by
 * operation, rail and outcome; the check's run time; a 402 issued; a
 * settlement that failed after the work. Never throws more than runPaidCall does (which is never).
 * @example const outcome = await observedPaidCall(getRuntime(), call, 'rest')
 */
export async function observedPaidCall(deps: PaidCallDeps, call: PaidCall, surface: Surface): Promise<PaidCallOutcome> {
  // The rail is known for a key, and for a credential once its rail verified it; before that, x402 is x402 by
  // its header and an MPP credential that did not verify names no rail we trust.
  const seen: { rail: MetricRail } = { rail: call.bearerKey !== null || call.keyHash ? 'credits' : call.credential === null ? 'none' : call.credential.scheme === 'x402' ? 'x402' : 'none' };
  const watched = call.bearerKey === null && !call.keyHash && call.credential !== null && deps.rails ? { ...deps, rails: watchRails(deps.rails, seen) } : deps;
  const outcome = await runPaidCallUnlessDraining(watched, { ...call, operation: timedOperation(call.operation) });
  recordPaidCall(call.operation.id, seen.rail, outcomeOf(outcome), surface, outcome.kind === 'payment-required');
  return outcome;
}

/**
 * Counts a paid call (and the 402 it was answered with, when `issued402`): also for one that never reached the
 * pipeline (a body that could not be read: 400, 413). Names it on the request's access line.
 * @example recordPaidCall('createAgentReadinessAssessment', 'none', 'refused', 'rest', false)
 */
export function recordPaidCall(operation: string, rail: MetricRail, outcome: MetricOutcome, surface: Surface, issued402: boolean): void {
  const request = currentRequest();
  if (request) Object.assign(request, { operation, rail, outcome });
  try {
    const m = metrics();
    m.paidCalls.inc({ operation, rail, outcome });
    if (issued402) m.paymentRequired.inc({ operation, surface });
  } catch {
    // Counting never changes an answer.
  }
}

/**
 * The metric outcome of a pipeline outcome (see MetricOutcome).
 * @example outcomeOf({ kind: 'problem', problem: { status: 422, … } }) // 'failed'
 */
export function outcomeOf(outcome: PaidCallOutcome): MetricOutcome {
  switch (outcome.kind) {
    case 'fulfilled':
      return 'fulfilled';
    case 'replayed':
      return 'replayed';
    case 'payment-required':
      return outcome.problem.type.endsWith('/payment-failed') ? 'refused' : 'unpaid';
    case 'problem':
      return statusOutcome(outcome.problem.status);
  }
}

/** A refusal for a 4xx the caller can fix, a failure for what went wrong on our side or the target's (422, 5xx). */
export function statusOutcome(status: number): MetricOutcome {
  return status === 422 || status >= 500 ? 'failed' : 'refused';
}

const timedOperations = new WeakMap<PaidOperation, PaidOperation>();

// The operation with its run timed: the check's own duration, without payment or store time.
function timedOperation(operation: PaidOperation): PaidOperation {
  let timed = timedOperations.get(operation);
  if (!timed) {
    const run: PaidOperation['run'] = async (input, context) => {
      const started = performance.now();
      try {
        return await operation.run(input, context);
      } finally {
        metrics().checkDuration.observe({ operation: operation.id }, (performance.now() - started) / 1000);
      }
    };
    timed = Object.assign(Object.create(operation) as PaidOperation, { run });
    timedOperations.set(operation, timed);
  }
  return timed;
}

// The rails with verify telling us the rail, and settle counting what failed after the work was done.
function watchRails(rails: PaymentRails, seen: { rail: MetricRail }): PaymentRails {
  const verify: PaymentRails['verify'] = async (credential, resourcePath) => {
    const verdict = await rails.verify(credential, resourcePath);
    if (!verdict.ok) return verdict;
    seen.rail = verdict.rail;
    return { ...verdict, settle: () => watchedSettle(verdict.rail, verdict.settle) };
  };
  return Object.assign(Object.create(rails) as PaymentRails, { verify });
}

function watchedSettle(rail: PaidRail, settle: ValidCredential['settle']): ReturnType<ValidCredential['settle']> {
  return (async () => {
    try {
      const settled = await settle();
      if (!settled.ok) metrics().settlementFailures.inc({ rail, reason: settled.unconfirmed ? 'unconfirmed' : settled.reason });
      return settled;
    } catch (error) {
      metrics().settlementFailures.inc({ rail, reason: 'error' });
      throw error;
    }
  })();
}
