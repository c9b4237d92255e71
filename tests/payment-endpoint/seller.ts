// A seller for the endpoint check to check: this service's own paid routes (/api/agent/<check>, /api/mcp,
// /openapi.json, /llms.txt) on the local rails, served under the host name seller.test (CHECK_HOST_MAP) with
// APP_URL http://seller.test, so its terms name the address the check calls. The CORS headers next.config.ts
// gives these paths are given here too, and a preflight is answered 204, as `next start` does.
// `tamper` wraps the handler: a seller with exactly one defect is this service with one thing changed.
import * as mcpRoute from '@/app/api/mcp/route';
import * as openapiRoute from '@/app/openapi.json/route';
import * as llmsRoute from '@/app/llms.txt/route';
import { CORS_ROUTES } from '@/lib/http/cors';
import type { Rails } from '../../scripts/rails/start';
import { agentCheckRoute } from '../support/check-routes';
import { installRailsRuntime } from '../support/rails-runtime';
import type { TestRuntime } from '../support/runtime';
import { serveWebHandler } from '../support/web-server';

const SELLER_HOST = 'seller.test';
const SELLER_ORIGIN = `http://${SELLER_HOST}`;

type Handler = (request: Request) => Promise<Response>;

export interface Seller {
  /** http://seller.test */
  origin: string;
  /** The loopback address it really listens on. */
  listening: string;
  rt: TestRuntime;
  close(): Promise<void>;
}

async function route(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  if (pathname === '/api/mcp') return request.method === 'POST' ? mcpRoute.POST(request) : mcpRoute.GET(request);
  if (pathname === '/openapi.json') return openapiRoute.GET(request);
  if (pathname === '/llms.txt') return llmsRoute.GET(request);
  const check = /^\/api\/agent\/([a-z0-9-]+)$/.exec(pathname)?.[1];
  if (check) {
    const handlers = agentCheckRoute(check);
    return request.method === 'POST' ? handlers.POST(request) : handlers.GET(request);
  }
  return new Response('not found', { status: 404 });
}

// next.config.ts `source` patterns use only `:name` (one segment) and `:name*` (the rest of the path).
const patternOf = (source: string) => new RegExp(`^${source.replace(/\/:\w+\*/g, '(?:/.*)?').replace(/:\w+/g, '[^/]+')}$`);
const corsMatchers = CORS_ROUTES.map(({ source, headers }) => {
  const pattern = patternOf(source);
  return { matches: (pathname: string) => pattern.test(pathname), headers };
});

/** What next.config.ts's `headers()` adds to an answer for this path, and Next's 204 to a preflight. */
async function withCors(request: Request, next: Handler): Promise<Response> {
  const { pathname } = new URL(request.url);
  const rule = corsMatchers.find((m) => m.matches(pathname));
  if (request.method === 'OPTIONS') {
    const headers = new Headers(rule ? rule.headers.map(({ key, value }): [string, string] => [key, value]) : []);
    return new Response(null, { status: 204, headers });
  }
  const response = await next(request);
  if (!rule) return response;
  const headers = new Headers(response.headers);
  for (const { key, value } of rule.headers) headers.set(key, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Serves this service as seller.test on `rails` until `close`; `tamper` (when given) sees every request first.
 * @example const seller = await startSeller(rails, { tamper: async (req, next) => { const res = await next(req); … } });
 */
export async function startSeller(rails: Rails, { tamper, env = {} }: { tamper?: (request: Request, next: Handler) => Promise<Response>; env?: Record<string, string> } = {}): Promise<Seller> {
  const cors = (request: Request) => withCors(request, route);
  const server = await serveWebHandler((request) => (tamper ? tamper(request, cors) : cors(request)));
  const port = Number(new URL(server.url).port);
  const previousMap = process.env.CHECK_HOST_MAP;
  process.env.CHECK_HOST_MAP = [previousMap, `${SELLER_HOST}=127.0.0.1:${port}`].filter(Boolean).join(',');
  const rt = installRailsRuntime(rails, { APP_URL: SELLER_ORIGIN, RATE_LIMIT_PER_IP: '100000', MCP_ALLOWED_HOSTS: SELLER_HOST, ...env });
  return {
    origin: SELLER_ORIGIN,
    listening: server.url,
    rt,
    close: async () => {
      await server.close();
      await rt.dispose();
      if (previousMap === undefined) delete process.env.CHECK_HOST_MAP;
      else process.env.CHECK_HOST_MAP = previousMap;
    },
  };
}

