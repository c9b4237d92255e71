import type { ViewFinding } from '@/components/report-view/types';

// The visibility check's 200 body as its view reads it (lib/checks/visibility/entry.ts answers it). A stored
// report may come from an older or newer check version, so everything beyond the core is optional and the
// view shows what is there: a member it does not know is not an error.

export interface ViewCrawler {
  token: string;
  vendor?: string;
  role?: string;
  purpose?: string;
  allowed: boolean;
  rule: string | null;
  group: string | null;
  /** Live access probe (visibility v2): what the server answered a request sent as this crawler. */
  access?: { outcome: string; status: number | null; userAgent: string | null };
}

export interface VisibilityBody {
  checkedAt?: string;
  creditsUsage?: string;
  report: {
    checkVersion: string;
    checkedUrl: string;
    status: number;
    robotsTxt: string;
    crawlers: ViewCrawler[];
    llmsTxt: string;
    page: Record<string, unknown>;
    site: Record<string, unknown>;
    score: number;
    scoreMax: number;
    rubricVersion: string;
    rubric: Array<{ id: string; category?: string; points: number; criterion?: string }>;
    scoring: Array<{ id: string; points: number; earned: number }>;
    findings: ViewFinding[];
  };
  limits?: string[];
}
