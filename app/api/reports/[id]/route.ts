import { reportGet } from '@/lib/session/http';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** A stored report's 200 body, to the key that paid for it (Bearer key or session cookie). */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  return reportGet(request, (await context.params).id);
}
