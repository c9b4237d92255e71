// The browser side of the site session (app/api/session): the key travels once, in a POST body, and the
// server answers with an httpOnly cookie holding an opaque session id. Nothing here stores the key.

export interface SessionState {
  signedIn: true;
  callsLeft: number;
  keyPrefix: string;
}

export interface Problem {
  status: number;
  title?: string;
  detail?: string;
  type?: string;
  errors?: Array<{ path: string; message: string }>;
}

async function problemOf(res: Response): Promise<Problem> {
  try {
    return { status: res.status, ...((await res.json()) as Omit<Problem, 'status'>) };
  } catch {
    return { status: res.status, detail: `The server answered ${res.status}.` };
  }
}

/** Why signing in failed, in words: by the refusal's code (a form sign-in comes back with it as `?sign-in=`). */
const SIGN_IN_REFUSALS: Record<string, string> = {
  'invalid-key': 'That key is not valid, or it was replaced by a newer key. Check it and try again.',
  'missing-key': 'Required: paste the credits key you were shown after payment.',
  'rate-limited': 'Too many sign-in attempts from this address. Wait a minute and try again.',
  failed: 'Signing in failed. Try again.',
};

/**
 * What to tell a person whose form sign-in came back refused (the page's `sign-in` parameter); null when it did not.
 * @example signInRefusal('invalid-key') // 'That key is not valid, or it was replaced by a newer key. Check it and try again.'
 */
export function signInRefusal(code: unknown): string | null {
  return typeof code === 'string' && Object.hasOwn(SIGN_IN_REFUSALS, code) ? SIGN_IN_REFUSALS[code] : null;
}

/** The pages with a sign-in form; a form sign-in returns to the one it was posted from. */
export type SignInPage = '/check' | '/account';

/** Signs in with a credits key; the key is then forgotten by this page. */
export async function signIn(key: string): Promise<{ ok: true; session: SessionState } | { ok: false; problem: Problem }> {
  const res = await fetch('/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key }), cache: 'no-store' });
  if (res.ok) return { ok: true, session: (await res.json()) as SessionState };
  return { ok: false, problem: await problemOf(res) };
}

export async function signOut(): Promise<boolean> {
  const res = await fetch('/api/session', { method: 'DELETE', cache: 'no-store' });
  return res.ok;
}

export type CheckOutcome =
  | { ok: true; body: unknown; callsLeft: number | null; reportPath: string | null }
  | { ok: false; problem: Problem };

/** The report page of a stored report, from the answer's `Link: </api/reports/<id>>; rel="related"`. */
export function reportPathFrom(link: string | null): string | null {
  const m = link ? /<\/api\/reports\/([A-Za-z0-9_-]+)>;\s*rel="related"/.exec(link) : null;
  return m ? `/reports/${m[1]}` : null;
}

/**
 * Runs one check with the session's key: the same paid pipeline as the API. A fresh Idempotency-Key per
 * submission: a double click or a retry of the same submission cannot spend two calls.
 */
export async function runCheck(check: string, body: unknown, idempotencyKey: string): Promise<CheckOutcome> {
  const res = await fetch(`/api/session/checks/${check}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
  if (!res.ok) return { ok: false, problem: await problemOf(res) };
  const remaining = res.headers.get('credits-remaining');
  return {
    ok: true,
    body: await res.json(),
    callsLeft: remaining !== null && /^\d+$/.test(remaining) ? Number(remaining) : null,
    reportPath: reportPathFrom(res.headers.get('link')),
  };
}

export function newIdempotencyKey(): string {
  return `site-${crypto.randomUUID()}`;
}
