import { fieldsOf, listOf } from '@/lib/checks/entry';
import { isVerifyCommand } from './content';
import { capabilityTitle, effortLabel, phaseTitle, severityLabel, verdictLabel } from './labels';

// The readiness answer as Markdown: the MCP tool's text (many chat clients show the model only the text) and the
// site's "Copy as Markdown". It reads the 200 body member by member, so a body from another assessment version
// still makes a summary, and every value is kept on one line without backticks so it cannot break the Markdown.
// Codes are said in words from the same label table the site's view uses (./labels.ts); a finding keeps its id
// on a line of its own, for a model or a script to refer to.

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const inline = (v: unknown): string => text(v).replace(/\s+/g, ' ').replace(/`/g, "'").trim();
/** A link only to a plain https address; anything else is shown as text. */
const link = (title: string, url: string): string => (/^https:\/\/[^\s()<>[\]]+$/.test(url) ? `[${title.replace(/[[\]]/g, '')}](${url})` : title);

function findingLines(f: Record<string, unknown>, n: number): string[] {
  const title = inline(f.capability) ? capabilityTitle(inline(f.capability)) : inline(f.id);
  const effort = inline(f.effort) ? ` (effort: ${effortLabel(inline(f.effort)).toLowerCase()})` : '';
  const lines = [`### ${n}. ${inline(f.severity) ? severityLabel(inline(f.severity)) : 'Finding'}: ${title}${effort}`, ''];
  if (text(f.id)) lines.push(`Finding id: ${inline(f.id)}`, '');
  if (text(f.why)) lines.push(inline(f.why), '');
  if (text(f.risk)) lines.push(`**Risk:** ${inline(f.risk)}`, '');
  const steps = strings(f.steps);
  if (steps.length) lines.push('**Steps:**', '', ...steps.map((s, i) => `${i + 1}. ${inline(s)}`), '');
  else if (text(f.fix)) lines.push(`**Fix:** ${inline(f.fix)}`, '');
  const verify = listOf(f.verify);
  // A command in backticks (to paste); a sentence as text.
  const how = (v: Record<string, unknown>) => (isVerifyCommand(inline(v.how)) ? `\`${inline(v.how)}\`` : inline(v.how));
  if (verify.length) lines.push('**Verify:**', '', ...verify.map((v) => `- ${how(v)}: ${inline(v.expect)}`), '');
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
  const blockers = strings(a.blockers).map(inline).map(capabilityTitle);
  const lines = [`# Agent payment readiness: ${inline(fieldsOf(a.workflow).name)}`, '', `**Verdict: ${verdictLabel(inline(a.verdict))}**, score ${inline(a.score)}/${inline(a.scoreMax) || '100'}`, ''];
  if (text(a.summary)) lines.push(inline(a.summary), '');
  lines.push(...(blockers.length ? [`## Blockers (${blockers.length})`, '', ...blockers.map((b) => `- ${b}`)] : ['## Blockers', '', 'None.']), '');

  const plan = listOf(a.plan);
  if (plan.length) {
    lines.push('## Plan', '');
    let n = 0;
    for (const phase of plan) {
      lines.push(`### ${phaseTitle(inline(phase.phase), inline(phase.title))}`, '');
      for (const s of listOf(phase.steps)) lines.push(`${++n}. ${inline(s.action)} (${capabilityTitle(inline(s.capability))}, finding ${inline(s.findingId)})`);
      lines.push('');
    }
  }

  const hazards = listOf(a.hazards);
  if (hazards.length) {
    lines.push(`## Hazards (${hazards.length})`, '');
    for (const h of hazards) {
      lines.push(`- **${severityLabel(inline(h.severity))}**: ${strings(h.capabilities).map(inline).map(capabilityTitle).join(' + ')} (hazard ${inline(h.id)}): ${inline(h.why)} Fix: ${inline(h.fix)}`);
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
    const newly = strings(delta.newlyRequired).map(inline).map(capabilityTitle);
    const prodBlockers = strings(delta.blockers).map(inline).map(capabilityTitle);
    lines.push(
      '## In production',
      '',
      `The same declaration in production: **${verdictLabel(inline(delta.verdict))}**, score ${inline(delta.score)}/100. ` +
        `Newly required: ${newly.length ? newly.join(', ') : 'nothing'}. Blockers: ${prodBlockers.length ? prodBlockers.join(', ') : 'none'}.`,
      '',
    );
  }
  if (text(a.statement)) lines.push(`_${inline(a.statement)}_`);
  else lines.pop();
  return lines.join('\n');
}
