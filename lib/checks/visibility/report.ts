import type { CheckReport } from '@/lib/checks/entry';

// The visibility check as a report: what a history row, the Markdown and the site show of its 200 body.
// Pure: the site's browser bundle loads this module. The body is read member by member, so a report from
// another check version still makes a summary.

/** Findings listed in the summary, most severe first (the body keeps them all). */
const MARKDOWN_TOP_FINDINGS = 5;

const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

const obj = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const list = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.map(obj) : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
/** Keeps a value from breaking the Markdown around it: one line, no backticks. */
const inline = (v: unknown): string => text(v).replace(/\s+/g, ' ').replace(/`/g, "'").trim();

function topFindings(findings: Array<Record<string, unknown>>, label: (f: Record<string, unknown>) => string): string[] {
  if (!findings.length) return ['## Findings', '', 'None: nothing to fix.'];
  const sorted = [...findings].sort((a, b) => (SEVERITY_RANK[text(a.severity)] ?? 9) - (SEVERITY_RANK[text(b.severity)] ?? 9));
  const shown = sorted.slice(0, MARKDOWN_TOP_FINDINGS);
  const lines = [`## Top findings (${shown.length} of ${findings.length})`, ''];
  shown.forEach((f, i) => {
    lines.push(`${i + 1}. **${inline(f.severity) || 'finding'}** ${label(f)}`);
    if (text(f.fix)) lines.push(`   Fix: ${inline(f.fix)}`);
  });
  return lines;
}

function visibilityMarkdown(body: Record<string, unknown>): string {
  const report = obj(body.report);
  const crawlers = list(report.crawlers);
  const refused = crawlers.filter((c) => c.allowed === false);
  const lines = [
    `# AI visibility: ${inline(report.checkedUrl)}`,
    '',
    `**Score: ${inline(report.score)}/${inline(report.scoreMax)}** (HTTP ${inline(report.status)}, robots.txt ${inline(report.robotsTxt)})`,
    '',
  ];
  if (!crawlers.length) lines.push('## Crawlers', '', 'No crawler verdicts in this report.');
  else if (!refused.length) lines.push('## Crawlers', '', `All ${crawlers.length} crawlers may fetch this page under robots.txt.`);
  else {
    lines.push(`## Crawlers refused (${refused.length} of ${crawlers.length})`, '');
    for (const c of refused) {
      const vendor = inline(c.vendor);
      const rule = inline(c.rule);
      lines.push(`- ${inline(c.token)}${vendor ? ` (${vendor})` : ''}${rule ? `: \`${rule}\`` : ''}${c.group ? ` in group \`${inline(c.group)}\`` : ''}`);
    }
  }
  lines.push('', ...topFindings(list(report.findings), (f) => inline(f.observed) || inline(f.why) || inline(f.id)));
  return lines.join('\n');
}

export const visibilityReport: CheckReport = {
  id: 'ai-visibility',
  label: 'AI Visibility',
  matches: (body) => Array.isArray(obj(obj(body).report).crawlers),
  facts(body) {
    const report = obj(obj(body).report);
    const score = typeof report.score === 'number' ? report.score : null;
    const max = typeof report.scoreMax === 'number' && report.scoreMax > 0 ? report.scoreMax : 100;
    // The check publishes a score, not a verdict: the history names the score's band (the report's gauge bands).
    const verdict = score === null ? null : score / max >= 0.8 ? 'good' : score / max >= 0.5 ? 'fair' : 'poor';
    return { target: typeof report.checkedUrl === 'string' ? report.checkedUrl : '', score, verdict };
  },
  findings: (body) =>
    list(obj(obj(body).report).findings).map((f) => ({ id: text(f.id), severity: text(f.severity), title: inline(f.observed) || inline(f.why) || text(f.id) })),
  markdown: visibilityMarkdown,
};
