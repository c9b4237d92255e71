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
    expect(t).toContain('Low 4 findings');
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

it('ReportView: readiness shows the verdict, blockers and the capability table', () => {
  const body = exampleReadinessBody();
  const t = text(render({ body: body, idPrefix: 'r' }));
  expect(t).toContain('Not ready');
  expect(t).toContain(`${body.assessment.score} / 100`);
  for (const b of body.assessment.blockers) expect(t).toContain(b);
  expect(t).toContain('recovery_and_reconciliation Recovery and reconciliation missing required 0 / 12');
  expect(t).toContain('Capability Declared Requirement Points');
});

it('ReportView: a body that is no report says so', () => {
  expect(text(render({ body: { hello: 1 } }))).toContain('This report could not be read.');
});
