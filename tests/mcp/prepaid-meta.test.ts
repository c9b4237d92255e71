// A paid tool call with a credits key over MCP: the result's _meta says what it cost (creditsRemaining,
// reportUrl: the REST Credits-Remaining and Link), and its text is a Markdown summary a model can read.
// The MCP route in-process over node:http, with the official SDK client; no payment rails are needed.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GET as reportRoute } from '@/app/api/reports/[id]/route';
import { createKey } from '@/lib/credits/ledger';
import { reportMarkdown } from '@/lib/reports/markdown';
import { markdownText } from '@/lib/checks/markdown-text';
import { capabilityTitle, severityLabel } from '@/lib/checks/readiness/labels';
import { startFixtureSite, type FixtureSite } from '../visibility/fixture-site';
import { validReadinessBody } from '../support/runtime';
import { connectClient, startMcpServer, type McpTestServer } from './support';

const PAGE = `<!doctype html><html lang="en"><head><title>Widgets, explained</title></head><body><h1>Widgets</h1><p>${'word '.repeat(50)}</p></body></html>`;

let site: FixtureSite;
let srv: McpTestServer;
let key: string;
let keyHash: string;
const clients: Client[] = [];

beforeAll(async () => {
  site = await startFixtureSite({
    '/': { headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE },
    '/robots.txt': { headers: { 'content-type': 'text/plain' }, body: 'User-agent: *\nAllow: /\n\nUser-agent: GPTBot\nDisallow: /\n\nUser-agent: ClaudeBot\nDisallow: /\n' },
  });
});
afterAll(() => site?.close());
beforeEach(async () => {
  process.env.CHECK_HOST_MAP = site.hostMap(['site.test']);
  srv = await startMcpServer(null);
  ({ key, keyHash } = await createKey(srv.runtime.store, srv.runtime.config.CREDITS_KEY_SECRET, 'bundle-25'));
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => {});
  delete process.env.CHECK_HOST_MAP;
  await srv.close();
});

async function call(name: string, args: Record<string, unknown>, idempotencyKey: string): Promise<CallToolResult> {
  const c = await connectClient(srv.endpoint, { authorization: `Bearer ${key}` });
  clients.push(c);
  return (await c.callTool({ name, arguments: args, _meta: { idempotencyKey } })) as CallToolResult;
}

const textOf = (result: CallToolResult) => (result.content as Array<{ type: string; text: string }>)[0];

async function fetchReport(reportUrl: string): Promise<unknown> {
  const id = new URL(reportUrl).pathname.split('/').pop()!;
  const res = await reportRoute(new Request(reportUrl, { headers: { authorization: `Bearer ${key}` } }), { params: Promise.resolve({ id }) });
  expect(res.status).toBe(200);
  return res.json();
}

describe('a tool call paid with a credits key', () => {
  it('carries creditsRemaining, the report page a person opens and the JSON beside it in _meta; the report is the structuredContent', async () => {
    const result = await call('agent_payment_readiness_assessment', validReadinessBody(), 'mcp-report-0001');
    expect(result.isError).toBeFalsy();
    expect(result._meta?.creditsRemaining).toBe(24);
    const reportApiUrl = result._meta?.reportApiUrl as string;
    const origin = srv.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    expect(reportApiUrl).toMatch(new RegExp(`^${origin}/api/reports/rep_[A-Za-z0-9_-]{32}$`));
    const id = new URL(reportApiUrl).pathname.split('/').pop()!;
    expect(result._meta?.reportUrl).toBe(`${srv.url}/reports/${id}`);
    expect(await fetchReport(reportApiUrl)).toEqual(result.structuredContent);

    // Replayed: the same report, no second charge, and no second report.
    const replay = await call('agent_payment_readiness_assessment', validReadinessBody(), 'mcp-report-0001');
    expect(replay._meta).toMatchObject({ idempotentReplayed: true, creditsRemaining: 24, reportUrl: `${srv.url}/reports/${id}`, reportApiUrl });
    expect((await srv.runtime.store.listReports(keyHash, Date.now(), { limit: 10 })).length).toBe(1);
  });

  it('has a Markdown summary as its text: verdict, score, blockers, the plan, the hazards and every finding with its steps', async () => {
    const result = await call('agent_payment_readiness_assessment', validReadinessBody(), 'mcp-markdown-0001');
    const body = result.structuredContent as {
      assessment: { score: number; summary: string; blockers: string[]; hazards: unknown[]; findings: Array<{ capability: string; severity: string; steps: string[] }> };
    };
    const { type, text } = textOf(result);
    expect(type).toBe('text');
    expect(text).toBe(`${reportMarkdown('readiness', body)}\n\nReport: ${result._meta?.reportUrl as string} (JSON: ${result._meta?.reportApiUrl as string}). 24 calls left on this key.`);
    const lines = text.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      '# Agent payment readiness: Checkout agent', '', expect.stringMatching(/^Assessed \d{1,2} \w+ \d{4}, \d\d:\d\d UTC$/), '',
      `**Verdict: Not ready**, score ${body.assessment.score}/100`, '', markdownText(body.assessment.summary),
    ]);
    expect(body.assessment.blockers.length).toBeGreaterThan(0);
    expect(text).toContain(`## Blockers (${body.assessment.blockers.length})\n\n${body.assessment.blockers.map((b) => `- ${capabilityTitle(b)}`).join('\n')}`);
    expect(text).toContain('## Plan\n\n### Before the first payment');
    expect(text).toContain(`## Hazards (${body.assessment.hazards.length})`);
    // Every finding, not the first five; most severe first, each with its steps.
    expect(text).toContain(`## Findings (${body.assessment.findings.length})`);
    const headings = lines.filter((l) => /^### \d+\. /.test(l));
    expect(headings).toHaveLength(body.assessment.findings.length);
    expect(headings[0]).toMatch(new RegExp(`^### 1\\. ${severityLabel(body.assessment.findings[0].severity)}: ${capabilityTitle(body.assessment.findings[0].capability)} \\(effort: (small|medium|large)\\)$`));
    expect(text).toContain(`1. ${markdownText(body.assessment.findings[0].steps[0])}`);
  });

  it('ends its text with the report address and the calls left, in words; a replay says what is left now', async () => {
    const first = await call('agent_payment_readiness_assessment', validReadinessBody(), 'mcp-tail-00001');
    const reportUrl = first._meta?.reportUrl as string;
    const reportApiUrl = first._meta?.reportApiUrl as string;
    expect(reportUrl).toMatch(/\/reports\/rep_[A-Za-z0-9_-]{32}$/);
    expect(reportApiUrl).toBe(reportUrl.replace('/reports/', '/api/reports/'));
    expect(textOf(first).text.endsWith(`\n\nReport: ${reportUrl} (JSON: ${reportApiUrl}). 24 calls left on this key.`)).toBe(true);

    await call('ai_visibility_check', { url: 'https://site.test/' }, 'mcp-tail-00002');
    const replay = await call('agent_payment_readiness_assessment', validReadinessBody(), 'mcp-tail-00001');
    expect(replay._meta).toMatchObject({ idempotentReplayed: true, creditsRemaining: 23, reportUrl });
    expect(textOf(replay).text.split('\n\n').at(-1)).toBe(`Report: ${reportUrl} (JSON: ${reportApiUrl}). 23 calls left on this key.`);
  });

  it('reports a visibility check: date, score, the fixes first, every finding, the crawlers refused with their rule', async () => {
    const result = await call('ai_visibility_check', { url: 'https://site.test/' }, 'mcp-markdown-0002');
    expect(result.isError).toBeFalsy();
    const body = result.structuredContent as { report: { score: number; scoreMax: number; findings: Array<{ id: string }> } };
    const { text } = textOf(result);
    expect(text).toBe(`${reportMarkdown('ai-visibility', body)}\n\nReport: ${result._meta?.reportUrl as string} (JSON: ${result._meta?.reportApiUrl as string}). 24 calls left on this key.`);
    expect(text.split('\n').slice(0, 5)).toEqual([
      '# AI visibility: `https://site.test/`', '', expect.stringMatching(/^Checked \d{1,2} \w+ \d{4}, \d\d:\d\d UTC$/), '',
      expect.stringMatching(new RegExp(`^\\*\\*Score: ${body.report.score}/${body.report.scoreMax}\\*\\*: `)),
    ]);
    expect(text).toContain('## Crawlers that do not get the page (2 of 16)\n\n- GPTBot (OpenAI): refused by robots.txt (`Disallow: /` in the group for `GPTBot`)\n- ClaudeBot (Anthropic): refused by robots.txt (`Disallow: /` in the group for `ClaudeBot`)');
    expect(text).toContain(`## Findings (${body.report.findings.length}), most severe first`);
    for (const f of body.report.findings) expect(text).toContain(`Finding id: ${f.id}`);
    expect(text).not.toContain('structuredContent');
    expect(result._meta?.creditsRemaining).toBe(24);
  });
});
