import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const corsSpec: ItemSpec = {
  id: 'cors',
  title: 'CORS for browser agents',
  points: 5,
  verifies: 'Access-Control-Expose-Headers names PAYMENT-REQUIRED, PAYMENT-RESPONSE, WWW-Authenticate and Payment-Receipt, and a preflight allows PAYMENT-SIGNATURE, Authorization and Idempotency-Key.',
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const cors: ProbeItem = { spec: corsSpec, probe };
