import { type CheckReport, fieldsOf, listOf, type ReportHeadline, scoreBand, type TopFix, type Verdict } from '@/lib/checks/entry';
import { markdownCode, markdownText as md } from '@/lib/checks/markdown-text';
import { severityLabel } from '@/lib/checks/severity';

// The endpoint check as a report: what a history row, the Markdown and the site show of its 200 body. Pure, and
// read member by member, so the browser bundle can load it and a report of another version still reads.

const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

const ENDPOINT_VERDICT: Readonly<Record<string, Verdict>> = {
  ready: { words: 'Ready for paying agents', tone: 'good' },
  gaps: { words: 'Agents can pay, with gaps to fix', tone: 'fair' },
  'not-ready': { words: 'Agents will struggle to pay', tone: 'poor' },
};

const STATE_WORDS: Readonly<Record<string, string>> = {
  pass: 'Pass',
  warn: 'Warning',
  fail: 'Fail',
  'not-applicable': 'Not applicable',
  'not-tested': 'Not tested',
};

const BODY_SOURCE_WORDS: Readonly<Record<string, string>> = {
  given: 'the example body given',
  openapi: "the example in the seller's OpenAPI document",
  bazaar: "the example in the seller's x402 bazaar extension",
  empty: 'an empty JSON object (the seller states no example)',
  none: 'no body (GET)',
};

/**
 * Where the body the endpoint was sent came from, in words.
 * @example bodySourceWords('openapi') // "the example in the seller's OpenAPI document"
 */
export function bodySourceWords(source: unknown): string {
  return BODY_SOURCE_WORDS[text(source)] ?? text(source);
}

/**
 * An item's state in words.
 * @example itemStateWords('not-tested') // 'Not tested'
 */
export function itemStateWords(state: unknown): string {
  return STATE_WORDS[text(state)] ?? text(state);
}

function headline(body: unknown): ReportHeadline | null {
  const b = fieldsOf(body);
  const report = fieldsOf(b.report);
  if (!Array.isArray(report.items)) return null;
  const items = listOf(report.items);
  const findings = listOf(report.findings);
  const score = num(report.score);
  const scoreMax = num(report.scoreMax) || 100;
  const verdict = ENDPOINT_VERDICT[text(report.verdict)];
  const tested = items.filter((i) => ['pass', 'warn', 'fail'].includes(text(i.state)));
  const passed = tested.filter((i) => i.state === 'pass').length;
  const coverage = fieldsOf(report.coverage);
  return {
    title: 'Payment endpoint',
    target: text(fieldsOf(report.endpoint).url),
    targetIsUrl: true,
    score,
    scoreMax,
    scoreLabel: 'Endpoint score',
    verdict: verdict?.words ?? text(report.verdict),
    tone: verdict?.tone ?? scoreBand(score, scoreMax),
    summary:
      `${passed} of ${tested.length} items tested passed (${num(coverage.testedPoints)} of ${num(coverage.totalPoints)} points tested); ` +
      `${findings.length} finding${findings.length === 1 ? '' : 's'}; ${listOf(report.transfers).length} transfer${listOf(report.transfers).length === 1 ? '' : 's'} made.`,
    at: text(b.checkedAt) || null,
    atVerb: 'Checked',
  };
}

function topFixes(body: unknown): TopFix[] {
  return listOf(fieldsOf(fieldsOf(body).report).findings)
    .map((f, index) => ({ f, index }))
    .filter(({ f }) => text(f.fix) && (num(f.pointsLost) > 0 || ['critical', 'high', 'medium'].includes(text(f.severity))))
    .slice(0, 5)
    .map(({ f, index }) => ({ index, id: text(f.id), severity: text(f.severity), title: text(f.title), fix: text(f.fix), pointsLost: num(f.pointsLost) }));
}

function markdown(body: Record<string, unknown>): string {
  const report = fieldsOf(body.report);
  const endpoint = fieldsOf(report.endpoint);
  const out: string[] = [`# Payment endpoint: ${md(endpoint.url)}`, ''];
  const verdict = ENDPOINT_VERDICT[text(report.verdict)];
  const coverage = fieldsOf(report.coverage);
  out.push(
    `**Score ${num(report.score)}/${num(report.scoreMax) || 100}** — ${md(verdict?.words ?? report.verdict)}. ` +
      `Scored on the ${num(coverage.testedPoints)} of ${num(coverage.totalPoints)} rubric points that could be tested. ` +
      `Request: ${markdownCode(`${text(endpoint.method)} ${text(endpoint.url)}`)}, with ${md(bodySourceWords(endpoint.bodySource))}.`,
    '',
    '## Rubric',
    '',
    '| Item | State | Points | Why |',
    '|---|---|---|---|',
  );
  for (const item of listOf(report.items)) {
    const tested = ['pass', 'warn', 'fail'].includes(text(item.state));
    out.push(`| ${md(item.title)} | ${itemStateWords(item.state)} | ${tested ? `${num(item.points)}/${num(item.pointsMax)}` : '–'} | ${md(item.why)} |`);
  }
  const findings = listOf(report.findings);
  out.push('', `## Findings (${findings.length})`, '');
  if (!findings.length) out.push('None.');
  for (const f of findings) {
    out.push(
      `### ${severityLabel(text(f.severity))}: ${md(f.title)} (${markdownCode(f.id)}${num(f.pointsLost) ? `, −${num(f.pointsLost)} points` : ''})`,
      '',
      `Observed: ${md(f.observed)}`,
      '',
      `Why it matters: ${md(f.why)}`,
      '',
      `Fix: ${md(f.fix)}`,
      '',
    );
    const verify = Array.isArray(f.verify) ? f.verify : [];
    if (verify.length) out.push('Verify:', '', ...verify.map((s, i) => `${i + 1}. ${md(s)}`), '');
    const refs = listOf(f.references);
    if (refs.length) out.push(`References: ${refs.map((r) => `[${md(r.title)}](${text(r.url)})`).join(', ')}`, '');
  }
  const transfers = listOf(report.transfers);
  if (transfers.length) {
    out.push('## Transfers made', '', '| Step | Network | Amount (base units) | Pay to | Transaction |', '|---|---|---|---|---|');
    for (const t of transfers) out.push(`| ${md(t.step)} | ${markdownCode(t.network)} | ${md(t.amount)} | ${markdownCode(t.payTo)} | ${markdownCode(t.txHash)} |`);
    out.push('');
  }
  const requests = listOf(report.requests);
  out.push(`## Requests sent (${requests.length})`, '', '| # | Purpose | Request | Status | Bytes | ms |', '|---|---|---|---|---|---|');
  requests.forEach((r, i) =>
    out.push(`| ${i + 1} | ${md(r.purpose)} | ${markdownCode(`${text(r.method)} ${text(r.url)}`)} | ${r.status === null ? md(r.error ?? 'no answer') : num(r.status)} | ${num(r.bytes)} | ${num(r.ms)} |`),
  );
  const limits = Array.isArray(body.limits) ? body.limits : [];
  if (limits.length) out.push('', '## What this check cannot see', '', ...limits.map((l) => `- ${md(l)}`));
  return out.join('\n');
}

export const endpointReport: CheckReport = {
  id: 'payment-endpoint',
  label: 'Payment endpoint',
  verdicts: ENDPOINT_VERDICT,
  facts(body) {
    const report = fieldsOf(fieldsOf(body).report);
    return {
      target: text(fieldsOf(report.endpoint).url),
      score: typeof report.score === 'number' ? report.score : null,
      verdict: typeof report.verdict === 'string' ? report.verdict : null,
    };
  },
  findings: (body) => listOf(fieldsOf(fieldsOf(body).report).findings).map((f) => ({ id: text(f.id), severity: text(f.severity), title: text(f.title) })),
  markdown,
  headline,
  topFixes,
};
