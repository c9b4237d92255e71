import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const badCredentialsSpec: ItemSpec = {
  id: 'bad-credentials',
  title: 'Bad credentials',
  points: 10,
  verifies: "A malformed Authorization: Payment, a malformed PAYMENT-SIGNATURE and an expired challenge's credential each get 402 with a fresh challenge: never 500, never 200.",
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const badCredentials: ProbeItem = { spec: badCredentialsSpec, probe };
