import { observed } from '@/lib/http/observe';
import { reportRerunPost } from '@/lib/transports/site';
import { reportIdParam } from '@/lib/reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** The report's check again, with its stored input: a new paid call for the signed-in key. */
export const POST = observed('report-rerun', async (request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> =>
  reportRerunPost(request, await reportIdParam(context.params)),
);
