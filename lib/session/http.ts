// The HTTP side of signing in on the site: route handlers the app/ routes export as they are. Errors leave
// through lib/problems.ts (answerWithProblems), like every route. The site's paid checks are a transport
// (lib/transports/site.ts), the stored reports an API of their own (lib/reports/http.ts).
import { runtimeRoute, NO_STORE } from '@/lib/http/route';
import { readJsonBody, readOptionalJsonBody, readTextCapped } from '@/lib/http/request';
import { ProblemError } from '@/lib/problems';
import { clientIp } from '@/lib/http/client-ip';
import { enforceRateLimit } from '@/lib/rate-limit';
import { parseBody } from '@/lib/validation';
import { RotateBody, SignInBody, notSignedIn, readSession, refuseForeignForm, refuseForeignOrigin, rotateSessionKey, sessionCookie, sessionCookieSecure, sessionIdOf, signIn, signOut } from './index';

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
  return runtimeRoute('session-sign-in', async (runtime) => {
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
      const cookie = { 'Set-Cookie': sessionCookie(sessionId, sessionCookieSecure(runtime.config)) };
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
  return runtimeRoute('session-read', async (runtime) => {
    const session = await readSession(runtime.store, sessionIdOf(request, runtime.config), Date.now());
    if (!session) throw notSignedIn();
    return Response.json({ signedIn: true, callsLeft: session.callsLeft, keyPrefix: session.keyPrefix }, { headers: NO_STORE });
  });
}

/** DELETE /api/session: sign out; the session is deleted from the store and the cookie cleared. Always 204. */
export function signOutDelete(request: Request): Promise<Response> {
  return runtimeRoute('session-sign-out', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    await signOut(runtime.store, sessionIdOf(request, runtime.config), Date.now());
    return new Response(null, { status: 204, headers: { ...NO_STORE, 'Set-Cookie': sessionCookie(null, sessionCookieSecure(runtime.config)) } });
  });
}

/**
 * POST /api/session/rotate: a new key for the signed-in one (shown once); the session follows it. An empty
 * body is enough within RECENT_SIGN_IN_MS of signing in; later the body must carry `{ "key": <current key> }`.
 */
export function rotatePost(request: Request): Promise<Response> {
  return runtimeRoute('session-rotate', async (runtime) => {
    refuseForeignOrigin(request, runtime.config.APP_URL);
    const body = parseBody(RotateBody, await readOptionalJsonBody(request, runtime.config.MAX_BODY_BYTES));
    const rotated = await rotateSessionKey(runtime, sessionIdOf(request, runtime.config), Date.now(), body.key ?? null);
    return Response.json(rotated, { headers: NO_STORE });
  });
}
