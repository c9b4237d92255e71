import { z } from 'zod';
import type { Store } from '@/lib/store/types';
import { markdownText } from './markdown-text';

// What a check is, in one object: the entry each check folder exports (lib/checks/<name>/entry.ts) and the
// registry lists (lib/checks/registry.ts). Every surface reads it: the REST route (/api/agent/<id>), the
// site's route (/api/session/checks/<id>), the MCP tool, the stored report and its history row, the Markdown,
// OpenAPI, the docs and /llms.txt. What the site draws of it is the one thing it does not hold: React components
// live in components/checks/<id>/ and are looked up by the check's id there (components/checks/index.ts), so lib
// imports no component and the browser's bundle never pulls in a check's `run`.

/** What the pipeline hands a check's `run` besides its input. */
interface CheckContext {
  signal: AbortSignal;
  now: Date;
  /**
   * Counts one request a check is about to send against the budget for the minute of the registrable domain it
   * names (OUTBOUND_REQUESTS_PER_DOMAIN_PER_MINUTE) or of the address it connects to
   * (OUTBOUND_REQUESTS_PER_ADDRESS_PER_MINUTE), in the store; `allowed` false: do not send it. A check asks for the
   * domain before it resolves the name and for the address last, just before it sends: from the first address
   * admitted on, the check has reached someone, and it runs to its end even if its caller goes away.
   */
  spendOutbound?: (target: { kind: 'domain' | 'address'; key: string }) => Promise<{ allowed: boolean; retryAfterMs: number }>;
  /**
   * Told when the checked site first answered (any HTTP status). A check of a site that ends before then is
   * given back to the site's budget and counted against its caller's costly-failure budget instead.
   */
  siteAnswered?: () => void;
  /**
   * Who pays for this call: `key:<hash>` for a credits key, `payer:<hash>` for a verified payer, `ip:<address>`
   * when a credential names no payer. Shared resources (the renderer) are shared fairly between owners.
   */
  owner?: string;
  /**
   * The store's capped counters and named records, for a check that keeps a ledger of its own (the endpoint check's
   * probe spending: its daily cap across checks and instances, and each transfer it made).
   */
  records?: Pick<Store, 'addCapped' | 'setRecord' | 'listRecords'>;
}

/**
 * The part of a check a browser may load (no `run`, nothing that fetches): how its 200 body reads as a history
 * row and as Markdown, and how a person names it. components/ imports this much of a check and no more.
 */
export interface CheckReport {
  /** The check's one public name: path tail (/api/agent/<id>), site route, stored report kind, the site's tab. */
  id: string;
  /** What a person calls it on the site (tabs, the history table). */
  label: string;
  /**
   * What a history row shows of a 200 body: what was checked, the score (null when it has none), and the
   * verdict as a code (one of `verdicts`), null when it gives none.
   */
  facts(body: unknown): { target: string; score: number | null; verdict?: string | null };
  /** The verdict codes `facts` gives, in words and tone: how the history and a comparison say and colour them. */
  verdicts?: Readonly<Record<string, Verdict>>;
  /** The findings of a 200 body by id, with the words that name each (comparing two runs); absent: none. */
  findings?(body: unknown): Array<{ id: string; severity: string; title: string }>;
  /** The 200 body as Markdown, every finding included (the MCP tool's text, the site's "Copy as Markdown"). */
  markdown(body: Record<string, unknown>): string;
  /** What the top of the report says (every view's header, the exports' file name, the Markdown's date line); null for a body it cannot read. */
  headline?(body: unknown): ReportHeadline | null;
  /** The three to five findings that cost most, for the top of the report; none when nothing needs fixing. */
  topFixes?(body: unknown): TopFix[];
  /** The order `topFixes` follows, in one sentence the report prints above them (why it may differ from severity order). */
  topFixesOrder?: string;
  /** The score by category, in the rubric's order, for the gauges under the header; none when the body has no score. */
  categories?(body: unknown): ReportCategory[];
  /** What earned all its points, in words, for the folded list of passed audits. */
  passed?(body: unknown): PassedAudit[];
}

/** One category of a report's score: its name in words, the points earned of those it could earn, and its section's anchor. */
export interface ReportCategory {
  label: string;
  earned: number;
  /** The points tested in this category; 0 when nothing in it could be tested. */
  max: number;
  /** The id of the category's section in the report, after the view's prefix (`<idPrefix>-<anchor>`). */
  anchor: string;
}

/** One audit that passed, as a sentence or title a person reads (never an id). */
export interface PassedAudit {
  key: string;
  title: string;
}

/** A verdict in words, and the tone that colours it (the words carry the meaning, the colour repeats it). */
export interface Verdict {
  words: string;
  tone: ScoreBand;
}

/** The top of a report, in words: what was checked, its score and verdict, one sentence, and when. */
export interface ReportHeadline {
  /** The report's heading ("AI visibility of …", "Payment readiness of …"), without the target. */
  title: string;
  /** What was checked: the page's address, or the workflow's name. */
  target: string;
  targetIsUrl: boolean;
  score: number | null;
  scoreMax: number | null;
  /** What the score measures, for the gauge's accessible name ("Visibility score"). */
  scoreLabel: string;
  verdict: string;
  tone: ScoreBand;
  /** One sentence on what the report found. */
  summary: string;
  /** When the check ran (ISO 8601); null when the body does not say. */
  at: string | null;
  /** The verb of `at` ("Checked", "Assessed"). */
  atVerb: string;
}

/** One of the fixes the top of a report leads with: the finding's title and fix, and where the full finding is. */
export interface TopFix {
  /** The finding's position in the body's findings, which names its anchor in the view. */
  index: number;
  id: string;
  severity: string;
  title: string;
  fix: string;
  pointsLost: number;
}

/**
 * `value` as an object to read members from, or `{}` for anything else (null, an array, a string): a stored answer
 * is read whatever shape it has, never trusted to have the one its check gives today.
 * @example fieldsOf(fieldsOf(body).report).crawlers // the report's crawlers, or undefined
 */
export function fieldsOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * `value`'s items as objects to read members from (see fieldsOf), or `[]` when it is not an array.
 * @example listOf(fieldsOf(body).findings).map((f) => f.id)
 */
export function listOf(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.map((item) => fieldsOf(item)) : [];
}

type ScoreBand = 'good' | 'fair' | 'poor';

/**
 * The band a score falls in: 80 % and more good, 50 % and more fair, else poor (the gauge's colour, a verdict's tone).
 * @example scoreBand(92, 100) // 'good'
 */
export function scoreBand(score: number, max: number): ScoreBand {
  const share = max > 0 ? score / max : 0;
  return share >= 0.8 ? 'good' : share >= 0.5 ? 'fair' : 'poor';
}

/**
 * A report's date in words, in UTC, the same on the server and in the browser.
 * @example reportDate('2026-11-01T12:00:00.000Z') // '1 November 2026, 12:00 UTC'
 */
export function reportDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const month = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'][d.getUTCMonth()];
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}, ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')} UTC`;
}

export interface CheckSpec<S extends z.ZodType, D extends z.ZodObject> extends CheckReport {
  /** The OpenAPI operationId; also the metric label, and part of every idempotency scope (so it never changes). */
  operationId: string;
  /** The MCP tool's name. */
  toolName: string;
  /** Its full name, in every 200 body's `service`. */
  service: string;
  summary: string;
  description: string;
  input: S;
  /** The full 200 body (the pipeline's envelope, `paidResult`, plus what `run` returns): the MCP tool's outputSchema. */
  output: z.ZodType;
  /** A valid request body, shown in the docs and the OpenAPI document (and sent by `mppx validate`). */
  example: z.infer<S>;
  /**
   * What `run` answers, as a real run of the check answered (the check's own members of the 200 body): the example
   * answer directories show (the x402 `bazaar` extension of the 402). Called once per process.
   */
  exampleAnswer(): Record<string, unknown>;
  /** Checks beyond the schema that must refuse with 400 before any payment is asked for. */
  precheck?(input: z.infer<S>): void;
  /**
   * The site the check fetches from (the registrable domain of its address), when it fetches a site: the
   * pipeline then holds it to the per-site budget (CHECKS_PER_SITE_PER_MINUTE), across all callers,
   * before any charge.
   */
  targetHost?(input: z.infer<S>): string;
  /** True when the work can fail for reasons outside the buyer's request body (it then runs before any charge). */
  workBeforeCharge: boolean;
  /** The check's own members of the 200 body; the pipeline adds service, idempotencyKey and the payment reference. */
  run(input: z.infer<S>, context: CheckContext): Promise<Record<string, unknown>>;
  /**
   * The check's own failures (thrown by `precheck` or `run`) in the service's error vocabulary: a ProblemError.
   * Anything it does not know it returns as it is.
   */
  problemOf?(error: unknown): unknown;
  /**
   * True for an error `run` threw after holding shared capacity to its deadline (an analysis thread that ran
   * away, a queue for one that never freed): the pipeline counts it against the caller's costly-failure budget
   * (RATE_LIMIT_COSTLY_FAILURES), since a failed run is never charged. Absent: no failure is costly.
   */
  costlyFailure?(error: unknown): boolean;
  /** The members `describe` adds to the free GET's 200 body (its schema in OpenAPI and the docs). */
  described: D;
  /** What the free GET on the check's path describes besides price and rails. */
  describe(): z.infer<D>;
  /** One line about a 200 body, for a client that shows text when the Markdown cannot be made. */
  summarize(body: Record<string, unknown>): string;
  /** What the check holds for the life of the process (a shared browser), released once a shutdown's drain is over. */
  close?(): Promise<void>;
}

/** A check as every surface sees it: its spec, with the input types erased so a list can hold them all. */
export interface CheckEntry extends CheckSpec<z.ZodType, z.ZodObject> {
  /** Its REST path, `/api/agent/<id>`. */
  path: string;
}

/** The public name's shape: a path segment, a report kind and a CSS-safe id all at once. */
const CHECK_ID = /^[a-z][a-z0-9-]{1,40}$/;

/**
 * A check's entry from its spec: the REST path follows from its id. Checked here, once, so the spec's input
 * type holds inside `run` and `precheck` and the registry can still list every check together.
 * @example export const echoCheck = defineCheck({ id: 'echo', … })
 */
export function defineCheck<S extends z.ZodType, D extends z.ZodObject>(spec: CheckSpec<S, D>): CheckEntry {
  if (!CHECK_ID.test(spec.id)) throw new Error(`check id "${spec.id}" is not a lower-case path segment`);
  // The spec's functions take its own input type; the pipeline only ever passes them input its `input` parsed.
  return { ...(spec as unknown as CheckSpec<z.ZodType, z.ZodObject>), path: `/api/agent/${spec.id}` };
}

/**
 * The 200 body's schema: what the pipeline adds to every answer (which service, the Idempotency-Key, how the
 * call was paid, the limits and the artifact's hash) around the check's own members. Nested objects are loose:
 * the schema names what a client can rely on without freezing every detail of a report (its own versions say
 * when those change).
 * @example output: paidResult({ assessedAt: z.string(), assessment: ReadinessAssessmentSchema })
 */
export function paidResult<T extends z.ZodRawShape>(shape: T) {
  return z.looseObject({
    service: z.string(),
    idempotencyKey: z.string(),
    /** The credits reservation spent (prepaid key), or the PaymentIntent id / transaction hash (402 rails). */
    creditsUsage: z.string().optional(),
    paymentIntent: z.string().optional(),
    limits: z.array(z.string()),
    artifactHash: z.string(),
    ...shape,
  });
}

/**
 * The 200 body of a paid call, built beside its schema (`paidResult`): the envelope (which service, the
 * Idempotency-Key, how the call was paid) around the check's own members, in that order.
 * @example paidBody('AI Visibility Check', 'idem-0001', { creditsUsage: 'cu_1' }, { report, limits, artifactHash }).idempotencyKey // 'idem-0001'
 */
export function paidBody(service: string, idempotencyKey: string, reference: Record<string, string>, result: Record<string, unknown>) {
  return { service, idempotencyKey, ...reference, ...result };
}

/**
 * A check's example answer (its entry's `exampleAnswer`) as a 200 body without what a payment adds: the example
 * report the home page shows, and the real report the tests read.
 * @example exampleBody(readinessCheck).assessedAt // '2026-11-01T12:00:00.000Z'
 */
export function exampleBody(check: Pick<CheckEntry, 'service' | 'exampleAnswer'>): Record<string, unknown> {
  return { service: check.service, ...check.exampleAnswer() };
}

/**
 * A check's 200 body as the Markdown every surface shows: the check's own Markdown (every finding), with the date it
 * ran and, when the report has one, its permanent address under the title. Pure, so the site's "Copy as Markdown"
 * and the MCP tool's text are the same words.
 * @example checkMarkdown(readinessReport, body, 'https://checks.example/reports/rep_…') // "# Agent payment readiness: …\n\nAssessed 1 November 2026, 12:00 UTC · Permalink: https://…"
 */
export function checkMarkdown(report: Pick<CheckReport, 'markdown' | 'headline'>, body: unknown, permalink?: string): string {
  const b = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const markdown = report.markdown(b);
  const headline = report.headline?.(b) ?? null;
  // The date is read from the body (shown as it is when it is no date), so it is printed as text; the permalink is ours.
  const meta = [headline?.at ? `${markdownText(headline.atVerb)} ${markdownText(reportDate(headline.at))}` : null, permalink ? `Permalink: ${permalink}` : null].filter((x) => x !== null);
  if (!meta.length) return markdown;
  // Under the title line, so a pasted report says when it was made and where it lives before anything else.
  const cut = markdown.indexOf('\n');
  return cut < 0 ? `${markdown}\n\n${meta.join(' · ')}` : `${markdown.slice(0, cut)}\n\n${meta.join(' · ')}${markdown.slice(cut)}`;
}
