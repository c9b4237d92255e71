import type { CapabilityKey } from './schema';
import type { ReadinessRequest } from './schema';

// The published readiness rubric. Changing any number or rule here changes results, so it
// changes READINESS_RUBRIC_VERSION too.

export const READINESS_RUBRIC_VERSION = 'readiness-rubric-2026-11.1';
export const ASSESSMENT_VERSION = '1.0.0';

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
    fix: 'Accept an Idempotency-Key, replay the stored result for the same key and body, and refuse the key with a different body (409).',
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
        'implemented, with evidence': STATUS_CREDIT.implementedWithEvidence,
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
      'ready-with-gaps': 'no blocker, but a required capability is partial or implemented without evidence, or a recommended one is not implemented',
      ready: 'every required capability is implemented with evidence and every recommended one is implemented',
    },
    severities: {
      critical: 'required and missing or unknown',
      high: 'required and partial',
      medium: 'required and implemented without evidence',
      low: 'recommended and missing, unknown or partial',
      info: 'recommended and implemented without evidence',
    },
    capabilities: CAPABILITY_RULES.map(({ key, title, weight, requiredWhen, why, fix }) => ({ key, title, weight, requiredWhen, why, fix })),
  };
}
