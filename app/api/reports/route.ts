import { reportsGet } from '@/lib/session/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The key's stored reports, newest first (Bearer key or session cookie). */
export const GET = reportsGet;
