// DNS rebinding defence for the MCP endpoint. A page on evil.example whose name an attacker points at this
// server's address makes the browser send requests here with `Host: evil.example`; on a server reachable only
// inside a network (a laptop, an intranet), that hands the page whatever the network can reach. The MCP
// specification requires servers to refuse them, and its conformance suite sends exactly that. The defence is the
// Host header: every honest request names the host the service is published at (APP_URL), or one the operator
// adds. Origin is not restricted: the endpoint is a public, CORS-enabled paid API that browsers of any site may
// call, and it carries no ambient credentials (no cookies; a key or a payment rides in each request).
import type { Config } from '@/lib/config';
import { answerWithProblems, problem, problemResponse, type Problem } from '@/lib/problems';
import { logEvent } from '@/lib/log';
import { getRuntime } from '@/lib/runtime';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** host[:port] as a browser sends it in Host, lowercased, with the scheme's default port left out. */
function hostOf(url: URL): string {
  return url.host.toLowerCase();
}

/** A Host value as URL.host writes it (lowercase, no default port); unreadable values stay as sent. */
function normalHost(value: string, protocol: string): string {
  try {
    return hostOf(new URL(`${protocol}//${value.trim()}`));
  } catch {
    return value.trim().toLowerCase();
  }
}

/** The loopback name of `host` made neutral: localhost, 127.0.0.1 and [::1] on one port are the same listener. */
function loopbackNeutral(host: string): string {
  const match = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/.exec(host);
  return match && LOOPBACK.has(match[1]!) ? `loopback${match[2] ?? ''}` : host;
}

/**
 * Null when `request` names a host this service is published at (APP_URL's, or one of MCP_ALLOWED_HOSTS), else
 * the 403 problem that refuses it. A request without Host is judged by its URL.
 * @example hostProblem(new Request('http://127.0.0.1:3000/api/mcp', { headers: { host: 'evil.example' } }), config)?.status // 403
 */
export function hostProblem(request: Request, config: Pick<Config, 'APP_URL' | 'MCP_ALLOWED_HOSTS'>): Problem | null {
  const app = new URL(config.APP_URL);
  const named = normalHost(request.headers.get('host') ?? new URL(request.url).host, app.protocol);
  const allowed = new Set([hostOf(app), ...(config.MCP_ALLOWED_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean)].map(loopbackNeutral));
  if (allowed.has(loopbackNeutral(named))) return null;
  return problem('wrong-host', `This MCP endpoint answers at ${hostOf(app)}; a request naming another host (${named.slice(0, 100)}) is refused as a possible DNS rebinding.`);
}

/**
 * `handler` answering only at this service's own host names (hostProblem); any other Host gets the 403.
 * @example export const POST = observed('mcp', atOwnHost(handleMcpRequest));
 */
export function atOwnHost(handler: (request: Request) => Promise<Response>): (request: Request) => Promise<Response> {
  return (request) =>
    answerWithProblems({ route: 'mcp', log: logEvent }, () => {
      const refused = hostProblem(request, getRuntime().config);
      return refused ? problemResponse(refused) : handler(request);
    });
}
