import { observed } from '@/lib/http/observe';
import { reportCompareGet } from '@/lib/reports/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** Two stored reports of one check and target, compared (Bearer key or session cookie). */
export const GET = observed('report-compare', async (request: Request, context: { params: Promise<{ id: string; otherId: string }> }): Promise<Response> => {
  const ids = await context.params.then((p) => p, () => ({ id: '', otherId: '' }));
  return reportCompareGet(request, ids.id, ids.otherId);
});
