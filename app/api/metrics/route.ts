import { getRuntime } from '@/lib/runtime';
import { answerWithProblems } from '@/lib/problems';
import { observed } from '@/lib/http/observe';
import { metricsResponse } from '@/lib/http/metrics-endpoint';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

// This instance's Prometheus metrics (lib/metrics.ts); each instance is scraped on its own.
export const GET = observed('metrics', (request: Request) =>
  answerWithProblems({ route: 'metrics', log: (event) => getRuntime().log(event) }, () =>
    metricsResponse(request.headers.get('authorization'), getRuntime().config.METRICS_TOKEN),
  ),
);
