import type { ProbeItem } from './context';
import type { FindingSpec, ItemId, ItemSpec } from './types';
import { reachability } from './reachability';
import { x402Terms } from './x402-terms';
import { mppChallenges } from './mpp-challenges';
import { discovery } from './discovery';
import { onePrice } from './one-price';
import { badCredentials } from './bad-credentials';
import { cors } from './cors';
import { mcp } from './mcp';
import { paidRoundTrip } from './paid-round-trip';

// The rubric: every item the check scores, in the order it runs them and the report lists them. Each item's
// module holds its points, its finding catalog and its probe.

export const RUBRIC_VERSION = '1';

export const ITEMS: readonly ProbeItem[] = [reachability, x402Terms, mppChallenges, discovery, onePrice, badCredentials, cors, mcp, paidRoundTrip];

/** The published rubric: each item with its points and what it verifies. */
export const RUBRIC: readonly ItemSpec[] = ITEMS.map((i) => i.spec);

/**
 * A finding id's catalog entry and the item it belongs to, or undefined for an id no item declares.
 * @example findingSpec('no-402')?.item // 'reachability'
 */
export function findingSpec(id: string): (FindingSpec & { item: ItemId }) | undefined {
  for (const spec of RUBRIC) {
    const found = spec.findings[id];
    if (found) return { ...found, item: spec.id };
  }
  return undefined;
}
