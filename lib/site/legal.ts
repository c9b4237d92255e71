// The date each legal page's text took effect. A change to a page's terms changes its date here, in the
// same commit, so a reader can tell which text applied to a call made on a given day.

/** Legal page → the ISO date its current text took effect. */
export const POLICY_EFFECTIVE = {
  terms: '2026-11-25',
  privacy: '2026-11-25',
  refunds: '2026-11-25',
} as const;

export type Policy = keyof typeof POLICY_EFFECTIVE;

/**
 * An ISO date (YYYY-MM-DD) in words, the same on every server whatever its time zone or locale.
 * @example longDate('2026-11-25') // '25 November 2026'
 */
export function longDate(iso: string): string {
  return new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}
