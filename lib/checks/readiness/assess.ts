import { CAPABILITY_RULES, REQUIRED_SHARE, STATUS_CREDIT, ASSESSMENT_VERSION, READINESS_RUBRIC_VERSION, isRequired, type CapabilityRule } from './rubric';
import type { Capability, CapabilityKey, ReadinessRequest } from './schema';
import { SEVERITY_ORDER, type Severity } from '@/lib/checks/severity';

// Pure and deterministic: the same request gives the same assessment, byte for byte.

interface ReadinessFinding {
  id: string;
  capability: CapabilityKey;
  severity: Severity;
  why: string;
  fix: string;
}

interface CapabilityResult {
  key: CapabilityKey;
  status: Capability['status'];
  requirement: 'required' | 'recommended';
  pointsPossible: number;
  pointsEarned: number;
  evidenceCount: number;
  finding: ReadinessFinding | null;
}

export interface Assessment {
  assessmentVersion: string;
  rubricVersion: string;
  workflow: ReadinessRequest['workflow'];
  verdict: 'ready' | 'ready-with-gaps' | 'not-ready';
  score: number;
  scoreMax: 100;
  capabilities: CapabilityResult[];
  blockers: CapabilityKey[];
  findings: ReadinessFinding[];
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

function credit(c: Capability): number {
  switch (c.status) {
    case 'implemented':
      return c.evidence?.length ? STATUS_CREDIT.implementedWithEvidence : STATUS_CREDIT.implementedWithoutEvidence;
    case 'partial':
      return STATUS_CREDIT.partial;
    default:
      return STATUS_CREDIT[c.status];
  }
}

function findingFor(rule: CapabilityRule, c: Capability, required: boolean): ReadinessFinding | null {
  const noEvidence = c.status === 'implemented' && !c.evidence?.length;
  if (c.status === 'implemented' && !noEvidence) return null;
  const kind = noEvidence ? 'no-evidence' : c.status;
  const severity: Severity = required
    ? c.status === 'partial' ? 'high' : noEvidence ? 'medium' : 'critical'
    : noEvidence ? 'info' : 'low';
  const lead =
    kind === 'no-evidence'
      ? `${rule.title} is declared implemented with no evidence, so the claim cannot be traced.`
      : kind === 'unknown'
        ? `${rule.title} is unknown, which counts as missing.`
        : `${rule.title} is ${kind}.`;
  const fix = kind === 'no-evidence' ? `List evidence for it (a doc link, test name or log reference). ${rule.fix}` : rule.fix;
  return { id: `${rule.key}.${kind}`, capability: rule.key, severity, why: `${lead} ${rule.why}`, fix };
}

/**
 * Classifies the declared capabilities of one workflow against the published rubric: pure and deterministic
 * (the same request always gives the same assessment); it verifies nothing and never authorizes execution.
 * @example
 * const a = assessReadiness(ReadinessRequest.parse(body));
 * console.log(a.verdict, a.score, a.blockers); // 'not-ready' 62 ['user_authentication']
 */
export function assessReadiness(request: ReadinessRequest): Assessment {
  const { workflow, capabilities } = request;
  const required = CAPABILITY_RULES.map((r) => isRequired(r.key, workflow));
  const requiredIdx = CAPABILITY_RULES.flatMap((_, i) => (required[i] ? [i] : []));
  const recommendedIdx = CAPABILITY_RULES.flatMap((_, i) => (required[i] ? [] : [i]));
  const requiredShare = recommendedIdx.length ? (requiredIdx.length ? REQUIRED_SHARE : 0) : 100;

  const possible = new Array<number>(CAPABILITY_RULES.length).fill(0);
  allocatePoints(requiredIdx.map((i) => CAPABILITY_RULES[i].weight), requiredShare).forEach((p, j) => (possible[requiredIdx[j]] = p));
  allocatePoints(recommendedIdx.map((i) => CAPABILITY_RULES[i].weight), 100 - requiredShare).forEach((p, j) => (possible[recommendedIdx[j]] = p));

  const results: CapabilityResult[] = CAPABILITY_RULES.map((rule, i) => {
    const c = capabilities[rule.key];
    return {
      key: rule.key,
      status: c.status,
      requirement: required[i] ? 'required' : 'recommended',
      pointsPossible: possible[i],
      pointsEarned: Math.floor(possible[i] * credit(c)),
      evidenceCount: c.evidence?.length ?? 0,
      finding: findingFor(rule, c, required[i]),
    };
  });

  const blockers = results.filter((r) => r.requirement === 'required' && (r.status === 'missing' || r.status === 'unknown')).map((r) => r.key);
  const findings = results
    .flatMap((r) => (r.finding ? [r.finding] : []))
    .map((f, order) => ({ f, order }))
    .sort((a, b) => SEVERITY_ORDER.indexOf(a.f.severity) - SEVERITY_ORDER.indexOf(b.f.severity) || a.order - b.order)
    .map(({ f }) => f);
  const verdict = blockers.length ? 'not-ready' : findings.some((f) => f.severity !== 'info') ? 'ready-with-gaps' : 'ready';

  return {
    assessmentVersion: ASSESSMENT_VERSION,
    rubricVersion: READINESS_RUBRIC_VERSION,
    workflow: { name: workflow.name, intendedUsers: workflow.intendedUsers, targetEnvironment: workflow.targetEnvironment },
    verdict,
    score: results.reduce((n, r) => n + r.pointsEarned, 0),
    scoreMax: 100,
    capabilities: results,
    blockers,
    findings,
    authorizesExecution: false,
    statement: READINESS_STATEMENT,
  };
}
