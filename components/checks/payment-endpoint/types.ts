import type { Evidence, ItemState, ProbeTransfer, Reference, SentRequest } from '@/lib/checks/payment-endpoint/types';
import type { Severity } from '@/lib/checks/severity';

// The endpoint check's 200 body as its view reads it (lib/checks/payment-endpoint/check.ts answers it). A stored
// report may come from an older or newer check version, so everything beyond the core is optional and the view
// shows what is there: a member it does not know is not an error.

export interface ViewItem {
  id: string;
  title?: string;
  state: ItemState | string;
  points?: number;
  pointsMax?: number;
  why?: string;
  evidence?: Evidence[];
}

export interface ViewEndpointFinding {
  id: string;
  item?: string;
  severity: Severity;
  title?: string;
  pointsLost?: number;
  observed?: string;
  why?: string;
  fix?: string;
  verify?: string[];
  references?: Reference[];
}

export interface EndpointBody {
  checkedAt?: string;
  report: {
    checkVersion?: string;
    rubricVersion?: string;
    endpoint: { url: string; method?: string; bodySource?: string; mcp?: { url: string; tool: string } | null };
    score: number;
    scoreMax: number;
    coverage?: { testedPoints: number; totalPoints: number };
    verdict?: string;
    items: ViewItem[];
    findings?: ViewEndpointFinding[];
    requests?: SentRequest[];
    transfers?: ProbeTransfer[];
    outbound?: { requests: number; maxPerDomain: number; domains: number };
  };
  limits?: string[];
}

/** What the endpoint check's free GET publishes (its entry's `describe()`), as the rubric page reads it. */
export interface EndpointDescribed {
  checkVersion: string;
  rubricVersion: string;
  scoreMax: number;
  scoringRule: string;
  rubric: Array<{ id: string; title: string; points: number; verifies: string }>;
  bounds: { maxRequestsPerDomain: number; requestTimeoutSeconds: number; maxHeaderBytes: number; maxBodyBytes: number };
  paidRoundTrip: { enabled: boolean; networks: string[]; maxSpendUnitsPerCheck: string };
  limits: string[];
}
