import { CAPABILITY_RULES } from './rubric';
import { PHASE_TITLES } from './plan';
import { EFFORT_SCALE } from './content';
import type { Verdict } from '@/lib/checks/entry';

// The readiness report's words, used by the site's view and the Markdown alike: every member a person sees is
// labelled here, so no field name (a capability key, a phase id, an evidence kind, a verdict code) reaches a
// reader as it is. A value a later version adds still shows,
// turned into words ("before-go-live" reads "Before go live").

/** The verdicts in words and tone, as the report's header, the Markdown and the history say them. */
export const READINESS_VERDICT: Readonly<Record<string, Verdict>> = {
  'not-ready': { words: 'Not ready', tone: 'poor' },
  'ready-with-gaps': { words: 'Ready, with gaps', tone: 'fair' },
  ready: { words: 'Ready', tone: 'good' },
};

/** A verdict in words, e.g. "Not ready" for `not-ready`. */
export const verdictLabel = (verdict: string): string => READINESS_VERDICT[verdict]?.words ?? words(verdict);

export { severityLabel } from '@/lib/checks/severity';

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

/**
 * The capabilities in the groups the report's gauges show, in the rubric's order: taking an agent's payment, knowing
 * who pays, and keeping what was paid for. A capability a later rubric adds and no group names falls in the last.
 */
export const CAPABILITY_GROUPS: ReadonlyArray<{ key: string; label: string; capabilities: readonly string[] }> = [
  { key: 'agent-payments', label: 'Agent payments', capabilities: ['machine_discovery', 'payment_challenge_and_receipt', 'idempotency'] },
  { key: 'buyers', label: 'Buyers and wallets', capabilities: ['user_authentication', 'wallet_ownership', 'onramp_provider_handoff'] },
  { key: 'fulfilment', label: 'Fulfilment and records', capabilities: ['webhook_verification', 'durable_fulfillment', 'delivery_evidence', 'recovery_and_reconciliation'] },
];

/**
 * The group a capability's gauge counts it in.
 * @example capabilityGroup('idempotency') // 'agent-payments'
 */
export const capabilityGroup = (key: string): string => CAPABILITY_GROUPS.find((g) => g.capabilities.includes(key))?.key ?? CAPABILITY_GROUPS[CAPABILITY_GROUPS.length - 1].key;
