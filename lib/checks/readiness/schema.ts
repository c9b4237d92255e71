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

// The assessment as returned (the `assessment` member of the paid 200 body): the MCP tool's outputSchema and the
// OpenAPI response schema derive from it. Objects are loose so a client written against it keeps working when a
// later version adds members; assessmentVersion and rubricVersion say when anything changes.

const SeverityEnum = z.enum(['critical', 'high', 'medium', 'low', 'info']);
const CapabilityKeyEnum = z.enum(CAPABILITY_KEYS);
const VerdictEnum = z.enum(['ready', 'ready-with-gaps', 'not-ready']);

const EvidenceItemSchema = z.looseObject({
  text: z.string(),
  kind: z.enum(['url', 'path', 'test', 'command', 'reference', 'statement']),
  checkable: z.boolean(),
});

const FindingSchema = z.looseObject({
  id: z.string(),
  capability: CapabilityKeyEnum,
  severity: SeverityEnum,
  why: z.string(),
  fix: z.string(),
  risk: z.string(),
  steps: z.array(z.string()).min(2).max(6),
  verify: z.array(z.looseObject({ how: z.string(), expect: z.string() })).min(1),
  references: z.array(z.looseObject({ title: z.string(), url: z.url() })).min(1),
  effort: z.enum(['small', 'medium', 'large']),
});

export const ReadinessAssessmentSchema = z.looseObject({
  assessmentVersion: z.string(),
  rubricVersion: z.string(),
  workflow: z.looseObject({ name: z.string() }),
  verdict: VerdictEnum,
  score: z.number().int().min(0).max(100),
  scoreMax: z.literal(100),
  summary: z.string(),
  capabilities: z.array(
    z.looseObject({
      key: z.string(),
      status: z.string(),
      pointsPossible: z.number(),
      pointsEarned: z.number(),
      evidence: z.array(EvidenceItemSchema).max(5),
      finding: FindingSchema.nullable(),
    }),
  ),
  blockers: z.array(z.string()),
  findings: z.array(FindingSchema),
  hazards: z.array(
    z.looseObject({ id: z.string(), severity: SeverityEnum, capabilities: z.array(CapabilityKeyEnum).min(2), why: z.string(), fix: z.string() }),
  ),
  plan: z.array(
    z.looseObject({
      phase: z.enum(['before-first-payment', 'before-production', 'after-launch']),
      title: z.string(),
      steps: z.array(z.looseObject({ capability: CapabilityKeyEnum, findingId: z.string(), action: z.string() })).min(1),
    }),
  ),
  productionDelta: z
    .looseObject({ score: z.number().int().min(0).max(100), verdict: VerdictEnum, newlyRequired: z.array(CapabilityKeyEnum), blockers: z.array(CapabilityKeyEnum) })
    .optional()
    .describe('Present for sandbox workflows only: what the same declaration would get in production.'),
  authorizesExecution: z.literal(false),
  statement: z.string(),
});
