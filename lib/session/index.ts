import crypto from 'node:crypto';
import { z } from 'zod';
import type { Config } from '@/lib/config';
import type { Store } from '@/lib/store';
import { getRuntime } from '@/lib/runtime';
import { authenticateKey, balance } from '@/lib/credits/ledger';
import { maskKey } from '@/lib/credits/keys';
import { rotateCreditsKey } from '@/lib/billing/rotate';
import { ProblemError } from '@/lib/problems';

// Signing in on the site with a credits key. The browser holds only an opaque session id (192 random
// bits) in an httpOnly, SameSite=Strict cookie (Secure and `__Host-` prefixed in production or behind an
// https APP_URL; see sessionCookieSecure); the store keeps, under the id's
// SHA-256, the key's HMAC hash and its masked form, never the key. A copy of the store cannot be replayed
// as a cookie, and the cookie says nothing about the key. Sessions last SESSION_TTL_MS from sign-in (not
// sliding); signing out deletes the record at once, and a revoked key ends its sessions at their next use.

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
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/** What a signed-in session knows: the key's hash (to pay and to own reports) and how to show the key. */
export interface SessionState {
  keyHash: string;
  /** The key as it may be shown: `pac_live_…` and its last 4 characters. */
  keyPrefix: string;
  callsLeft: number;
}

interface SessionRecord {
  keyHash: string;
  keyPrefix: string;
  createdAt: number;
}

/** The 200 body of POST and GET /api/session. */
export const SessionAnswer = z.strictObject({ signedIn: z.literal(true), callsLeft: z.number().int(), keyPrefix: z.string() });
export type SessionAnswer = z.infer<typeof SessionAnswer>;

/** The body of POST /api/session. */
export const SignInBody = z.strictObject({ key: z.string({ error: 'is required' }).trim().min(1, 'is required').max(200, 'is too long') });

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
export function sessionCookieName(secure: boolean): string {
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
  return { keyHash: record.keyHash, keyPrefix: record.keyPrefix, callsLeft };
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
 * new key, to be shown once. 401 when there is no live session.
 * @example const { key } = await rotateSessionKey(getRuntime(), sessionId, Date.now());
 */
export async function rotateSessionKey(deps: SessionDeps, sessionId: string | null, now: number): Promise<z.infer<typeof RotatedKey>> {
  const session = await readSession(deps.store, sessionId, now);
  if (!session || !sessionId) throw notSignedIn();
  const raw = await deps.store.getRecord(recordName(sessionId), now);
  const record = raw === null ? null : (JSON.parse(raw) as SessionRecord);
  const rotated = await rotateCreditsKey({ store: deps.store, secret: deps.config.CREDITS_KEY_SECRET }, session.keyHash, now);
  // The session keeps its own expiry: rotating never extends a sign-in.
  const left = record ? Math.max(1, record.createdAt + SESSION_TTL_MS - now) : SESSION_TTL_MS;
  const moved: SessionRecord = { keyHash: rotated.keyHash, keyPrefix: rotated.keyPrefix, createdAt: record?.createdAt ?? now };
  await deps.store.setRecord(recordName(sessionId), JSON.stringify(moved), now, left);
  return { key: rotated.key, keyPrefix: rotated.keyPrefix, callsLeft: session.callsLeft };
}

/** The 401 for a request that needs a signed-in session (or a credits key) and has neither. */
export function notSignedIn(): ProblemError {
  return new ProblemError('not-signed-in', 'Sign in with a credits key first (POST /api/session), or send Authorization: Bearer <credits key>.');
}

/**
 * The session id a request's Cookie header carries under the cookie's name for this setting, or null.
 * @example const id = sessionIdFromHeaders(request.headers, sessionCookieSecure(config));
 */
export function sessionIdFromHeaders(headers: Headers, secure: boolean): string | null {
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
