import { z } from 'zod';
import { artifactHash } from '@/lib/canonical-json';
import { immutable } from '@/lib/json-text';
import { PRICE_USD } from '@/lib/price';
import { defineCheck, paidResult } from '@/lib/checks/entry';
import { ReadinessAssessmentSchema, ReadinessRequest } from './schema';
import { assessReadiness } from './assess';
import { readinessRubric } from './rubric';
import { readinessReport } from './report';

// The Agent Payment Readiness Assessment as the service sells it: over REST, MCP and the site alike.

const ReadinessDescribed = z.strictObject({
  rubric: z.looseObject({ rubricVersion: z.string(), scoreMax: z.number().int(), capabilities: z.array(z.looseObject({ key: z.string() })) }),
  limits: z.array(z.string()),
});

const READINESS_LIMITS = [
  'Capabilities are classified as declared; nothing is fetched, tested or verified.',
  'The assessment never authorizes execution of a payment workflow.',
  'Evidence strings are classified by published patterns (address, path, test, command, record or statement); none is opened or checked for truth.',
];

/** The request body the docs, OpenAPI and the 402 show. */
const READINESS_EXAMPLE: ReadinessRequest = {
  workflow: { name: 'Checkout agent', intendedUsers: 'agents', targetEnvironment: 'production' },
  capabilities: {
    machine_discovery: { status: 'implemented', evidence: ['openapi.json with x-payment-info'] },
    payment_challenge_and_receipt: { status: 'implemented', evidence: ['402 with MPP challenges'] },
    idempotency: { status: 'partial' },
    webhook_verification: { status: 'implemented' },
    durable_fulfillment: { status: 'implemented', evidence: ['orders table'] },
    user_authentication: { status: 'missing' },
    wallet_ownership: { status: 'unknown' },
    onramp_provider_handoff: { status: 'missing' },
    delivery_evidence: { status: 'implemented', evidence: ['artifact hash stored'] },
    recovery_and_reconciliation: { status: 'missing' },
  },
};

/** When the example answer was assessed: a fixed time, so the example never changes between runs. */
const EXAMPLE_ASSESSED_AT = '2026-11-01T12:00:00.000Z';

type Assessed = { assessment: ReturnType<typeof assessReadiness>; artifactHash: string };

/** Requests asked once lately, by their JSON, oldest first. */
const askedOnce = new Set<string>();
/** Requests asked again, with their whole assessment and hash, oldest first. */
const askedAgain = new Map<string, Assessed>();
const ASKED_ONCE_KEPT = 256;
const ASKED_AGAIN_KEPT = 64;

/**
 * The assessment of `input` and its artifact hash. Its parts are made once per shape (`assessReadiness`); what is
 * left per request is putting them together, hashing and serialising, about 40 KB. A request asked a second time
 * (an agent asking again) keeps its whole assessment, frozen, so its hash and JSON text are made once for every
 * later time. Only the second time: keeping every request's texts cost more, in garbage collection, than reusing
 * them saved when requests seldom repeat.
 */
function assess(input: ReadinessRequest): Assessed {
  const key = JSON.stringify(input);
  const known = askedAgain.get(key);
  if (known) return known;
  const assessment = assessReadiness(input);
  const made = { assessment, artifactHash: artifactHash(assessment) };
  if (askedOnce.delete(key)) {
    immutable(assessment);
    if (askedAgain.size >= ASKED_AGAIN_KEPT) askedAgain.delete(askedAgain.keys().next().value!);
    askedAgain.set(key, made);
  } else {
    if (askedOnce.size >= ASKED_ONCE_KEPT) askedOnce.delete(askedOnce.values().next().value!);
    askedOnce.add(key);
  }
  return made;
}

function readinessAnswer(input: ReadinessRequest, now: Date) {
  const { assessment, artifactHash } = assess(input);
  return { assessedAt: now.toISOString(), assessment, limits: READINESS_LIMITS, artifactHash };
}

export const readinessCheck = defineCheck({
  ...readinessReport,
  operationId: 'createAgentReadinessAssessment',
  toolName: 'agent_payment_readiness_assessment',
  service: 'Agent Payment Readiness Assessment',
  summary: `Classify the payment capabilities declared for a workflow (${PRICE_USD} USD)`,
  description:
    'Classifies the ten payment capabilities a buyer declares about a workflow against a published rubric: a verdict for the target environment, ' +
    'a 0-100 score, blockers, findings with the concrete risk, ordered fix steps, ways to verify and primary-source references, hazards (gaps dangerous together), ' +
    'a phased plan, and for a sandbox workflow what production would add. Deterministic; verifies nothing and never authorizes execution.',
  input: ReadinessRequest,
  output: paidResult({ assessedAt: z.string(), assessment: ReadinessAssessmentSchema }),
  example: READINESS_EXAMPLE,
  // The check is pure, so its example answer is the answer to its example.
  exampleAnswer: () => readinessAnswer(READINESS_EXAMPLE, new Date(EXAMPLE_ASSESSED_AT)),
  workBeforeCharge: false,
  async run(input, { now }) {
    return readinessAnswer(input, now);
  },
  described: ReadinessDescribed,
  describe: () => ({ rubric: readinessRubric(), limits: READINESS_LIMITS }),
  summarize(body) {
    const { assessment } = body as {
      assessment: { workflow: { name: string }; verdict: string; score: number; blockers: string[]; findings: unknown[] };
    };
    return (
      `Readiness for "${assessment.workflow.name}": ${assessment.verdict}, score ${assessment.score}/100, ` +
      `${assessment.blockers.length} blocker(s), ${assessment.findings.length} finding(s). Declared capabilities were classified, not verified.`
    );
  },
});
