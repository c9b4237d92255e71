import { sessionGet, signInPost, signOutDelete } from '@/lib/session/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Sign in with a credits key: sets the pac_session cookie (an opaque id, never the key). */
export const POST = signInPost;
/** The signed-in key (masked) and its calls left, or 401. */
export const GET = sessionGet;
/** Sign out: the session is deleted server-side and the cookie cleared. */
export const DELETE = signOutDelete;
