import { afterEach } from 'vitest';
import { checkVisibility, type VisibilityResult } from '@/lib/checks/visibility/check';
import { startFixtureSite, type FixtureResponse, type FixtureRoute, type FixtureSite } from './fixture-site';

// The end-to-end visibility tests run the real check on a fixture site served as site.test. Apart from
// fixture-site.ts because it registers a vitest hook: the benchmarks import fixture-site.ts outside vitest.

/**
 * `run(routes)` checks https://site.test/guide on a fixture site serving `routes`, closed after each test.
 * @example const { run } = checksOnFixtureSites(); const { result } = await run(goodRoutes());
 */
export function checksOnFixtureSites(): { run(routes: Record<string, FixtureRoute>): Promise<{ result: VisibilityResult; site: FixtureSite }> } {
  const sites: FixtureSite[] = [];
  afterEach(async () => {
    while (sites.length > 0) await sites.pop()!.close();
  });
  return {
    async run(routes) {
      const site = await startFixtureSite(routes);
      sites.push(site);
      return { result: await checkVisibility('https://site.test/guide', { hostMap: site.hostMap(['site.test']) }), site };
    },
  };
}

/** The report's finding with this id, if any. */
export const findingOf = (r: VisibilityResult, id: string) => r.report.findings.find((f) => f.id === id);

/** A JSON document as a fixture route answers it. */
export const jsonRoute = (body: unknown, type = 'application/json'): FixtureResponse => ({ headers: { 'content-type': type }, body: JSON.stringify(body) });
