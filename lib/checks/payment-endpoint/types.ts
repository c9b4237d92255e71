import type { Severity } from '@/lib/checks/severity';

// The Agent Payment Endpoint Check's vocabulary, shared by its probes (one module per rubric item), the report
// that assembles them and the site's view. Plain data only: the browser bundle loads this module.

/** What one rubric item concluded. `not-applicable`: the endpoint does not use what it tests; `not-tested`: it could not be tested here (why says why). */
export type ItemState = 'pass' | 'fail' | 'warn' | 'not-applicable' | 'not-tested';

/** The rubric's items, in report order. */
export type ItemId =
  | 'reachability'
  | 'x402-terms'
  | 'mpp-challenges'
  | 'discovery'
  | 'one-price'
  | 'bad-credentials'
  | 'cors'
  | 'mcp'
  | 'paid-round-trip';

/** A primary source a finding rests on. */
export interface Reference {
  title: string;
  url: string;
}

/** What the catalog says of one finding id: everything but what was observed. */
export interface FindingSpec {
  title: string;
  severity: Severity;
  /** Points this finding costs its item (an item never goes below 0). */
  points: number;
  /** Why an agent or its buyer cares. */
  why: string;
  fix: string;
  /** How to see the fix worked, step by step; may name this check. */
  verify: string[];
  references: Reference[];
}

/** One rubric item as published: its points and the findings it can give. */
export interface ItemSpec {
  id: ItemId;
  title: string;
  points: number;
  /** One sentence: what it verifies. */
  verifies: string;
  findings: Readonly<Record<string, FindingSpec>>;
}

/** One piece of evidence: the request made and the relevant part of the answer, decoded where it was encoded. */
export interface Evidence {
  /** The request, as `METHOD url` and what it carried ("no credential", "a malformed PAYMENT-SIGNATURE"). */
  request: string;
  /** The answer's HTTP status; null when no answer came. */
  status: number | null;
  /** The relevant part of the answer: decoded headers, a JSON-RPC error, a receipt. Bounded by the report caps. */
  answer?: unknown;
  /** Transactions this step made or read on chain. */
  txHashes?: string[];
  note?: string;
}

/** A fault one probe saw: a finding id of its item's catalog, and what was observed (with the field path where one exists). */
export interface Fault {
  id: string;
  observed: string;
}

/** What one probe returns: its state, why, its evidence and the faults it saw. The report turns faults into findings and points. */
export interface ItemOutcome {
  state: ItemState;
  /** One sentence: why this state (for not-tested and not-applicable, what would make it testable). */
  why: string;
  evidence: Evidence[];
  faults: Fault[];
  /** Transfers this probe made (the paid round trip's), as read back on chain. */
  transfers?: ProbeTransfer[];
}

/** A finding of the report: the catalog's words for it, what was observed, and what it cost. */
export interface Finding {
  id: string;
  item: ItemId;
  severity: Severity;
  title: string;
  pointsLost: number;
  observed: string;
  why: string;
  fix: string;
  verify: string[];
  references: Reference[];
}

/** One rubric item in the report. */
export interface ItemResult {
  id: ItemId;
  title: string;
  state: ItemState;
  points: number;
  pointsMax: number;
  why: string;
  evidence: Evidence[];
}

/** One request the check sent (or would have and did not), in order. */
export interface SentRequest {
  /** Which probe sent it and for what ("unpaid request", "MCP tools/list"). */
  purpose: string;
  method: string;
  url: string;
  /** null when no HTTP answer came (error says why). */
  status: number | null;
  /** Response bytes read (headers not counted). */
  bytes: number;
  ms: number;
  error?: string;
}

/** A transfer the paid round trip made, as read back on chain. */
export interface ProbeTransfer {
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  txHash: string;
  /** Which step paid ("first payment", "payment-identifier replay"). */
  step: string;
}
