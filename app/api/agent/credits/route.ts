import { getRuntime } from '@/lib/runtime';
import { creditsAnswer } from '@/lib/credits/credits-endpoint';
import { problemResponse } from '@/lib/http/problem';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET(request: Request) {
  const answer = await creditsAnswer(getRuntime(), request.headers.get('authorization'));
  if ('problem' in answer) return problemResponse(answer.problem, answer.headers);
  return Response.json(answer.body, { status: answer.status, headers: { 'Cache-Control': 'no-store', ...answer.headers } });
}
