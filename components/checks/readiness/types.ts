import type { ViewFinding } from '@/components/report-view/types';

// The members assessment 2.0.0 adds, on top of the core the generic view types describe. All optional: a
// stored report made by assessment 1.x has none of them, and the view shows what is there.

/** The core of the readiness check's 200 body (lib/checks/readiness/entry.ts answers it). */
interface ReadinessBody {
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

export interface EvidenceItem {
  text: string;
  kind: string;
  checkable: boolean;
}

interface Verify {
  how: string;
  expect: string;
}

interface Reference {
  title: string;
  url: string;
}

export interface Finding {
  id: string;
  capability?: string;
  severity: string;
  why?: string;
  fix?: string;
  risk?: string;
  steps?: string[];
  verify?: Verify[];
  references?: Reference[];
  effort?: string;
  pointsLost?: number;
}

export interface Hazard {
  id: string;
  severity: string;
  capabilities: string[];
  why: string;
  fix: string;
}

export interface PlanPhase {
  phase: string;
  title?: string;
  steps: Array<{ capability: string; findingId: string; action: string }>;
}

export interface ProductionDelta {
  score: number;
  verdict: string;
  newlyRequired: string[];
  blockers: string[];
}

type Core = ReadinessBody['assessment'];

export interface Assessment extends Omit<Core, 'capabilities' | 'findings'> {
  summary?: string;
  capabilities: Array<Core['capabilities'][number] & { evidence?: EvidenceItem[] }>;
  findings: Finding[];
  hazards?: Hazard[];
  plan?: PlanPhase[];
  productionDelta?: ProductionDelta;
}

export interface Body extends Omit<ReadinessBody, 'assessment'> {
  assessment: Assessment;
}
