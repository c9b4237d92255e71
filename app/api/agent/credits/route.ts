import { getRuntime } from '@/lib/runtime';
import { creditsAnswer } from '@/lib/credits/credits-endpoint';
import { answerWithProblems } from '@/lib/problems';
import { observed } from '@/lib/http/observe';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export const GET = observed('credits', (request: Request) =>
  answerWithProblems({ route: 'credits', log: (event) => getRuntime().log(event) }, async () => {
    const body = await creditsAnswer(getRuntime(), request.headers.get('authorization'));
    return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
  }),
);
