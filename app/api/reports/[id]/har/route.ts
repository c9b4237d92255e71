import { observed } from '@/lib/http/observe';
import { reportHarGet } from '@/lib/reports/http';
import { reportIdParam } from '@/lib/reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A stored report's requests as a HAR 1.2 file, to the key or wallet that paid for it. */
export const GET = observed('report-har', async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> =>
  reportHarGet(request, await reportIdParam(context.params)),
);
