import { type CheckReport, fieldsOf, listOf, type ReportHeadline, scoreBand, type TopFix } from '@/lib/checks/entry';
import { SEVERITY_ORDER } from '@/lib/checks/severity';
import { markdownCode, markdownText as md } from '@/lib/checks/markdown-text';
import { accessWords, crawlerNeedsAttention, findingTitle, visibilityFacts } from './facts';
import { scoreBasisWords } from './score-basis';
import { visibilityCategories, visibilityPassed } from './rubric-labels';

// The visibility check as a report: what a history row, the Markdown and the site show of its 200 body.
// Pure: the site's browser bundle loads this module. The body is read member by member, so a report from
// another check version still makes a summary.

/** The top of a report leads with at most this many fixes, and with at least TOP_FIXES_MIN when there are that many findings worth one. */
const TOP_FIXES_MAX = 5;
const TOP_FIXES_MIN = 3;

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
/** A value on one line (a history row's finding title). */
const inline = (v: unknown): string => text(v).replace(/\s+/g, ' ').trim();
const rank = (f: Record<string, unknown>) => {
  const i = SEVERITY_ORDER.indexOf(text(f.severity) as (typeof SEVERITY_ORDER)[number]);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

/**
 * The report's verdict: the score's band, or the block when a critical finding capped it.
 * @example visibilityVerdict(92, 100, []) // 'Visible to search and AI crawlers'
 */
function visibilityVerdict(score: number, max: number, findings: Array<Record<string, unknown>>): string {
  if (findings.some((f) => f.severity === 'critical')) return 'Blocked: search engines will not index this page as it is';
  const band = scoreBand(score, max);
  return band === 'good' ? 'Visible to search and AI crawlers' : band === 'fair' ? 'Visible, with gaps to fix' : 'Hard for crawlers to use';
}

function headline(body: unknown): ReportHeadline | null {
  const b = fieldsOf(body);
  const report = fieldsOf(b.report);
  if (!Array.isArray(report.crawlers)) return null;
  const crawlers = listOf(report.crawlers);
  const findings = listOf(report.findings);
  const score = num(report.score);
  const scoreMax = num(report.scoreMax) || 100;
  const allowed = crawlers.filter((c) => c.allowed === true).length;
  const attention = crawlers.filter(crawlerNeedsAttention).length;
  const costly = findings.filter((f) => num(f.pointsLost) > 0).length;
  return {
    title: 'AI visibility of',
    target: text(report.checkedUrl),
    targetIsUrl: true,
    score,
    scoreMax,
    scoreLabel: 'Visibility score',
    verdict: visibilityVerdict(score, scoreMax, findings),
    tone: findings.some((f) => f.severity === 'critical') ? 'poor' : scoreBand(score, scoreMax),
    summary:
      `${allowed} of ${crawlers.length} crawlers may fetch this page under robots.txt` +
      `${attention ? ` (${attention} of the ${crawlers.length} are refused, blocked or answered otherwise)` : ''}; ` +
      `${findings.length} finding${findings.length === 1 ? '' : 's'}, ${costly} of them costing points.` +
      (scoreBasisWords(fieldsOf(report.scoreBasis)) ? ` ${scoreBasisWords(fieldsOf(report.scoreBasis))}` : ''),
    at: text(b.checkedAt) || null,
    atVerb: 'Checked',
  };
}

/**
 * The fixes the report leads with: the findings that cost most points (the score cap, which fixing the others
 * lifts, aside), then the most severe that cost none, up to TOP_FIXES_MIN.
 */
function topFixes(body: unknown): TopFix[] {
  const findings = listOf(fieldsOf(fieldsOf(body).report).findings).map((f, index) => ({ f, index })).filter(({ f }) => text(f.fix) && f.id !== 'score-capped');
  const costly = findings.filter(({ f }) => num(f.pointsLost) > 0).sort((a, b) => num(b.f.pointsLost) - num(a.f.pointsLost) || rank(a.f) - rank(b.f) || a.index - b.index);
  const serious = findings.filter(({ f }) => num(f.pointsLost) === 0 && rank(f) <= SEVERITY_ORDER.indexOf('medium'));
  const chosen = costly.slice(0, TOP_FIXES_MAX);
  if (chosen.length < TOP_FIXES_MIN) chosen.push(...serious.slice(0, TOP_FIXES_MIN - chosen.length));
  return chosen.map(({ f, index }) => ({ index, id: text(f.id), severity: text(f.severity), title: findingTitle(text(f.id)), fix: text(f.fix), pointsLost: num(f.pointsLost) }));
}

function crawlerLine(c: Record<string, unknown>): string {
  const vendor = md(c.vendor);
  const access = fieldsOf(c.access);
  const outcome = text(access.outcome);
  const said = [
    c.allowed === false ? `refused by robots.txt${text(c.rule) ? ` (${markdownCode(c.rule)}${text(c.group) ? ` in the group for ${markdownCode(c.group)}` : ''})` : ''}` : null,
    outcome && outcome !== 'ok' && outcome !== 'not-probed' ? `live request: ${md(accessWords(outcome).toLowerCase())}${typeof access.status === 'number' ? ` (HTTP ${md(access.status)})` : ''}` : null,
  ].filter(Boolean);
  return `- ${md(c.token)}${vendor ? ` (${vendor})` : ''}: ${said.join('; ')}`;
}

// Every value read from the body goes through md (or markdownCode): the site chose most of them (its address, title,
// description, robots lines), and whatever it chose is printed as text, never as a link, an image or HTML.
function visibilityMarkdown(body: Record<string, unknown>): string {
  const report = fieldsOf(body.report);
  const crawlers = listOf(report.crawlers);
  const findings = listOf(report.findings);
  const head = headline(body);
  const lines = [`# AI visibility: ${md(report.checkedUrl)}`, '', `**Score: ${md(report.score)}/${md(report.scoreMax)}**: ${md(head?.verdict)}. ${md(head?.summary)}`, ''];

  const fixes = topFixes(body);
  if (fixes.length) {
    lines.push('## Fix first', '');
    fixes.forEach((t, i) => lines.push(`${i + 1}. **${md(t.title)}**${t.pointsLost ? ` (${t.pointsLost} point${t.pointsLost === 1 ? '' : 's'})` : ''}: ${md(t.fix)}`));
    lines.push('');
  }

  if (!findings.length) lines.push('## Findings', '', 'None: nothing to fix.', '');
  else {
    lines.push(`## Findings (${findings.length}), most severe first`, '');
    [...findings].sort((a, b) => rank(a) - rank(b)).forEach((f, i) => {
      const lost = num(f.pointsLost);
      const unmeasured = f.state === 'not-measured' ? ' (not measured: no points lost)' : '';
      lines.push(`### ${i + 1}. ${md(f.severity) || 'finding'}: ${md(findingTitle(text(f.id)))}${lost ? ` (${lost} point${lost === 1 ? '' : 's'} lost)` : ''}${unmeasured}`, '');
      if (text(f.observed)) lines.push(`Found: ${md(f.observed)}`, '');
      if (text(f.why)) lines.push(md(f.why), '');
      if (text(f.fix)) lines.push(`**Fix:** ${md(f.fix)}`, '');
      lines.push(`Finding id: ${md(f.id)}`, '');
    });
  }

  const attention = crawlers.filter(crawlerNeedsAttention);
  if (!crawlers.length) lines.push('## Crawlers', '', 'No crawler verdicts in this report.', '');
  else if (!attention.length) lines.push('## Crawlers', '', `All ${crawlers.length} crawlers may fetch this page under robots.txt, and none was refused when asked.`, '');
  else lines.push(`## Crawlers that do not get the page (${attention.length} of ${crawlers.length})`, '', ...attention.map(crawlerLine), '');

  for (const section of visibilityFacts(report)) {
    lines.push(`## ${md(section.title)}`, '', ...section.facts.map((f) => `- **${md(f.label)}:** ${md(f.value)}`), '');
  }
  const limits = Array.isArray(body.limits) ? body.limits.filter((l): l is string => typeof l === 'string') : [];
  if (limits.length) lines.push('## What this check cannot see', '', ...limits.map((l) => `- ${md(l)}`), '');
  lines.push(`_Check ${md(report.checkVersion)}, rubric ${md(report.rubricVersion)}._`);
  return lines.join('\n');
}

export const visibilityReport: CheckReport = {
  id: 'ai-visibility',
  label: 'AI Visibility',
  facts(body) {
    const report = fieldsOf(fieldsOf(body).report);
    const score = typeof report.score === 'number' ? report.score : null;
    const max = typeof report.scoreMax === 'number' && report.scoreMax > 0 ? report.scoreMax : 100;
    // The check publishes a score, not a verdict: the history names the score's band (the report's gauge bands).
    const verdict = score === null ? null : score / max >= 0.8 ? 'good' : score / max >= 0.5 ? 'fair' : 'poor';
    return { target: typeof report.checkedUrl === 'string' ? report.checkedUrl : '', score, verdict };
  },
  verdicts: { good: { words: 'Good', tone: 'good' }, fair: { words: 'Needs work', tone: 'fair' }, poor: { words: 'Poor', tone: 'poor' } },
  findings: (body) =>
    listOf(fieldsOf(fieldsOf(body).report).findings).map((f) => ({ id: text(f.id), severity: text(f.severity), title: inline(f.observed) || inline(f.why) || text(f.id) })),
  markdown: visibilityMarkdown,
  headline,
  topFixes,
  topFixesOrder: 'Ordered by the points each fix would gain, then by severity: a Low finding that costs points comes before a Medium one that costs none.',
  categories: visibilityCategories,
  passed: visibilityPassed,
};
