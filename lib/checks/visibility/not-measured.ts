// What was not read is not missing. The check reads at most PAGE_READ_MAX_BYTES of a page and stops parsing at
// the parser's limits (bounded-parse.ts); a rubric item that finds something absent on such a page may only have
// not reached it: an <h1>, the article text or the JSON-LD after 1.2 MB of inline state. Those findings become
// `not-measured`: no points lost, and words that say what was not found in the part read.

import type { Finding } from './finding';
import { PAGE_READ_MAX_BYTES } from './published';
import type { ScoreInput } from './rubric-items/types';
import type { INCOMPLETE_FACTS } from './extract';

type RubricFinding = Omit<Finding, 'rubric' | 'pointsLost'>;

const ogMissing = (input: ScoreInput) => (['title', 'description', 'image'] as const).filter((k) => !input.page.openGraph[k]).map((k) => `og:${k}`);

/** For each finding about an absence: the page fact it rests on, what was not found, and what to do. */
const ABSENCES: Readonly<Record<string, { fact: (typeof INCOMPLETE_FACTS)[number]; found: (input: ScoreInput) => string; fix: string }>> = {
  'title-missing': { fact: 'title', found: () => 'no <title> was found', fix: 'Put the <title> at the top of the <head>, before any large inline script, style or data.' },
  'description-missing': { fact: 'metaDescription', found: () => 'no meta description was found', fix: 'Put <meta name="description"> near the top of the <head>, before any large inline script, style or data.' },
  'canonical-missing': { fact: 'canonical', found: () => 'no <link rel="canonical"> was found', fix: 'Put <link rel="canonical"> near the top of the <head>, before any large inline script, style or data.' },
  'open-graph-incomplete': { fact: 'openGraph', found: (i) => `${ogMissing(i).join(', ')} ${ogMissing(i).length === 1 ? 'was' : 'were'} not found`, fix: 'Put the og: tags near the top of the <head>, before any large inline script, style or data.' },
  'little-server-text': { fact: 'wordCount', found: (i) => `only ${i.page.wordCount} words of text were found`, fix: 'Serve the main text before large inline scripts and data (move state to the end of the page or load it separately), so crawlers that stop early still read it.' },
  'thin-server-text': { fact: 'wordCount', found: (i) => `only ${i.page.wordCount} words of text were found`, fix: 'Serve the main text before large inline scripts and data (move state to the end of the page or load it separately), so crawlers that stop early still read it.' },
  'h1-missing': { fact: 'h1Count', found: () => 'no <h1> was found', fix: 'Put the page\'s <h1> before large inline scripts and data, so crawlers that stop early still read it.' },
  'jsonld-missing': { fact: 'jsonLd', found: () => 'no JSON-LD block was found', fix: 'Put the <script type="application/ld+json"> block in the <head> or near the top of the page, before large inline scripts and data.' },
  'jsonld-key-types': { fact: 'jsonLd', found: (i) => (i.page.jsonLd.types.length ? `JSON-LD types ${i.page.jsonLd.types.join(', ')} were found, but not every key type,` : 'no JSON-LD type was found'), fix: 'Put the JSON-LD that names the publisher and the content near the top of the page, before large inline scripts and data.' },
};

/**
 * The `not-measured` form of a rubric finding about something absent, when the page was not read to its end
 * and that fact may lie in the part not read; null when the finding stands as measured.
 * @example unreadFinding(input, { id: 'h1-missing', … })?.observed // 'the page is larger than the 2 MiB read; no <h1> was found in the part read'
 */
export function unreadFinding(input: ScoreInput, finding: RubricFinding): RubricFinding | null {
  const absence = ABSENCES[finding.id];
  if (!absence || !input.page.truncated || !input.page.incomplete.includes(absence.fact)) return null;
  const bytes = input.bytesTruncated ?? input.page.truncated;
  const cut = bytes
    ? `the page is larger than the ${PAGE_READ_MAX_BYTES / 1024 / 1024} MiB read`
    : 'the page\'s markup was read only up to the parser\'s limit';
  return {
    id: finding.id,
    severity: 'info',
    observed: `${cut}; ${absence.found(input)} in the part read`,
    why: 'What comes after the point where reading stopped was not examined, so this is not measured and costs no points. It may well be there; crawlers that read less than the whole page may miss it as this check did.',
    fix: absence.fix,
    state: 'not-measured',
  };
}
