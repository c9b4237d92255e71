import { SEVERITY_ORDER } from '@/lib/checks/severity';
import { ACCESS_LABEL, READINESS_VERDICT, SEVERITY_LABEL, visibilityVerdict } from './labels';
import { reportKind, type ReadinessBody, type ViewFinding, type VisibilityBody } from './types';

// "Copy as Markdown": the report as a person pastes it into an issue or a chat. It says what the view
// says, in the same order, so the two cannot tell different stories.

function findingLines(findings: ViewFinding[]): string[] {
  const lines: string[] = [];
  for (const severity of SEVERITY_ORDER) {
    const group = findings.filter((f) => f.severity === severity);
    if (!group.length) continue;
    lines.push('', `### ${SEVERITY_LABEL[severity]} (${group.length})`, '');
    for (const f of group) {
      const what = f.observed ?? f.why ?? f.id;
      lines.push(`- **${f.capability ?? f.id}**: ${what}${f.fix ? ` Fix: ${f.fix}` : ''}`);
    }
  }
  return lines;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function visibilityMarkdown(body: VisibilityBody): string {
  const r = body.report;
  const allowed = r.crawlers.filter((c) => c.allowed).length;
  const withAccess = r.crawlers.some((c) => c.access);
  const lines = [
    `# AI visibility of ${r.checkedUrl}`,
    '',
    `**Score ${r.score}/${r.scoreMax}**: ${visibilityVerdict(r.score, r.scoreMax, r.findings)}. ${allowed} of ${r.crawlers.length} crawlers may fetch the page under robots.txt.`,
    ...(body.checkedAt ? ['', `Checked ${body.checkedAt} (check ${r.checkVersion}, rubric ${r.rubricVersion}).`] : []),
    '',
    '## Crawlers',
    '',
    withAccess ? '| Crawler | Vendor | Role | robots.txt | Rule | Live access |' : '| Crawler | Vendor | Role | robots.txt | Rule |',
    withAccess ? '|---|---|---|---|---|---|' : '|---|---|---|---|---|',
    ...r.crawlers.map((c) => {
      const row = [c.token, c.vendor ?? '', c.role ?? '', c.allowed ? 'allowed' : 'disallowed', c.rule ? `${c.rule}${c.group ? ` (group ${c.group})` : ''}` : 'no rule'];
      if (withAccess) row.push(c.access ? `${ACCESS_LABEL[c.access.outcome] ?? c.access.outcome}${c.access.status !== null ? ` (${c.access.status})` : ''}` : '');
      return `| ${row.map(cell).join(' | ')} |`;
    }),
    '',
    `## Findings (${r.findings.length})`,
    ...findingLines(r.findings),
  ];
  return lines.join('\n') + '\n';
}

function readinessMarkdown(body: ReadinessBody): string {
  const a = body.assessment;
  const lines = [
    `# Agent payment readiness of "${a.workflow.name}"`,
    '',
    `**${READINESS_VERDICT[a.verdict] ?? a.verdict}**, score ${a.score}/${a.scoreMax}.${a.workflow.intendedUsers ? ` Users: ${a.workflow.intendedUsers}; target: ${a.workflow.targetEnvironment}.` : ''}`,
    '',
    `Blockers: ${a.blockers.length ? a.blockers.map((b) => `\`${b}\``).join(', ') : 'none'}.`,
    '',
    '## Capabilities',
    '',
    '| Capability | Declared | Requirement | Points |',
    '|---|---|---|---|',
    ...a.capabilities.map((c) => `| \`${c.key}\` | ${c.status} | ${c.requirement ?? ''} | ${c.pointsEarned}/${c.pointsPossible} |`),
    '',
    `## Findings (${a.findings.length})`,
    ...findingLines(a.findings),
    ...(a.statement ? ['', `_${a.statement}_`] : []),
  ];
  return lines.join('\n') + '\n';
}

/**
 * A report's 200 body as Markdown, or null for a body that is neither check's.
 * @example reportToMarkdown({ report: { checkedUrl: 'https://example.com/', … } }) // '# AI visibility of https://example.com/\n…'
 */
export function reportToMarkdown(body: unknown): string | null {
  const kind = reportKind(body);
  if (kind === 'visibility') return visibilityMarkdown(body as VisibilityBody);
  if (kind === 'readiness') return readinessMarkdown(body as ReadinessBody);
  return null;
}
