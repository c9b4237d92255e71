import crypto from 'node:crypto';
import { z } from 'zod';
import type { Store } from '@/lib/store';
import type { KeptReport, ReportCursor, ReportSummary, StoredReport } from '@/lib/store/types';
import { ProblemError } from '@/lib/problems';
import { digestsEqual } from '@/lib/credits/keys';
import { sha256Hex } from '@/lib/canonical-json';
import { USAGE_ID_PREFIX } from '@/lib/credits/ledger';
import type { CheckReport } from '@/lib/checks/entry';
import { checks } from '@/lib/checks/registry';

// Stored reports: the 200 body of every fulfilled call paid with a credits key (site, REST or MCP) or by a
// wallet (MPP evm, x402), kept for its owner for REPORT_RETENTION_DAYS. The owner is the key's hash, or the
// wallet's (walletOwner). A report is found by an unguessable id, and still only answered to the owner that
// paid for it: anyone else, and an id that never was, get the same 404.

const DAY_MS = 24 * 60 * 60 * 1000;

/** `rep_` + 192 random bits (base64url). */
export const REPORT_ID_PATTERN = /^rep_[A-Za-z0-9_-]{32}$/;

/**
 * One row of GET /api/reports; `check` is the id of the check that made it (lib/checks/registry.ts), the name
 * the `check` query parameter, GET /api/reports/<id>/compare/<other> and the site's routes use for it. A
 * key's report names the prepaid call it spent (`creditsUsage`), a wallet's the settlement's transaction
 * (`paymentReference`).
 */
export const ReportListItem = z.strictObject({
  id: z.string().regex(REPORT_ID_PATTERN),
  check: z.enum(checks().map((c) => c.id) as [string, ...string[]]),
  createdAt: z.string(),
  creditsUsage: z.string().optional(),
  paymentReference: z.string().optional(),
  target: z.string(),
  score: z.number().nullable(),
  /** The check's verdict as its entry's report words it (a readiness verdict, or the score's band good, fair, poor); null when none. */
  verdict: z.string().nullable(),
});
export type ReportListItem = z.infer<typeof ReportListItem>;

/** The 200 body of GET /api/reports. */
export const ReportList = z.strictObject({ reports: z.array(ReportListItem), nextCursor: z.string().nullable() });
export type ReportList = z.infer<typeof ReportList>;

const REPORT_PAGE_DEFAULT = 20;
export const REPORT_PAGE_MAX = 100;

/**
 * The owner a wallet's reports are filed under: a hash of its address (any case), so the store keeps no address
 * and a wallet's owner can never equal a key's hash.
 * @example walletOwner('0xAbC…') === walletOwner('0xabc…') // true
 */
export function walletOwner(address: string): string {
  return sha256Hex(`wallet:${address.toLowerCase()}`);
}

/** What a fulfilled call's report is made of; see `saveReport`. */
interface ReportSource {
  keyHash: string;
  check: CheckReport;
  creditsUsage: string;
  input: unknown;
  body: unknown;
  bodyText: string;
}

/**
 * A fulfilled call's report as the store keeps it, with a new id, not yet stored: filed under the check's id, with
 * the target and score its entry reads from the body for the history row, living `retentionDays`. For a caller that
 * keeps it in another store step (`Store.finishReservation`); `saveReport` stores one on its own.
 * @example const kept = reportToKeep({ keyHash, check, creditsUsage, input, body, bodyText }, Date.now(), 30); kept.report.id // 'rep_…'
 */
export function reportToKeep(report: ReportSource, now: number, retentionDays: number): KeptReport {
  const id = `rep_${crypto.randomBytes(24).toString('base64url')}`;
  const { target, score, verdict = null } = report.check.facts(report.body);
  return {
    report: {
      id, keyHash: report.keyHash, operation: report.check.id, createdAt: now, creditsUsage: report.creditsUsage, target, score, verdict,
      body: report.bodyText, input: JSON.stringify(report.input),
    },
    ttlMs: retentionDays * DAY_MS,
  };
}

/**
 * Keeps a fulfilled call's 200 body for its owner and returns the new report's id (see `reportToKeep`).
 * `creditsUsage` is what paid: a prepaid call's usage id (the store files the report under whoever holds that call
 * at that moment, so a key rotated while the check ran keeps it), or a wallet's settlement reference with `keyHash`
 * its walletOwner. The verdict comes from the check's entry, and the validated input is kept so the owner can run
 * the same check again.
 * @example const id = await saveReport(store, { keyHash, check, creditsUsage, input, body, bodyText }, Date.now(), 30);
 */
export async function saveReport(store: Store, report: ReportSource, now: number, retentionDays: number): Promise<string> {
  const kept = reportToKeep(report, now, retentionDays);
  await store.putReport(kept.report, now, kept.ttlMs);
  return kept.report.id;
}

/** The address of a report's JSON (what the Link header and the MCP `_meta` name). */
export const reportPath = (id: string) => `/api/reports/${id}`;

/** The address of a report's page, for a person signed in with the key that paid for it. */
export const reportPagePath = (id: string) => `/reports/${encodeURIComponent(id)}`;

const badQuery = (name: string, message: string) =>
  new ProblemError('invalid-request', `The ${name} parameter ${message}.`, { errors: [{ path: `query:${name}`, message }] });

function encodeCursor(c: ReportCursor): string {
  return Buffer.from(`${c.createdAt}:${c.id}`).toString('base64url');
}

function decodeCursor(cursor: string): ReportCursor {
  const match = /^(\d{1,16}):(rep_[A-Za-z0-9_-]{32})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badQuery('cursor', 'is not a cursor this API gave out');
  return { createdAt: Number(match[1]), id: match[2] };
}

/**
 * Whether `cursor` is one this API gave out (a page that gets another shows its first view instead).
 * @example isReportCursor('zzz') // false
 */
export function isReportCursor(cursor: string): boolean {
  try {
    decodeCursor(cursor);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads `limit` and `cursor` as they come in a query string (strings or absent): 400 problems for bad values.
 * @example parsePage({ limit: url.searchParams.get('limit'), cursor: url.searchParams.get('cursor') })
 */
function parsePage(query: { limit?: string | number | null; cursor?: string | null }): { limit: number; cursor: string | null } {
  let limit = REPORT_PAGE_DEFAULT;
  if (query.limit !== null && query.limit !== undefined && query.limit !== '') {
    limit = typeof query.limit === 'number' ? query.limit : /^\d{1,4}$/.test(query.limit) ? Number(query.limit) : NaN;
    if (!Number.isInteger(limit) || limit < 1 || limit > REPORT_PAGE_MAX) throw badQuery('limit', `must be a whole number from 1 to ${REPORT_PAGE_MAX}`);
  }
  const cursor = query.cursor ? query.cursor : null;
  if (cursor !== null) decodeCursor(cursor);
  return { limit, cursor };
}

const toItem = (r: ReportSummary): ReportListItem => ({
  id: r.id,
  check: r.operation,
  createdAt: new Date(r.createdAt).toISOString(),
  ...(r.creditsUsage.startsWith(USAGE_ID_PREFIX) ? { creditsUsage: r.creditsUsage } : { paymentReference: r.creditsUsage }),
  target: r.target,
  score: r.score,
  verdict: r.verdict,
});

/** Rows read per store call while filtering by check, and at most in all (a key's month of checks fits easily). */
const FILTER_SCAN_PAGE = 100;
const FILTER_SCAN_MAX = 2000;

/** Up to `want` of the key's reports after `before`, of `check` only when given (the store lists all checks). */
async function matchingRows(store: Store, keyHash: string, now: number, want: number, before: ReportCursor | undefined, check: string | null): Promise<ReportSummary[]> {
  if (check === null) return store.listReports(keyHash, now, { limit: want, ...(before ? { before } : {}) });
  const found: ReportSummary[] = [];
  let from = before;
  for (let seen = 0; found.length < want && seen < FILTER_SCAN_MAX; seen += FILTER_SCAN_PAGE) {
    const rows = await store.listReports(keyHash, now, { limit: FILTER_SCAN_PAGE, ...(from ? { before: from } : {}) });
    found.push(...rows.filter((r) => r.operation === check));
    const last = rows.at(-1);
    if (rows.length < FILTER_SCAN_PAGE || !last) break;
    from = { createdAt: last.createdAt, id: last.id };
  }
  return found.slice(0, want);
}

/**
 * One page of a key's live reports, newest first (of one check when `check` names one); `nextCursor` continues it (null on the last page).
 * @example const { reports, nextCursor } = await reportPage(store, keyHash, { limit: 20, cursor: null }, Date.now());
 */
export async function reportPage(
  store: Store,
  keyHash: string,
  page: { limit?: number; cursor?: string | null; check?: string | null },
  now: number,
): Promise<ReportList> {
  const { limit, cursor } = parsePage({ limit: page.limit ?? null, cursor: page.cursor ?? null });
  const check = page.check ? page.check : null;
  if (check !== null && !checks().some((c) => c.id === check)) throw badQuery('check', `must be one of ${checks().map((c) => c.id).join(', ')}`);
  // One more than asked says whether another page follows without a second query.
  const rows = await matchingRows(store, keyHash, now, limit + 1, cursor ? decodeCursor(cursor) : undefined, check);
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { reports: shown.map(toItem), nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/**
 * The stored 200 body of report `id` when `keyHash` paid for it, else null (unknown, expired, or another key's).
 * @example const body = await ownReport(store, keyHash, 'rep_…', Date.now()); if (!body) notFound();
 */
export async function ownReport(store: Store, keyHash: string, id: string, now: number): Promise<OwnReport | null> {
  if (!REPORT_ID_PATTERN.test(id)) return null;
  const report = await store.getReport(id, now);
  if (!report || !digestsEqual(report.keyHash, keyHash)) return null;
  return readReport(report);
}

/** A stored report as its owner (or a share link) reads it: the body and input parsed, the time as ISO text. */
export interface OwnReport {
  id: string;
  operation: string;
  createdAt: string;
  target: string;
  score: number | null;
  verdict: string | null;
  body: unknown;
  /** The validated request body that made it; null when the report was kept before inputs were. */
  input: unknown;
}

/**
 * A stored report as callers read it.
 * @example readReport(await store.getReport(id, now))
 */
export function readReport(report: StoredReport): OwnReport {
  return {
    id: report.id,
    operation: report.operation,
    createdAt: new Date(report.createdAt).toISOString(),
    target: report.target,
    score: report.score,
    verdict: report.verdict,
    body: JSON.parse(report.body) as unknown,
    input: report.input === null ? null : (JSON.parse(report.input) as unknown),
  };
}
