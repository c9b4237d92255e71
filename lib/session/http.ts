// The HTTP side of signing in on the site: route handlers the app/ routes export as they are. Errors leave
// through lib/problems.ts (answerWithProblems), like every route. The site's paid checks are a transport
// (lib/transports/site.ts), the stored reports an API of their own (lib/reports/http.ts).
import { runtimeRoute, NO_STORE } from '@/lib/http/route';
import { readJsonBody, readOptionalJsonBody } from '@/lib/http/request';
import { clientIp } from '@/lib/http/client-ip';
import { enforceRateLimit } from '@/lib/http/rate-limit';
import { parseBody } from '@/lib/http/validation';
import { RotateBody, SignInBody, notSignedIn, readSession, refuseForeignOrigin, rotateSessionKey, sessionCookie, sessionCookieSecure, sessionIdOf, signIn, signOut } from './index';

/** POST /api/session: sign in with a credits key in the JSON body. */
export function signInPost(request: Request): Promise<Response> {
  return runtimeRoute('session-sign-in', async (runtime) => {
    const { config, store } = runtime;
    refuseForeignOrigin(request, config.APP_URL);
    // Each attempt is a guess at a key: counted per address before the body is read.
    const ip = clientIp(request.headers, config.TRUSTED_PROXY);
    await enforceRateLimit(store, `session-ip:${ip}`, config.RATE_LIMIT_SESSION_PER_IP, config.RATE_LIMIT_WINDOW_SECONDS * 1000, Date.now());
    const { key } = parseBody(SignInBody, await readJsonBody(request, config.MAX_BODY_BYTES));
    const { sessionId, answer } = await signIn(runtime, key, Date.now());
    return Response.json(answer, { headers: { ...NO_STORE, 'Set-Cookie': sessionCookie(sessionId, sessionCookieSecure(runtime.config)) } });
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
