import { z } from 'zod';

// Spec 2.1: additionalProperties false at every level, all ten capability keys required.

export const CAPABILITY_KEYS = [
  'machine_discovery',
  'payment_challenge_and_receipt',
  'idempotency',
  'webhook_verification',
  'durable_fulfillment',
  'user_authentication',
  'wallet_ownership',
  'onramp_provider_handoff',
  'delivery_evidence',
  'recovery_and_reconciliation',
] as const;

export type CapabilityKey = (typeof CAPABILITY_KEYS)[number];

export const CAPABILITY_STATUSES = ['implemented', 'partial', 'missing', 'unknown'] as const;

const Capability = z.strictObject({
  status: z.enum(CAPABILITY_STATUSES),
  evidence: z.array(z.string().min(1).max(240)).max(5).optional(),
});

export const ReadinessRequest = z.strictObject({
  workflow: z.strictObject({
    name: z.string().min(1).max(120),
    intendedUsers: z.enum(['humans', 'agents', 'both']),
    targetEnvironment: z.enum(['sandbox', 'production']),
  }),
  capabilities: z.strictObject(
    Object.fromEntries(CAPABILITY_KEYS.map((k) => [k, Capability])) as Record<CapabilityKey, typeof Capability>,
  ),
});

export type ReadinessRequest = z.infer<typeof ReadinessRequest>;
export type Capability = z.infer<typeof Capability>;
