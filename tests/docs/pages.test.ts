import { describe, expect, it } from 'vitest';
import { DOCS_PAGES, movedAnchor } from '@/lib/docs/pages';
import { PUBLIC_PAGES } from '@/lib/site/metadata';
import { llmsTxt } from '@/lib/discovery/llms';
import { BASE_USDC_ADDRESS } from '@/lib/config';
import { endpointDocs } from '@/lib/docs/reference';

// The documentation is six pages; the anchors of the one page it used to be lead to the page each section is on.

describe('the docs pages', () => {
  it('are six, each listed in the sitemap and in /llms.txt', () => {
    expect(DOCS_PAGES.map((p) => p.path)).toEqual(['/docs', '/docs/api', '/docs/payments', '/docs/mcp', '/docs/checks', '/docs/self-hosting']);
    const sitemap = PUBLIC_PAGES.map((p) => p.path);
    for (const p of DOCS_PAGES) expect(sitemap).toContain(p.path);
    const text = llmsTxt({ appUrl: 'https://checks.example', rails: [], usdcAddress: BASE_USDC_ADDRESS });
    for (const p of DOCS_PAGES) expect(text).toContain(`- [Docs: ${p.label}](https://checks.example${p.path}): ${p.description}`);
  });

  it('send the old single page\'s anchors to their new page', async () => {
    const endpoints = (await endpointDocs('https://checks.example')).map((d) => d.anchor);
    expect(movedAnchor('errors', endpoints)).toBe('/docs/api#errors');
    expect(movedAnchor('limits', endpoints)).toBe('/docs/api#limits');
    expect(movedAnchor('agentCredits', endpoints)).toBe('/docs/api#agentCredits');
    expect(movedAnchor('op-createAgentReadinessAssessment', endpoints)).toBe('/docs/api#op-createAgentReadinessAssessment');
    expect(movedAnchor('problem-credits-exhausted', endpoints)).toBe('/docs/api#problem-credits-exhausted');
    expect(movedAnchor('quick-start-prepaid', endpoints)).toBe('/docs/payments#quick-start-prepaid');
    expect(movedAnchor('billing', endpoints)).toBe('/docs/payments#billing');
    expect(movedAnchor('quick-start-mcp', endpoints)).toBe('/docs/mcp#quick-start-mcp');
    expect(movedAnchor('readiness-rubric', endpoints)).toBe('/docs/checks#readiness-rubric');
    expect(movedAnchor('visibility-rubric', endpoints)).toBe('/docs/checks#ai-visibility-rubric');
    expect(movedAnchor('not-seen', endpoints)).toBe('/docs/checks#not-seen');
    // The quick start keeps its own anchor; an unknown one stays where it is.
    expect(movedAnchor('quick-start', endpoints)).toBeUndefined();
    expect(movedAnchor('nothing-here', endpoints)).toBeUndefined();
  });
});
