export const dynamic = 'force-dynamic';

// Liveness, and the trivial JSON baseline the benchmarks compare paid routes against.
export function GET() {
  return Response.json({ ok: true });
}
