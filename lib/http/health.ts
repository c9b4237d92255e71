import { z } from 'zod';
import type { Runtime } from '@/lib/runtime';
import { STORE_UNAVAILABLE_DETAIL, problem, problemResponse } from '@/lib/problems';
import { probeRenderers } from '@/lib/checks/visibility/render/remote';
import { resolveRendererSettings } from '@/lib/checks/visibility/render/settings';

// The readiness answer of GET /api/health?ready=1: can this instance serve a paid call now? It asks the store
// one cheap question (a record read) with a short deadline, and names the payment rails this instance offers.
// A load balancer takes an instance that answers 503 here out of rotation; liveness (/api/health) stays
// dependency-free so a store outage never gets every instance restarted. With renderer servers (RENDERER_URL) it
// also says whether each answers: a renderer that is down leaves the instance ready (its checks still answer,
// their rendering `unavailable`), so it is reported, never a 503.

/** How long the store may take to answer the readiness question. */
const READY_STORE_TIMEOUT_MS = 1_500;

export const ReadyAnswer = z.strictObject({
  ok: z.literal(true),
  ready: z.literal(true),
  store: z.strictObject({ kind: z.enum(['sqlite', 'redis', 'vercel-kv']), latencyMs: z.number().nonnegative() }),
  rails: z.array(z.enum(['stripe', 'evm', 'x402'])),
  prepaidCredits: z.literal(true),
  /** Only with RENDERER_URL: each renderer server in the order configured (addresses left out). */
  renderer: z
    .strictObject({
      servers: z.array(z.strictObject({ up: z.boolean(), pages: z.number().optional(), limit: z.number().optional(), reason: z.string().optional() })),
    })
    .optional(),
});

/**
 * 200 with the store's latency, the live rails and (with RENDERER_URL) the renderer servers' state, or 503 store-unavailable (problem+json) when the store does
 * not answer within READY_STORE_TIMEOUT_MS.
 * @example const res = await readinessResponse(getRuntime()) // 200 { ok: true, ready: true, store: { kind: 'sqlite', … }, … }
 */
export async function readinessResponse(runtime: Pick<Runtime, 'store' | 'rails'>, timeoutMs = READY_STORE_TIMEOUT_MS): Promise<Response> {
  const { store, rails } = runtime;
  const live = rails?.live ?? [];
  const { mode } = resolveRendererSettings();
  const renderers = mode.on && 'remote' in mode ? probeRenderers(mode.remote, timeoutMs) : null;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
  const answered = await Promise.race([store.getRecord('health:ready', Date.now()).then(() => 'ok' as const, () => 'error' as const), timedOut]);
  clearTimeout(timer);
  if (answered !== 'ok') {
    const reason = answered === 'timeout' ? `no answer within ${timeoutMs} ms` : 'the store refused the request';
    return problemResponse(problem('store-unavailable', `${STORE_UNAVAILABLE_DETAIL} (readiness: ${reason})`, { ready: false, store: { kind: store.kind }, rails: live }), { 'Retry-After': '5' });
  }
  const latencyMs = Math.round((performance.now() - started) * 10) / 10;
  const body: z.infer<typeof ReadyAnswer> = { ok: true, ready: true, store: { kind: store.kind, latencyMs }, rails: live, prepaidCredits: true };
  if (renderers) body.renderer = { servers: await renderers };
  return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
}
