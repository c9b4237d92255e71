import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const onePriceSpec: ItemSpec = {
  id: 'one-price',
  title: 'One price',
  points: 10,
  verifies: "MPP, x402, OpenAPI, the bazaar, the MCP tool's description and llms.txt state one price in USD cents, and each rail names one recipient.",
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const onePrice: ProbeItem = { spec: onePriceSpec, probe };
