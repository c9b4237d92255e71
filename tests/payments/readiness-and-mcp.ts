// The readiness route and /api/mcp served on one local port over the local rails: what the x402 client tests pay,
// over REST and over MCP, with the same runtime behind both.
import * as mcpRoute from '@/app/api/mcp/route';
import type { Rails } from '../../scripts/rails/start';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime } from '../support/rails-runtime';
import type { TestRuntime } from '../support/runtime';
import { serveWebHandler } from '../support/web-server';

export interface ReadinessAndMcp {
  /** The server's origin (also APP_URL). */
  origin: string;
  /** POST /api/agent/readiness on it. */
  url: string;
  rt: TestRuntime;
  close(): Promise<void>;
}

/**
 * Serves POST /api/agent/readiness and /api/mcp over `rails` until `close`.
 * @example const site = await serveReadinessAndMcp(rails); await fetch(site.url, { method: 'POST', body });
 */
export async function serveReadinessAndMcp(rails: Rails): Promise<ReadinessAndMcp> {
  const { POST: readiness } = agentCheckRoute('readiness');
  const server = await serveWebHandler((request) => {
    if (new URL(request.url).pathname === '/api/mcp') return (request.method === 'POST' ? mcpRoute.POST : mcpRoute.GET)(request);
    return readiness(request);
  });
  const rt = installRailsRuntime(rails, { APP_URL: server.url, RATE_LIMIT_PER_IP: '100000' });
  return {
    origin: server.url,
    url: `${server.url}/api/agent/readiness`,
    rt,
    close: async () => {
      await server.close();
      await rt.dispose();
    },
  };
}
