import { type CheckReport, fieldsOf, listOf, type PassedAudit, type ReportCategory, type ReportHeadline, scoreBand, type TopFix, type Verdict } from '@/lib/checks/entry';
import { markdownCode, markdownText as md } from '@/lib/checks/markdown-text';
import { SEVERITY_ORDER, severityLabel } from '@/lib/checks/severity';

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

const rank = (f: Record<string, unknown>) => {
  const i = SEVERITY_ORDER.indexOf(text(f.severity) as (typeof SEVERITY_ORDER)[number]);
  return i < 0 ? SEVERITY_ORDER.length : i;
};

/** The findings worth fixing first: those that cost points or are medium and worse, by points to gain, then severity. */
function topFixes(body: unknown): TopFix[] {
  return listOf(fieldsOf(fieldsOf(body).report).findings)
    .map((f, index) => ({ f, index }))
    .filter(({ f }) => text(f.fix) && (num(f.pointsLost) > 0 || ['critical', 'high', 'medium'].includes(text(f.severity))))
    .sort((a, b) => num(b.f.pointsLost) - num(a.f.pointsLost) || rank(a.f) - rank(b.f) || a.index - b.index)
    .slice(0, 5)
    .map(({ f, index }) => ({ index, id: text(f.id), severity: text(f.severity), title: text(f.title), fix: text(f.fix), pointsLost: num(f.pointsLost) }));
}

/**
 * The stages an agent goes through with an endpoint, each holding the rubric items that test it, in the order an
 * agent meets them. An item a later rubric adds and no stage names falls in the last.
 */
export const ENDPOINT_STAGES: ReadonlyArray<{ key: string; label: string; items: readonly string[] }> = [
  { key: 'reach', label: 'Asks to be paid', items: ['reachability'] },
  { key: 'terms', label: 'Payment terms', items: ['x402-terms', 'mpp-challenges', 'one-price'] },
  { key: 'discovery', label: 'Found by agents', items: ['discovery', 'mcp', 'cors'] },
  { key: 'safety', label: 'Refuses bad payments', items: ['bad-credentials'] },
  { key: 'paid', label: 'Paid round trip', items: ['paid-round-trip'] },
];

const TESTED = ['pass', 'warn', 'fail'];

/**
 * The stage an item belongs to.
 * @example endpointStage('cors') // 'discovery'
 */
export function endpointStage(item: string): string {
  return ENDPOINT_STAGES.find((s) => s.items.includes(item))?.key ?? ENDPOINT_STAGES[ENDPOINT_STAGES.length - 1].key;
}

/** Each stage's points over the items that could be tested (max 0: nothing in it was tested). */
function categories(body: unknown): ReportCategory[] {
  const items = listOf(fieldsOf(fieldsOf(body).report).items);
  return ENDPOINT_STAGES.flatMap((stage) => {
    const own = items.filter((i) => endpointStage(text(i.id)) === stage.key);
    if (!own.length) return [];
    const tested = own.filter((i) => TESTED.includes(text(i.state)));
    return [{ label: stage.label, earned: tested.reduce((s, i) => s + num(i.points), 0), max: tested.reduce((s, i) => s + num(i.pointsMax), 0), anchor: `stage-${stage.key}` }];
  });
}

/** The items that passed, by their titles. */
function passed(body: unknown): PassedAudit[] {
  return listOf(fieldsOf(fieldsOf(body).report).items)
    .filter((i) => i.state === 'pass')
    .map((i) => ({ key: text(i.id), title: text(i.title) || 'An item of this rubric' }));
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
  topFixesOrder: 'Ordered by the points each fix would gain, then by severity: a Low finding that costs points comes before a Medium one that costs none.',
  categories,
  passed,
};
