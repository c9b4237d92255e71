// The record a paid call's answer is kept under for replays, under its Idempotency-Key scope: the body as it
// was sent, the headers a replay sends with it (the JSON headers and the payment's receipt), and the id of
// the report a prepaid call stored. Two writers share it: the pipeline, for a call it fulfilled, and the
// settlement reconciler, for a charge that completed after the call was answered; the pipeline reads it when
// the same key comes back. Records outlive a deploy, so the shape stays what stored records already hold. An
// x402-paid answer also keeps the digest of the payment it settled (see signedX402Payment), so the payer who
// resends those exact bytes after a lost response gets the answer, and nobody else does. A prepaid call's record
// names the report kept in the same store step instead of holding a second copy of its body.

import { receiptFromHeaders, receiptHeaders, type PaymentReceipt } from './wire';

/** How long a paid answer stays replayable under its Idempotency-Key. */
export const REPLAY_TTL_MS = 24 * 60 * 60 * 1000;

/** The headers every record carries besides the payment's receipt. */
const REPLAY_JSON_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/** A record as read back: the body, the receipts (read from the headers it keeps), the stored report's id. */
export interface ReplayRecord {
  /** The body as it was sent; undefined when the record keeps it in its report (`bodyInReport`). */
  body: unknown;
  /** The body is the stored report's (`reportId`), written with it in one store step (writeReportReplayRecord). */
  bodyInReport: boolean;
  receipt: PaymentReceipt;
  reportId: string | null;
  /** The SHA-256 of the x402 payment that paid for the answer (canonical JSON of its payload); null for any other. */
  credentialDigest: string | null;
}

/**
 * The stored text of a replay record. `bodyText` is the body exactly as sent, so it is spliced in rather
 * than parsed and serialised again.
 *
 * @example
 *   writeReplayRecord('{"ok":true}', NO_RECEIPT, 'rep_1')
 *   // '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"body":{"ok":true},"report":"rep_1"}'
 */
export function writeReplayRecord(bodyText: string, receipt: PaymentReceipt, reportId: string | null, credentialDigest: string | null = null): string {
  const headers = JSON.stringify({ ...REPLAY_JSON_HEADERS, ...receiptHeaders(receipt) });
  const report = reportId ? `,"report":${JSON.stringify(reportId)}` : '';
  const credential = credentialDigest ? `,"credential":${JSON.stringify(credentialDigest)}` : '';
  return `{"headers":${headers},"body":${bodyText}${report}${credential}}`;
}

/**
 * The stored text of a replay record whose body is the report kept with it (the same text, stored once): the
 * record names the report and holds no body. Only for a report kept in the same store step as the record and
 * living at least as long (REPLAY_TTL_MS), so a live record always finds it.
 *
 * @example
 *   writeReportReplayRecord(NO_RECEIPT, 'rep_1')
 *   // '{"headers":{"Content-Type":"application/json","Cache-Control":"no-store"},"report":"rep_1"}'
 */
export function writeReportReplayRecord(receipt: PaymentReceipt, reportId: string): string {
  return `{"headers":${JSON.stringify({ ...REPLAY_JSON_HEADERS, ...receiptHeaders(receipt) })},"report":${JSON.stringify(reportId)}}`;
}

/**
 * A stored replay record read back; the JSON headers are dropped, since only the receipt belongs to the outcome.
 *
 * @example
 *   readReplayRecord('{"headers":{"Content-Type":"application/json"},"body":{"ok":true}}')
 *   // { body: { ok: true }, bodyInReport: false, receipt: { mpp: null, x402: null }, reportId: null, credentialDigest: null }
 */
export function readReplayRecord(text: string): ReplayRecord {
  const stored = JSON.parse(text) as { headers: Record<string, string>; body?: unknown; report?: string; credential?: string };
  // Every record written with its body holds a "body" member; one without names the report that holds it.
  const bodyInReport = !('body' in stored) && Boolean(stored.report);
  return { body: stored.body, bodyInReport, receipt: receiptFromHeaders(receiptOf(stored.headers)), reportId: stored.report || null, credentialDigest: stored.credential || null };
}

/**
 * The receipt among a set of stored headers: everything but the JSON headers.
 *
 * @example
 *   receiptOf({ 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Payment-Receipt': 'r' })   // { 'Payment-Receipt': 'r' }
 */
export function receiptOf(headers: Record<string, string>): Record<string, string> {
  const { 'Content-Type': _type, 'Cache-Control': _cache, ...receipt } = headers;
  return receipt;
}
