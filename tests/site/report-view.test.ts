// The one report view, rendered to HTML as the server renders it: the header, exports and top fixes every
// report opens with, each check's body, and the visibility facts in words (version 3 included).
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';
import { ReportView } from '@/components/report-view/ReportView';
import { ReportHeader } from '@/components/report-view/parts';
import { readinessReport } from '@/lib/checks/readiness/report';
import { readinessExample, visibilityExample } from '../support/example-bodies';
import { fullV3Body } from '../visibility/full-v3-report';


type Node = { nodeName: string; value?: string; childNodes?: Node[] };
const textOf = (node: Node): string => (node.nodeName === '#text' ? ` ${node.value} ` : (node.childNodes ?? []).map(textOf).join(''));
const render = (props: Parameters<typeof ReportView>[0]) => renderToStaticMarkup(createElement(ReportView, props));

// parse5 reads the markup (no hand-written tag regex): the text content, whitespace collapsed.
const text = (html: string) => textOf(parseFragment(html)).replace(/\s+/g, ' ');

/** A raw field name as the report used to show one: `rendering · jsOnlyShare`. */
const RAW_FIELD_PAIR = /\b[a-z]+[A-Z]\w* · [a-z]+[A-Z]/;

describe('ReportView: visibility', () => {
  it('opens with the header, the exports and the fixes that cost most, then findings, crawlers, facts and limits', () => {
    const body = visibilityExample();
    const html = render({ check: 'ai-visibility', body: body, idPrefix: 't' });
    const t = text(html);
    expect(html).toContain(`data-testid="report-score">${body.report.score}</span>`);
    expect(t).toContain(`AI visibility of ${body.report.checkedUrl} Visible to search and AI crawlers 13 of 15 crawlers may fetch this page under robots.txt, 2 of them refused, blocked or answered otherwise; 5 findings, 4 of them costing points. Checked 1 November 2026, 12:00 UTC`);
    expect(t).toContain('Download JSON Copy as Markdown Print');
    expect(t).not.toContain('Copy permalink');
    // The fixes that cost most, each linking to its finding in the list below.
    expect(t).toContain('Fix these first');
    const costly = body.report.findings.filter((f) => f.pointsLost > 0);
    for (const f of costly) {
      const i = body.report.findings.indexOf(f);
      expect(html).toContain(`href="#t-sev-finding-${i}"`);
      expect(html).toContain(`id="t-sev-finding-${i}"`);
    }
    const order = ['Fix these first', 'Findings, most severe first', 'Crawlers', 'The page', 'Site files', 'What the site offers agents', 'May AI use this content?', 'What this check cannot see'];
    const at = order.map((h) => t.indexOf(h));
    expect(at.every((x) => x >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const f of body.report.findings) expect(t).toContain(f.fix);
    expect(t).toContain('Low 4 findings');
    // The crawlers that do not get the page are shown; all fifteen are one click away, by vendor.
    expect(t).toContain('2 of 15 crawlers do not get this page');
    expect(html).toMatch(/<details class="report-more crawlers-all"><summary>All 15 crawlers, by vendor<\/summary>/);
    expect(t).toContain('GPTBot OpenAI ai-training Disallowed Disallow: / group GPTBot Served HTTP 200');
    expect(t).toContain('Google Googlebot search Allowed no rule matched group * Served HTTP 200');
    expect(t).toContain('Sitemap https://shop.example/sitemap.xml');
    expect(t).toContain('Markdown version not offered');
    expect(t).not.toMatch(RAW_FIELD_PAIR);
  });

  it('offers the permalink when the report has one, and names the download by check, host and day', () => {
    const html = render({ check: 'ai-visibility', body: visibilityExample(), idPrefix: 't', permalink: 'https://checks.example/reports/rep_x' });
    expect(text(html)).toContain('Download JSON Copy as Markdown Print Copy permalink');
  });

  it('shows every version-3 section in words, and no raw field name', () => {
    const body = fullV3Body();
    const t = text(render({ check: 'ai-visibility', body: body, idPrefix: 't' }));
    expect(t).toContain('ClaudeBot Anthropic ai-training Allowed no rule matched group * Challenged HTTP 403');
    expect(t).toContain('Share of words that need JavaScript 12 %');
    expect(t).toContain('MCP server card published and valid');
    expect(t).toContain('Training AI models refused');
    expect(t).toContain('RSL licence terms permits search, ai-input; prohibits ai-train; payment: crawl 0.01 USD');
    expect(t).toContain('Payment asked pay-per-crawl for 1 crawler, x402, MPP');
    expect(t).toContain('Markdown answer is this page no');
    expect(t).toContain('Head ended early by an <iframe> on line 12');
    expect(t).toContain('robots.txt lines crawlers ignore line 3');
    expect(t).toContain('Facts that may be incomplete word count, structured data');
    expect(t).not.toMatch(RAW_FIELD_PAIR);
    expect(t).not.toMatch(/\{"/);
  });
});

it('ReportView: readiness shows the verdict, summary, blockers in words, and the capability table last', () => {
  const body = readinessExample();
  const t = text(render({ check: 'readiness', body: body, idPrefix: 'r' }));
  expect(t).toContain('Not ready');
  expect(t).toContain(`${body.assessment.score} / 100`);
  expect(t).toContain(body.assessment.summary);
  expect(t).toContain('Blocked by Recovery and reconciliation');
  expect(t).toContain('Recovery and reconciliation recovery_and_reconciliation Missing Required 0 / 12');
  expect(t).toContain('Capability Declared Requirement Points');
  expect(t).toContain('Download JSON Copy as Markdown Print');
  // Plan, hazards, findings, then the capability table.
  const at = (s: string) => t.indexOf(s);
  expect(at('Plan Before the first payment')).toBeGreaterThan(-1);
  expect(at('Plan Before the first payment')).toBeLessThan(at('Gaps that are dangerous together'));
  expect(at('Gaps that are dangerous together')).toBeLessThan(at('Findings, most severe first'));
  expect(at('Findings, most severe first')).toBeLessThan(at('Capability Declared Requirement Points'));
});

it('ReportView: each readiness finding shows its risk, steps, verify commands, sources as links and the evidence in words', () => {
  const body = readinessExample();
  const html = render({ check: 'readiness', body: body, idPrefix: 'r' });
  const t = text(html);
  for (const f of body.assessment.findings) {
    expect(t).toContain(f.risk);
    for (const s of f.steps) expect(t).toContain(s);
    for (const v of f.verify) expect(t).toContain(v.expect);
    for (const r of f.references) expect(html).toContain(`<a href="${r.url}" rel="noopener noreferrer">${r.title.replace(/"/g, '&quot;')}</a>`);
    // The plan links each step to its finding.
    expect(html).toContain(`href="#r-finding-${f.id.replace('.', '-')}"`);
    expect(html).toContain(`id="r-finding-${f.id.replace('.', '-')}"`);
  }
  // A command is code with a copy button; a sentence is not.
  expect(html).toContain(`<code tabindex="0">npx mppx validate https://&lt;your-host&gt; --endpoint POST:/&lt;paid-path&gt;</code><button type="button" class="button secondary">Copy</button>`);
  expect(html).not.toContain('<code>A test that sends the same paid credential twice</code>');
  expect(t).toContain('Statement, nothing to check 402 with MPP challenges');
  // No field name reaches a person: phases and efforts in words.
  expect(t).not.toMatch(/before-first-payment|before-production|after-launch|evidence-unverifiable/);
  expect(t).toContain('Effort: small (one engineer, up to a day');
});

it('ReportView: a readiness reference links only to a plain https address', () => {
  const body = structuredClone(readinessExample());
  body.assessment.findings[0].references = [
    { title: 'Script', url: 'javascript:alert(1)' },
    { title: 'Plain', url: 'http://e.test/a' },
    { title: 'Primary', url: 'https://e.test/spec' },
  ];
  const html = render({ check: 'readiness', body: body, idPrefix: 'r' });
  expect(html).not.toContain('javascript:');
  expect(html).not.toContain('href="http://e.test/a"');
  expect(html).toContain('<li>Script</li><li>Plain</li><li><a href="https://e.test/spec" rel="noopener noreferrer">Primary</a></li>');
});

it('ReportView: a sandbox readiness report shows what production would add', () => {
  const body = structuredClone(readinessExample()) as ReturnType<typeof readinessExample> & { assessment: Record<string, unknown> };
  body.assessment.productionDelta = { score: 41, verdict: 'not-ready', newlyRequired: ['webhook_verification', 'durable_fulfillment'], blockers: ['durable_fulfillment'] };
  const t = text(render({ check: 'readiness', body: body, idPrefix: 'r' }));
  expect(t).toContain(
    'The same declaration in production Verdict in production Not ready Score in production 41 / 100 (53 in the sandbox) ' +
      'Newly required Webhook verification, Durable fulfilment Blockers in production Durable fulfilment',
  );
});

it('ReportView: a body that is no report says so', () => {
  expect(text(render({ check: 'readiness', body: { hello: 1 } }))).toContain('This report could not be read.');
  expect(text(render({ check: 'ai-visibility', body: { hello: 1 } }))).toContain('This report could not be read.');
  expect(text(render({ check: 'no-such-check', body: readinessExample() }))).toContain('This report could not be read.');
});

it('ReportHeader: a readiness header from its headline shows the score, verdict, summary sentence and date', () => {
  const body = readinessExample();
  const headline = readinessReport.headline!(body)!;
  expect(headline).toMatchObject({ title: 'Payment readiness of', target: 'Checkout agent', score: body.assessment.score, scoreMax: 100, verdict: 'Not ready', tone: 'poor', summary: body.assessment.summary, at: body.assessedAt, atVerb: 'Assessed' });
  const t = text(renderToStaticMarkup(createElement(ReportHeader, { headline, level: 2, idPrefix: 'h' })));
  expect(t).toContain(`${body.assessment.score} / 100 Payment readiness of “Checkout agent” Not ready ${body.assessment.summary} Assessed 1 November 2026, 12:00 UTC`);
  // A readiness report leads with its plan, not a list of top fixes.
  expect(readinessReport.topFixes).toBeUndefined();
  expect(text(render({ check: 'readiness', body, idPrefix: 'r' }))).not.toContain('Fix these first');
});
