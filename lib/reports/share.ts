import crypto from 'node:crypto';
import type { Store } from '@/lib/store';
import type { StoredReport } from '@/lib/store/types';
import { USAGE_ID_PREFIX } from '@/lib/credits/ledger';
import { sha256Hex } from '@/lib/canonical-json';
import { REPORT_ID_PATTERN, ownReport, readReport, type OwnReport } from './store';

// Share links: the owner of a report makes it readable by anyone holding a link `/r/<token>`. The token is
// 192 random bits, unrelated to the report's id, and the store keeps only its SHA-256: a copy of the store
// gives out no working link. Two records tie it together, `share:<token hash>` → report id and
// `report-share:<report id>` → token hash; a link opens only while both agree, so revoking takes the second
// (one step) and any older link of the same report stops at once. Both live as long as the report can.
// A link also stops with the key that paid for the report: revoking a key ends every link to its reports, those
// made before included, since the owner can no longer sign in to revoke them. The key is read when the link is
// opened, so nothing has to be found and deleted at revocation. Rotation moves the reports to the new key, which
// is live, so their links keep working and the new key's owner can revoke them.

const DAY_MS = 24 * 60 * 60 * 1000;

/** `shr_` + 192 random bits (base64url): the link's only secret. */
const SHARE_TOKEN_PATTERN = /^shr_[A-Za-z0-9_-]{32}$/;

const byToken = (tokenHash: string) => `share:${tokenHash}`;
const byReport = (id: string) => `report-share:${id}`;

/** Where a share link opens. */
const sharePath = (token: string) => `/r/${token}`;

/**
 * Makes the key's report `id` public under a new link, replacing any earlier link of it (which stops working);
 * null when the report is not the key's. The token is returned once: only its hash is kept.
 * @example const shared = await shareReport(store, keyHash, 'rep_…', Date.now(), 30); // { token: 'shr_…', path: '/r/shr_…' }
 */
export async function shareReport(store: Store, keyHash: string, id: string, now: number, retentionDays: number): Promise<{ token: string; path: string } | null> {
  const report = await ownReport(store, keyHash, id, now);
  if (!report) return null;
  const token = `shr_${crypto.randomBytes(24).toString('base64url')}`;
  const tokenHash = sha256Hex(token);
  const ttl = Date.parse(report.createdAt) + retentionDays * DAY_MS - now;
  await store.setRecord(byToken(tokenHash), id, now, Math.max(ttl, 1));
  const earlier = await store.takeRecord(byReport(id), now);
  await store.setRecord(byReport(id), tokenHash, now, Math.max(ttl, 1));
  if (earlier && earlier !== tokenHash) await store.takeRecord(byToken(earlier), now);
  return { token, path: sharePath(token) };
}

/**
 * Stops the key's report `id` being public: its link answers 404 from now on. Null when the report is not the
 * key's; false when it was not shared.
 * @example if ((await revokeShare(store, keyHash, id, Date.now())) === null) notFound();
 */
export async function revokeShare(store: Store, keyHash: string, id: string, now: number): Promise<boolean | null> {
  if (!(await ownReport(store, keyHash, id, now))) return null;
  const tokenHash = await store.takeRecord(byReport(id), now);
  if (tokenHash) await store.takeRecord(byToken(tokenHash), now);
  return tokenHash !== null;
}

/**
 * Whether report `id` has a live share link (the owner's page shows "shared" and offers revoking).
 * @example const shared = await isShared(store, id, Date.now());
 */
export async function isShared(store: Store, id: string, now: number): Promise<boolean> {
  return REPORT_ID_PATTERN.test(id) && (await store.getRecord(byReport(id), now)) !== null;
}

/**
 * Whether the owner of a report may still have it shared: a key's report only while that key is live (a revoked
 * key, or one the store no longer knows, ends it); a wallet's report always (a wallet cannot be revoked). A
 * prepaid call's usage id says the report was paid with a key.
 */
async function ownerIsLive(store: Store, report: StoredReport): Promise<boolean> {
  if (!report.creditsUsage.startsWith(USAGE_ID_PREFIX)) return true;
  const key = await store.getKey(report.keyHash);
  return key !== null && key.revokedAt === null;
}

/**
 * The report a share link opens, or null (malformed, unknown, revoked or replaced link, the report expired, or
 * the key that paid for it revoked).
 * @example const report = await sharedReport(store, params.token, Date.now()); if (!report) notFound();
 */
export async function sharedReport(store: Store, token: string, now: number): Promise<OwnReport | null> {
  if (!SHARE_TOKEN_PATTERN.test(token)) return null;
  const tokenHash = sha256Hex(token);
  const id = await store.getRecord(byToken(tokenHash), now);
  if (!id || (await store.getRecord(byReport(id), now)) !== tokenHash) return null;
  const report = await store.getReport(id, now);
  if (!report || !(await ownerIsLive(store, report))) return null;
  const read = readReport(report);
  // What names the payer's call (its reservation, its Idempotency-Key, its payment) stays with the owner.
  const { idempotencyKey: _k, creditsUsage: _c, paymentIntent: _p, ...rest } = read.body as Record<string, unknown>;
  return { ...read, body: rest, input: null };
}
