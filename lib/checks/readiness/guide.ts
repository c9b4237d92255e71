import type { CapabilityKey } from './schema';
import type { EvidenceKind } from './evidence';

// What the readiness form teaches beside each capability: what "implemented" means in one line, and one example of
// evidence a reader could check. Each example is classified by the published evidence rules (evidence.ts) as the
// kind it names, and tests/readiness/guide.test.ts holds it to that, so the form never shows an example the
// assessment would read as a mere statement. The score does not read this file: it teaches, it does not judge.

export interface CapabilityGuide {
  /** One line: what has to be true to declare the capability implemented. */
  implemented: string;
  /** One evidence line as a buyer would type it. */
  example: string;
  /** The evidence kind the published rules give the example. */
  kind: Exclude<EvidenceKind, 'statement'>;
}

export const CAPABILITY_GUIDE: Record<CapabilityKey, CapabilityGuide> = {
  machine_discovery: {
    implemented: 'An OpenAPI document lists every paid operation with its price and payment methods, and your llms.txt links to it.',
    example: 'https://api.example.com/openapi.json',
    kind: 'url',
  },
  payment_challenge_and_receipt: {
    implemented: 'An unpaid request gets HTTP 402 with the payment terms, and a paid one gets a receipt with its answer.',
    example: 'npx mppx validate https://api.example.com --endpoint POST:/v1/orders',
    kind: 'command',
  },
  idempotency: {
    implemented: 'A retry with the same Idempotency-Key gets the stored answer and is not charged or run again.',
    example: 'tests/api/idempotency.test.ts',
    kind: 'test',
  },
  webhook_verification: {
    implemented: "Every payment webhook's signature is checked with the processor's secret, and each event is handled once.",
    example: '$ stripe trigger payment_intent.succeeded',
    kind: 'command',
  },
  durable_fulfillment: {
    implemented: 'The order is written to a durable store before the charge, and fulfilment resumes from it after a restart.',
    example: 'migrations/004_orders.sql',
    kind: 'path',
  },
  user_authentication: {
    implemented: 'Only the buyer, signed in or holding a hashed API key, can spend their balance or see their purchases.',
    example: 'tests/auth/session.spec.ts',
    kind: 'test',
  },
  wallet_ownership: {
    implemented: 'Each payment is tied to the wallet that signed it, so refunds and receipts reach that payer.',
    example: 'lib/payments/payer.ts',
    kind: 'path',
  },
  onramp_provider_handoff: {
    implemented: 'A buyer without stablecoins is sent to an on-ramp provider, or can pay by card instead.',
    example: 'https://example.com/pricing#pay-by-card',
    kind: 'url',
  },
  delivery_evidence: {
    implemented: 'A hash of what was delivered is stored with each payment reference and returned to the buyer.',
    example: 'PAY-412',
    kind: 'reference',
  },
  recovery_and_reconciliation: {
    implemented: 'Settled payments are matched against fulfilments on a schedule, and what was paid for but not delivered is refunded.',
    example: 'runbook "stuck settlements"',
    kind: 'reference',
  },
};
