// The MCP endpoint's failure paths at the protocol level, in-process: every one is a JSON-RPC error or a
// problem+json answer, never a 500 or a stack.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handleMcpRequest } from '@/lib/transports/mcp/server';
import { installTestRuntime, type TestRuntime } from '../support/runtime';

let rt: TestRuntime;
beforeEach(() => {
  rt = installTestRuntime({ APP_URL: 'http://checks.test' });
});
afterEach(async () => {
  await rt.dispose();
});

async function send(body: string, headers: Record<string, string> = {}) {
  const res = await handleMcpRequest(
    new Request('http://checks.test/api/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    }),
  );
  const text = await res.text();
  expect(text).not.toMatch(/\bat [\w.<>]+ \(|node_modules|\.ts:\d+/);
  return { status: res.status, body: JSON.parse(text) as { error?: { code: number; message: string; data?: unknown }; result?: unknown } };
}

const call = (params: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });

describe('POST /api/mcp protocol errors', () => {
  it('a body that is not JSON is a JSON-RPC parse error', async () => {
    const { status, body } = await send('{nope');
    expect(status).toBe(400);
    expect(body.error?.code).toBe(-32700);
  });

  it('a body far over MAX_BODY_BYTES is refused with 413 before parsing', async () => {
    const { status, body } = await send(call({ name: 'ai_visibility_check', arguments: { url: 'x'.repeat(200_000) } }));
    expect(status).toBe(413);
    expect(body.error?.message).toMatch(/Payload Too Large/);
  });

  it('arguments that are not an object are invalid params, not an internal error', async () => {
    const { body } = await send(call({ name: 'ai_visibility_check', arguments: 'https://example.com' }));
    expect(body.error?.code).toBe(-32602);
  });

  it('missing arguments list the required fields; messages carry no "MCP error" prefix', async () => {
    const { body } = await send(call({ name: 'agent_payment_readiness_assessment' }));
    expect(body.error?.code).toBe(-32602);
    expect(body.error?.message).not.toMatch(/^MCP error/);
    const data = body.error?.data as { errors: Array<{ path: string }> };
    expect(data.errors.map((e) => e.path).sort()).toEqual(['$.capabilities', '$.workflow']);
  });

  it('an unknown method is method-not-found', async () => {
    const { body } = await send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/list' }));
    expect(body.error?.code).toBe(-32601);
  });

  it('DELETE (no session to end) is 405 problem+json', async () => {
    const res = await handleMcpRequest(new Request('http://checks.test/api/mcp', { method: 'DELETE' }));
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
  });
});
