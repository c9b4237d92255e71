import type { CapabilityKey } from './schema';
import type { ReadinessRequest } from './schema';
import { EVIDENCE_RULES } from './evidence';
import { CAPABILITY_TEXTS, EFFORT_SCALE } from './content';
import { HAZARD_RULES, HAZARD_SEVERITY_RULE } from './hazards';
import { DEPENDENCIES, PHASES, PHASE_RULES, PHASE_TITLES, PLAN_SEVERITY_RULE } from './plan';
import { REFERENCES } from './references';

// The published readiness rubric. Changing any number or rule here changes results, so it
// changes READINESS_RUBRIC_VERSION too.

export const READINESS_RUBRIC_VERSION = 'readiness-rubric-2026-12.2';
export const ASSESSMENT_VERSION = '2.0.0';

export interface CapabilityRule {
  key: CapabilityKey;
  title: string;
  /** Relative weight within its share (required or recommended). */
  weight: number;
  requiredWhen: string;
  why: string;
  fix: string;
}

export const CAPABILITY_RULES: readonly CapabilityRule[] = [
  {
    key: 'machine_discovery', title: 'Machine discovery', weight: 3, requiredWhen: 'agents use the workflow',
    why: 'An agent cannot pay for what it cannot find: it needs a machine-readable description of the paid operations, their prices and rails.',
    fix: 'Publish an OpenAPI document with x-payment-info per paid operation and an llms.txt that points to it.',
  },
  {
    key: 'payment_challenge_and_receipt', title: 'Payment challenge and receipt', weight: 4, requiredWhen: 'agents use the workflow',
    why: 'Agents pay in-band: without an HTTP 402 challenge they cannot learn the terms, and without a receipt they cannot prove they paid.',
    fix: 'Answer unpaid requests with 402 and MPP/x402 challenges; return Payment-Receipt or PAYMENT-RESPONSE on success.',
  },
  {
    key: 'idempotency', title: 'Idempotency', weight: 3, requiredWhen: 'agents use the workflow',
    why: 'Agents retry on timeouts; without idempotency keys a retry charges twice or runs the work twice.',
    fix: 'Accept an Idempotency-Key, replay the stored result for the same key and body, and refuse the key with a different body (422 in the IETF draft, 409 in x402 payment-identifier).',
  },
  {
    key: 'webhook_verification', title: 'Webhook verification', weight: 2, requiredWhen: 'the target is production',
    why: 'Unverified payment webhooks let anyone forge a "paid" event and receive goods for free.',
    fix: "Verify every webhook signature with the processor's signing secret and process each event id once.",
  },
  {
    key: 'durable_fulfillment', title: 'Durable fulfilment', weight: 3, requiredWhen: 'the target is production',
    why: 'A payment taken but not durably recorded is lost on the first crash or deploy, and the buyer pays for nothing.',
    fix: 'Record the order in a durable store before charging, and fulfil from that record so a restart resumes it.',
  },
  {
    key: 'user_authentication', title: 'User authentication', weight: 2, requiredWhen: 'humans use the workflow',
    why: 'Human buyers need an account or key that only they control, or anyone can spend their balance.',
    fix: 'Authenticate users (session, passkey or a hashed API key) before they can spend or see purchases.',
  },
  {
    key: 'wallet_ownership', title: 'Wallet ownership', weight: 1, requiredWhen: 'never (recommended)',
    why: 'Proving which wallet pays lets refunds and receipts reach the right party.',
    fix: 'Bind payer addresses to the buyer, e.g. by checking the signer of the payment authorisation.',
  },
  {
    key: 'onramp_provider_handoff', title: 'On-ramp provider hand-off', weight: 1, requiredWhen: 'never (recommended)',
    why: 'Buyers without stablecoins need a path to fund a wallet, or the stablecoin rail is closed to them.',
    fix: 'Link to an on-ramp provider, or offer a card rail beside the stablecoin rail.',
  },
  {
    key: 'delivery_evidence', title: 'Delivery evidence', weight: 2, requiredWhen: 'the target is production',
    why: 'Without evidence of what was delivered for each payment, disputes and chargebacks cannot be answered.',
    fix: 'Store a hash of each delivered artifact with the payment reference, and return it to the buyer.',
  },
  {
    key: 'recovery_and_reconciliation', title: 'Recovery and reconciliation', weight: 3, requiredWhen: 'the target is production',
    why: 'Payments and fulfilments drift apart after partial failures; without reconciliation the drift is never found or repaid.',
    fix: 'Reconcile settled payments against fulfilments daily, and release or refund what was charged but not delivered.',
  },
];

/** Share of the 100 points taken by the capabilities a workflow requires; the rest goes to recommended ones. */
export const REQUIRED_SHARE = 80;

export const STATUS_CREDIT = {
  implementedWithEvidence: 1,
  implementedWithStatementsOnly: 0.85,
  implementedWithoutEvidence: 0.75,
  partial: 0.5,
  missing: 0,
  unknown: 0,
} as const;

export function isRequired(key: CapabilityKey, workflow: ReadinessRequest['workflow']): boolean {
  const agents = workflow.intendedUsers !== 'humans';
  const humans = workflow.intendedUsers !== 'agents';
  const production = workflow.targetEnvironment === 'production';
  switch (key) {
    case 'machine_discovery':
    case 'payment_challenge_and_receipt':
    case 'idempotency':
      return agents;
    case 'webhook_verification':
    case 'durable_fulfillment':
    case 'delivery_evidence':
    case 'recovery_and_reconciliation':
      return production;
    case 'user_authentication':
      return humans;
    default:
      return false;
  }
}

/** What changed from assessment 1.x (rubric readiness-rubric-2026-11.1), published with the rubric. */
const READINESS_CHANGES = {
  from: { assessmentVersion: '1.0.0', rubricVersion: 'readiness-rubric-2026-11.1' },
  to: { assessmentVersion: ASSESSMENT_VERSION, rubricVersion: READINESS_RUBRIC_VERSION },
  kept: 'Every 1.x member keeps its name and meaning; points, weights, requirements, blockers and the verdict rules are unchanged except for the evidence credit below.',
  changes: [
    'Evidence is read, not counted: capabilities[].evidence classifies each string by published patterns; implemented with statements only earns 0.85 instead of 1 and gets the finding <capability>.evidence-unverifiable (severity low when required, info when recommended).',
    'Each finding adds risk, steps, verify, references (primary sources) and effort.',
    'New hazards member: gaps that are dangerous together, from a published table of 8 rules.',
    'New plan member: every finding once, in phases before-first-payment, before-production and after-launch, ordered by a published dependency graph and severity.',
    'New productionDelta member for sandbox workflows: what the same declaration would get in production.',
    'New summary member: one sentence with the verdict, the blockers and the first step.',
    "The idempotency fix names the status for a reused key with a different body as the sources give it: 422 in the IETF draft, 409 in x402's payment-identifier.",
  ],
};

/** The published rubric, as served by GET /api/agent/readiness and the docs. */
export function readinessRubric() {
  return {
    rubricVersion: READINESS_RUBRIC_VERSION,
    scoreMax: 100,
    points: {
      rule:
        `Required capabilities share ${REQUIRED_SHARE} points and recommended ones share ${100 - REQUIRED_SHARE}, each in proportion to its weight ` +
        '(largest-remainder rounding, ties to the earlier capability). A workflow with no recommended capability gives all 100 to the required ones.',
      credit: {
        'implemented, with checkable evidence': STATUS_CREDIT.implementedWithEvidence,
        'implemented, statements only': STATUS_CREDIT.implementedWithStatementsOnly,
        'implemented, no evidence': STATUS_CREDIT.implementedWithoutEvidence,
        partial: STATUS_CREDIT.partial,
        missing: STATUS_CREDIT.missing,
        unknown: STATUS_CREDIT.unknown,
      },
      earned: 'floor(points possible × credit)',
    },
    requirements: {
      agents: 'machine_discovery, payment_challenge_and_receipt and idempotency are required when intendedUsers is agents or both',
      production: 'webhook_verification, durable_fulfillment, delivery_evidence and recovery_and_reconciliation are required when targetEnvironment is production',
      humans: 'user_authentication is required when intendedUsers is humans or both',
      otherwise: 'every other capability is recommended',
    },
    verdicts: {
      'not-ready': 'a required capability is missing or unknown (a blocker)',
      'ready-with-gaps': 'no blocker, but a required capability is partial or implemented without checkable evidence, or a recommended one is not implemented',
      ready: 'every required capability is implemented with checkable evidence and every recommended one is implemented',
    },
    severities: {
      critical: 'required and missing or unknown',
      high: 'required and partial',
      medium: 'required and implemented without evidence',
      low: 'recommended and missing, unknown or partial; or required and implemented with statements only (evidence-unverifiable)',
      info: 'recommended and implemented without evidence or with statements only',
    },
    evidence: {
      rule:
        'Each evidence string gets a kind by the first rule below that matches (command, url, test, path, reference); no rule matching makes it a statement. ' +
        'Only a statement is not checkable. Nothing is fetched or opened: checkable means a reader could check it, not that it was checked.',
      rules: EVIDENCE_RULES.map(({ kind, rule, examples }) => ({ kind, rule, examples: [...examples] })),
      statement: { rule: 'no rule matches: free text naming nothing checkable', examples: ['402 with MPP challenges', 'orders table', 'we verify signatures'] },
      findings:
        'implemented with no evidence: finding <capability>.no-evidence; implemented with statements only: finding <capability>.evidence-unverifiable; ' +
        'implemented with at least one checkable item: no finding',
    },
    findings: {
      members: 'every finding has id, capability, severity, why and fix, and risk (the concrete failure), steps (2 to 6, in order), verify ({ how, expect }), references ({ title, url }) and effort',
      effort: {
        rule: "missing or unknown: the capability's effort below; partial: one size smaller (never below small); no-evidence and evidence-unverifiable: small",
        scale: EFFORT_SCALE,
      },
    },
    hazards: {
      rule: `Gaps that are dangerous together, from this table. ${HAZARD_SEVERITY_RULE[0].toUpperCase()}${HAZARD_SEVERITY_RULE.slice(1)}. A hazard never adds a blocker and never makes the verdict not-ready: only a required capability that is missing or unknown does. "Not implemented" means partial, missing or unknown.`,
      table: HAZARD_RULES.map(({ id, severity, capabilities, when, why, fix }) => ({ id, severity, capabilities: [...capabilities], when, why, fix })),
    },
    plan: {
      rule:
        `Every finding appears exactly once, in one phase; phases come in this order and only those with steps are listed, so a blocker is always in the first phase listed. ${PLAN_SEVERITY_RULE[0].toUpperCase()}${PLAN_SEVERITY_RULE.slice(1)}. ` +
        "Within a phase a step comes after the steps its dependencies name, then the most severe first, then the capabilities' fixed order. No findings: an empty plan.",
      phases: PHASES.map((phase) => ({ phase, title: PHASE_TITLES[phase], holds: PHASE_RULES[phase] })),
      dependencies: DEPENDENCIES.map((d) => ({ ...d })),
    },
    productionDelta:
      'sandbox workflows only: the score, verdict and blockers the same declaration would get with targetEnvironment production, and the capabilities production newly requires',
    summary: 'one sentence: the verdict and score, the blockers and any critical hazard (a hazard never changes the verdict, so the sentence names it), and the first step of the plan',
    capabilities: CAPABILITY_RULES.map(({ key, title, weight, requiredWhen, why, fix }) => ({
      key, title, weight, requiredWhen, why, fix,
      action: CAPABILITY_TEXTS[key].action,
      effort: CAPABILITY_TEXTS[key].effort,
    })),
    references: Object.values(REFERENCES).map((r) => ({ title: r.title, url: r.url })),
    changes: READINESS_CHANGES,
  };
}
