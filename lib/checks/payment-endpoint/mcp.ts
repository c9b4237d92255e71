import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const mcpSpec: ItemSpec = {
  id: 'mcp',
  title: 'MCP',
  points: 10,
  verifies: "The MCP endpoint initialises, lists the tool, says it costs money, and an unpaid call gets a payment binding: MPP's -32042, x402's tool result, and on 2026-07-28 the org.x402/payment extension.",
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const mcp: ProbeItem = { spec: mcpSpec, probe };
