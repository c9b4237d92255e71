import { answerWithProblems } from '@/lib/problems';
import { getRuntime, type Runtime } from '@/lib/runtime';

/** What every JSON answer about a key, a session or a report says to caches: never keep it. */
export const NO_STORE = { 'Cache-Control': 'no-store' };

/**
 * Runs a route's work with the process's runtime, every error leaving through the one error exit
 * (lib/problems.ts `answerWithProblems`), logged under `name`.
 * @example export function GET() { return runtimeRoute('reports-list', async (runtime) => Response.json(await list(runtime))); }
 */
export function runtimeRoute(name: string, handler: (runtime: Runtime) => Promise<Response>): Promise<Response> {
  return answerWithProblems({ route: name, log: (event) => getRuntime().log(event) }, () => handler(getRuntime()));
}
