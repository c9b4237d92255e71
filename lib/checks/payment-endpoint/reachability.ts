import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const reachabilitySpec: ItemSpec = {
  id: 'reachability',
  title: 'Reachability',
  points: 15,
  verifies: 'The declared method answers an unpaid request with a schema-valid body 402 (not 401, 403, 400, 404 or 5xx) within 10 s, with Cache-Control: no-store.',
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const reachability: ProbeItem = { spec: reachabilitySpec, probe };
