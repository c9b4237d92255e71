// The HTTP side of signing in on the site and of the stored reports: route handlers the app/ routes
// export as they are. Errors leave through lib/problems.ts (answerWithProblems), like every route.
import type { CheckEntry } from '@/lib/checks/entry';
import { getRuntime, type Runtime } from '@/lib/runtime';
import { ProblemError, answerWithProblems, problem, problemResponse } from '@/lib/problems';
import { bearerToken, readJsonBody, readOptionalJsonBody, readTextCapped } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { enforceRateLimit } from '@/lib/http/rate-limit';
import { parseBody } from '@/lib/http/validation';
import { authenticateKey } from '@/lib/credits/ledger';
import { checkOfRoute, outcomeResponse, type CheckRouteContext } from '@/lib/paid-call/http';
import { servePaidCall, type PaidCallTransport } from '@/lib/paid-call/serve';
import { observed } from '@/lib/http/observe';
import { ownReport, reportPage } from '@/lib/reports/store';
import { SIWX_HEADER, siwxChallenge, walletFromHeader } from './wallet';
import { compareReports } from '@/lib/reports/compare';
import { revokeShare, shareReport } from '@/lib/reports/share';
import { RotateBody, SignInBody, notSignedIn, readSession, rotateSessionKey, sessionCookie, sessionCookieSecure, sessionIdFromHeaders, signIn, signOut } from './index';

const NO_STORE = { 'Cache-Control': 'no-store' };

function route(name: string, handler: (runtime: Runtime) => Promise<Response>): Promise<Response> {
  return answerWithProblems({ route: name, log: (event) => getRuntime().log(event) }, () => handler(getRuntime()));
}

const secureCookies = (runtime: Runtime) => sessionCookieSecure(runtime.config);
/** The session id the request carries, under the cookie's name for this deployment. */
const sessionIdOf = (request: Request, runtime: Runtime) => sessionIdFromHeaders(request.headers, secureCookies(runtime));

/**
 * Refuses a request that changes a session from another site's page. SameSite=Strict already keeps the
 * cookie off such requests in current browsers; this is the second lock, for the rest: a browser sends
 * Origin on every cross-site POST and DELETE, so one that names any origin but APP_URL's is refused (403),
 * `Origin: null` (sandboxed frames, some redirects) included. The request's own URL is no witness: its host
 * is whatever name reached the server (a rebound DNS name, another port), so APP_URL alone says who we are.
 * Requests with no Origin (curl, server-side callers) carry no ambient cookie to abuse.
 * @example refuseForeignOrigin(request, runtime.config.APP_URL)
 */
function refuseForeignOrigin(request: Request, appUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  if (origin !== new URL(appUrl).origin) {
    throw new ProblemError('cross-origin-refused', 'This request came from another site. Sign-in, sign-out, checks and key rotation are accepted from this site\'s own pages only.');
  }
}

/**
 * The same lock for an HTML form posted by one of our pages (sign-in without JavaScript). Our pages answer with
 * `Referrer-Policy: no-referrer`, under which a browser sends `Origin: null` with a form's POST, even to its own
 * origin; so `null` passes here only when the browser also says, in `Sec-Fetch-Site` (a header no page can set), that
 * the form was on this very origin. Another site's form gets `cross-site` or `same-site` there (and `Origin: null` is
 * what its own no-referrer policy would send), so it is refused (403) as on the JSON route.
 */
function refuseForeignForm(request: Request, appUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin === 'null' && request.headers.get('sec-fetch-site') === 'same-origin') return;
  refuseForeignOrigin(request, appUrl);
}

/** The pages with a sign-in form, where a form sign-in returns to. */
const SIGN_IN_PAGES = ['/check', '/account'] as const;

/** Why a form sign-in failed, as the `sign-in` parameter of the page it returns to (the page says it in words). */
function signInRefusalCode(error: ProblemError): string {
  const { status } = error.problem;
  return status === 401 ? 'invalid-key' : status === 400 ? 'missing-key' : status === 429 ? 'rate-limited' : 'failed';
}

const isFormPost = (request: Request) => /^application\/x-www-form-urlencoded\b/i.test(request.headers.get('content-type') ?? '');

/**
 * POST /api/session: sign in with a credits key. A JSON body (the page's script) is answered with who is signed in;
 * an HTML form (the same form before or without its script: `key`, and `return`, the page it is on) is answered
 * 303 back to that page, signed in, or with `?sign-in=<why>` when it was refused, so the key never lands in an
 * address, a history entry or an access log. Both set the same session cookie.
 */
export function signInPost(request: Request): Promise<Response> {
  return route('session-sign-in', async (runtime) => {
    const { config, store } = runtime;
    const form = isFormPost(request);
    if (form) refuseForeignForm(request, config.APP_URL);
    else refuseForeignOrigin(request, config.APP_URL);
    // A form names its page in its body: read (capped) first, so a refusal can go back there. Nothing is looked up
    // before the attempt is counted.
    const fields = form ? new URLSearchParams(await readTextCapped(request, config.MAX_BODY_BYTES)) : null;
    const back = SIGN_IN_PAGES.find((page) => page === fields?.get('return')) ?? SIGN_IN_PAGES[0];
    try {
      // Each attempt is a guess at a key: counted per address before the key is looked up (a JSON body before it is read).
      const ip = clientIp(request.headers, config.TRUSTED_PROXY);
      await enforceRateLimit(store, `session-ip:${ip}`, config.RATE_LIMIT_SESSION_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, Date.now());
      const { key } = parseBody(SignInBody, fields ? { key: fields.get('key') ?? undefined } : await readJsonBody(request, config.MAX_BODY_BYTES));
      const { sessionId, answer } = await signIn(runtime, key, Date.now());
      const cookie = { 'Set-Cookie': sessionCookie(sessionId, secureCookies(runtime)) };
      if (fields) return new Response(null, { status: 303, headers: { ...NO_STORE, ...cookie, Location: back } });
      return Response.json(answer, { headers: { ...NO_STORE, ...cookie } });
    } catch (error) {
      if (!fields || !(error instanceof ProblemError)) throw error;
      return new Response(null, { status: 303, headers: { ...NO_STORE, Location: `${back}?sign-in=${signInRefusalCode(error)}` } });
    }
  });
}

/** GET /api/session: who is signed in (the masked key and the calls left), or 401. */
export function sessionGet(request: Request): Promise<Response> {
  return route('session-read', async (runtime) => {
    const session = await readSession(runtime.store, sessionIdOf(request, runtime), Date.now());
    if (!session) throw notSignedIn();
    return Response.json({ signedIn: true, callsLeft: session.callsLeft, keyPrefix: session.keyPrefix }, { headers: NO_STORE });
  });
}

/** DELETE /api/session: sign out; the session is deleted from the store and the cookie cleared. Always 204. */
export function signOutDelete(request: Request): Promise<Response> {
  return route('session-sign-out', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await signOut(runtime.store, sessionIdOf(request, runtime), Date.now());
    return new Response(null, { status: 204, headers: { ...NO_STORE, 'Set-Cookie': sessionCookie(null, secureCookies(runtime)) } });
  });
}

/**
 * POST /api/session/rotate: a new key for the signed-in one (shown once); the session follows it. An empty
 * body is enough within RECENT_SIGN_IN_MS of signing in; later the body must carry `{ "key": <current key> }`.
 */
export function rotatePost(request: Request): Promise<Response> {
  return route('session-rotate', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    const body = parseBody(RotateBody, await readOptionalJsonBody(request, runtime.config.MAX_BODY_BYTES));
    const rotated = await rotateSessionKey(runtime, sessionIdOf(request, runtime), Date.now(), body.key ?? null);
    return Response.json(rotated, { headers: NO_STORE });
  });
}

/** The site: a signed-in session pays with its key; the page sends a fresh Idempotency-Key per submission. */
const siteTransport: PaidCallTransport<Request, Response> = {
  surface: 'rest',
  async readCall(request, _check, runtime) {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    const session = await readSession(runtime.store, sessionIdOf(request, runtime), Date.now());
    if (!session) throw notSignedIn();
    const body = await readJsonBody(request, runtime.config.MAX_BODY_BYTES);
    const idempotencyKey = request.headers.get('idempotency-key');
    if (idempotencyKey === null) {
      // A page retrying a lost answer must not pay twice: each submission carries its own key.
      throw new ProblemError('invalid-idempotency-key', 'Send an Idempotency-Key header: a fresh one for each submission, the same one to retry it.', {
        errors: [{ path: 'header:Idempotency-Key', message: 'is required' }],
      });
    }
    return {
      body,
      idempotencyKey,
      idempotencyKeySource: 'header:Idempotency-Key',
      clientIp: clientIp(request.headers, runtime.config.TRUSTED_PROXY),
      bearerKey: null,
      keyHash: session.keyHash,
      credential: null,
      departure: () => request.signal,
    };
  },
  respond: (outcome) => outcomeResponse(outcome),
};

const sitePosts = new WeakMap<CheckEntry, (request: Request) => Promise<Response>>();

/**
 * POST /api/session/checks/<id>: a paid check run from the site, paid with the signed-in key through the
 * same pipeline as a Bearer call (same idempotency, charge rules and answer). Idempotency-Key is required.
 * 404 for a name no check has.
 * @example export const POST = sessionCheckPost
 */
export async function sessionCheckPost(request: Request, context: CheckRouteContext): Promise<Response> {
  const check = await checkOfRoute(context);
  if (!check) return unknownSiteCheck(request);
  let handler = sitePosts.get(check);
  if (!handler) {
    handler = observed(`session-${check.id}`, (r: Request) => servePaidCall(siteTransport, check, r));
    sitePosts.set(check, handler);
  }
  return handler(request);
}

const unknownSiteCheck = observed('session-unknown', () => problemResponse(problem('not-found', 'No check has this name.')));

/**
 * Counts one read of stored reports for the client address (RATE_LIMIT_REPORTS_PER_IP), before the key or the
 * session is looked up: each read is a store lookup and up to a whole report sent, to anyone who asks.
 */
async function countReportRead(request: Request, { config, store }: Runtime): Promise<void> {
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
  const session = await readSession(runtime.store, sessionIdOf(request, runtime), Date.now());
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
  return route('reports-list', async (runtime) => {
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

/** GET /api/reports/<id>: the stored 200 body, to the key that paid for it only (404 for anyone else). */
export function reportGet(request: Request, id: string): Promise<Response> {
  return route('report-read', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    const report = await ownReport(runtime.store, keyHash, id, Date.now());
    if (!report) throw new ProblemError('not-found', 'No report with this id belongs to this key or wallet (reports are kept 30 days by default).');
    return Response.json(report.body, { headers: NO_STORE });
  });
}

const reportNotFound = () => new ProblemError('not-found', 'No report with this id belongs to this key (reports are kept 30 days by default).');

/**
 * GET /api/reports/<id>/compare/<otherId>: two of the key's reports of one check and one target, compared (the
 * same owner rule as GET /api/reports/<id>: 404 when either is not the key's; 400 for two checks or targets).
 */
export function reportCompareGet(request: Request, id: string, otherId: string): Promise<Response> {
  return route('report-compare', async (runtime) => {
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, READ_REPORTS);
    return Response.json(await compareReports(runtime.store, keyHash, id, otherId, Date.now()), { headers: NO_STORE });
  });
}

/** POST /api/reports/<id>/share: a new public link to the key's report (any earlier link stops working). */
export function reportSharePost(request: Request, id: string): Promise<Response> {
  return route('report-share', async (runtime) => {
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
  return route('report-unshare', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await countReportRead(request, runtime);
    const keyHash = await reportOwner(request, runtime, UNSHARE_REPORT);
    if ((await revokeShare(runtime.store, keyHash, id, Date.now())) === null) throw reportNotFound();
    return new Response(null, { status: 204, headers: NO_STORE });
  });
}

/**
 * POST /api/reports/<id>/rerun: the signed-in key's report's check, run again with the input it was made from:
 * a new paid call through the site's route (one prepaid call, the page's fresh Idempotency-Key required), so it
 * answers exactly as POST /api/session/checks/<check> does, the new report in its Link header.
 */
export function reportRerunPost(request: Request, id: string): Promise<Response> {
  return route('report-rerun', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await countReportRead(request, runtime);
    const session = await readSession(runtime.store, sessionIdOf(request, runtime), Date.now());
    if (!session) throw notSignedIn();
    const report = await ownReport(runtime.store, session.keyHash, id, Date.now());
    if (!report) throw reportNotFound();
    if (report.input === null) {
      throw new ProblemError('invalid-request', 'This report was kept without the input that made it: run the check again from the check page.', {
        errors: [{ path: 'path:id', message: 'has no stored input' }],
      });
    }
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    headers.set('content-type', 'application/json');
    const again = new Request(new URL(`/api/session/checks/${report.operation}`, request.url), {
      method: 'POST', headers, body: JSON.stringify(report.input), signal: request.signal,
    });
    return sessionCheckPost(again, { params: Promise.resolve({ check: report.operation }) });
  });
}
