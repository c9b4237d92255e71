import type { CheckReport } from '@/lib/checks/entry';
import { readinessMarkdown } from './markdown';

// The readiness check as a report: what a history row, the Markdown and the site show of its 200 body.
// Pure: the site's browser bundle loads this module.

const record = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

export const readinessReport: CheckReport = {
  id: 'readiness',
  label: 'Payment Readiness',
  matches: (body) => Array.isArray(record(record(body).assessment).capabilities),
  facts(body) {
    const assessment = record(record(body).assessment);
    const target = record(assessment.workflow).name;
    return {
      target: typeof target === 'string' ? target : '',
      score: typeof assessment.score === 'number' ? assessment.score : null,
      verdict: typeof assessment.verdict === 'string' ? assessment.verdict : null,
    };
  },
  findings(body) {
    const list = record(record(body).assessment).findings;
    return (Array.isArray(list) ? list.map(record) : []).map((f) => ({ id: String(f.id ?? ''), severity: String(f.severity ?? ''), title: String(f.why ?? f.id ?? '') }));
  },
  markdown: readinessMarkdown,
};
