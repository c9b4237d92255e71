// Metrics and log fields for paid calls (lib/paid-call/serve.ts applies them): the pipeline tells the
// observer the rail, the check's run time and failed settlements as they happen, and the outcome that comes
// back is classified (rail, outcome) for pac_paid_calls_total and the request's access line.
import type { CheckEntry } from '@/lib/checks/entry';
import type { PaidRail } from '@/lib/payments/verify';
import { metrics, type MetricOutcome, type MetricRail } from '@/lib/metrics';
import { currentRequest } from '@/lib/request-context';
import type { PaidCall, PaidCallObserver, PaidCallOutcome } from './pipeline';

export type Surface = 'rest' | 'mcp';

/**
 * The rail a call pays with as far as it is known before the pipeline: a key's is credits; x402 is x402 by its
 * header; an MPP credential names no rail we trust until it verified (the observer then learns it).
 * @example railOf({ bearerKey: 'pac_live_…', credential: null }) // 'credits'
 */
export function railOf(call: Pick<PaidCall, 'bearerKey' | 'keyHash' | 'credential'>): MetricRail {
  if (call.bearerKey !== null || call.keyHash) return 'credits';
  return call.credential?.scheme === 'x402' ? 'x402' : 'none';
}

/**
 * An observer that counts into the process's metrics and keeps the verified rail in `seen`.
 * @example const seen = { rail: railOf(call) }; await runPaidCall({ ...deps, observer: metricsObserver(seen) }, call)
 */
export function metricsObserver(seen: { rail: MetricRail }): PaidCallObserver {
  return {
    verified(rail: PaidRail) {
      seen.rail = rail;
    },
    ran(check: CheckEntry, seconds: number) {
      counted(() => metrics().checkDuration.observe({ operation: check.operationId }, seconds));
    },
    settlementFailed(rail: PaidRail, reason: string) {
      counted(() => metrics().settlementFailures.inc({ rail, reason }));
    },
  };
}

/**
 * Counts a paid call (and the 402 it was answered with, when `issued402`): also for one that never reached the
 * pipeline (a body that could not be read: 400, 413). Names it on the request's access line.
 * @example recordPaidCall(check.operationId, 'none', 'refused', 'rest', false)
 */
export function recordPaidCall(operation: string, rail: MetricRail, outcome: MetricOutcome, surface: Surface, issued402: boolean): void {
  const request = currentRequest();
  if (request) Object.assign(request, { operation, rail, outcome });
  counted(() => {
    const m = metrics();
    m.paidCalls.inc({ operation, rail, outcome });
    if (issued402) m.paymentRequired.inc({ operation, surface });
  });
}

function counted(count: () => void): void {
  try {
    count();
  } catch {
    // Counting never changes an answer.
  }
}

/**
 * The metric outcome of a pipeline outcome (see MetricOutcome): a refused credential is `refused`, a call
 * asked to pay first `unpaid`; a 4xx the caller can fix `refused`, a 422 or 5xx `failed`.
 * @example outcomeOf({ kind: 'problem', problem: { status: 422, … } }) // 'failed'
 */
export function outcomeOf(outcome: PaidCallOutcome): MetricOutcome {
  switch (outcome.kind) {
    case 'fulfilled':
      return 'fulfilled';
    case 'replayed':
      return 'replayed';
    case 'payment-required':
      return outcome.refused === undefined ? 'unpaid' : 'refused';
    case 'problem':
      return outcome.problem.status === 422 || outcome.problem.status >= 500 ? 'failed' : 'refused';
  }
}
