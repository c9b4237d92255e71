// The shapes the report views read, from the 200 bodies of the two checks (lib/checks/<name>/entry.ts). A stored
// report may come from an older or newer check version, so everything beyond the core is optional and the
// view shows what is there: a member it does not know is not an error.

import type { Severity } from '@/lib/checks/severity';

export interface ViewFinding {
  id: string;
  severity: Severity;
  observed?: string;
  why?: string;
  fix?: string;
  pointsLost?: number;
  rubric?: string | null;
  capability?: string;
}

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

export interface ReadinessBody {
  assessedAt?: string;
  creditsUsage?: string;
  assessment: {
    assessmentVersion: string;
    rubricVersion: string;
    workflow: { name: string; intendedUsers?: string; targetEnvironment?: string };
    verdict: 'ready' | 'ready-with-gaps' | 'not-ready';
    score: number;
    scoreMax: number;
    capabilities: Array<{
      key: string;
      status: string;
      requirement?: 'required' | 'recommended';
      pointsPossible: number;
      pointsEarned: number;
      evidenceCount?: number;
    }>;
    blockers: string[];
    findings: ViewFinding[];
    statement?: string;
  };
  limits?: string[];
}
