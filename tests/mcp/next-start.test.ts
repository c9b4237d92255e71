// /api/mcp on the real service (`next start` on a production build) with the local rails: what an MCP
// client configured with the endpoint URL sees. The fuller matrix runs in-process (mcp.test.ts).
import { Client as ModernClient, SdkError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { evm } from 'mppx/client';
import { McpClient } from 'mppx/mcp-sdk/client';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '@/lib/credits/ledger';
import { openSqliteStore } from '@/lib/store/sqlite';
import { startRails, type Rails } from '../../scripts/rails/start';
import { validReadinessBody } from '../support/runtime';
import { startServer, TEST_SECRET, type RunningServer } from '../support/server';
import { connectClient } from './support';
import path from 'node:path';

let rails: Rails;
let server: RunningServer;
const clients: Client[] = [];

beforeAll(async () => {
  rails = await startRails();
  server = await startServer({ ...rails.env });
}, 240_000);
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await server?.stop();
  await rails?.stop();
});

async function client(headers: Record<string, string> = {}) {
  const c = await connectClient(new URL('/api/mcp', server.url), headers);
  clients.push(c);
  return c;
}

describe('/api/mcp on next start', () => {
  it('lists the four tools', async () => {
    const { tools } = await (await client()).listTools();
    expect(tools.map((t) => t.name)).toEqual(['agent_payment_readiness_assessment', 'ai_visibility_check', 'agent_payment_endpoint_check', 'list_paid_services']);
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
  });

  it('an unpaid call is -32042 with both challenges; mppx McpClient then pays 1 USDC and gets the receipt', async () => {
    const plain = await client();
    const error = await plain.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32042);
    const challenges = ((error as McpError).data as { challenges: Array<{ method: string }> }).challenges;
    expect(challenges.map((c) => c.method).sort()).toEqual(['evm', 'stripe']);

    const before = await rails.usdcBalance(rails.payTo);
    const paying = McpClient.wrap(await client(), {
      methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
    });
    const result = (await paying.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() })) as CallToolResult;
    const receipt = result._meta?.['org.paymentauth/receipt'] as { method: string; reference: string };
    expect(receipt.method).toBe('evm');
    expect((result.structuredContent as { paymentIntent: string }).paymentIntent).toBe(receipt.reference);
    expect((await rails.usdcBalance(rails.payTo)) - before).toBe(1_000_000n);
  });

  it('a prepaid key sent as Authorization: Bearer pays the call', async () => {
    const store = openSqliteStore(server.dataDir);
    const { key } = await createKey(store, TEST_SECRET, 'bundle-25');
    await store.close();
    const result = (await (await client({ authorization: `Bearer ${key}` })).callTool({
      name: 'agent_payment_readiness_assessment',
      arguments: validReadinessBody(),
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as { creditsUsage: string }).creditsUsage).toMatch(/^cu_/);
    const credits = (await (await fetch(`${server.url}/api/agent/credits`, { headers: { authorization: `Bearer ${key}` } })).json()) as { callsLeft: number };
    expect(credits.callsLeft).toBe(24);
  });
});

describe('/api/mcp on next start, MCP 2026-07-28', () => {
  it('the v2 SDK client discovers the org.x402/payment extension, lists the tools, gets payment_required when it declares it, and mppx pays 1 USDC', async () => {
    const connect = async (capabilities: Record<string, unknown>) => {
      const c = new ModernClient({ name: 'next-start-tests', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities });
      await c.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', server.url)));
      return c;
    };
    const declared = await connect({ extensions: { 'org.x402/payment': {} } });
    try {
      expect(declared.getDiscoverResult()).toMatchObject({ supportedVersions: ['2026-07-28'], capabilities: { extensions: { 'org.x402/payment': {} } } });
      expect((await declared.listTools()).tools.map((t) => t.name)).toEqual(['agent_payment_readiness_assessment', 'ai_visibility_check', 'agent_payment_endpoint_check', 'list_paid_services']);
      const refused = await declared.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(refused).toBeInstanceOf(SdkError);
      expect((refused as SdkError).data).toEqual({ resultType: 'payment_required', method: 'tools/call' });
    } finally {
      await declared.close();
    }

    const paying = await connect({});
    try {
      McpClient.wrap(paying as never, {
        methods: [evm.charge({ account: privateKeyToAccount(rails.payer.privateKey), authorization: { name: 'USD Coin', version: '2' } })],
      });
      const before = await rails.usdcBalance(rails.payTo);
      const result = await paying.callTool({ name: 'agent_payment_readiness_assessment', arguments: validReadinessBody() });
      expect((result._meta?.['org.paymentauth/receipt'] as { method: string }).method).toBe('evm');
      expect((await rails.usdcBalance(rails.payTo)) - before).toBe(1_000_000n);
    } finally {
      await paying.close();
    }
  });
});

describe('MCP Inspector CLI', () => {
  it('lists the four tools of the running endpoint', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const cli = require.resolve('@modelcontextprotocol/inspector-cli/build/index.js');
    // inspector-cli 1.0.3 checks for its package.json relative to the working directory, so run it from its build folder.
    const { stdout } = await promisify(execFile)(process.execPath, [cli, `${server.url}/api/mcp`, '--transport', 'http', '--method', 'tools/list'], {
      timeout: 60_000,
      cwd: path.dirname(cli),
    });
    const listed = JSON.parse(stdout) as { tools: Array<{ name: string; inputSchema: { type: string } }> };
    expect(listed.tools.map((t) => t.name).sort()).toEqual(['agent_payment_endpoint_check', 'agent_payment_readiness_assessment', 'ai_visibility_check', 'list_paid_services']);
  }, 90_000);
});
