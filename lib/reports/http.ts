// The stored reports' API: list, read, compare, share, stop sharing and re-run, for a credits key (Bearer or
// the site's session) or a paying wallet (Sign-In-With-X). Route handlers the app/ routes export as they are.
import type { Runtime } from '@/lib/runtime';
import { ProblemError } from '@/lib/problems';
import { bearerToken } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { enforceRateLimit } from '@/lib/rate-limit';
import { NO_STORE, runtimeRoute } from '@/lib/http/route';
import { authenticateKey } from '@/lib/credits/ledger';
import { SIWX_HEADER, siwxChallenge, walletFromHeader } from '@/lib/session/wallet';
import { readSession, refuseForeignOrigin, sessionIdOf } from '@/lib/session';
import { ownReport, reportPage } from './store';
import { compareReports } from './compare';
import { revokeShare, shareReport } from './share';
import { reportHar } from './har';

/**
 * Counts one read of stored reports for the client address (RATE_LIMIT_REPORTS_PER_IP), before the key or the
 * session is looked up: each read is a store lookup and up to a whole report sent, to anyone who asks.
 */
export async function countReportRead(request: Request, { config, store }: Runtime): Promise<void> {
  const ip = clientIp(request.headers, config.TRUSTED_PROXY);
  await enforceRateLimit(store, `reports-ip:${ip}`, config.RATE_LIMIT_REPORTS_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, Date.now());
}

/** What each reports request does, as a wallet's signed message for it says (its statement). */
const READ_REPORTS = 'Read the reports this wallet paid for';
const SHARE_REPORT = 'Make a public link to a report this wallet paid for';
const UNSHARE_REPORT = 'Stop the public link to a report this wallet paid for';

/**
 * The owner a reports request speaks for: its Bearer key (checked), else a wallet's SIGN-IN-WITH-X (checked: signed
 * for this very request, its issued nonce spent), else its session; with none, 401 saying how to sign in either way
 * (a message to sign for this request, with a nonce issued for it).
 */
async function reportOwner(request: Request, runtime: Runtime, purpose: string): Promise<string> {
  const bearer = bearerToken(request.headers);
  if (bearer !== null) return authenticateKey(runtime.store, runtime.config.CREDITS_KEY_SECRET, bearer);
  const signed = { method: request.method, path: new URL(request.url).pathname, purpose };
  const signedMessage = request.headers.get(SIWX_HEADER);
  if (signedMessage !== null) return walletFromHeader(runtime.store, signedMessage, runtime.config.APP_URL, signed);
  const session = await readSession(runtime.store, sessionIdOf(request, runtime.config), Date.now());
  if (!session) {
    throw new ProblemError(
      'not-signed-in',
      `Send Authorization: Bearer <credits key>, sign in with a credits key (POST /api/session), or, for a wallet that paid, sign the message in extensions["sign-in-with-x"] as it stands (it is good for this request only, once) and send it base64 in the ${SIWX_HEADER} header.`,
      { extensions: await siwxChallenge(runtime.store, runtime.config.APP_URL, signed) },
    );
  }
  return session.keyHash;
}

/** GET /api/reports?limit=&cursor=&check=: the key's stored reports, newest first (of one check when asked). */
export function reportsGet(request: Request): Promise<Response> {
  return runtimeRoute('reports-list', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    const query = new URL(request.url).searchParams;
    const page = await reportPage(runtime.store, keyHash, { limit: limitOf(query.get('limit')), cursor: query.get('cursor'), check: query.get('check') }, Date.now());
    return Response.json(page, { headers: NO_STORE });
  });
}

/** `limit` as reportPage takes it: absent stays absent, anything else is checked there (400 when bad). */
function limitOf(raw: string | null): number | undefined {
  if (raw === null || raw === '') return undefined;
  return /^\d{1,4}$/.test(raw) ? Number(raw) : NaN;
}

/** What any reader of a report that is not theirs (or that does not exist) is told, whatever they asked of it. */
const notOwnReport = () => new ProblemError('not-found', 'No report with this id belongs to this key or wallet (reports are kept 30 days by default).');

/** GET /api/reports/<id>: the stored 200 body, to the key that paid for it only (404 for anyone else). */
export function reportGet(request: Request, id: string): Promise<Response> {
  return runtimeRoute('report-read', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    const report = await ownReport(runtime.store, keyHash, id, Date.now());
    if (!report) throw notOwnReport();
    return Response.json(report.body, { headers: NO_STORE });
  });
}

/**
 * GET /api/reports/<id>/har: the report's requests as a HAR 1.2 download, under the same owner rule as GET
 * /api/reports/<id> (the same 404 for anyone else); a report that lists no requests is a 404 saying so.
 */
export function reportHarGet(request: Request, id: string): Promise<Response> {
  return runtimeRoute('report-har', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    const report = await ownReport(runtime.store, keyHash, id, Date.now());
    if (!report) throw notOwnReport();
    return Response.json(reportHar(report), {
      headers: { ...NO_STORE, 'content-disposition': `attachment; filename="${report.id}.har"` },
    });
  });
}

export const reportNotFound = () => new ProblemError('not-found', 'No report with this id belongs to this key (reports are kept 30 days by default).');

/**
 * GET /api/reports/<id>/compare/<otherId>: two of the key's reports of one check and one target, compared (the
 * same owner rule as GET /api/reports/<id>: 404 when either is not the key's; 400 for two checks or targets).
 */
export function reportCompareGet(request: Request, id: string, otherId: string): Promise<Response> {
  return runtimeRoute('report-compare', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    return Response.json(await compareReports(runtime.store, keyHash, id, otherId, Date.now()), { headers: NO_STORE });
  });
}

/** POST /api/reports/<id>/share: a new public link to the key's report (any earlier link stops working). */
export function reportSharePost(request: Request, id: string): Promise<Response> {
  return runtimeRoute('report-share', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, SHARE_REPORT);
    const shared = await shareReport(runtime.store, keyHash, id, Date.now(), runtime.config.REPORT_RETENTION_DAYS);
    if (!shared) throw reportNotFound();
    return Response.json({ url: new URL(shared.path, runtime.config.APP_URL).toString(), path: shared.path }, { headers: NO_STORE });
  });
}

/** DELETE /api/reports/<id>/share: the report's public link stops working (204, also when there was none). */
export function reportShareDelete(request: Request, id: string): Promise<Response> {
  return runtimeRoute('report-unshare', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, UNSHARE_REPORT);
    if ((await revokeShare(runtime.store, keyHash, id, Date.now())) === null) throw reportNotFound();
    return new Response(null, { status: 204, headers: NO_STORE });
  });
}
