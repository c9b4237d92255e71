import { CAPABILITY_KEYS, type CapabilityKey } from './schema';
import { SEVERITY_ORDER, type Severity } from '@/lib/checks/severity';
import type { Hazard } from './hazards';

// The plan puts every finding in exactly one phase and orders the steps of a phase by a published dependency
// graph, then by severity, then by the capabilities' fixed order.

export const PHASES = ['before-first-payment', 'before-production', 'after-launch'] as const;
export type Phase = (typeof PHASES)[number];

export const PHASE_TITLES: Record<Phase, string> = {
  'before-first-payment': 'Before the first payment',
  'before-production': 'Before production',
  'after-launch': 'After launch',
};

export const PHASE_RULES: Record<Phase, string> = {
  'before-first-payment': 'findings whose plan severity is critical: every blocker, and every finding in a critical hazard',
  'before-production':
    'findings whose plan severity is high or medium, and, for a sandbox workflow, every finding on a capability production newly requires',
  'after-launch': 'the rest: low and info findings',
};

export const PLAN_SEVERITY_RULE =
  "a finding's plan severity is its own severity, raised to the most severe hazard that names its capability when that capability is not implemented (a finding asking only for evidence is never raised)";

/** Fix `before` ahead of `after`: each edge with the reason, as published. */
export const DEPENDENCIES: readonly { before: CapabilityKey; after: CapabilityKey; why: string }[] = [
  { before: 'payment_challenge_and_receipt', after: 'machine_discovery', why: 'the discovery document advertises the terms the live challenge asks for' },
  { before: 'payment_challenge_and_receipt', after: 'idempotency', why: 'an idempotent retry replays the stored answer with its receipt' },
  { before: 'durable_fulfillment', after: 'idempotency', why: 'the stored answer a retry replays lives with the durable order' },
  { before: 'payment_challenge_and_receipt', after: 'delivery_evidence', why: 'delivery evidence is keyed by the payment reference the receipt carries' },
  { before: 'durable_fulfillment', after: 'delivery_evidence', why: 'delivery evidence is stored on the durable order' },
  { before: 'durable_fulfillment', after: 'recovery_and_reconciliation', why: 'reconciliation matches payments against durable orders' },
  { before: 'webhook_verification', after: 'recovery_and_reconciliation', why: 'reconciliation acts on processor events only once they are verified' },
  { before: 'user_authentication', after: 'wallet_ownership', why: 'a wallet is bound to an authenticated account' },
  { before: 'payment_challenge_and_receipt', after: 'onramp_provider_handoff', why: 'an on-ramp funds the network and token the challenge asks for' },
];

export interface PlanFinding {
  id: string;
  capability: CapabilityKey;
  severity: Severity;
  action: string;
  /** The capability is partial, missing or unknown (not a finding that only asks for evidence). */
  gap: boolean;
}

interface PlanStep {
  capability: CapabilityKey;
  findingId: string;
  action: string;
}

export interface PlanPhase {
  phase: Phase;
  title: string;
  steps: PlanStep[];
}

const rank = (s: Severity) => SEVERITY_ORDER.indexOf(s);

/** The plan severity of each finding (PLAN_SEVERITY_RULE). */
function planSeverity(f: PlanFinding, hazards: readonly Hazard[]): Severity {
  if (!f.gap) return f.severity;
  return hazards.filter((h) => h.capabilities.includes(f.capability)).reduce<Severity>((s, h) => (rank(h.severity) < rank(s) ? h.severity : s), f.severity);
}

/** Orders one phase's findings: a dependency's fix first, then the most severe, then capability order (Kahn's algorithm). */
function order(findings: Array<PlanFinding & { planSeverity: Severity }>): PlanFinding[] {
  const inPhase = new Set(findings.map((f) => f.capability));
  const waiting = new Map(findings.map((f) => [f.capability, DEPENDENCIES.filter((d) => d.after === f.capability && inPhase.has(d.before)).length]));
  const out: PlanFinding[] = [];
  const left = [...findings];
  while (left.length) {
    const ready = left.filter((f) => waiting.get(f.capability) === 0);
    // The graph is acyclic (a test holds it so); if it ever were not, the rest falls back to severity order.
    const pool = ready.length ? ready : left;
    pool.sort((a, b) => rank(a.planSeverity) - rank(b.planSeverity) || CAPABILITY_KEYS.indexOf(a.capability) - CAPABILITY_KEYS.indexOf(b.capability));
    const next = pool[0];
    out.push(next);
    left.splice(left.indexOf(next), 1);
    for (const d of DEPENDENCIES) if (d.before === next.capability && waiting.has(d.after)) waiting.set(d.after, waiting.get(d.after)! - 1);
  }
  return out;
}

/**
 * The plan: each finding once, in its phase (PHASE_RULES), phases in order and only those with steps.
 * @example buildPlan(findings, hazards, new Set())[0]?.phase // 'before-first-payment' when there is a blocker
 */
export function buildPlan(findings: readonly PlanFinding[], hazards: readonly Hazard[], newlyRequired: ReadonlySet<CapabilityKey>): PlanPhase[] {
  const placed = findings.map((f) => {
    const s = planSeverity(f, hazards);
    const phase: Phase =
      s === 'critical' ? 'before-first-payment' : s === 'high' || s === 'medium' || newlyRequired.has(f.capability) ? 'before-production' : 'after-launch';
    return { ...f, planSeverity: s, phase };
  });
  return PHASES.flatMap((phase) => {
    const steps = order(placed.filter((f) => f.phase === phase)).map((f) => ({ capability: f.capability, findingId: f.id, action: f.action }));
    return steps.length ? [{ phase, title: PHASE_TITLES[phase], steps }] : [];
  });
}
