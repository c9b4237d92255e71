import { exampleAssessment } from '@/lib/docs/reference';
import { READINESS_LIMITS, readinessCheck } from '@/lib/checks/readiness/entry';
import { visibilityCheckDescription, type VisibilityResult } from '@/lib/checks/visibility/check';
import { CRAWLERS } from '@/lib/checks/visibility/crawlers';
import stored from './examples/visibility.json';

// What the home page shows of each check beyond its entry (name, path, description come from the registry):
// a card's facts and rubric link, and an example report as the 200 body the API would return (without the
// payment envelope). The readiness example is computed by the same code the API runs; the visibility report
// is a stored run of the real check against a fixture site (tests/site/example-report.test.ts reruns the
// check and fails when the stored copy no longer matches).

export const EXAMPLE_CHECKED_AT = '2026-11-01T12:00:00.000Z';

export function exampleVisibilityBody(): { service: string; checkedAt: string } & VisibilityResult {
  return stored as unknown as { service: string; checkedAt: string } & VisibilityResult;
}

export function exampleReadinessBody() {
  return { service: readinessCheck.service, assessedAt: EXAMPLE_CHECKED_AT, assessment: exampleAssessment(), limits: READINESS_LIMITS };
}

/** One check on the home page: keyed by its id in the registry. */
interface Showcase {
  id: string;
  /** The card's text, when it says more than the entry's description. */
  description?: string;
  /** Short facts after the check's path on its card. */
  facts: string[];
  /** Where its rubric is explained. */
  rubric: string;
  /** Its example report, and one sentence on where it comes from. */
  example: { body(): unknown; source: string };
}

const SHOWCASES: readonly Showcase[] = [
  {
    id: 'ai-visibility',
    description: visibilityCheckDescription().description,
    facts: [`${CRAWLERS.length} crawlers`],
    rubric: '/docs/checks#ai-visibility-rubric',
    example: {
      body: exampleVisibilityBody,
      source: `a real run of the check against a demonstration shop at ${new URL(exampleVisibilityBody().report.checkedUrl).host}, a reserved name that is not a real site`,
    },
  },
  {
    id: 'readiness',
    facts: [],
    rubric: '/docs/checks#readiness-rubric',
    example: { body: exampleReadinessBody, source: 'computed by the same code the API runs, from the example request in the docs' },
  },
];

/**
 * The home page's extras for the checks named, in the order it shows them; a check without any is left out.
 * @example showcases(checks().map((c) => c.id)).map((s) => s.id) // ['ai-visibility', 'readiness']
 */
export function showcases(ids: readonly string[]): readonly Showcase[] {
  return SHOWCASES.filter((s) => ids.includes(s.id));
}
