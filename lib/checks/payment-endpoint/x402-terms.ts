import type { ProbeContext, ProbeItem } from './context';
import type { ItemOutcome, ItemSpec } from './types';

export const x402TermsSpec: ItemSpec = {
  id: 'x402-terms',
  title: 'x402 terms',
  points: 15,
  verifies: "PAYMENT-REQUIRED decodes to a valid x402 v2 PaymentRequired whose every accepts entry can be paid: CAIP-2 network, that network's USDC, an integer amount, a payTo address, maxTimeoutSeconds, EIP-712 name and version, the same resource; under 16 KB; any body mirror equal.",
  findings: {},
};

async function probe(ctx: ProbeContext): Promise<ItemOutcome> {
  void ctx;
  return { state: 'not-tested', why: 'This probe is not built yet.', evidence: [], faults: [] };
}

export const x402Terms: ProbeItem = { spec: x402TermsSpec, probe };
