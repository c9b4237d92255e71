// A stored verdict code as words and a tone: the history and the comparison say it in words, and colour it.
// Readiness gives its own verdict; visibility's is its score's band (lib/checks/visibility/report.ts).

const VERDICTS: Record<string, { words: string; tone: 'good' | 'fair' | 'poor' }> = {
  ready: { words: 'Ready', tone: 'good' },
  'ready-with-gaps': { words: 'Ready with gaps', tone: 'fair' },
  'not-ready': { words: 'Not ready', tone: 'poor' },
  good: { words: 'Good', tone: 'good' },
  fair: { words: 'Needs work', tone: 'fair' },
  poor: { words: 'Poor', tone: 'poor' },
};

/**
 * The words and tone of a verdict code; null for none or one this site does not know.
 * @example verdictOf('ready-with-gaps') // { words: 'Ready with gaps', tone: 'fair' }
 */
export function verdictOf(code: string | null): { words: string; tone: 'good' | 'fair' | 'poor' } | null {
  return code ? (VERDICTS[code] ?? null) : null;
}
