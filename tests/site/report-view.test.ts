// The one report view, rendered to HTML as the server renders it: the core of each check's report, and
// the members the visibility check v2 adds (crawler.access, page.rendering, site.markdown), shown when a
// report has them and absent otherwise.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { parseFragment } from 'parse5';
import { describe, expect, it } from 'vitest';
import { ReportView } from '@/components/report-view/ReportView';
import { exampleReadinessBody, exampleVisibilityBody } from '@/lib/site/examples';


type Node = { nodeName: string; value?: string; childNodes?: Node[] };
const textOf = (node: Node): string => (node.nodeName === '#text' ? ` ${node.value} ` : (node.childNodes ?? []).map(textOf).join(''));
const render = (props: Parameters<typeof ReportView>[0]) => renderToStaticMarkup(createElement(ReportView, props));

// parse5 reads the markup (no hand-written tag regex): the text content, whitespace collapsed.
const text = (html: string) => textOf(parseFragment(html)).replace(/\s+/g, ' ');

describe('ReportView: visibility', () => {
  it('shows the score, the crawler matrix with the deciding rule, findings by severity with fixes, facts and actions', () => {
    const body = exampleVisibilityBody();
    const html = render({ body: body, idPrefix: 't' });
    const t = text(html);
    expect(html).toContain(`data-testid="report-score">${body.report.score}</span>`);
    expect(t).toContain(`AI visibility of ${body.report.checkedUrl}`);
    expect(t).toContain('GPTBot OpenAI ai-training Disallowed Disallow: / group GPTBot');
    for (const f of body.report.findings) expect(t).toContain(f.fix);
    expect(t).toContain('Low 3 findings');
    expect(t).toContain('Page facts');
    expect(t).toContain('Sitemap https://shop.example/sitemap.xml');
    expect(t).toContain('What this check cannot see');
    expect(t).toContain('Download JSON');
    expect(t).toContain('Copy as Markdown');
    // The example was checked with the live access probes: each crawler's answer is in the matrix.
    expect(t).toContain('Live access');
    expect(t).toContain('Google-Extended Google ai-training Allowed no rule matched group * Not probed');
  });

  it('shows the v2 members when the report has them', () => {
    const body = structuredClone(exampleVisibilityBody()) as unknown as {
      report: { crawlers: Array<Record<string, unknown>>; page: Record<string, unknown>; site: Record<string, unknown> };
    };
    body.report.crawlers = body.report.crawlers.map((c) => ({
      ...c,
      access: c.token === 'ClaudeBot' ? { outcome: 'challenge', status: 403, userAgent: 'ClaudeBot/1.0' } : { outcome: 'ok', status: 200, userAgent: 'x' },
    }));
    body.report.page.rendering = { wordCount: 512, javascriptRequired: false };
    body.report.site.markdown = { state: 'found', url: 'https://shop.example/teapots.md' };
    const t = text(render({ body: body, idPrefix: 't' }));
    expect(t).toContain('Live access');
    expect(t).toContain('ClaudeBot Anthropic ai-training Allowed no rule matched group * Challenged HTTP 403');
    expect(t).toContain('rendering · wordCount 512');
    expect(t).toContain('rendering · javascriptRequired no');
    expect(t).toContain('markdown · url https://shop.example/teapots.md');
  });
});

it('ReportView: readiness shows the verdict, summary, blockers in words, and the capability table last', () => {
  const body = exampleReadinessBody();
  const t = text(render({ body: body, idPrefix: 'r' }));
  expect(t).toContain('Not ready');
  expect(t).toContain(`${body.assessment.score} / 100`);
  expect(t).toContain(body.assessment.summary);
  expect(t).toContain('Blocked by Recovery and reconciliation');
  expect(t).toContain('Recovery and reconciliation recovery_and_reconciliation Missing Required 0 / 12');
  expect(t).toContain('Capability Declared Requirement Points');
  // Plan, hazards, findings, then the capability table.
  const at = (s: string) => t.indexOf(s);
  expect(at('Plan Before the first payment')).toBeGreaterThan(-1);
  expect(at('Plan Before the first payment')).toBeLessThan(at('Gaps that are dangerous together'));
  expect(at('Gaps that are dangerous together')).toBeLessThan(at('Findings, most severe first'));
  expect(at('Findings, most severe first')).toBeLessThan(at('Capability Declared Requirement Points'));
});

it('ReportView: each readiness finding shows its risk, steps, verify commands, sources as links and the evidence in words', () => {
  const body = exampleReadinessBody();
  const html = render({ body: body, idPrefix: 'r' });
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
  expect(html).toContain(`<code>npx mppx validate https://&lt;your-host&gt; --endpoint POST:/&lt;paid-path&gt;</code><button type="button" class="button secondary">Copy</button>`);
  expect(html).not.toContain('<code>A test that sends the same paid credential twice</code>');
  expect(t).toContain('Statement, nothing to check 402 with MPP challenges');
  // No field name reaches a person: phases and efforts in words.
  expect(t).not.toMatch(/before-first-payment|before-production|after-launch|evidence-unverifiable/);
  expect(t).toContain('Effort: small (one engineer, up to a day');
});

it('ReportView: a readiness reference links only to a plain https address', () => {
  const body = structuredClone(exampleReadinessBody());
  body.assessment.findings[0].references = [
    { title: 'Script', url: 'javascript:alert(1)' },
    { title: 'Plain', url: 'http://e.test/a' },
    { title: 'Primary', url: 'https://e.test/spec' },
  ];
  const html = render({ body: body, idPrefix: 'r' });
  expect(html).not.toContain('javascript:');
  expect(html).not.toContain('href="http://e.test/a"');
  expect(html).toContain('<li>Script</li><li>Plain</li><li><a href="https://e.test/spec" rel="noopener noreferrer">Primary</a></li>');
});

it('ReportView: a sandbox readiness report shows what production would add', () => {
  const body = structuredClone(exampleReadinessBody()) as ReturnType<typeof exampleReadinessBody> & { assessment: Record<string, unknown> };
  body.assessment.productionDelta = { score: 41, verdict: 'not-ready', newlyRequired: ['webhook_verification', 'durable_fulfillment'], blockers: ['durable_fulfillment'] };
  const t = text(render({ body: body, idPrefix: 'r' }));
  expect(t).toContain(
    'The same declaration in production Verdict in production Not ready Score in production 41 / 100 (53 in the sandbox) ' +
      'Newly required Webhook verification, Durable fulfilment Blockers in production Durable fulfilment',
  );
});

it('ReportView: a body that is no report says so', () => {
  expect(text(render({ body: { hello: 1 } }))).toContain('This report could not be read.');
});
