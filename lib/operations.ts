import { z } from 'zod';
import { ReadinessRequest } from '@/lib/checks/readiness/schema';
import { assessReadiness } from '@/lib/checks/readiness/assess';
import { readinessRubric } from '@/lib/checks/readiness/rubric';
import { artifactHash } from '@/lib/canonical-json';

// THE registry of paid operations. REST routes, MCP tools, the OpenAPI document, the free GET
// descriptions and list_paid_services are all derived from these entries, so adding a check
// means adding one entry here.

export const PRICE_CENTS = 100;
export const PRICE_USD = '1.00';

export interface OperationContext {
  signal: AbortSignal;
  now: Date;
}

export interface PaidOperation<S extends z.ZodType = z.ZodType> {
  id: string;
  path: string;
  toolName: string;
  service: string;
  summary: string;
  description: string;
  input: S;
  /** True when the work can fail for reasons outside the buyer's request body (it then runs before any charge). */
  workBeforeCharge: boolean;
  /** The operation-specific members of the 200 body; the gate adds service, idempotencyKey and the payment reference. */
  run(input: z.infer<S>, context: OperationContext): Promise<Record<string, unknown>>;
  /** What the free GET on the same path describes besides price and rails. */
  describe(): Record<string, unknown>;
}

export const READINESS_LIMITS = [
  'Capabilities are classified as declared; nothing is fetched, tested or verified.',
  'The assessment never authorizes execution of a payment workflow.',
  'Evidence strings are counted, not read for truth.',
];

export const readinessOperation: PaidOperation<typeof ReadinessRequest> = {
  id: 'createAgentReadinessAssessment',
  path: '/api/agent/readiness',
  toolName: 'agent_payment_readiness_assessment',
  service: 'Agent Payment Readiness Assessment',
  summary: 'Classify the payment capabilities declared for a workflow (1.00 USD)',
  description:
    'Classifies the ten payment capabilities a buyer declares about a workflow against a published rubric: a verdict for the target environment, ' +
    'a 0-100 score, blockers and findings with fixes. Deterministic; verifies nothing and never authorizes execution.',
  input: ReadinessRequest,
  workBeforeCharge: false,
  async run(input, { now }) {
    const assessment = assessReadiness(input);
    return { assessedAt: now.toISOString(), assessment, limits: READINESS_LIMITS, artifactHash: artifactHash(assessment) };
  },
  describe: () => ({ rubric: readinessRubric(), limits: READINESS_LIMITS }),
};

export const OPERATIONS: readonly PaidOperation[] = [readinessOperation as unknown as PaidOperation];

export function operationById(id: string): PaidOperation | undefined {
  return OPERATIONS.find((o) => o.id === id);
}
