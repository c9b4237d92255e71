import type { Capability, CapabilityKey, ReadinessRequest } from './schema';
import { SEVERITY_ORDER, type Severity } from '@/lib/checks/severity';

// Gaps that are dangerous together: a published table of rules over the declared statuses. A hazard explains and
// orders; it never adds a blocker (only a required capability that is missing or unknown blocks).

export interface Hazard {
  id: string;
  severity: Severity;
  capabilities: CapabilityKey[];
  why: string;
  fix: string;
}

type Status = Capability['status'];
type Statuses = Record<CapabilityKey, Status>;

/** Not implemented: partial, missing or unknown. */
const weak = (s: Status) => s !== 'implemented';
/** In place at least in part: implemented or partial. */
const present = (s: Status) => s === 'implemented' || s === 'partial';
/** Absent: missing or unknown (unknown counts as missing). */
const absent = (s: Status) => s === 'missing' || s === 'unknown';
/** Payments are taken: a 402 challenge or a processor's webhooks are in place at least in part. */
const takesPayments = (s: Statuses) => present(s.payment_challenge_and_receipt) || present(s.webhook_verification);

export interface HazardRule {
  id: string;
  severity: Severity;
  capabilities: CapabilityKey[];
  /** When it fires, in words (published). */
  when: string;
  fires(s: Statuses, users: ReadinessRequest['workflow']['intendedUsers']): boolean;
  why: string;
  fix: string;
}

const TAKES_PAYMENTS_RULE = 'payments are taken: payment_challenge_and_receipt or webhook_verification is implemented or partial';

export const HAZARD_RULES: readonly HazardRule[] = [
  {
    id: 'retry-pays-twice',
    severity: 'critical',
    capabilities: ['payment_challenge_and_receipt', 'idempotency'],
    when: 'agents use the workflow, payment_challenge_and_receipt is implemented or partial, and idempotency is not implemented',
    fires: (s, users) => users !== 'humans' && present(s.payment_challenge_and_receipt) && weak(s.idempotency),
    why:
      'Agents already pay in-band here, and their retries are not idempotent: an agent that times out after its payment settled retries with a new single-use credential and pays twice for one result.',
    fix: 'Make paid POSTs idempotent (an Idempotency-Key stored with the caller and a fingerprint of the body, the stored answer replayed) before the first agent payment.',
  },
  {
    id: 'forged-event-fulfils',
    severity: 'critical',
    capabilities: ['webhook_verification', 'durable_fulfillment'],
    when: 'durable_fulfillment is implemented or partial and webhook_verification is not implemented',
    fires: (s) => present(s.durable_fulfillment) && weak(s.webhook_verification),
    why:
      'Orders are fulfilled from a durable record, but the events that mark them paid are not verified: anyone who posts a forged "paid" event to the webhook URL has an order fulfilled without paying, and a redelivered event fulfils twice.',
    fix: 'Verify every webhook signature on the raw body and record each event id once, before anything that fulfils reads the event.',
  },
  {
    id: 'paid-order-lost',
    severity: 'critical',
    capabilities: ['durable_fulfillment', 'recovery_and_reconciliation'],
    when: `${TAKES_PAYMENTS_RULE}; durable_fulfillment and recovery_and_reconciliation are both not implemented`,
    fires: (s) => takesPayments(s) && weak(s.durable_fulfillment) && weak(s.recovery_and_reconciliation),
    why:
      'Payments are taken, but neither durable orders nor reconciliation is fully in place: an order lost in a crash after settlement is not found again, and the buyer has paid for nothing.',
    fix: 'Record each order before settling, and run a reconciliation job that finds paid, unfulfilled orders and fulfils or refunds them.',
  },
  {
    id: 'disputes-unanswerable',
    severity: 'high',
    capabilities: ['delivery_evidence', 'recovery_and_reconciliation'],
    when: `${TAKES_PAYMENTS_RULE}; delivery_evidence and recovery_and_reconciliation are both not implemented`,
    fires: (s) => takesPayments(s) && weak(s.delivery_evidence) && weak(s.recovery_and_reconciliation),
    why:
      'Payments are taken, but neither a record of what each one delivered nor a match of payments to orders is fully in place: a dispute or chargeback on an unrecorded payment cannot be answered and is lost by default.',
    fix: 'Store each payment reference with a hash of what was delivered, and reconcile payments against orders on a schedule.',
  },
  {
    id: 'anyone-can-spend',
    severity: 'high',
    capabilities: ['user_authentication', 'wallet_ownership'],
    when: 'humans use the workflow, and user_authentication and wallet_ownership are both not implemented',
    fires: (s, users) => users !== 'agents' && weak(s.user_authentication) && weak(s.wallet_ownership),
    why:
      'People use the workflow, but neither user authentication nor the binding of wallets to accounts is fully in place: where either is missing, anyone can act as a buyer, and purchases and refunds cannot be tied to a person.',
    fix: 'Authenticate users before they spend or see purchases, and bind paying wallets to accounts with a signed sign-in message.',
  },
  {
    id: 'advertised-but-unpayable',
    severity: 'high',
    capabilities: ['machine_discovery', 'payment_challenge_and_receipt'],
    when: 'agents use the workflow, machine_discovery is implemented or partial, and payment_challenge_and_receipt is missing or unknown',
    fires: (s, users) => users !== 'humans' && present(s.machine_discovery) && absent(s.payment_challenge_and_receipt),
    why:
      'The discovery document advertises paid operations that do not answer with a 402 challenge: agents and registries that trust it call, cannot pay, and either fail or are served for free.',
    fix: 'Ship the 402 challenge on every operation the document prices, or remove x-payment-info until it exists.',
  },
  {
    id: 'refund-to-nobody',
    severity: 'medium',
    capabilities: ['wallet_ownership', 'recovery_and_reconciliation'],
    when: `${TAKES_PAYMENTS_RULE}; wallet_ownership and recovery_and_reconciliation are both not implemented`,
    fires: (s) => takesPayments(s) && weak(s.wallet_ownership) && weak(s.recovery_and_reconciliation),
    why:
      'When a charge must be returned, reconciliation may not find it and no verified payer says where to return it (neither is fully in place): refunds are late, manual, or sent to whoever claims the wallet.',
    fix: 'Record the verified payer on each order (the signer of the authorization, or the processor\'s customer) and reconcile payments against orders.',
  },
  {
    id: 'no-proof-either-side',
    severity: 'high',
    capabilities: ['payment_challenge_and_receipt', 'delivery_evidence'],
    when: 'agents use the workflow, payment_challenge_and_receipt is partial, and delivery_evidence is not implemented',
    fires: (s, users) => users !== 'humans' && s.payment_challenge_and_receipt === 'partial' && weak(s.delivery_evidence),
    why:
      'Neither side can prove the exchange: with the payment flow only partly in place the agent may get no receipt for what it paid, and you keep no record of what you delivered, so any disagreement is one word against another.',
    fix: 'Return Payment-Receipt or PAYMENT-RESPONSE on every paid success, and store the payment reference with a hash of what was delivered.',
  },
];

/** A hazard none of whose capabilities the workflow requires is one severity lower (never below low). */
export const HAZARD_SEVERITY_RULE = 'a hazard none of whose capabilities the workflow requires is one severity lower than listed (never below low)';

function lower(s: Severity): Severity {
  const i = SEVERITY_ORDER.indexOf(s);
  return SEVERITY_ORDER[Math.min(i + 1, SEVERITY_ORDER.indexOf('low'))];
}

/**
 * The hazards the declaration sets off, in the table's order.
 * @example findHazards(request, (k) => k === 'idempotency')[0]?.id // 'retry-pays-twice'
 */
export function findHazards(request: ReadinessRequest, isRequired: (key: CapabilityKey) => boolean): Hazard[] {
  const statuses = Object.fromEntries(Object.entries(request.capabilities).map(([k, c]) => [k, c.status])) as Statuses;
  return HAZARD_RULES.filter((r) => r.fires(statuses, request.workflow.intendedUsers)).map((r) => ({
    id: r.id,
    severity: r.capabilities.some(isRequired) ? r.severity : lower(r.severity),
    capabilities: [...r.capabilities],
    why: r.why,
    fix: r.fix,
  }));
}
