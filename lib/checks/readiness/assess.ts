import { CAPABILITY_RULES, REQUIRED_SHARE, STATUS_CREDIT, ASSESSMENT_VERSION, READINESS_RUBRIC_VERSION, isRequired, type CapabilityRule } from './rubric';
import type { Capability, CapabilityKey, ReadinessRequest } from './schema';
import { SEVERITY_ORDER, type Severity } from '@/lib/checks/severity';
import { classifyEvidence, type EvidenceItem } from './evidence';
import { CAPABILITY_TEXTS, EFFORTS, evidenceAction, evidenceSteps, type Audience, type Effort, type Verify } from './content';
import { references, type Reference } from './references';
import { findHazards, type Hazard } from './hazards';
import { buildPlan, type PlanPhase } from './plan';
import { READINESS_VERDICT } from './labels';
import { immutable } from '@/lib/json-text';

// Pure and deterministic: the same request gives the same assessment, byte for byte. No clock, no randomness,
// no network: everything below is derived from the declaration and the published rubric.

type FindingKind = 'missing' | 'unknown' | 'partial' | 'no-evidence' | 'evidence-unverifiable';

interface ReadinessFinding {
  id: string;
  capability: CapabilityKey;
  severity: Severity;
  why: string;
  fix: string;
  risk: string;
  steps: string[];
  verify: Verify[];
  references: Reference[];
  effort: Effort;
}

interface CapabilityResult {
  key: CapabilityKey;
  status: Capability['status'];
  requirement: 'required' | 'recommended';
  pointsPossible: number;
  pointsEarned: number;
  evidenceCount: number;
  evidence: EvidenceItem[];
  finding: ReadinessFinding | null;
}

type Verdict = 'ready' | 'ready-with-gaps' | 'not-ready';

interface ProductionDelta {
  score: number;
  verdict: Verdict;
  newlyRequired: CapabilityKey[];
  blockers: CapabilityKey[];
}

export interface Assessment {
  assessmentVersion: string;
  rubricVersion: string;
  workflow: ReadinessRequest['workflow'];
  verdict: Verdict;
  score: number;
  scoreMax: 100;
  summary: string;
  capabilities: CapabilityResult[];
  blockers: CapabilityKey[];
  findings: ReadinessFinding[];
  hazards: Hazard[];
  plan: PlanPhase[];
  productionDelta?: ProductionDelta;
  authorizesExecution: false;
  statement: string;
}

const READINESS_STATEMENT =
  'Declared capabilities were classified, not verified: this assessment checks nothing independently and does not authorize execution of any payment workflow.';

/** Splits `total` over `weights` in whole points by largest remainder; ties go to the earlier item. */
export function allocatePoints(weights: number[], total: number): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (w * total) / sum);
  const points = exact.map(Math.floor);
  let left = total - points.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left-- <= 0) break;
    points[i] += 1;
  }
  return points;
}

function credit(c: Capability, evidence: readonly EvidenceItem[]): number {
  switch (c.status) {
    case 'implemented':
      return !evidence.length
        ? STATUS_CREDIT.implementedWithoutEvidence
        : evidence.some((e) => e.checkable)
          ? STATUS_CREDIT.implementedWithEvidence
          : STATUS_CREDIT.implementedWithStatementsOnly;
    case 'partial':
      return STATUS_CREDIT.partial;
    default:
      return STATUS_CREDIT[c.status];
  }
}

function findingKind(c: Capability, evidence: readonly EvidenceItem[]): FindingKind | null {
  if (c.status !== 'implemented') return c.status;
  if (!evidence.length) return 'no-evidence';
  return evidence.some((e) => e.checkable) ? null : 'evidence-unverifiable';
}

const SEVERITY: Record<FindingKind, { required: Severity; recommended: Severity }> = {
  missing: { required: 'critical', recommended: 'low' },
  unknown: { required: 'critical', recommended: 'low' },
  partial: { required: 'high', recommended: 'low' },
  'no-evidence': { required: 'medium', recommended: 'info' },
  'evidence-unverifiable': { required: 'low', recommended: 'info' },
};

function smaller(e: Effort): Effort {
  return EFFORTS[Math.max(0, EFFORTS.indexOf(e) - 1)];
}

/** Findings already written, by everything they are made from: at most 10 × 5 × 2 × 8 × 2 of them. */
const findingsMade = new Map<string, ReadinessFinding>();

/**
 * The finding for one capability in one state. A finding is fixed text chosen by a few flags, and it is most of an
 * assessment's bytes (it appears twice: under its capability and in the list), so each one is written once per
 * process and kept `immutable`: its JSON and canonical texts are made once and spliced into every answer.
 */
function findingFor(rule: CapabilityRule, kind: FindingKind, required: boolean, audience: Audience, requiredInProduction: boolean): ReadinessFinding {
  const key = `${rule.key} ${kind} ${required} ${audience.agents} ${audience.humans} ${audience.production} ${requiredInProduction}`;
  let finding = findingsMade.get(key);
  if (!finding) {
    finding = immutable(writeFinding(rule, kind, required, audience, requiredInProduction));
    findingsMade.set(key, finding);
  }
  return finding;
}

function writeFinding(rule: CapabilityRule, kind: FindingKind, required: boolean, audience: Audience, requiredInProduction: boolean): ReadinessFinding {
  const text = CAPABILITY_TEXTS[rule.key];
  const lead =
    kind === 'no-evidence'
      ? `${rule.title} is declared implemented with no evidence, so the claim cannot be traced.`
      : kind === 'evidence-unverifiable'
        ? `${rule.title} is declared implemented, but its evidence names nothing checkable (no address, path, test, command or record).`
        : kind === 'unknown'
          ? `${rule.title} is unknown, which counts as missing.`
          : `${rule.title} is ${kind}.`;
  const fix =
    kind === 'no-evidence'
      ? `List evidence for it (a doc link, test name or log reference). ${rule.fix}`
      : kind === 'evidence-unverifiable'
        ? `Name checkable evidence for it (an address, a repository path, a test, a command or a record id). ${rule.fix}`
        : rule.fix;
  const evidenceKind = kind === 'no-evidence' || kind === 'evidence-unverifiable';
  let risk = evidenceKind ? text.risk.unproven : kind === 'partial' ? text.risk.partial(audience) : text.risk.missing(audience);
  if (!required && requiredInProduction) risk += ' No real money moves in this sandbox yet; in production this capability is required.';
  return {
    id: `${rule.key}.${kind}`,
    capability: rule.key,
    severity: SEVERITY[kind][required ? 'required' : 'recommended'],
    why: `${lead} ${rule.why}`,
    fix,
    risk,
    steps: evidenceKind ? evidenceSteps(rule.title) : [...text.steps],
    verify: text.verify.map((v) => ({ ...v })),
    references: references(text.references),
    effort: evidenceKind ? 'small' : kind === 'partial' ? smaller(text.effort) : text.effort,
  };
}

/** Everything but the production delta: the delta is this same function run for production. */
function assessCore(request: ReadinessRequest): Omit<Assessment, 'productionDelta'> {
  const { workflow, capabilities } = request;
  const audience: Audience = {
    agents: workflow.intendedUsers !== 'humans',
    humans: workflow.intendedUsers !== 'agents',
    production: workflow.targetEnvironment === 'production',
  };
  const inProduction = { ...workflow, targetEnvironment: 'production' as const };
  const required = CAPABILITY_RULES.map((r) => isRequired(r.key, workflow));
  const requiredIdx = CAPABILITY_RULES.flatMap((_, i) => (required[i] ? [i] : []));
  const recommendedIdx = CAPABILITY_RULES.flatMap((_, i) => (required[i] ? [] : [i]));
  const requiredShare = recommendedIdx.length ? (requiredIdx.length ? REQUIRED_SHARE : 0) : 100;

  const possible = new Array<number>(CAPABILITY_RULES.length).fill(0);
  allocatePoints(requiredIdx.map((i) => CAPABILITY_RULES[i].weight), requiredShare).forEach((p, j) => (possible[requiredIdx[j]] = p));
  allocatePoints(recommendedIdx.map((i) => CAPABILITY_RULES[i].weight), 100 - requiredShare).forEach((p, j) => (possible[recommendedIdx[j]] = p));

  const results: CapabilityResult[] = CAPABILITY_RULES.map((rule, i) => {
    const c = capabilities[rule.key];
    const evidence = (c.evidence ?? []).map(classifyEvidence);
    const kind = findingKind(c, evidence);
    return {
      key: rule.key,
      status: c.status,
      requirement: required[i] ? 'required' : 'recommended',
      pointsPossible: possible[i],
      pointsEarned: Math.floor(possible[i] * credit(c, evidence)),
      evidenceCount: evidence.length,
      evidence,
      finding: kind ? findingFor(rule, kind, required[i], audience, isRequired(rule.key, inProduction)) : null,
    };
  });

  const blockers = results.filter((r) => r.requirement === 'required' && (r.status === 'missing' || r.status === 'unknown')).map((r) => r.key);
  const findings = results
    .flatMap((r) => (r.finding ? [r.finding] : []))
    .map((f, order) => ({ f, order }))
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.f.severity) - SEVERITY_ORDER.indexOf(b.f.severity) || a.order - b.order)
    .map(({ f }) => f);
  const verdict: Verdict = blockers.length ? 'not-ready' : findings.some((f) => f.severity !== 'info') ? 'ready-with-gaps' : 'ready';
  const score = results.reduce((n, r) => n + r.pointsEarned, 0);
  const hazards = findHazards(request, (key) => required[CAPABILITY_RULES.findIndex((r) => r.key === key)]);
  const newlyRequired = new Set(CAPABILITY_RULES.filter((r, i) => !required[i] && isRequired(r.key, inProduction)).map((r) => r.key));
  const plan = buildPlan(
    findings.map((f) => {
      const gap = capabilities[f.capability].status !== 'implemented';
      const title = CAPABILITY_RULES.find((r) => r.key === f.capability)!.title;
      return { id: f.id, capability: f.capability, severity: f.severity, gap, action: gap ? CAPABILITY_TEXTS[f.capability].action : evidenceAction(title) };
    }),
    hazards,
    newlyRequired,
  );
  const first = plan[0]?.steps[0];
  // Capabilities by their titles: the sentence is read by people (the report's header) as well as by models.
  const titled = (key: CapabilityKey) => CAPABILITY_RULES.find((r) => r.key === key)!.title;
  const critical = hazards.filter((h) => h.severity === 'critical');
  const summary =
    `${READINESS_VERDICT[verdict].words} (score ${score}/100): ` +
    (blockers.length ? `${blockers.length} blocker${blockers.length > 1 ? 's' : ''} (${blockers.map(titled).join(', ')})` : 'no blockers') +
    // A critical hazard never changes the verdict, so the sentence names it: "ready with gaps" alone would hide it.
    (critical.length ? `${blockers.length ? ' and' : ', but'} ${critical.length} critical hazard${critical.length > 1 ? 's' : ''} (${critical.map((h) => h.capabilities.map(titled).join(' with ')).join('; ')})` : '') +
    (first ? `; first step (${titled(first.capability)}): ${first.action[0].toLowerCase()}${first.action.slice(1)}.` : '; nothing to fix.');

  return {
    assessmentVersion: ASSESSMENT_VERSION,
    rubricVersion: READINESS_RUBRIC_VERSION,
    workflow: { name: workflow.name, intendedUsers: workflow.intendedUsers, targetEnvironment: workflow.targetEnvironment },
    verdict,
    score,
    scoreMax: 100,
    summary,
    capabilities: results,
    blockers,
    findings,
    hazards,
    plan,
    authorizesExecution: false,
    statement: READINESS_STATEMENT,
  };
}

/** Assessments of a declaration's shape (`shapeOf`), oldest first: what the workflow's name and the evidence's words do not change. */
const byShape = new Map<string, Assessment>();
const SHAPES_KEPT = 256;

/**
 * What an assessment depends on besides the workflow's name and the words of its evidence: the users, the
 * environment, and for each capability its status, how many evidence items it has and whether any is checkable.
 */
function shapeOf(request: ReadinessRequest, evidence: readonly (readonly EvidenceItem[])[]): string {
  let shape = `${request.workflow.intendedUsers} ${request.workflow.targetEnvironment}`;
  CAPABILITY_RULES.forEach((rule, i) => {
    shape += ` ${request.capabilities[rule.key].status}/${evidence[i].length}/${evidence[i].some((e) => e.checkable)}`;
  });
  return shape;
}

function assessShape(request: ReadinessRequest): Assessment {
  const core = assessCore(request);
  if (request.workflow.targetEnvironment === 'production') return core;
  const production = assessCore({ ...request, workflow: { ...request.workflow, targetEnvironment: 'production' } });
  const productionDelta: ProductionDelta = {
    score: production.score,
    verdict: production.verdict,
    newlyRequired: production.capabilities.filter((c, i) => c.requirement === 'required' && core.capabilities[i].requirement !== 'required').map((c) => c.key),
    blockers: production.blockers,
  };
  // The delta sits before the closing statement, so a reader meets it next to the plan.
  const { authorizesExecution, statement, ...rest } = core;
  return { ...rest, productionDelta, authorizesExecution, statement };
}

/**
 * Classifies the declared capabilities of one workflow against the published rubric: pure and deterministic
 * (the same request always gives the same assessment); it verifies nothing and never authorizes execution.
 * A sandbox workflow also gets `productionDelta`: what the same declaration would get in production.
 *
 * Everything but the workflow and the evidence quoted back is decided by the declaration's shape (`shapeOf`), and
 * most of an assessment's bytes are fixed text, so each shape is assessed once per process (the last 256 kept, each
 * part `immutable`, its texts made once): another workflow of the same shape gets those parts with its own name and
 * evidence put in their places. The parts handed out are frozen.
 * @example
 * const a = assessReadiness(ReadinessRequest.parse(body));
 * console.log(a.verdict, a.score, a.blockers, a.plan[0]?.phase); // 'not-ready' 62 ['user_authentication'] 'before-first-payment'
 */
export function assessReadiness(request: ReadinessRequest): Assessment {
  const evidence = CAPABILITY_RULES.map((rule) => (request.capabilities[rule.key].evidence ?? []).map(classifyEvidence));
  const shape = shapeOf(request, evidence);
  let known = byShape.get(shape);
  if (!known) {
    known = assessShape(request);
    // Each part is marked on its own: the answer is a new object around them, so its own text is never reused.
    for (const part of Object.values(known)) immutable(part);
    if (byShape.size >= SHAPES_KEPT) byShape.delete(byShape.keys().next().value!);
    byShape.set(shape, known);
  }
  const { workflow } = request;
  // Spreading keeps each member where it was: the workflow and each capability's evidence are replaced in place.
  return {
    ...known,
    workflow: { name: workflow.name, intendedUsers: workflow.intendedUsers, targetEnvironment: workflow.targetEnvironment },
    capabilities: known.capabilities.map((c, i) => ({ ...c, evidence: evidence[i] })),
  };
}
