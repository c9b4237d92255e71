import { describe, expect, it } from 'vitest';
import { reportMarkdown } from '@/lib/reports/markdown';
import { checkById } from '@/lib/checks/registry';

/** What a history row shows of a 200 body: the check's entry reads it. */
const reportFacts = (check: string, body: unknown) => checkById(check)!.facts(body);

// The Markdown summary reads a 200 body member by member: bodies from other check versions, or hostile
// strings from a checked page, still make a summary and never break the Markdown around them.

describe('reportMarkdown', () => {
  it('says so when every crawler may fetch the page, and when there is nothing to fix', () => {
    const body = {
      report: {
        checkedUrl: 'https://example.com/', status: 200, robotsTxt: 'found', score: 100, scoreMax: 100,
        crawlers: [{ token: 'GPTBot', vendor: 'OpenAI', allowed: true, rule: null, group: null }], findings: [],
      },
    };
    expect(reportMarkdown('ai-visibility', body)).toBe([
      '# AI visibility: https://example.com/', '', '**Score: 100/100** (HTTP 200, robots.txt found)', '',
      '## Crawlers', '', 'All 1 crawlers may fetch this page under robots.txt.', '',
      '## Findings', '', 'None: nothing to fix.', '', 'The full result is the JSON body (MCP: structuredContent).',
    ].join('\n'));
  });

  it('keeps page text on one line, without backticks, and lists the most severe findings first, at most five', () => {
    const findings = ['info', 'low', 'critical', 'medium', 'high', 'low', 'info'].map((severity, i) => ({ id: `f${i}`, severity, observed: `seen ${i}\n# not a heading`, fix: 'use `x`' }));
    const text = reportMarkdown('ai-visibility', { report: { checkedUrl: 'https://e.com/`x`', score: 50, scoreMax: 100, crawlers: [], findings } });
    expect(text).toContain("# AI visibility: https://e.com/'x'");
    expect(text).toContain('## Top findings (5 of 7)');
    expect(text.split('\n').filter((l) => /^\d\. /.test(l))).toEqual([
      '1. **critical** seen 2 # not a heading', '2. **high** seen 4 # not a heading', '3. **medium** seen 3 # not a heading',
      '4. **low** seen 1 # not a heading', '5. **low** seen 5 # not a heading',
    ]);
    expect(text).toContain("   Fix: use 'x'");
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
