import { z } from 'zod';
import type { Store } from '@/lib/store';
import type { ReportSummary } from '@/lib/store/types';
import { ProblemError } from '@/lib/problems';
import { checkById } from '@/lib/checks/registry';
import { REPORT_ID_PATTERN, ownReport, type OwnReport } from './store';

// Two runs of one check on one address, side by side: the score's change and each finding as fixed, new or
// unchanged, matched by the finding's id (a rubric item's id names the same problem from run to run).

const Side = z.strictObject({
  id: z.string().regex(REPORT_ID_PATTERN),
  createdAt: z.string(),
  score: z.number().nullable(),
  verdict: z.string().nullable(),
});

const ComparedFinding = z.strictObject({
  id: z.string(),
  status: z.enum(['fixed', 'new', 'unchanged']),
  severity: z.string(),
  title: z.string(),
});

/** The 200 body of GET /api/reports/<id>/compare/<otherId>: `before` is the older report, whichever id came first. */
export const ReportComparison = z.strictObject({
  check: z.string(),
  target: z.string(),
  before: Side,
  after: Side,
  /** after.score − before.score; null when either has no score. */
  scoreChange: z.number().nullable(),
  counts: z.strictObject({ fixed: z.number().int(), new: z.number().int(), unchanged: z.number().int() }),
  /** New first, then fixed, then unchanged; each group in the order its report lists them. */
  findings: z.array(ComparedFinding),
});
export type ReportComparison = z.infer<typeof ReportComparison>;

const notFound = () => new ProblemError('not-found', 'No report with this id belongs to this key (reports are kept 30 days by default).');

const notComparable = (message: string) =>
  new ProblemError('invalid-request', `These two reports cannot be compared: ${message}.`, { errors: [{ path: 'path:otherId', message }] });

function side(report: OwnReport): z.infer<typeof Side> {
  return { id: report.id, createdAt: report.createdAt, score: report.score, verdict: report.verdict };
}

/**
 * Compares two reports of the same owner, check and target: 404 (`not-found`) when either is not the key's,
 * 400 (`invalid-request`) for one report twice, two checks, or two addresses.
 * @example const c = await compareReports(store, keyHash, 'rep_new…', 'rep_old…', Date.now()); c.scoreChange // 12
 */
export async function compareReports(store: Store, keyHash: string, id: string, otherId: string, now: number): Promise<ReportComparison> {
  const [one, other] = await Promise.all([ownReport(store, keyHash, id, now), ownReport(store, keyHash, otherId, now)]);
  if (!one || !other) throw notFound();
  if (one.id === other.id) throw notComparable('a report compared with itself has no change');
  if (one.operation !== other.operation) throw notComparable(`one is a ${one.operation} report, the other a ${other.operation} report`);
  if (one.target !== other.target) throw notComparable('they checked different addresses or workflows');
  const [before, after] = one.createdAt < other.createdAt || (one.createdAt === other.createdAt && one.id < other.id) ? [one, other] : [other, one];
  const read = checkById(one.operation)?.findings ?? (() => []);
  const was = read(before.body);
  const is = read(after.body);
  const wasIds = new Set(was.map((f) => f.id));
  const isIds = new Set(is.map((f) => f.id));
  const findings = [
    ...is.filter((f) => !wasIds.has(f.id)).map((f) => ({ ...f, status: 'new' as const })),
    ...was.filter((f) => !isIds.has(f.id)).map((f) => ({ ...f, status: 'fixed' as const })),
    ...is.filter((f) => wasIds.has(f.id)).map((f) => ({ ...f, status: 'unchanged' as const })),
  ];
  const count = (status: string) => findings.filter((f) => f.status === status).length;
  return {
    check: one.operation,
    target: one.target,
    before: side(before),
    after: side(after),
    scoreChange: before.score === null || after.score === null ? null : Math.round((after.score - before.score) * 100) / 100,
    counts: { fixed: count('fixed'), new: count('new'), unchanged: count('unchanged') },
    findings,
  };
}

/** Rows read per store call while looking for the previous report. */
const SCAN_PAGE = 100;
/** Reports looked at, at most, before saying there is no previous one (a key's month of checks fits easily). */
const SCAN_MAX = 1000;

/**
 * The key's newest report older than `report` of the same check and target, or null.
 * @example const prev = await previousReport(store, keyHash, { id, createdAt, operation, target }, Date.now());
 */
export async function previousReport(
  store: Store,
  keyHash: string,
  report: { id: string; createdAt: string; operation: string; target: string },
  now: number,
): Promise<ReportSummary | null> {
  let before = { createdAt: Date.parse(report.createdAt), id: report.id };
  for (let seen = 0; seen < SCAN_MAX; seen += SCAN_PAGE) {
    const rows = await store.listReports(keyHash, now, { limit: SCAN_PAGE, before });
    const found = rows.find((r) => r.operation === report.operation && r.target === report.target);
    if (found) return found;
    const last = rows.at(-1);
    if (rows.length < SCAN_PAGE || !last) return null;
    before = { createdAt: last.createdAt, id: last.id };
  }
  return null;
}
