// The site transport of the paid-call pipeline: a check run from the /check page, paid with the signed-in
// session's key, beside the REST (http.ts) and MCP (mcp/) transports over the same pipeline.
import type { CheckEntry } from '@/lib/checks/entry';
import { ProblemError, problem, problemResponse } from '@/lib/problems';
import { readJsonBody } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { observed } from '@/lib/http/observe';
import { servePaidCall, type PaidCallTransport } from '@/lib/paid-call/serve';
import { notSignedIn, readSession, refuseForeignOrigin, sessionIdOf } from '@/lib/session';
import { countReportRead, reportNotFound } from '@/lib/reports/http';
import { ownReport } from '@/lib/reports/store';
import { checkOfRoute, outcomeResponse, type CheckRouteContext } from './http';
import { runtimeRoute } from '@/lib/http/route';

/** The site: a signed-in session pays with its key; the page sends a fresh Idempotency-Key per submission. */
const siteTransport: PaidCallTransport<Request, Response> = {
  surface: 'rest',
  async readCall(request, _check, runtime) {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    const session = await readSession(runtime.store, sessionIdOf(request, runtime.config), Date.now());
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
 * POST /api/reports/<id>/rerun: the signed-in key's report's check, run again with the input it was made from:
 * a new paid call through the site's route (one prepaid call, the page's fresh Idempotency-Key required), so it
 * answers exactly as POST /api/session/checks/<check> does, the new report in its Link header.
 */
export function reportRerunPost(request: Request, id: string): Promise<Response> {
  return runtimeRoute('report-rerun', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await countReportRead(request, runtime);
    const session = await readSession(runtime.store, sessionIdOf(request, runtime.config), Date.now());
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
