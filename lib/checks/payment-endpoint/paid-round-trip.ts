import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const paidRoundTripSpec: ItemSpec = {
  id: 'paid-round-trip',
  title: 'Paid round trip',
  points: 10,
  verifies: 'One real payment gets 200 with content of the declared type and a receipt matching a transfer on chain; a replay, a payment-identifier reused and a payment with invalid input move no second transfer.',
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const paidRoundTrip: ProbeItem = { spec: paidRoundTripSpec, probe };
