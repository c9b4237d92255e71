import { type CheckReport, fieldsOf, listOf, type ReportHeadline, scoreBand } from '@/lib/checks/entry';
import { readinessMarkdown } from './markdown';
import { READINESS_VERDICT } from './labels';

// The readiness check as a report: what a history row, the Markdown and the site show of its 200 body.
// Pure: the site's browser bundle loads this module.

const text = (v: unknown): string => (typeof v === 'string' ? v : '');


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
  // No top fixes: a readiness report leads with its plan, which orders every finding.
};
