import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const mppChallengesSpec: ItemSpec = {
  id: 'mpp-challenges',
  title: 'MPP challenges',
  points: 10,
  verifies: "Every WWW-Authenticate: Payment challenge parses and validates with mppx: id, realm, method, intent, base64url request, a future expires, and each method's own fields.",
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const mppChallenges: ProbeItem = { spec: mppChallengesSpec, probe };
