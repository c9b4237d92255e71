// The endpoint check's MCP item against this service as seller (its /api/mcp on the local rails), over both MCP
// generations, and against sellers with one MCP defect each: a paid tool whose unpaid call is a plain tool error
// (no -32042), a tool description without its price, no MCP endpoint at all, and a named tool that is not listed.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkPaymentEndpoint, type EndpointReport } from '@/lib/checks/payment-endpoint/check';
import { startRails, type Rails } from '../../scripts/rails/start';
import { startSeller, type Seller } from './seller';

const TOOL = 'agent_payment_readiness_assessment';
const PAID_PATH = '/api/agent/readiness';

let rails: Rails;
let seller: Seller | undefined;
beforeAll(async () => {
  rails = await startRails();
}, 120_000);
afterEach(async () => {
  await seller?.close();
  seller = undefined;
});
afterAll(async () => {
  await rails?.stop();
});

type Handler = (request: Request) => Promise<Response>;
type Message = { jsonrpc: '2.0'; id?: number; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string } };

/** A tamper rewriting /api/mcp's JSON-RPC answers: `rewrite` sees the request's message and the answer's. */
function rewriteMcp(rewrite: (request: Message, answer: Message) => Message) {
  return async (request: Request, next: Handler): Promise<Response> => {
    if (new URL(request.url).pathname !== '/api/mcp' || request.method !== 'POST') return next(request);
    const sent = (await request.clone().json()) as Message;
    const response = await next(request);
    if (!response.headers.get('content-type')?.startsWith('application/json')) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(rewrite(sent, (await response.json()) as Message)), { status: response.status, headers });
  };
}

const check = (extra: Partial<Parameters<typeof checkPaymentEndpoint>[0]> = {}) =>
  checkPaymentEndpoint({ url: `${seller!.origin}${PAID_PATH}`, method: 'POST', paidRoundTrip: false, ...extra });
const item = (report: EndpointReport) => report.items.find((i) => i.id === 'mcp')!;
const mcpFindings = (report: EndpointReport) => report.findings.filter((f) => f.item === 'mcp').map((f) => f.id);
const mcpRequests = (report: EndpointReport) => report.requests.filter((r) => r.purpose.startsWith('MCP')).map((r) => [r.purpose, r.url, r.status]);

describe('the MCP item against this service', () => {
  it('passes on both generations: -32042 with MPP challenges and data.x402, and payment_required when org.x402/payment is declared', async () => {
    seller = await startSeller(rails);
    const report = await check();
    const mcp = item(report);
    expect(mcpFindings(report)).toEqual([]);
    expect(mcp.state).toBe('pass');
    expect(mcp.points).toBe(10);
    const endpoint = 'http://seller.test/api/mcp';
    expect(mcpRequests(report)).toEqual([
      ['MCP initialize', endpoint, 200],
      ['MCP notifications/initialized', endpoint, 202],
      ['MCP tools/list', endpoint, 200],
      ['MCP server/discover', endpoint, 200],
      ['MCP tools/call, unpaid', endpoint, 200],
      ['MCP tools/call, unpaid (2026-07-28)', endpoint, 200],
      ['MCP tools/call, unpaid (2026-07-28, org.x402/payment)', endpoint, 200],
    ]);
    expect(mcp.evidence.map((e) => e.request)).toEqual([
      `POST ${endpoint} JSON-RPC initialize (protocolVersion 2025-11-25)`,
      `POST ${endpoint} notifications/initialized`,
      `POST ${endpoint} tools/list`,
      `POST ${endpoint} server/discover (2026-07-28 envelope)`,
      `tools/list: the tool ${TOOL}`,
      `POST ${endpoint} tools/call ${TOOL} (2025-11-25, no payment)`,
      `POST ${endpoint} tools/call ${TOOL} (2026-07-28, no extension, no payment)`,
      `POST ${endpoint} tools/call ${TOOL} (2026-07-28, declaring org.x402/payment, no payment)`,
    ]);
    const [init, , list, discover, tool, legacy, modern, extension] = mcp.evidence;
    expect(init!.answer).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'paid-agent-checks' } });
    expect((list!.answer as { tools: string[] }).tools).toContain(TOOL);
    expect(discover!.answer).toEqual({ supportedVersions: ['2026-07-28'], extensions: { 'org.x402/payment': {} } });
    expect(tool!.note).toBe(`the tool naming ${PAID_PATH}`);
    expect((tool!.answer as { description: string }).description).toMatch(/Price: 1\.00 USD per fulfilled call/);

    const accepts = [{ scheme: 'exact', network: 'eip155:8453', amount: '1000000', asset: rails.usdcAddress, payTo: rails.payTo }];
    for (const call of [legacy!, modern!]) {
      const answer = call.answer as { error: number; challenges: Array<{ method: string; intent: string; realm: string }>; x402: { resource: string; accepts: unknown[] } };
      expect(answer.error).toBe(-32042);
      expect(answer.challenges.map((c) => [c.method, c.intent])).toEqual(expect.arrayContaining([['evm', 'charge']]));
      expect(answer.x402).toEqual({ resource: `http://seller.test${PAID_PATH}`, accepts });
    }
    expect(extension!.answer).toEqual({ resultType: 'payment_required', paymentRequired: { resource: `http://seller.test${PAID_PATH}`, accepts } });
    expect(mcp.why).toMatch(/serves MCP 2025-11-25 and 2026-07-28/);
    expect(mcp.why).toMatch(/Over REST the endpoint offers MPP and x402\.$/);
  });

  it('tests the tool named in the request, on the MCP endpoint named', async () => {
    seller = await startSeller(rails);
    const report = await check({ mcp: { url: `${seller.origin}/api/mcp`, tool: TOOL } });
    expect(item(report).state).toBe('pass');
    expect(item(report).evidence.find((e) => e.request.startsWith('tools/list: the tool'))!.note).toBe('the tool named in the request');
  });

  it('reads a stateful server that answers in SSE streams and requires its Mcp-Session-Id after initialize', async () => {
    const SESSION = 'session-4f2a';
    const withheld: string[] = [];
    seller = await startSeller(rails, {
      tamper: async (request, next) => {
        if (new URL(request.url).pathname !== '/api/mcp') return next(request);
        const sent = (await request.clone().json()) as Message;
        const legacy = request.headers.get('mcp-protocol-version') !== '2026-07-28' && sent.method !== 'server/discover';
        if (legacy && sent.method !== 'initialize' && request.headers.get('mcp-session-id') !== SESSION) {
          withheld.push(String(sent.method));
          return new Response('missing session', { status: 400 });
        }
        const response = await next(request);
        if (response.status === 202) return response;
        const headers = new Headers({ 'content-type': 'text/event-stream', ...(sent.method === 'initialize' ? { 'mcp-session-id': SESSION } : {}) });
        return new Response(`event: message\nid: 1\ndata: ${await response.text()}\n\n`, { status: response.status, headers });
      },
    });
    const report = await check();
    expect(withheld).toEqual([]);
    expect(mcpFindings(report)).toEqual([]);
    expect(item(report).state).toBe('pass');
    expect(mcpRequests(report)).toHaveLength(7);
  });
});

describe('sellers with one MCP defect', () => {
  it('an unpaid tool call answered with a plain tool error instead of -32042: mcp-no-payment-binding', async () => {
    seller = await startSeller(rails, {
      tamper: rewriteMcp((sent, answer) =>
        sent.method === 'tools/call' && answer.error?.code === -32042 ? { jsonrpc: '2.0', id: answer.id, result: { isError: true, content: [{ type: 'text', text: 'Payment required.' }] } } : answer,
      ),
    });
    const report = await check();
    expect(mcpFindings(report)).toEqual(['mcp-no-payment-binding']);
    expect(item(report).state).toBe('fail');
    expect(item(report).points).toBe(2);
    const finding = report.findings.find((f) => f.id === 'mcp-no-payment-binding')!;
    expect(finding.severity).toBe('high');
    expect(finding.observed).toBe(
      `tools/call ${TOOL} unpaid: 2025-11-25: an isError tool result without a PaymentRequired; 2026-07-28: an isError tool result without a PaymentRequired`,
    );
  });

  it('a paid tool whose description and title do not say it costs money: mcp-tool-price-unstated', async () => {
    seller = await startSeller(rails, {
      tamper: rewriteMcp((sent, answer) => {
        if (sent.method !== 'tools/list' || !answer.result) return answer;
        const tools = (answer.result.tools as Array<Record<string, unknown>>).map((t) =>
          t.name === TOOL ? { ...t, title: 'Readiness assessment', description: `Assesses an agent workflow. Same call over REST: POST ${PAID_PATH}.` } : t,
        );
        return { ...answer, result: { ...answer.result, tools } };
      }),
    });
    const report = await check();
    expect(mcpFindings(report)).toEqual(['mcp-tool-price-unstated']);
    expect(item(report).state).toBe('warn');
    expect(item(report).points).toBe(8);
    expect(report.findings.find((f) => f.id === 'mcp-tool-price-unstated')!.observed).toBe(`${TOOL}: neither its title nor its description states a price or that it is paid`);
  });

  it('a tool description stating another price than the 402: the MCP item passes and one-price reports price-mismatch', async () => {
    seller = await startSeller(rails, {
      tamper: rewriteMcp((sent, answer) => {
        if (sent.method !== 'tools/list' || !answer.result) return answer;
        const tools = (answer.result.tools as Array<Record<string, unknown>>).map((t) =>
          t.name === TOOL ? { ...t, title: 'Readiness assessment', description: `Assesses an agent workflow for 0.50 USD per call. Same call over REST: POST ${PAID_PATH}.` } : t,
        );
        return { ...answer, result: { ...answer.result, tools } };
      }),
    });
    const report = await check();
    expect(mcpFindings(report)).toEqual([]);
    expect(item(report).state).toBe('pass');
    const mismatch = report.findings.filter((f) => f.item === 'one-price');
    expect(mismatch.map((f) => f.id)).toEqual(['price-mismatch']);
    expect(mismatch[0]!.observed).toContain(`MCP tool ${TOOL} (description): 50 cents`);
  });

  it('a call declaring org.x402/payment not answered payment_required though server/discover declares the extension: mcp-x402-extension-ignored', async () => {
    seller = await startSeller(rails, {
      tamper: rewriteMcp((sent, answer) =>
        sent.method === 'tools/call' && answer.result?.resultType === 'payment_required'
          ? { jsonrpc: '2.0', id: answer.id, result: { resultType: 'complete', isError: true, content: [{ type: 'text', text: 'Payment required.' }] } }
          : answer,
      ),
    });
    const report = await check();
    expect(mcpFindings(report)).toEqual(['mcp-x402-extension-ignored']);
    expect(item(report).state).toBe('fail');
    expect(item(report).points).toBe(7);
    expect(report.findings.find((f) => f.id === 'mcp-x402-extension-ignored')!.observed).toBe(
      `2026-07-28 tools/call ${TOOL} declaring org.x402/payment, unpaid: an isError tool result without a PaymentRequired`,
    );
  });

  it('a server that does not speak 2026-07-28 passes on 2025-11-25 alone, and is sent no 2026-07-28 tool call', async () => {
    seller = await startSeller(rails, {
      tamper: rewriteMcp((sent, answer) => (sent.method === 'server/discover' ? { jsonrpc: '2.0', id: answer.id, error: { code: -32601, message: 'Method not found' } } : answer)),
    });
    const report = await check();
    expect(mcpFindings(report)).toEqual([]);
    expect(item(report).state).toBe('pass');
    expect(mcpRequests(report).map(([purpose]) => purpose)).toEqual(['MCP initialize', 'MCP notifications/initialized', 'MCP tools/list', 'MCP server/discover', 'MCP tools/call, unpaid']);
    expect(item(report).why).toMatch(/^http:\/\/seller\.test\/api\/mcp serves MCP 2025-11-25 \(server\/discover names no 2026-07-28\);/);
  });

  it('a seller without an MCP endpoint: not applicable after /api/mcp and /mcp', async () => {
    seller = await startSeller(rails, { tamper: async (request, next) => (new URL(request.url).pathname === '/api/mcp' ? new Response('not found', { status: 404 }) : next(request)) });
    const report = await check();
    expect(mcpFindings(report)).toEqual([]);
    expect(item(report).state).toBe('not-applicable');
    expect(item(report).why).toBe('No MCP endpoint was named and none answers at /api/mcp or /mcp on http://seller.test.');
    expect(mcpRequests(report)).toEqual([
      ['MCP initialize', 'http://seller.test/api/mcp', 404],
      ['MCP initialize', 'http://seller.test/mcp', 404],
    ]);
  });

  it('a named tool the server does not list: mcp-tool-not-listed', async () => {
    seller = await startSeller(rails);
    const report = await check({ mcp: { url: `${seller.origin}/api/mcp`, tool: 'no_such_tool' } });
    expect(mcpFindings(report)).toEqual(['mcp-tool-not-listed']);
    expect(item(report).state).toBe('fail');
    expect(item(report).points).toBe(0);
  });
});
