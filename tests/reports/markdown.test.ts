import { describe, expect, it } from 'vitest';
import { reportMarkdown } from '@/lib/reports/markdown';
import { markdownText } from '@/lib/checks/markdown-text';
import { checkById } from '@/lib/checks/registry';
import { readinessExample, visibilityExample } from '../support/example-bodies';

/** What a history row shows of a 200 body: the check's entry reads it. */
const reportFacts = (check: string, body: unknown) => checkById(check)!.facts(body);

// The Markdown reads a 200 body member by member: bodies from other check versions, or hostile strings from a
// checked page, still make a report and never break the Markdown around them.

describe('reportMarkdown', () => {
  it('says so when every crawler may fetch the page, and when there is nothing to fix', () => {
    const body = {
      report: {
        checkedUrl: 'https://example.com/', status: 200, robotsTxt: 'found', score: 100, scoreMax: 100,
        crawlers: [{ token: 'GPTBot', vendor: 'OpenAI', allowed: true, rule: null, group: null }], findings: [],
      },
    };
    const md = reportMarkdown('ai-visibility', body);
    expect(md.split('\n').slice(0, 3)).toEqual(['# AI visibility: `https://example.com/`', '', '**Score: 100/100**: Visible to search and AI crawlers. 1 of 1 crawlers may fetch this page under robots.txt; 0 findings, 0 of them costing points.']);
    expect(md).toContain('## Findings\n\nNone: nothing to fix.');
    expect(md).toContain('## Crawlers\n\nAll 1 crawlers may fetch this page under robots.txt, and none was refused when asked.');
    expect(md).not.toContain('structuredContent');
  });

  it('lists every finding, most severe first, on one line each with its backticks escaped, and leads with the fixes that cost most', () => {
    const findings = ['info', 'low', 'critical', 'medium', 'high', 'low', 'info'].map((severity, i) => ({ id: `f${i}`, severity, pointsLost: i, observed: `seen ${i}\n# not a heading`, fix: 'use `x`' }));
    const text = reportMarkdown('ai-visibility', { report: { checkedUrl: 'https://e.com/`x`', score: 50, scoreMax: 100, crawlers: [], findings } });
    // An address is code, fenced by more backticks than it holds.
    expect(text).toContain('# AI visibility: `` https://e.com/`x` ``');
    expect(text).toContain('## Findings (7), most severe first');
    expect(text.split('\n').filter((l) => l.startsWith('### '))).toEqual([
      '### 1. critical: F2 (2 points lost)', '### 2. high: F4 (4 points lost)', '### 3. medium: F3 (3 points lost)',
      '### 4. low: F1 (1 point lost)', '### 5. low: F5 (5 points lost)', '### 6. info: F0', '### 7. info: F6 (6 points lost)',
    ]);
    for (const f of findings) expect(text).toContain(`Finding id: ${f.id}`);
    expect(text).toContain('Found: seen 2 \\# not a heading');
    expect(text).toContain('**Fix:** use \\`x\\`');
    expect(text.split('\n').filter((l) => /^\d\. \*\*/.test(l))).toEqual([
      '1. **F6** (6 points): use \\`x\\`', '2. **F5** (5 points): use \\`x\\`', '3. **F4** (4 points): use \\`x\\`', '4. **F3** (3 points): use \\`x\\`', '5. **F2** (2 points): use \\`x\\`',
    ]);
  });

  it('carries the date and the permalink under the title, and every finding of the example report', () => {
    const body = visibilityExample();
    const md = reportMarkdown('ai-visibility', body, 'https://checks.example/reports/rep_x');
    expect(md.split('\n').slice(0, 3)).toEqual([`# AI visibility: \`${body.report.checkedUrl}\``, '', 'Checked 1 November 2026, 12:00 UTC · Permalink: https://checks.example/reports/rep_x']);
    for (const f of body.report.findings) {
      expect(md).toContain(`Finding id: ${f.id}`);
      expect(md).toContain(markdownText(f.fix));
    }
    expect(md).not.toContain('structuredContent');
    const readiness = reportMarkdown('readiness', readinessExample());
    expect(readiness.split('\n')[2]).toBe('Assessed 1 November 2026, 12:00 UTC');
    expect(readiness).not.toContain('structuredContent');
  });

  it('never throws on a body it does not know', () => {
    for (const body of [null, {}, [], 'text', { report: 3 }, { assessment: { blockers: 'x', findings: {} } }]) {
      expect(() => reportMarkdown('ai-visibility', body)).not.toThrow();
      expect(() => reportMarkdown('readiness', body)).not.toThrow();
    }
  });
});

describe('reportFacts', () => {
  it('takes the target, score and verdict a history row shows', () => {
    expect(reportFacts('readiness', { assessment: { workflow: { name: 'Checkout agent' }, score: 62 } })).toEqual({ target: 'Checkout agent', score: 62, verdict: null });
    expect(reportFacts('readiness', { assessment: { workflow: { name: 'A' }, score: 62, verdict: 'ready-with-gaps' } })).toEqual({ target: 'A', score: 62, verdict: 'ready-with-gaps' });
    // Visibility names its score's band: 80 % and up good, 50 % and up fair, below that poor.
    expect(reportFacts('ai-visibility', { report: { checkedUrl: 'https://e.com/', score: 77 } })).toEqual({ target: 'https://e.com/', score: 77, verdict: 'fair' });
    expect(reportFacts('ai-visibility', { report: { checkedUrl: 'https://e.com/', score: 80, scoreMax: 100 } })).toMatchObject({ verdict: 'good' });
    expect(reportFacts('ai-visibility', { report: { checkedUrl: 'https://e.com/', score: 49, scoreMax: 100 } })).toMatchObject({ verdict: 'poor' });
    expect(reportFacts('ai-visibility', {})).toEqual({ target: '', score: null, verdict: null });
  });
});
