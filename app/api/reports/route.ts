import { observed } from '@/lib/http/observe';
import { reportsGet } from '@/lib/reports/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The key's stored reports, newest first (Bearer key or session cookie). */
export const GET = observed('reports', reportsGet);
