import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const discoverySpec: ItemSpec = {
  id: 'discovery',
  title: 'Discovery',
  points: 15,
  verifies: '/openapi.json lists the operation with x-payment-info in both shapes and a 402 response; the bazaar extension validates and its example request gets a 402; two 402s carry the same extension info; /llms.txt is served.',
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const discovery: ProbeItem = { spec: discoverySpec, probe };
