import crypto from 'node:crypto';
import { z } from 'zod';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import { getRuntime } from '@/lib/runtime';
import { authenticateKey, balance, type Balance } from '@/lib/credits/ledger';
import { usageRows, usageTable } from '@/lib/credits/audit';
import { digestsEqual, hashKey, isWellFormedKey, maskKey } from '@/lib/credits/keys';
import { keyLineage, rotateCreditsKey } from '@/lib/billing/rotate';
import { ProblemError } from '@/lib/problems';

// Signing in on the site with a credits key. The browser holds only an opaque session id (192 random
// bits) in an httpOnly, SameSite=Strict cookie (Secure and `__Host-` prefixed in production or behind an
// https APP_URL; see sessionCookieSecure); the store keeps, under the id's
// SHA-256, the key's HMAC hash and its masked form, never the key. A copy of the store cannot be replayed
// as a cookie, and the cookie says nothing about the key. Sessions last SESSION_TTL_MS from sign-in (not
// sliding); signing out deletes the record at once, and a revoked key ends its sessions at their next use.
// Rotating the key hands out a new key and locks out every other holder, so a cookie alone is not enough
// for it: the session must have signed in within RECENT_SIGN_IN_MS, or the request carries the current key.

/** The cookie's name on plain-http development, where browsers refuse a Secure cookie (Chromium's localhost aside). */
export const SESSION_COOKIE = 'pac_session';
/**
 * The cookie's name whenever it is Secure. The `__Host-` prefix makes the browser refuse the cookie unless it is
 * Secure, Path=/ and has no Domain, so a subdomain or a plain-http page can neither plant nor overwrite it; and
 * the server then reads this name only, never the plain one such a page could set.
 */
export const SECURE_SESSION_COOKIE = '__Host-pac_session';
/** A session lasts this long from sign-in, whatever happens in between (fixed, not sliding). */
export const SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * How long after signing in a session may rotate its key on the cookie alone. Later, the request must carry
 * the current key: a stolen cookie then cannot trade itself for the key, its calls and its reports.
 */
export const RECENT_SIGN_IN_MS = 5 * 60 * 1000;
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** What a signed-in session knows: the key's hash (to pay and to own reports) and how to show the key. */
export interface SessionState {
  keyHash: string;
  /** The key as it may be shown: `pac_live_…` and its last 4 characters. */
  keyPrefix: string;
  callsLeft: number;
  /** When this session signed in (epoch ms); rotating the key moves the session and keeps this time. */
  signedInAt: number;
  /** Whether the sign-in is within RECENT_SIGN_IN_MS, so the key can be rotated without sending it. */
  recentSignIn: boolean;
}

interface SessionRecord {
  keyHash: string;
  keyPrefix: string;
  /** The sign-in time: the session's expiry counts from it, and so does the rotation window. */
  createdAt: number;
}

/** The 200 body of POST and GET /api/session. */
export const SessionAnswer = z.strictObject({ signedIn: z.literal(true), callsLeft: z.number().int(), keyPrefix: z.string() });
export type SessionAnswer = z.infer<typeof SessionAnswer>;

/** The body of POST /api/session. */
export const SignInBody = z.strictObject({ key: z.string({ error: 'is required' }).trim().min(1, 'is required').max(200, 'is too long') });

/** The body of POST /api/session/rotate: the current key, required once the sign-in is older than RECENT_SIGN_IN_MS. */
export const RotateBody = z.strictObject({ key: z.string().trim().min(1, 'is required').max(200, 'is too long').optional() });

/** The 200 body of POST /api/session/rotate: the new key, shown this once. */
export const RotatedKey = z.strictObject({ key: z.string(), keyPrefix: z.string(), callsLeft: z.number().int() });

type SessionDeps = { store: Store; config: Pick<Config, 'CREDITS_KEY_SECRET' | 'NODE_ENV'> };

/**
 * Whether the session cookie is Secure (and so named `__Host-pac_session`): in production, and whenever APP_URL
 * is https. Plain-http development keeps `pac_session` without Secure, which every browser stores over http.
 * @example const secure = sessionCookieSecure(runtime.config); // false for NODE_ENV=development, APP_URL=http://localhost:3000
 */
export function sessionCookieSecure(config: Pick<Config, 'NODE_ENV' | 'APP_URL'>): boolean {
  return config.NODE_ENV === 'production' || new URL(config.APP_URL).protocol === 'https:';
}

/**
 * The session cookie's name: `__Host-pac_session` when it is Secure, else `pac_session`.
 * @example sessionCookieName(sessionCookieSecure(config)) // '__Host-pac_session' in production
 */
function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

const recordName = (sessionId: string) => `session:${crypto.createHash('sha256').update(sessionId).digest('hex')}`;

/**
 * Signs in with a credits key: a new session for it, or 401 `invalid-credits-key`.
 * @example const { sessionId, answer } = await signIn(getRuntime(), 'pac_live_…', Date.now());
 */
export async function signIn(deps: SessionDeps, key: string, now: number): Promise<{ sessionId: string; answer: SessionAnswer }> {
  const keyHash = await authenticateKey(deps.store, deps.config.CREDITS_KEY_SECRET, key);
  const sessionId = crypto.randomBytes(24).toString('base64url');
  const record: SessionRecord = { keyHash, keyPrefix: maskKey(key), createdAt: now };
  await deps.store.setRecord(recordName(sessionId), JSON.stringify(record), now, SESSION_TTL_MS);
  const { callsLeft } = await balance(deps.store, keyHash, now);
  return { sessionId, answer: { signedIn: true, callsLeft, keyPrefix: record.keyPrefix } };
}

/**
 * The live session with this id, or null (unknown, signed out, expired, or its key revoked).
 * @example const session = await readSession(store, sessionIdFromHeaders(request.headers), Date.now());
 */
export async function readSession(store: Store, sessionId: string | null, now: number): Promise<SessionState | null> {
  if (!sessionId || !SESSION_ID_PATTERN.test(sessionId)) return null;
  const raw = await store.getRecord(recordName(sessionId), now);
  if (raw === null) return null;
  const record = JSON.parse(raw) as SessionRecord;
  const key = await store.getKey(record.keyHash);
  if (!key || key.revokedAt !== null) return null;
  const { callsLeft } = await balance(store, record.keyHash, now);
  return { keyHash: record.keyHash, keyPrefix: record.keyPrefix, callsLeft, signedInAt: record.createdAt, recentSignIn: now - record.createdAt <= RECENT_SIGN_IN_MS };
}

/**
 * Signs out: the session is gone from the store at once (the cookie is cleared by the caller).
 * @example await signOut(store, sessionId, Date.now());
 */
export async function signOut(store: Store, sessionId: string | null, now: number): Promise<void> {
  if (sessionId && SESSION_ID_PATTERN.test(sessionId)) await store.takeRecord(recordName(sessionId), now);
}

/**
 * Rotates the session's key (lib/billing/rotate.ts) and moves the session to the new key; returns the
 * new key, to be shown once. The session must prove its owner: a sign-in within RECENT_SIGN_IN_MS, or the
 * current key in `currentKey`; otherwise 403 `current-key-required` and nothing changes. 401 when there is
 * no live session.
 * @example const { key } = await rotateSessionKey(getRuntime(), sessionId, Date.now(), body.key ?? null);
 */
export async function rotateSessionKey(
  deps: SessionDeps,
  sessionId: string | null,
  now: number,
  currentKey: string | null = null,
): Promise<z.infer<typeof RotatedKey>> {
  const session = await readSession(deps.store, sessionId, now);
  if (!session || !sessionId) throw notSignedIn();
  if (currentKey !== null) {
    // The session's key is live (readSession checked it), so a matching hash proves the current key.
    const matches = isWellFormedKey(currentKey) && digestsEqual(hashKey(currentKey, deps.config.CREDITS_KEY_SECRET), session.keyHash);
    if (!matches) throw currentKeyRequired('The key sent is not the key this session is signed in with. Nothing was changed.');
  } else if (!session.recentSignIn) {
    throw currentKeyRequired(
      `You signed in more than ${RECENT_SIGN_IN_MS / 60_000} minutes ago: send the current key as { "key": "pac_live_…" } to replace it, or sign in again. Nothing was changed.`,
    );
  }
  const rotated = await rotateCreditsKey({ store: deps.store, secret: deps.config.CREDITS_KEY_SECRET }, session.keyHash, now);
  // The session keeps its sign-in time and its expiry: rotating never extends a sign-in.
  const left = Math.max(1, session.signedInAt + SESSION_TTL_MS - now);
  const moved: SessionRecord = { keyHash: rotated.keyHash, keyPrefix: rotated.keyPrefix, createdAt: session.signedInAt };
  await deps.store.setRecord(recordName(sessionId), JSON.stringify(moved), now, left);
  return { key: rotated.key, keyPrefix: rotated.keyPrefix, callsLeft: session.callsLeft };
}

function currentKeyRequired(detail: string): ProblemError {
  return new ProblemError('current-key-required', detail);
}

/** The 401 for a request that needs a signed-in session (or a credits key) and has neither. */
export function notSignedIn(): ProblemError {
  return new ProblemError('not-signed-in', 'Sign in with a credits key first (POST /api/session), or send Authorization: Bearer <credits key>.');
}

/**
 * The session id a request's Cookie header carries under the cookie's name for this setting, or null.
 * @example const id = sessionIdFromHeaders(request.headers, sessionCookieSecure(config));
 */
function sessionIdFromHeaders(headers: Headers, secure: boolean): string | null {
  const name = sessionCookieName(secure);
  for (const part of (headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/**
 * The Set-Cookie value that stores a session id (or, with null, clears it). Never a Domain: the cookie stays
 * with APP_URL's host, as the `__Host-` prefix requires.
 * @example headers.append('Set-Cookie', sessionCookie(sessionId, sessionCookieSecure(config)));
 */
export function sessionCookie(sessionId: string | null, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', `Max-Age=${sessionId === null ? 0 : SESSION_TTL_MS / 1000}`];
  if (secure) attributes.push('Secure');
  return [`${sessionCookieName(secure)}=${sessionId ?? ''}`, ...attributes].join('; ');
}

/**
 * For server components and pages: the signed-in session behind `cookies()`, or null.
 * @example
 * import { cookies } from 'next/headers';
 * const session = await sessionFromCookies(await cookies()); // { keyHash, keyPrefix, callsLeft } | null
 */
export async function sessionFromCookies(
  cookieStore: { get(name: string): { value: string } | undefined },
  deps: { store: Store; config: Pick<Config, 'NODE_ENV' | 'APP_URL'> } = getRuntime(),
  now = Date.now(),
): Promise<SessionState | null> {
  return readSession(deps.store, cookieStore.get(sessionCookieName(sessionCookieSecure(deps.config)))?.value ?? null, now);
}

/** Spent calls the account page lists (and its CSV holds), newest first. */
const ACCOUNT_USAGE_LIMIT = 500;

/**
 * What the account page shows of the signed-in key: its grants, and its spent calls as the rows and the CSV
 * `npm run keys -- usage` prints. Read by the session's key hash, so after a rotation the grants are the new key's,
 * and the spent calls those of the new key and of the keys it replaced.
 * @example const { balance, usage, usageCsv } = await sessionAccount(session.keyHash);
 */
export async function sessionAccount(
  keyHash: string,
  deps: { store: Store } = getRuntime(),
  now = Date.now(),
): Promise<{ balance: Balance; usage: string[][]; usageCsv: string }> {
  const [b, lineage] = await Promise.all([balance(deps.store, keyHash, now), keyLineage(deps.store, keyHash, now)]);
  // A rotation moves grants, not the calls already spent: those of the keys before this one are listed too.
  const usage = (await Promise.all(lineage.map((hash) => deps.store.listUsage(hash, ACCOUNT_USAGE_LIMIT))))
    .flat()
    .sort((x, y) => (y.committedAt ?? 0) - (x.committedAt ?? 0))
    .slice(0, ACCOUNT_USAGE_LIMIT);
  return { balance: b, usage: usageRows(usage), usageCsv: usageTable(usage, 'csv') };
}

/**
 * The session id the request carries, under the cookie's name for this deployment.
 * @example const session = await readSession(runtime.store, sessionIdOf(request, runtime.config), Date.now());
 */
export function sessionIdOf(request: Request, config: Pick<Config, 'APP_URL' | 'NODE_ENV'>): string | null {
  return sessionIdFromHeaders(request.headers, sessionCookieSecure(config));
}

/**
 * Refuses a request that changes a session from another site's page. SameSite=Strict already keeps the
 * cookie off such requests in current browsers; this is the second lock, for the rest: a browser sends
 * Origin on every cross-site POST and DELETE, so one that names any origin but APP_URL's is refused (403),
 * `Origin: null` (sandboxed frames, some redirects) included. The request's own URL is no witness: its host
 * is whatever name reached the server (a rebound DNS name, another port), so APP_URL alone says who we are.
 * Requests with no Origin (curl, server-side callers) carry no ambient cookie to abuse.
 * @example refuseForeignOrigin(request, runtime.config.APP_URL)
 */
export function refuseForeignOrigin(request: Request, appUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin === null) return;
  if (origin !== new URL(appUrl).origin) {
    throw new ProblemError('cross-origin-refused', 'This request came from another site. Sign-in, sign-out, checks and key rotation are accepted from this site\'s own pages only.');
  }
}

/**
 * The same lock for an HTML form posted by one of our pages (sign-in, top-up and billing without JavaScript). Our pages answer with
 * `Referrer-Policy: no-referrer`, under which a browser sends `Origin: null` with a form's POST, even to its own
 * origin; so `null` passes here only when the browser also says, in `Sec-Fetch-Site` (a header no page can set), that
 * the form was on this very origin. Another site's form gets `cross-site` or `same-site` there (and `Origin: null` is
 * what its own no-referrer policy would send), so it is refused (403) as on the JSON route.
 * @example if (form) refuseForeignForm(request, config.APP_URL); else refuseForeignOrigin(request, config.APP_URL);
 */
export function refuseForeignForm(request: Request, appUrl: string): void {
  const origin = request.headers.get('origin');
  if (origin === 'null' && request.headers.get('sec-fetch-site') === 'same-origin') return;
  refuseForeignOrigin(request, appUrl);
}
