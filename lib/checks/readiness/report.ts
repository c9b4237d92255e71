import { type CheckReport, fieldsOf, listOf, type PassedAudit, type ReportCategory, type ReportHeadline, scoreBand, type TopFix } from '@/lib/checks/entry';
import { readinessMarkdown } from './markdown';
import { CAPABILITY_GROUPS, READINESS_VERDICT, capabilityGroup, capabilityTitle, statusLabel } from './labels';

// The readiness check as a report: what a history row, the Markdown and the site show of its 200 body.
// Pure: the site's browser bundle loads this module.

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The report leads with this many steps of its plan. */
const TOP_FIXES_MAX = 3;


function headline(body: unknown): ReportHeadline | null {
  const b = fieldsOf(body);
  const a = fieldsOf(b.assessment);
  if (!Array.isArray(a.capabilities)) return null;
  const score = typeof a.score === 'number' ? a.score : null;
  const scoreMax = typeof a.scoreMax === 'number' ? a.scoreMax : 100;
  const verdict = text(a.verdict);
  const blockers = Array.isArray(a.blockers) ? a.blockers.length : 0;
  const findings = Array.isArray(a.findings) ? a.findings.length : 0;
  return {
    title: 'Payment readiness of',
    target: text(fieldsOf(a.workflow).name),
    targetIsUrl: false,
    score,
    scoreMax,
    scoreLabel: 'Readiness score',
    verdict: READINESS_VERDICT[verdict]?.words ?? verdict,
    tone: verdict === 'not-ready' ? 'poor' : verdict === 'ready' ? 'good' : score !== null ? scoreBand(score, scoreMax) : 'fair',
    // The assessment's own summary sentence when it has one; else the counts.
    summary: text(a.summary) || `${blockers} blocker${blockers === 1 ? '' : 's'}, ${findings} finding${findings === 1 ? '' : 's'}.`,
    at: text(b.assessedAt) || null,
    atVerb: 'Assessed',
  };
}

/**
 * The first steps of the plan, in its order: the plan already places every finding in a phase and orders each phase
 * by the fixes the others depend on, so the top of the report says the same as the plan below it.
 */
function topFixes(body: unknown): TopFix[] {
  const a = fieldsOf(fieldsOf(body).assessment);
  const findings = listOf(a.findings);
  const steps = listOf(a.plan).flatMap((phase) => listOf(phase.steps));
  return steps.slice(0, TOP_FIXES_MAX).flatMap((step) => {
    const index = findings.findIndex((f) => f.id === step.findingId);
    if (index < 0) return [];
    const f = findings[index];
    return [{ index, id: text(f.id), severity: text(f.severity), title: capabilityTitle(text(f.capability) || text(step.capability)), fix: text(step.action) || text(f.fix), pointsLost: num(f.pointsLost) }];
  });
}

/** The score of each group of capabilities (labels.ts CAPABILITY_GROUPS), each linking to its rows of the capability table. */
function categories(body: unknown): ReportCategory[] {
  const capabilities = listOf(fieldsOf(fieldsOf(body).assessment).capabilities);
  return CAPABILITY_GROUPS.map((g) => {
    const own = capabilities.filter((c) => capabilityGroup(text(c.key)) === g.key);
    return { label: g.label, earned: own.reduce((s, c) => s + num(c.pointsEarned), 0), max: own.reduce((s, c) => s + num(c.pointsPossible), 0), anchor: `category-${g.key}` };
  }).filter((c) => c.max > 0);
}

/** The capabilities that earned every point they could. */
function passed(body: unknown): PassedAudit[] {
  return listOf(fieldsOf(fieldsOf(body).assessment).capabilities)
    .filter((c) => num(c.pointsPossible) > 0 && num(c.pointsEarned) >= num(c.pointsPossible))
    .map((c) => ({ key: text(c.key), title: `${capabilityTitle(text(c.key))}: ${statusLabel(text(c.status)).toLowerCase()}, with all its points` }));
}

export const readinessReport: CheckReport = {
  id: 'readiness',
  label: 'Payment Readiness',
  verdicts: READINESS_VERDICT,
  facts(body) {
    const assessment = fieldsOf(fieldsOf(body).assessment);
    const target = fieldsOf(assessment.workflow).name;
    return {
      target: typeof target === 'string' ? target : '',
      score: typeof assessment.score === 'number' ? assessment.score : null,
      verdict: typeof assessment.verdict === 'string' ? assessment.verdict : null,
    };
  },
  findings(body) {
    const list = fieldsOf(fieldsOf(body).assessment).findings;
    return listOf(list).map((f) => ({ id: String(f.id ?? ''), severity: String(f.severity ?? ''), title: String(f.why ?? f.id ?? '') }));
  },
  markdown: readinessMarkdown,
  headline,
  topFixes,
  topFixesOrder: 'The first steps of the plan below, in its order: what must be done before the first payment comes first, and a fix that others build on comes before them, so a High may lead a Critical.',
  categories,
  passed,
};
