import { observed } from '@/lib/http/observe';
import { reportGet } from '@/lib/reports/http';
import { reportIdParam } from '@/lib/reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A stored report's 200 body, to the key that paid for it (Bearer key or session cookie). */
export const GET = observed('report', async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> =>
  reportGet(request, await reportIdParam(context.params)),
);
