// Both MCP generations on POST /api/mcp, over raw HTTP (no SDK between the test and the wire): a request in
// MCP 2026-07-28's form (the `_meta` envelope on every request, its headers) is answered by the 2026-07-28
// server, with `resultType` and cache fields; `server/discover` is served; a 2025-11-25 request is answered as before.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { checks } from '@/lib/checks/registry';
import { installTestRuntime, type TestRuntime } from '../support/runtime';

let rt: TestRuntime;
beforeEach(() => {
  rt = installTestRuntime({ APP_URL: 'http://checks.test' });
});
afterEach(async () => {
  await rt.dispose();
});

const MODERN = '2026-07-28';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  status: number;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } };
}

async function send(message: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await handleMcpRequest(
    new Request('http://checks.test/api/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...message }),
    }),
  );
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

/**
 * A 2026-07-28 request as the generation sends it: the envelope in `_meta`; the version, the method and (for a
 * tool call) the tool's name mirrored as headers, which the generation requires.
 */
const modern = (method: string, params: Record<string, unknown> = {}) =>
  send(
    { method, params: { ...params, _meta: { ...ENVELOPE, ...(params._meta as object) } } },
    { 'mcp-protocol-version': MODERN, 'mcp-method': method, ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}) },
  );

const paidToolNames = () => checks().map((c) => c.toolName);

describe('MCP 2026-07-28 over raw HTTP', () => {
  it('tools/list with the version header and the per-request _meta envelope is a complete result with cache fields', async () => {
    const { status, body } = await modern('tools/list');
    expect(status).toBe(200);
    expect(body.error).toBeUndefined();
    expect(body.result).toMatchObject({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
    expect((body.result!.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([...paidToolNames(), 'list_paid_services']);
    expect(body.result!._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'paid-agent-checks', version: '1.0.0' } });
  });

  it('server/discover names the versions and capabilities; without the x402 rail, no x402 extension is declared', async () => {
    const { status, body } = await modern('server/discover');
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN],
      capabilities: { tools: { listChanged: false } },
      ttlMs: 300_000,
      cacheScope: 'public',
    });
    expect(body.result!.capabilities).not.toHaveProperty('extensions');
    expect(body.result!.instructions).toMatch(/Call list_paid_services first/);
  });

  it('a server/discover without the envelope is told the versions served (-32022), not "method not found"', async () => {
    const { body } = await send({ method: 'server/discover', params: {} });
    expect(body.error?.code).toBe(-32022);
    expect(body.error?.data).toMatchObject({ supported: [MODERN] });
  });

  it('tools/call of list_paid_services is a complete result', async () => {
    const { body } = await modern('tools/call', { name: 'list_paid_services', arguments: {} });
    expect(body.error).toBeUndefined();
    expect(body.result).toMatchObject({ resultType: 'complete', structuredContent: { services: expect.any(Array) } });
    expect((body.result!.structuredContent as { services: Array<{ toolName: string }> }).services.map((s) => s.toolName)).toEqual(paidToolNames());
  });

  it('the 2026-07-28 version header without the envelope is invalid params, not "unsupported protocol version"', async () => {
    const { status, body } = await send({ method: 'tools/list', params: {} }, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' });
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32602);
  });

  it('a version the endpoint does not serve is refused with the versions it does', async () => {
    const { body } = await send(
      { method: 'tools/list', params: { _meta: { ...ENVELOPE, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } } },
      { 'mcp-protocol-version': '2099-01-01', 'mcp-method': 'tools/list' },
    );
    expect(body.error?.code).toBe(-32022);
    expect(body.error?.data).toMatchObject({ supported: [MODERN] });
  });

  it('a tool call whose Mcp-Name header is missing is refused as headers and body disagreeing (-32020)', async () => {
    const { status, body } = await send(
      { method: 'tools/call', params: { name: 'list_paid_services', arguments: {}, _meta: ENVELOPE } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call' },
    );
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32020);
  });

  it('ping and initialize, 2025 methods, are not part of 2026-07-28', async () => {
    expect((await modern('ping')).body.error?.code).toBe(-32601);
    const init = await modern('initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: 'raw-http', version: '1.0.0' } });
    expect(init.body.error?.code).toBe(-32601);
  });
});

describe('MCP 2025-11-25 on the same path', () => {
  it('initialize negotiates 2025-11-25, and its results carry no resultType', async () => {
    const init = await send({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-http', version: '1.0.0' } },
    });
    expect(init.body.result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'paid-agent-checks' } });
    expect(init.body.result).not.toHaveProperty('resultType');

    const list = await send({ method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2025-11-25' });
    expect((list.body.result!.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([...paidToolNames(), 'list_paid_services']);
    expect(list.body.result).not.toHaveProperty('resultType');
    expect(list.body.result).not.toHaveProperty('ttlMs');
  });
});
