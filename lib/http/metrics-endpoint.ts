import crypto from 'node:crypto';
import { metrics } from '@/lib/metrics';
import { problem, problemResponse } from '@/lib/problems';

// GET /api/metrics: this instance's Prometheus metrics, for whoever holds METRICS_TOKEN. Unset, the route does
// not exist (404): metrics name operations, rails and error rates, which are nobody else's business.

/** The Prometheus text exposition media type prom-client writes. */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * 404 when `token` is unset, 401 without `Authorization: Bearer <token>`, else 200 with the metrics text.
 * @example await metricsResponse(request.headers.get('authorization'), config.METRICS_TOKEN)
 */
export async function metricsResponse(authorization: string | null, token: string | undefined): Promise<Response> {
  if (!token) return problemResponse(problem('not-found', 'Metrics are disabled on this server (METRICS_TOKEN is not set).'));
  const presented = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? '';
  if (!sameSecret(presented, token)) {
    return problemResponse(problem('unauthorized', 'Send Authorization: Bearer <METRICS_TOKEN>.'), { 'WWW-Authenticate': 'Bearer realm="metrics"' });
  }
  const { registry } = metrics();
  return new Response(await registry.metrics(), { headers: { 'Content-Type': METRICS_CONTENT_TYPE, 'Cache-Control': 'no-store' } });
}

// Compared as digests so neither the length nor a common prefix of the token leaks through timing.
function sameSecret(presented: string, token: string): boolean {
  const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
  return crypto.timingSafeEqual(digest(presented), digest(token));
}
