import { CAPABILITY_RULES } from '@/lib/checks/readiness/rubric';
import { PHASE_TITLES } from '@/lib/checks/readiness/plan';
import { EFFORT_SCALE } from '@/lib/checks/readiness/content';

// The readiness report's words: every member a person sees is labelled here, so no field name (a capability
// key, a phase id, an evidence kind) reaches the page as it is. A value a later version adds still shows,
// turned into words ("before-go-live" reads "Before go live").

const CAPABILITY_TITLE = new Map<string, string>(CAPABILITY_RULES.map((c) => [c.key, c.title]));

/** "some_key-name" read as words: "Some key name". */
function words(id: string): string {
  const s = id.replace(/[_.-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** A capability's title, e.g. "Durable fulfilment" for `durable_fulfillment`. */
export const capabilityTitle = (key: string): string => CAPABILITY_TITLE.get(key) ?? words(key);

/** A plan phase's title, e.g. "Before the first payment". */
export const phaseTitle = (phase: string, given?: string): string => given || (PHASE_TITLES as Record<string, string>)[phase] || words(phase);

const STATUS_LABEL: Record<string, string> = { implemented: 'Implemented', partial: 'Partial', missing: 'Missing', unknown: 'Unknown' };
export const statusLabel = (s: string): string => STATUS_LABEL[s] ?? words(s);

const EVIDENCE_KIND: Record<string, string> = {
  url: 'Address',
  path: 'File path',
  test: 'Test',
  command: 'Command',
  reference: 'Record',
  statement: 'Statement',
};
export const evidenceKindLabel = (kind: string): string => EVIDENCE_KIND[kind] ?? words(kind);

const EFFORT_LABEL: Record<string, string> = { small: 'Small', medium: 'Medium', large: 'Large' };
export const effortLabel = (effort: string): string => EFFORT_LABEL[effort] ?? words(effort);
/** What an effort means, as the rubric publishes it. */
export const effortMeaning = (effort: string): string | undefined => (EFFORT_SCALE as Record<string, string>)[effort];
