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
import { endpointFixtureBody } from '../support/endpoint-report-fixture';
import { checkMarkdown, exampleBody } from '@/lib/checks/entry';
import { endpointCheck } from '@/lib/checks/payment-endpoint/entry';
import { endpointReport } from '@/lib/checks/payment-endpoint/report';


type Node = { nodeName: string; value?: string; childNodes?: Node[] };
/** Text and code side by side read as one run, as a browser shows `Serve /<code>llms.txt</code> as`. */
const run = (node: Node): string | null =>
  node.nodeName === '#text' ? (node.value ?? '') : node.nodeName === 'code' ? (node.childNodes ?? []).map((c) => run(c) ?? '').join('') : null;
const textOf = (node: Node): string => {
  if (node.nodeName === '#text') return ` ${node.value} `;
  let out = '';
  let pending: string | null = null;
  for (const child of node.childNodes ?? []) {
    const text = run(child);
    if (text !== null) {
      pending = (pending ?? '') + text;
      continue;
    }
    if (pending !== null) out += ` ${pending} `;
    pending = null;
    out += textOf(child);
  }
  return pending !== null ? `${out} ${pending} ` : out;
};
/** The text of every link to `href` in the markup, whitespace collapsed. */
function linkTexts(html: string, href: string): string[] {
  const found: string[] = [];
  const walk = (node: Node & { attrs?: Array<{ name: string; value: string }> }) => {
    if (node.nodeName === 'a' && node.attrs?.some((a) => a.name === 'href' && a.value === href)) found.push(textOf(node).replace(/\s+/g, ' ').trim());
    for (const child of node.childNodes ?? []) walk(child);
  };
  walk(parseFragment(html) as unknown as Node);
  return found;
}
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
    expect(t).toContain(`AI visibility of ${body.report.checkedUrl} Visible to search and AI crawlers 14 of 16 crawlers may fetch this page under robots.txt (2 of the 16 are refused, blocked or answered otherwise); 5 findings, 4 of them costing points. Checked 1 November 2026, 12:00 UTC`);
    expect(t).toContain('Download JSON Copy as Markdown Print');
    expect(t).not.toContain('Copy permalink');
    // The fixes that cost most, each linking to its finding in the list below.
    expect(t).toContain('Fix these first');
    const costly = body.report.findings.filter((f) => f.pointsLost > 0);
    for (const f of costly) {
      const i = body.report.findings.indexOf(f);
      expect(html).toContain(`href="#t-finding-${i}"`);
      expect(html).toContain(`<details id="t-finding-${i}" class="finding-fold">`);
    }
    // Lighthouse's order: categories, the fixes with their order rule, findings folded, passed audits, then the facts.
    const order = ['Access 35 / 35', 'Site 7 / 9', 'Fix these first', 'Ordered by the points each fix would gain', 'Findings, most severe first', '19 passed audits', 'Crawlers', 'Site files', 'What the site offers agents', 'May AI use this content?', 'What this check cannot see'];
    const at = order.map((h) => t.indexOf(h));
    expect(at.every((x) => x >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const f of body.report.findings) expect(t).toContain(f.fix);
    expect(html).toContain('href="#t-category-access"');
    expect(html).toContain('<table class="stack-on-phone" id="t-category-access"><caption>Access: 35 / 35 points</caption>');
    expect(t).toContain('The page has a description of a useful length 0 / 3');
    // No finding id and no rubric id beside the words.
    for (const f of body.report.findings) expect(t).not.toContain(f.id);
    for (const line of body.report.scoring) expect(t).not.toContain(` ${line.id} `);
    expect(t).toContain('The page answers with HTML');
    // The facts agree with the findings above them: robots.txt refuses GPTBot, so training is not "not stated".
    expect(t).toContain('Training AI models refused for some crawlers: robots.txt refuses GPTBot and CCBot, and lets the other 4 in');
    expect(t).toContain('Rendered view not rendered: rendering was off on the server that ran this check');
    expect(t).not.toContain('RENDERER');
    // The crawlers that do not get the page are shown; all fifteen are one click away, by vendor.
    expect(t).toContain('2 of 16 crawlers do not get this page');
    expect(html).toMatch(/<details class="report-more crawlers-all"><summary>All 16 crawlers, by vendor<\/summary>/);
    expect(t).toContain('GPTBot OpenAI AI training Disallowed Disallow: / group GPTBot Served HTTP 200');
    expect(t).toContain('Google Googlebot Search Allowed no rule matched group * Served HTTP 200');
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
    expect(t).toContain('ClaudeBot Anthropic AI training Allowed no rule matched group * Challenged HTTP 403');
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
  expect(t).toContain('Recovery and reconciliation Missing Required 0 / 12');
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
  for (const [i, f] of body.assessment.findings.entries()) {
    expect(t).toContain(f.risk);
    for (const s of f.steps) expect(t).toContain(s);
    for (const v of f.verify) expect(t).toContain(v.expect);
    // Each source a link whose text is its title (names in it set as code read as one run).
    for (const r of f.references) expect(linkTexts(html, r.url)).toContain(r.title);
    // The plan links each step to its finding.
    expect(html).toContain(`href="#r-finding-${i}"`);
    expect(html).toContain(`<details id="r-finding-${i}" class="finding-fold">`);
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
  // A readiness report leads with the first steps of its plan, said as such.
  const t2 = text(render({ check: 'readiness', body, idPrefix: 'r' }));
  expect(t2).toContain(`Fix these first Idempotency High ${body.assessment.plan[0].steps[0].action}`);
  expect(t2).toContain('The first steps of the plan below, in its order');
  expect(t2).toContain('Agent payments 31 / 40 Buyers and wallets 0 / 20 Fulfilment and records 22 / 40');
  expect(t2).toContain('1 passed audit Machine discovery: implemented, with all its points');
  for (const c of body.assessment.capabilities.filter((x) => x.key.includes('_'))) expect(t2).not.toContain(c.key);
});

describe('ReportView: payment endpoint', () => {
  it('opens with the header and the fixes, then each item with its state in words, findings, transfers and every request', () => {
    const body = endpointFixtureBody();
    const html = render({ check: 'payment-endpoint', body, idPrefix: 't' });
    const t = text(html);
    expect(t).toContain('Payment endpoint https://api.shop.example/v1/quote Agents can pay, with gaps to fix 5 of 7 items tested passed (80 of 100 points tested); 2 findings; 1 transfer made. Checked 1 November 2026, 12:00 UTC');
    expect(t).toContain("POST https://api.shop.example/v1/quote sent with the example in the seller's OpenAPI document · 80 of 100 rubric points could be tested");
    // Every item, in rubric order, its state in words and its points; untested items say they are not scored.
    const states = [...html.matchAll(/data-testid="endpoint-item" data-state="([a-z-]+)"/g)].map((m) => m[1]);
    // By stage: each stage's items together, in the order an agent meets them.
    const byStage = ['reachability', 'x402-terms', 'mpp-challenges', 'one-price', 'discovery', 'cors', 'mcp', 'bad-credentials', 'paid-round-trip'];
    expect(states).toEqual(byStage.map((id) => body.report.items.find((i) => i.id === id)!.state));
    expect(t).toContain('Asks to be paid 15 / 15 Payment terms 23 / 25 Found by agents 10 / 20 Refuses bad payments 10 / 10 Paid round trip 10 / 10');
    expect(t).toContain('5 passed audits Reachability One price Bad credentials CORS for browser agents Paid round trip');
    expect(t).toContain('Reachability Pass 15 / 15 points');
    expect(t).toContain('x402 terms Warning 13 / 15 points');
    expect(t).toContain('MPP challenges Not applicable 10 points, not scored The 402 carries no WWW-Authenticate: Payment challenge.');
    expect(t).toContain('Discovery Fail 5 / 15 points');
    expect(t).toContain('MCP Not tested 10 points, not scored');
    // Evidence: the request and the answer decoded, as JSON, and the transaction.
    expect(t).toContain('POST https://api.shop.example/v1/quote with no credential → 402');
    expect(html).toContain('&quot;x402Version&quot;: 2,');
    expect(t).toContain(`Transactions: ${body.report.transfers[0].txHash}`);
    // Findings, most severe first, each linked from the top fixes, with verify steps and sources.
    expect(html).toContain('href="#t-finding-0"');
    expect(html).toContain('<details id="t-finding-0" class="finding-fold">');
    expect(t).toContain('No bazaar extension in the 402 High 10 points · Discovery Declare the bazaar extension (input example and schema, output example) in the route config. Observed: PAYMENT-REQUIRED has no extensions.bazaar.');
    expect(t).not.toContain('bazaar-missing');
    expect(t).toContain('How to verify Decode PAYMENT-REQUIRED of an unpaid request: extensions.bazaar is there. Run the Agent Payment Endpoint Check again: the Discovery item passes.');
    expect(html).toContain('<a href="https://github.com/coinbase/x402/blob/main/specs/extensions/bazaar.md" rel="noopener noreferrer">x402 bazaar extension</a>');
    expect(t.indexOf('No bazaar extension')).toBeLessThan(t.indexOf('An accepts entry has no maxTimeoutSeconds', t.indexOf('Findings, most severe first')));
    expect(t).toContain('first payment eip155:84532 10000 of 0x036CbD53842c5426634e7929541eC2318f3dCF7e');
    expect(t).toContain('Every request the check sent (4; at most 25 per domain)');
    expect(t).toContain('3 llms.txt GET https://api.shop.example/llms.txt timed out after 10 s 0 10000 ms');
    const order = ['Fix these first', 'Findings, most severe first', 'passed audits', 'Rubric items', 'Transfers made', 'Every request the check sent', 'What this check cannot see'];
    const at = order.map((h) => t.indexOf(h));
    expect(at.every((x) => x >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(t).not.toMatch(RAW_FIELD_PAIR);
  });

  it('reads the stored example: every rubric item, no finding, no transfer', () => {
    const body = exampleBody(endpointCheck) as ReturnType<typeof endpointFixtureBody>;
    const t = text(render({ check: 'payment-endpoint', body, idPrefix: 'ex' }));
    for (const item of body.report.items) expect(t).toContain(item.title);
    expect(t).toContain(`Every request the check sent (${body.report.requests.length}; at most 25 per domain)`);
    expect(t).not.toContain('This report could not be read');
  });

  it('words its Markdown as the view does: states and where the body came from, never field values', () => {
    const md = checkMarkdown(endpointReport, endpointFixtureBody());
    expect(md).toContain("Request: `POST https://api.shop.example/v1/quote`, with the example in the seller's OpenAPI document.");
    expect(md).toContain('| MPP challenges | Not applicable | – | The 402 carries no WWW-Authenticate: Payment challenge. |');
    expect(md).toContain('### High: No bazaar extension in the 402 (`bazaar-missing`, −10 points)');
  });
});
