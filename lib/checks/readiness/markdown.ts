import { fieldsOf, listOf } from '@/lib/checks/entry';
import { markdownCode, markdownText as md } from '@/lib/checks/markdown-text';
import { isVerifyCommand } from './content';
import { REFERENCES } from './references';
import { capabilityTitle, effortLabel, phaseTitle, severityLabel, verdictLabel } from './labels';

// The readiness answer as Markdown: the MCP tool's text (many chat clients show the model only the text) and the
// site's "Copy as Markdown". It reads the 200 body member by member, so a body from another assessment version
// still makes a summary. Every value read from the body is printed through md (lib/checks/markdown-text.ts): the
// workflow's name is whatever its buyer typed, and a stored or hand-made body may say anything anywhere, so none of
// it becomes a link, an image, HTML or a heading. The only links are to this assessment's own sources.
// Codes are said in words from the same label table the site's view uses (./labels.ts); a finding keeps its id
// on a line of its own, for a model or a script to refer to.

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const inline = (v: unknown): string => text(v).replace(/\s+/g, ' ').trim();
/** The primary sources this assessment cites, by address: the only links its Markdown makes. */
const SOURCE_URLS = new Set<string>(Object.values(REFERENCES).map((r) => r.url));
/** A link only to one of our own sources; any other address is shown as text beside its title. */
const link = (title: string, url: string): string => (SOURCE_URLS.has(url) ? `[${md(title)}](${url})` : `${md(title)} (${md(url)})`);

function findingLines(f: Record<string, unknown>, n: number): string[] {
  const title = inline(f.capability) ? capabilityTitle(inline(f.capability)) : inline(f.id);
  const effort = inline(f.effort) ? ` (effort: ${md(effortLabel(inline(f.effort)).toLowerCase())})` : '';
  const lines = [`### ${n}. ${md(inline(f.severity) ? severityLabel(inline(f.severity)) : 'Finding')}: ${md(title)}${effort}`, ''];
  if (text(f.id)) lines.push(`Finding id: ${md(f.id)}`, '');
  if (text(f.why)) lines.push(md(f.why), '');
  if (text(f.risk)) lines.push(`**Risk:** ${md(f.risk)}`, '');
  const steps = strings(f.steps);
  if (steps.length) lines.push('**Steps:**', '', ...steps.map((s, i) => `${i + 1}. ${md(s)}`), '');
  else if (text(f.fix)) lines.push(`**Fix:** ${md(f.fix)}`, '');
  const verify = listOf(f.verify);
  // A command as code (to paste); a sentence as text.
  const how = (v: Record<string, unknown>) => (isVerifyCommand(inline(v.how)) ? markdownCode(v.how) : md(v.how));
  if (verify.length) lines.push('**Verify:**', '', ...verify.map((v) => `- ${how(v)}: ${md(v.expect)}`), '');
  const refs = listOf(f.references);
  if (refs.length) lines.push(`**References:** ${refs.map((r) => link(inline(r.title), inline(r.url))).join('; ')}`, '');
  return lines;
}

/**
 * A readiness 200 body as Markdown: verdict and score, the summary, blockers, the plan, the hazards, every finding
 * with its risk, steps, verify and references, and what production would add for a sandbox workflow.
 * @example readinessMarkdown(body).split('\n')[0] // '# Agent payment readiness: Checkout agent'
 */
export function readinessMarkdown(body: unknown): string {
  const a = fieldsOf(fieldsOf(body).assessment);
  const capabilities = (v: unknown) => strings(v).map(inline).map((c) => md(capabilityTitle(c)));
  const blockers = capabilities(a.blockers);
  const lines = [`# Agent payment readiness: ${md(fieldsOf(a.workflow).name)}`, '', `**Verdict: ${md(verdictLabel(inline(a.verdict)))}**, score ${md(a.score)}/${md(a.scoreMax) || '100'}`, ''];
  if (text(a.summary)) lines.push(md(a.summary), '');
  lines.push(...(blockers.length ? [`## Blockers (${blockers.length})`, '', ...blockers.map((b) => `- ${b}`)] : ['## Blockers', '', 'None.']), '');

  const plan = listOf(a.plan);
  if (plan.length) {
    lines.push('## Plan', '');
    let n = 0;
    for (const phase of plan) {
      lines.push(`### ${md(phaseTitle(inline(phase.phase), inline(phase.title)))}`, '');
      for (const s of listOf(phase.steps)) lines.push(`${++n}. ${md(s.action)} (${md(capabilityTitle(inline(s.capability)))}, finding ${md(s.findingId)})`);
      lines.push('');
    }
  }

  const hazards = listOf(a.hazards);
  if (hazards.length) {
    lines.push(`## Hazards (${hazards.length})`, '');
    for (const h of hazards) {
      lines.push(`- **${md(severityLabel(inline(h.severity)))}**: ${capabilities(h.capabilities).join(' + ')} (hazard ${md(h.id)}): ${md(h.why)} Fix: ${md(h.fix)}`);
    }
    lines.push('');
  }

  const findings = listOf(a.findings);
  if (!findings.length) lines.push('## Findings', '', 'None: nothing to fix.', '');
  else {
    lines.push(`## Findings (${findings.length})`, '');
    findings.forEach((f, i) => lines.push(...findingLines(f, i + 1)));
  }

  const delta = fieldsOf(a.productionDelta);
  if (text(delta.verdict)) {
    const newly = capabilities(delta.newlyRequired);
    const prodBlockers = capabilities(delta.blockers);
    lines.push(
      '## In production',
      '',
      `The same declaration in production: **${md(verdictLabel(inline(delta.verdict)))}**, score ${md(delta.score)}/100. ` +
        `Newly required: ${newly.length ? newly.join(', ') : 'nothing'}. Blockers: ${prodBlockers.length ? prodBlockers.join(', ') : 'none'}.`,
      '',
    );
  }
  if (text(a.statement)) lines.push(`_${md(a.statement)}_`);
  else lines.pop();
  return lines.join('\n');
}
