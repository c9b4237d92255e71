import { observed } from '@/lib/http/observe';
import { reportShareDelete, reportSharePost } from '@/lib/reports/http';
import { reportIdParam } from '@/lib/reports';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

type Context = { params: Promise<{ id: string }> };

/** A public link to a stored report, for its owner (Bearer key or session cookie). */
export const POST = observed('report-share', async (request: Request, context: Context): Promise<Response> => reportSharePost(request, await reportIdParam(context.params)));

/** The report's public link stops working. */
export const DELETE = observed('report-unshare', async (request: Request, context: Context): Promise<Response> => reportShareDelete(request, await reportIdParam(context.params)));
