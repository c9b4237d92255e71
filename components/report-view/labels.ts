import type { Severity } from '@/lib/checks/severity';
import { scoreBand } from './ScoreGauge';

export const SEVERITY_LABEL: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

export const READINESS_VERDICT: Record<string, string> = {
  'not-ready': 'Not ready',
  'ready-with-gaps': 'Ready, with gaps',
  ready: 'Ready',
};

/**
 * The visibility check publishes a score, not a verdict; this names the score's band, and says when a
 * blocking failure (a critical finding) capped it.
 */
export function visibilityVerdict(score: number, max: number, findings: Array<{ severity: string }>): string {
  if (findings.some((f) => f.severity === 'critical')) return 'Blocked: search engines will not index this page as it is';
  const band = scoreBand(score, max);
  return band === 'good' ? 'Visible to search and AI crawlers' : band === 'fair' ? 'Visible, with gaps to fix' : 'Hard for crawlers to use';
}

export const ACCESS_LABEL: Record<string, string> = {
  ok: 'Served',
  blocked: 'Blocked',
  challenge: 'Challenged',
  'payment-required': 'Payment required',
  'rate-limited': 'Rate limited',
  different: 'Different page',
  error: 'Error',
  'not-probed': 'Not probed',
};
