// Throughput loads for the bench sections that compare a route against the trivial one on the same server.
import autocannon from 'autocannon';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 16;
/** Slices per side in `alternating`: the measured time of each side is still DURATION in all. */
const SLICES = 5;

export interface Load { rps: number; p50: number; p99: number; non2xx: number; errors: number; statuses: Record<string, number> }

/**
 * One load of `opts` (16 connections, BENCH_SECONDS unless `opts.duration` says otherwise).
 * @example const warm = await load({ url: `${server.url}/api/health`, duration: 2 });
 */
export async function load(opts: autocannon.Options): Promise<Load> {
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  const statuses = r.statusCodeStats as unknown as Record<string, { count: number }> | undefined;
  return {
    rps: r.requests.total / (r.duration || 1),
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    statuses: Object.fromEntries(Object.entries(statuses ?? {}).map(([k, v]) => [k, v.count])),
  };
}

/**
 * Two loads measured in alternating slices (baseline, subject, baseline, …), each side BENCH_SECONDS in all.
 * Why: on a shared 2-core machine the speed drifts within seconds, and one 10 s run of each, one after the
 * other, moved the same build's ratio by ±0.1; alternating puts the drift on both sides alike.
 * @example const [baseline, paid] = await alternating({ url: health }, { url: readiness, method: 'POST', body });
 */
export async function alternating(baseline: autocannon.Options, subject: autocannon.Options): Promise<[Load, Load]> {
  const slices: [Load[], Load[]] = [[], []];
  for (let i = 0; i < SLICES; i++) {
    slices[0].push(await load({ ...baseline, duration: DURATION / SLICES }));
    slices[1].push(await load({ ...subject, duration: DURATION / SLICES }));
  }
  return [combine(slices[0]), combine(slices[1])];
}

/** Slices as one load: mean throughput, the median slice's p50, the worst p99, counts summed. */
function combine(slices: Load[]): Load {
  const sum = (pick: (l: Load) => number) => slices.reduce((n, l) => n + pick(l), 0);
  const statuses: Record<string, number> = {};
  for (const l of slices) for (const [k, v] of Object.entries(l.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return {
    rps: sum((l) => l.rps) / slices.length,
    p50: [...slices.map((l) => l.p50)].sort((a, b) => a - b)[Math.floor(slices.length / 2)]!,
    p99: Math.max(...slices.map((l) => l.p99)),
    non2xx: sum((l) => l.non2xx),
    errors: sum((l) => l.errors),
    statuses,
  };
}
